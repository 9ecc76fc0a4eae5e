import { z } from 'zod';

/**
 * What the schema says about a field: a description and an id for `$defs` (the JSON Schema for
 * editors), and the field's title and unit in words (axis titles and tables of reports).
 */
export interface SchemaDoc {
  id?: string;
  description?: string;
  /** The field as the documentation names it, without unit, e.g. `Workers` for `concurrency`. */
  title?: string;
  /** The unit of its values, e.g. `ms`, `workers`; absent when it has none or its name says it (`...Ms`). */
  unit?: string;
  /** For a field of some options of a choice of kinds (`durationMs` of a rate schedule): the `kind` of each option that has it (`spike`). */
  kinds?: string[];
}

/** The value of an object schema's literal `kind` field (an option of a choice of kinds), if it has one. */
function kindOf(schema: z.core.$ZodType): string | undefined {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  if (def.type !== 'object') return undefined;
  const kind = (def.shape as Record<string, z.core.$ZodType>).kind?._zod.def as unknown as { type: string; values?: unknown[] } | undefined;
  return kind?.type === 'literal' && typeof kind.values?.[0] === 'string' ? kind.values[0] : undefined;
}

/**
 * Descriptions, titles (and `$defs` ids) of the experiment file's schemas, kept in a registry of
 * this module rather than zod's global one so that other code registering ids cannot collide with
 * them. The JSON Schema carries all of it (`title` and `description` are JSON Schema's own words).
 */
export const schemaDocs = z.registry<Omit<SchemaDoc, 'unit'>>();

/** Units of fields, apart from `schemaDocs` because JSON Schema has no keyword for a unit. */
const schemaUnits = z.registry<{ unit: string }>();

/** Attaches a description (and optionally a `$defs` id) to `schema` for the JSON Schema; returns it. */
export function doc<T extends z.core.$ZodType>(schema: T, description: string, id?: string): T {
  schemaDocs.add(schema, id === undefined ? { description } : { id, description });
  return schema;
}

/** Attaches a field's title in words and its unit to `schema` (kept beside its description); returns it. */
export function titled<T extends z.core.$ZodType>(schema: T, title: string, unit?: string): T {
  schemaDocs.add(schema, { ...schemaDocs.get(schema), title });
  if (unit !== undefined) schemaUnits.add(schema, { unit });
  return schema;
}

/** The docs met on the way into one schema, outermost first (wrappers such as optional and default). */
function docsOf(schema: z.core.$ZodType, into: SchemaDoc[], seen: Set<z.core.$ZodType>): z.core.$ZodType[] {
  // Unwraps defaults, optionals, pipes and lazies down to the schemas that hold fields (objects,
  // arrays, records, unions), collecting the docs attached at each level.
  if (seen.has(schema)) return [];
  seen.add(schema);
  const known = schemaDocs.get(schema);
  const unit = schemaUnits.get(schema);
  if (known || unit) into.push({ ...known, ...unit });
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return docsOf(def.innerType as z.core.$ZodType, into, seen);
    case 'pipe': {
      const inner = docsOf(def.in as z.core.$ZodType, into, seen);
      return inner.length > 0 ? inner : docsOf(def.out as z.core.$ZodType, into, seen);
    }
    case 'lazy':
      return docsOf((def.getter as () => z.core.$ZodType)(), into, seen);
    case 'union':
      return (def.options as z.core.$ZodType[]).flatMap((o) => docsOf(o, [], seen));
    case 'object':
    case 'array':
    case 'record':
      return [schema];
    default:
      return [];
  }
}

/** The schemas one segment of a dotted path leads to from `schema` (several through unions). */
function step(schema: z.core.$ZodType, seg: string): z.core.$ZodType[] {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  if (def.type === 'object') {
    const field = (def.shape as Record<string, z.core.$ZodType>)[seg];
    return field ? [field] : [];
  }
  if (def.type === 'array') return /^(\d+|\*)$/.test(seg) ? [def.element as z.core.$ZodType] : [];
  if (def.type === 'record') return [def.valueType as z.core.$ZodType];
  return [];
}

/**
 * The docs of each segment of a dotted path (`stack.0.policy.backoff.baseMs`; `*` for any index) into `schema`, one
 * merged entry per segment (empty where the schema says nothing), or null when the schema has no
 * such field. Through a union (a leaf's kinds) the first option that has the field answers.
 */
export function docsAlong(schema: z.core.$ZodType, path: readonly string[]): SchemaDoc[] | null {
  let here = docsOf(schema, [], new Set());
  const docs: SchemaDoc[] = [];
  for (const seg of path) {
    const next = here.flatMap((s) => step(s, seg));
    if (next.length === 0) return null;
    const kinds = here.filter((s) => step(s, seg).length > 0).map(kindOf);
    const found: SchemaDoc[] = [];
    here = [];
    for (const s of next) {
      const own: SchemaDoc[] = [];
      const holders = docsOf(s, own, new Set());
      if (found.length === 0) found.push(...own);
      here.push(...holders);
    }
    const merged = Object.assign({}, ...found.reverse()) as SchemaDoc;
    docs.push(kinds.length > 0 && kinds.every((k) => k !== undefined) ? { ...merged, kinds: kinds as string[] } : merged);
  }
  return docs;
}
