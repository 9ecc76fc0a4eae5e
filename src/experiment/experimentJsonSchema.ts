import { z } from 'zod';
import { experimentFileSchema } from './experimentSchema.js';
import { schemaDocs } from '../policy/schema/schemaDocs.js';

/**
 * The JSON Schema (draft 2020-12) of experiment files, for editors, generated from the zod schema
 * of the input form (defaults shown as `default`, defaulted fields optional). Rules between fields
 * (capMs >= baseMs, ...) and the string syntax of scripts are beyond JSON Schema: the editor
 * accepts a little more than `validateExperiment`, never less. Returns plain JSON data.
 */
export function experimentJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(experimentFileSchema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
    metadata: schemaDocs,
  }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  // A scenario has a leaf, or services (a service graph): exactly one of them. It has a workload and
  // a stack, or (a service graph) named workloads, each with its own stack, instead.
  const scenarioDef = (rest.$defs as Record<string, Record<string, unknown>> | undefined)?.Scenario;
  if (scenarioDef !== undefined) {
    scenarioDef.oneOf = [{ required: ['leaf'], not: { required: ['services'] } }, { required: ['services'], not: { required: ['leaf'] } }];
    scenarioDef.required = ((scenarioDef.required as string[] | undefined) ?? []).filter((k) => k !== 'workload' && k !== 'stack');
    scenarioDef.anyOf = [
      { required: ['workload', 'stack'], not: { required: ['workloads'] } },
      { required: ['workloads', 'services'], not: { anyOf: [{ required: ['workload'] }, { required: ['stack'] }] } },
    ];
  }
  const schema: Record<string, unknown> = {
    $schema,
    title: 'retrystorm experiment',
    ...rest,
    // Exactly one of scenario and parts.
    oneOf: [{ required: ['scenario'], not: { required: ['parts'] } }, { required: ['parts'], not: { required: ['scenario'] } }],
  };
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
