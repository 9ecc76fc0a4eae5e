/**
 * The schema of a distribution in an experiment file (`distSchema`: a number for a constant, or an
 * object naming the distribution and its parameters), read by workloads, layers' hops, servers and
 * the graph's steps alike. The kinds, their texts and the rules of the empirical ones are the
 * engine's (src/engine/distributionRules.ts, src/engine/empiricalDistributions.ts).
 */
import { z } from 'zod';
import { DIST_KINDS, DIST_TEXT, type DistKind } from '../engine/distributions.js';
import {
  HISTOGRAM_DEFAULTS,
  HISTOGRAM_TAILS,
  histogramProblem,
  INF_BOUND,
  MAX_EMPIRICAL_VALUES,
  SAMPLES_DEFAULTS,
  samplesProblem,
  type DistProblem,
} from '../engine/empiricalDistributions.js';
import type { Dist } from '../model/scenario.js';
import { between } from '../policy/schema/between.js';
import { fields as f } from '../policy/schema/fields.js';
import { doc } from '../policy/schema/schemaDocs.js';

export { DIST_KINDS, INF_BOUND };

/** Reports the engine's problem with an empirical distribution at its field. */
function report(ctx: z.RefinementCtx, problem: DistProblem | null, input: unknown): void {
  if (problem !== null) between(ctx, problem.path, problem.rule, input, []);
}

/** The engine's rules are asked only of fields that parsed (a field that did not is already reported, once). */
const whenFieldsParsed = { when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0 };

const histogram = f
  .object({
    dist: z.literal('histogram'),
    le: doc(
      f.array(f.union([f.number('>= 0'), z.literal(INF_BOUND)], `a number >= 0 or "${INF_BOUND}"`), 'bounds', 1, MAX_EMPIRICAL_VALUES),
      `The buckets' upper bounds in ms, strictly increasing; the last may be "${INF_BOUND}".`,
    ),
    counts: doc(
      f.array(f.number('>= 0'), 'counts', 1, MAX_EMPIRICAL_VALUES),
      "Cumulative counts, one per bound: the observations <= each bound (a Prometheus _bucket series, counts or rates); they never decrease.",
    ),
    min: doc(f.number('>= 0').default(HISTOGRAM_DEFAULTS.min), 'Lower bound of the lowest bucket (ms).'),
    tail: doc(f.oneOf(HISTOGRAM_TAILS).default(HISTOGRAM_DEFAULTS.tail), `What the "${INF_BOUND}" bucket draws.`),
    sum: doc(f.number('>= 0').optional(), 'The sum of the observations (the _sum series), read by tail "exponential".'),
  })
  .superRefine((d, ctx) => report(ctx, histogramProblem(d), d), whenFieldsParsed);

const samples = f
  .object({
    dist: z.literal('samples'),
    values: doc(f.array(f.number('>= 0'), 'values', 1, MAX_EMPIRICAL_VALUES), 'Observed values in ms.'),
    interpolate: doc(f.boolean().default(SAMPLES_DEFAULTS.interpolate), 'Draw linearly between consecutive sorted values instead of the values themselves.'),
  })
  .superRefine((d, ctx) => report(ctx, samplesProblem(d), d), whenFieldsParsed);

const distObject = f.choice('dist', DIST_KINDS, [
  doc(f.object({ dist: z.literal('constant'), value: f.number('>= 0') }), DIST_TEXT.constant),
  doc(
    f.object({ dist: z.literal('uniform'), min: f.number('>= 0'), max: f.number('>= 0') }).superRefine((d, ctx) => {
      if (d.max < d.min) between(ctx, ['max'], `must be >= min (got ${d.max} < ${d.min})`, d.max, [['min']]);
    }),
    DIST_TEXT.uniform,
  ),
  doc(f.object({ dist: z.literal('exponential'), mean: f.number('> 0') }), DIST_TEXT.exponential),
  doc(f.object({ dist: z.literal('normal'), mean: f.number('>= 0'), sd: f.number('>= 0') }), DIST_TEXT.normal),
  doc(f.object({ dist: z.literal('abs-normal'), mean: f.number('>= 0'), sd: f.number('>= 0') }), DIST_TEXT['abs-normal']),
  doc(f.object({ dist: z.literal('lognormal'), mean: f.number('> 0'), sd: f.number('>= 0') }), DIST_TEXT.lognormal),
  doc(histogram, DIST_TEXT.histogram),
  doc(samples, DIST_TEXT.samples),
]);

/** Every kind of distribution has its schema above: a kind missing there fails to compile here. */
const EVERY_KIND_PARSED: [DistKind] extends [z.output<typeof distObject>['dist']] ? true : never = true;
void EVERY_KIND_PARSED;

/** A distribution of a non-negative quantity; a plain number n means `{ "dist": "constant", "value": n }`. */
export const distSchema = doc(
  f.union(
    [f.number('>= 0').transform((value): Dist => ({ dist: 'constant', value })), distObject],
    'a number >= 0 or a distribution object',
  ),
  'A distribution (times in ms): a number for a constant, or { "dist": "exponential", "mean": 10 }, ...',
  'Dist',
);
