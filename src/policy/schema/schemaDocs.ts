import { z } from 'zod';

/** What the JSON Schema for editors says about a schema: a description, and an id for `$defs`. */
export interface SchemaDoc {
  id?: string;
  description?: string;
}

/**
 * Descriptions (and `$defs` ids) of the experiment file's schemas, kept in a registry of this
 * module rather than zod's global one so that other code registering ids cannot collide with them.
 */
export const schemaDocs = z.registry<SchemaDoc>();

/** Attaches a description (and optionally a `$defs` id) to `schema` for the JSON Schema; returns it. */
export function doc<T extends z.core.$ZodType>(schema: T, description: string, id?: string): T {
  schemaDocs.add(schema, id === undefined ? { description } : { id, description });
  return schema;
}
