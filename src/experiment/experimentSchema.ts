import { z } from 'zod';
import { describeValue } from '../policy/schema/describeValue.js';
import { fields as f } from '../policy/schema/fields.js';
import { scenarioSchema } from './scenarioSchema.js';
import { doc } from '../policy/schema/schemaDocs.js';
import { tuneSchema } from './tuneSchema.js';
import { riskSchema } from './riskSchema.js';

/** Names of experiments and parts: lowercase letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
export const SLUG = /^[a-z0-9][a-z0-9._-]*$/;

/** The only `schemaVersion` this version reads. */
export const SCHEMA_VERSION = 1;

function slug() {
  return f.matching(SLUG, 'a lowercase slug like "aws-jitter-2015"');
}

function overridesSchema() {
  return doc(
    f.record(z.unknown(), 'an object mapping dotted paths to values'),
    'Dotted path relative to the scenario (e.g. "stack.0.policy.backoff.kind"), or a layer selector naming layers in every stack (e.g. "layers[sdk].policy.budget") -> value. Objects deep-merge, arrays and scalars replace.',
  );
}

function variantsSchema() {
  return doc(
    f.record(overridesSchema(), 'an object mapping variant names to overrides'),
    'One line per variant in the charts: name -> overrides of the scenario.',
  );
}

function axesSchema(description: string) {
  return doc(
    f.record(f.array(z.unknown(), 'values', 1), 'an object mapping dotted paths to lists of values'),
    description,
  );
}

function sweepSchema() {
  return doc(
    f
      .object({
        grid: axesSchema('Dotted path (or layer selector, e.g. "layers[sdk].policy.maxAttempts") -> values; every combination of the axes is a cell (first axis slowest).').optional(),
        zip: axesSchema('Dotted path (or layer selector) -> values, all of the same length; the axes move together.').optional(),
      })
      .superRefine((sweep, ctx) => {
        const axes = Object.entries(sweep.zip ?? {});
        const [firstKey, firstValues] = axes[0] ?? [];
        if (firstKey === undefined || firstValues === undefined) return;
        for (const [key, values] of axes.slice(1)) {
          if (values.length !== firstValues.length) {
            ctx.addIssue({
              code: 'custom',
              path: ['zip', key],
              message: `has ${values.length} values but zip.${firstKey} has ${firstValues.length} (zip axes move together and need the same length)`,
              input: values,
              params: { related: [['zip', firstKey]], depth: 2 },
            });
          }
        }
      }),
    'Parameter sweep: grid axes combine (cartesian product), zip axes move together; grid points x zip points.',
  );
}

/** A description: free text, whose `{{path}}` placeholders quote the plan that runs (descriptionText.ts). */
function descriptionSchema() {
  return doc(
    f.string().default(''),
    'What the experiment (or part) models and shows. {{path}} quotes the value at a dotted path of the plan that runs (looked up in the part, then the root, after quick mode and --set); {{path|s}} prints milliseconds in seconds.',
  );
}

function quickSchema() {
  return doc(
    f.record(z.unknown(), 'an object (a patch deep-merged in quick mode)'),
    'Patch deep-merged into this object before anything else in quick mode (e.g. { "replications": 10 }).',
  );
}

/**
 * The zod schema of an experiment file (docs/experiments.md, "Experiment files"), with `scenario` as given: the
 * full scenario schema for the JSON Schema of editors, or a plain object when scenarios are
 * validated cell by cell after overrides (expandExperiment). Rules between top-level fields
 * (scenario xor parts, unique part names) are checked by expandExperiment.
 */
export function experimentSchema<S extends z.core.SomeType>(scenario: S) {
  const part = doc(
    f.object({
      name: slug(),
      description: descriptionSchema(),
      scenario,
      variants: variantsSchema().optional(),
      sweep: sweepSchema().optional(),
      replications: doc(f.positiveInt().optional(), 'Default: the experiment\'s replications.'),
      quick: quickSchema().optional(),
      risk: doc(
        riskSchema.optional(),
        'What `retrystorm risk` estimates in this part\'s cells: replaces the experiment\'s risk section for them, whole (not merged); this part\'s quick may change it.',
      ),
      report: doc(f.record(z.unknown(), 'an object').optional(), 'Hints for this part\'s report: charts, cells, findings, practicalDifference (checked by the report builder).'),
    }),
    'One scenario of an experiment with several, with its own variants, sweep and replications.',
  );
  return f.object(
    {
      $schema: f.string().optional(),
      schemaVersion: doc(
        z
          .literal(SCHEMA_VERSION, { error: (issue) => `${describeValue(issue.input)} is not supported (this version reads ${SCHEMA_VERSION})` })
          .optional(),
        'Version of the file format (1).',
      ),
      name: doc(slug(), 'Name of the experiment: lowercase letters, digits, ".", "_", "-".'),
      description: descriptionSchema(),
      seed: doc(f.integer('an integer').default(1), 'Master seed: the same seed gives byte-identical results.'),
      scenario: doc(z.optional(scenario), 'The scenario (required unless parts are given).'),
      variants: variantsSchema().optional(),
      sweep: sweepSchema().optional(),
      replications: doc(f.positiveInt().default(1), 'Runs per cell, with seeds derived from (seed, part, parameters, replication).'),
      quick: quickSchema().optional(),
      parts: doc(f.array(part, 'parts', 1).optional(), 'Several scenarios in one experiment (instead of scenario).'),
      tune: doc(tuneSchema.optional(), 'What `retrystorm tune` searches (a space, presets, objectives, constraints); `run` ignores it.'),
      risk: doc(
        riskSchema.optional(),
        'What `retrystorm risk` estimates in every cell: P(collapse within the scenario\'s horizonMs), by splitting on snapshots of a run; one section for every part that has none of its own (variants and sweeps vary the scenario; quick and --set may change it); `run` ignores it.',
      ),
      report: doc(
        f.record(z.unknown(), 'an object').optional(),
        'Hints for the HTML report: a one-line finding, the charts (kind, metric, x axis, log scales, cells, captions), the findings table, and per metric the smallest difference called one (practicalDifference: { metric: fraction of the mean compared against }, default 0.05).',
      ),
    },
    'a JSON object',
  );
}

/** The experiment file with scenarios left as plain objects (validated per cell after overrides). */
export const experimentStructureSchema = experimentSchema(f.record(z.unknown(), 'an object'));

/** The experiment file with full scenario schemas, for the JSON Schema of editors. */
export const experimentFileSchema = doc(
  experimentSchema(scenarioSchema),
  'A retrystorm experiment: a scenario (or parts), variants, a sweep and replications.',
);

/** An experiment file after its structure was validated (scenarios still as written). */
export type ExperimentStructure = z.output<typeof experimentStructureSchema>;
