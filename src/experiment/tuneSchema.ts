import { z } from 'zod';
import { fields as f } from '../policy/schema/fields.js';
import { doc } from '../policy/schema/schemaDocs.js';

/** Default number of Latin-hypercube candidates of round 0 (`--candidates`). */
export const DEFAULT_TUNE_CANDIDATES = 32;
/** Default bound on the runs a search may start (`--max-runs`). */
export const DEFAULT_TUNE_MAX_RUNS = 4000;

function rangeChecked<T extends z.ZodObject>(schema: T, positive: boolean) {
  return schema.superRefine((range: { min?: unknown; max?: unknown }, ctx) => {
    const { min, max } = range as { min: number; max: number };
    if (positive && !(min > 0)) {
      ctx.addIssue({ code: 'custom', path: ['min'], message: `must be > 0 on a log scale (got ${min})`, input: min });
    }
    if (min > max) {
      ctx.addIssue({ code: 'custom', path: ['min'], message: `must be <= max (got ${min} > ${max})`, input: min, params: { related: [['max']] } });
    }
  });
}

/**
 * `free` of a dimension keyed by a layer selector: one dimension per matched layer (named by the
 * layer's full path) instead of one value shared by every matched layer.
 */
const free = doc(
  f.boolean().optional(),
  'With a layer selector as the key: one dimension per matched layer, named by its full path (default false: one value shared by every matched layer).',
);

const intRange = doc(
  rangeChecked(f.object({ kind: z.literal('int'), min: f.integer('an integer'), max: f.integer('an integer'), free }), false),
  'Integers min, min + 1, ..., max.',
);
const linearRange = doc(
  rangeChecked(f.object({ kind: z.literal('linear'), min: f.number('finite'), max: f.number('finite'), free }), false),
  'Any number in [min, max], drawn uniformly.',
);
const logRange = doc(
  rangeChecked(f.object({ kind: z.literal('log'), min: f.number('> 0'), max: f.number('> 0'), free }), true),
  'Any number in [min, max] (min > 0), drawn uniformly on a log scale.',
);
const choiceDimension = doc(
  f.object({ kind: z.literal('choice'), values: f.array(z.unknown(), 'values', 1), free }),
  'One of the listed values (in this order: a neighbour is the adjacent entry).',
);

/** One dimension of a search space: an integer, linear or log-scaled range, or a list of choices. */
export const tuneDimensionSchema = doc(
  f.choice('kind', ['int', 'linear', 'log', 'choice'], [intRange, linearRange, logRange, choiceDimension]),
  'int: integers in [min, max]; linear: numbers in [min, max]; log: numbers in [min, max] on a log scale; choice: one of values. free (with a layer selector): one dimension per matched layer.',
  'TuneDimension',
);

const metricTarget = {
  metric: doc(f.nonEmptyString(), 'A metric of summary.json (`amplification`, `successRate`, `operationMs.p99`...).'),
  part: doc(f.nonEmptyString().optional(), 'Only this part (default: every part).'),
  window: doc(f.nonEmptyString().optional(), 'Only this named metric window of the part (`metrics.windows`).'),
};

/** An objective of a search: a metric to minimise or maximise. */
export const tuneObjectiveSchema = doc(
  f.object({
    ...metricTarget,
    goal: doc(f.oneOf(['minimize', 'maximize']), 'minimize or maximize.'),
    tolerance: doc(
      f.number('> 0').optional(),
      'Absolute difference under which two candidates count as equivalent (default: 1% of the leader\'s mean; required for metrics that can be 0, and for rates).',
    ),
  }),
  'A metric to minimise or maximise; without part, the mean over the parts of each replication.',
);

/** A constraint of a search: a metric's bound(s). */
export const tuneConstraintSchema = doc(
  f
    .object({
      ...metricTarget,
      min: doc(f.number('finite').optional(), 'The metric must be >= min.'),
      max: doc(f.number('finite').optional(), 'The metric must be <= max.'),
    })
    .superRefine((c, ctx) => {
      if (c.min === undefined && c.max === undefined) {
        ctx.addIssue({ code: 'custom', path: ['min'], message: 'or max is required (a constraint bounds its metric)', input: undefined });
      } else if (c.min !== undefined && c.max !== undefined && c.min > c.max) {
        ctx.addIssue({ code: 'custom', path: ['min'], message: `must be <= max (got ${c.min} > ${c.max})`, input: c.min, params: { related: [['max']] } });
      }
    }),
  'A bound on a metric; without part, it holds in every part.',
);

/** The `tune` section of an experiment file: what `retrystorm tune` searches, and for what. */
export const tuneSchema = doc(
  f.object({
    space: doc(
      f.record(tuneDimensionSchema, 'an object mapping dotted paths (relative to the scenario) to dimensions'),
      'Dotted path relative to the scenario (e.g. "stack.1.policy.maxAttempts"), or a layer selector (e.g. "layers[sdk].policy.maxAttempts": one value at every layer of that name, or with free: true one dimension per layer) -> its range or choices.',
    ),
    presets: doc(
      f
        .array(
          f.object({
            layer: doc(f.nonEmptyString(), 'The name of the layer whose policy each preset replaces wholesale (every layer of that name, in every stack).'),
            names: doc(f.array(f.nonEmptyString(), 'preset names', 1), 'Presets of real libraries (`retrystorm presets`).'),
          }),
          'preset groups',
        )
        .default(() => []),
      'Fixed contenders ranked beside the space, each replacing the policy of the layers of one name.',
    ),
    objectives: doc(f.array(tuneObjectiveSchema, 'objectives', 1, 2), 'One or two objectives (two give a Pareto front).'),
    constraints: doc(f.array(tuneConstraintSchema, 'constraints').default(() => []), 'Bounds the recommendation must be proven to meet.'),
    candidates: doc(f.positiveInt().default(DEFAULT_TUNE_CANDIDATES), 'Latin-hypercube candidates of round 0 (`--candidates`).'),
    maxRuns: doc(f.positiveInt().default(DEFAULT_TUNE_MAX_RUNS), 'The search stops before a round that would start more runs in all (`--max-runs`).'),
  }).superRefine((tune, ctx) => {
    if (Object.keys(tune.space).length === 0) {
      ctx.addIssue({ code: 'custom', path: ['space'], message: 'must name at least one parameter (got an empty space)', input: tune.space });
    }
  }),
  'What `retrystorm tune` searches: a space of parameters, presets, objectives and constraints.',
);

/** The `tune` section after validation, defaults filled in. */
export type TuneSection = z.output<typeof tuneSchema>;
/** One dimension of a search space. */
export type TuneDimension = z.output<typeof tuneDimensionSchema>;
/** One objective. */
export type TuneObjective = z.output<typeof tuneObjectiveSchema>;
/** One constraint. */
export type TuneConstraint = z.output<typeof tuneConstraintSchema>;
