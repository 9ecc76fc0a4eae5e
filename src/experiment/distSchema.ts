/**
 * The schema of a distribution in an experiment file (`distSchema`: a number for a constant, or an
 * object naming the distribution and its parameters), read by workloads, layers' hops, servers and
 * the graph's steps alike.
 */
import { z } from 'zod';
import type { Dist } from '../model/scenario.js';
import { between } from '../policy/schema/between.js';
import { fields as f } from '../policy/schema/fields.js';
import { doc } from '../policy/schema/schemaDocs.js';

/** Distribution names of `DistSpec` (src/engine/distributions.ts). */
export const DIST_KINDS = ['constant', 'uniform', 'exponential', 'normal', 'abs-normal', 'lognormal'] as const;

const distObject = f.choice('dist', DIST_KINDS, [
  f.object({ dist: z.literal('constant'), value: f.number('>= 0') }),
  f
    .object({ dist: z.literal('uniform'), min: f.number('>= 0'), max: f.number('>= 0') })
    .superRefine((d, ctx) => {
      if (d.max < d.min) between(ctx, ['max'], `must be >= min (got ${d.max} < ${d.min})`, d.max, [['min']]);
    }),
  f.object({ dist: z.literal('exponential'), mean: f.number('> 0') }),
  doc(
    f.object({ dist: z.literal('normal'), mean: f.number('>= 0'), sd: f.number('>= 0') }),
    'Normal(mean, sd) truncated at 0 (redrawn until >= 0).',
  ),
  doc(
    f.object({ dist: z.literal('abs-normal'), mean: f.number('>= 0'), sd: f.number('>= 0') }),
    '|Normal(mean, sd)|, as the network delay of the AWS 2015 contention study.',
  ),
  doc(
    f.object({ dist: z.literal('lognormal'), mean: f.number('> 0'), sd: f.number('>= 0') }),
    'Lognormal with the given mean and standard deviation of the value itself.',
  ),
]);

/** A distribution of a non-negative quantity; a plain number n means `{ "dist": "constant", "value": n }`. */
export const distSchema = doc(
  f.union(
    [f.number('>= 0').transform((value): Dist => ({ dist: 'constant', value })), distObject],
    'a number >= 0 or a distribution object',
  ),
  'A distribution (times in ms): a number for a constant, or { "dist": "exponential", "mean": 10 }, ...',
  'Dist',
);
