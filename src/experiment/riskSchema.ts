import { z } from 'zod';
import { fields as f } from '../policy/schema/fields.js';
import { doc } from '../policy/schema/schemaDocs.js';

/**
 * The metrics of a running model that `retrystorm risk` can watch, each read at the points of the
 * check grid (`checkEveryMs`), all "larger is nearer the collapse" except `goodput` and `hitRatio`:
 * - `inFlight`: requests at the service now, queued or in service (a stack run: at its leaf);
 * - `queued`: requests waiting in the service's queues now;
 * - `utilization`: the service's busy workers over its workers now (0 to 1);
 * - `missRatio`: the cache's misses over its lookups in the last `windowMs` (1 minus the hit ratio);
 * - `hitRatio`: the cache's hits over its lookups in the last `windowMs`;
 * - `retryShare`: the retries among the requests that reached the service in the last `windowMs`;
 * - `goodput`: the operations that succeeded over the operations started (the demand) in the last
 *   `windowMs`, at the entry.
 */
export const RISK_METRICS = ['inFlight', 'queued', 'utilization', 'missRatio', 'hitRatio', 'retryShare', 'goodput'] as const;
/** A metric a risk estimate watches: see {@link RISK_METRICS}. */
export type RiskMetric = (typeof RISK_METRICS)[number];

/** The metrics that are read over a window of time (`windowMs`) rather than at an instant. */
export const WINDOWED_RISK_METRICS: ReadonlySet<RiskMetric> = new Set(['missRatio', 'hitRatio', 'retryShare', 'goodput']);
/** The metrics whose larger values are farther from the collapse: not an importance (levels rise toward the collapse). */
export const DECREASING_RISK_METRICS: ReadonlySet<RiskMetric> = new Set(['hitRatio', 'goodput']);

/** The estimators of `retrystorm risk`: adaptive multilevel splitting, fixed-level splitting, plain Monte Carlo. */
export const RISK_METHODS = ['adaptive', 'fixed', 'monte-carlo'] as const;

const probeFields = {
  metric: doc(f.oneOf(RISK_METRICS), 'inFlight, queued, utilization (a service, now); missRatio, hitRatio (a cache), retryShare (a service), goodput (the entry): over the last windowMs.'),
  service: doc(f.nonEmptyString().optional(), 'The service of inFlight, queued, utilization and retryShare in a graph (default: the entry service; a stack run has one).'),
  cache: doc(f.nonEmptyString().optional(), 'The cache of missRatio and hitRatio: a shared tier\'s name, or "<service>.<name>" of a call\'s own cache (its name among the service\'s caches, as in the results; required when the graph has more than one).'),
  windowMs: doc(f.number('> 0').optional(), 'For missRatio, hitRatio, retryShare and goodput: the window they are measured over, a multiple of checkEveryMs (default: checkEveryMs).'),
};

/** What a risk estimate places its levels on: a metric of the running model, larger nearer the collapse. */
export const riskImportanceSchema = doc(
  f.object(probeFields),
  'The importance: the metric the levels are placed on (inFlight, queued, utilization, missRatio or retryShare; larger is nearer the collapse).',
  'RiskImportance',
);

/** The collapse: a metric past a threshold at every check for a duration. */
export const riskCollapseSchema = doc(
  f.object({
    ...probeFields,
    above: doc(f.number('finite').optional(), 'The collapse holds while the metric is > above.'),
    below: doc(f.number('finite').optional(), 'The collapse holds while the metric is < below.'),
    forMs: doc(f.number('>= 0'), 'For this long without a break (0: at one check), at every check of the grid.'),
  }),
  'The rare event: the metric past the threshold (above or below) at every check for forMs, e.g. goodput below 0.5 for 10,000 ms.',
  'RiskCollapse',
);

/** The `risk` section of an experiment file: what `retrystorm risk` estimates, and how. */
export const riskSchema = doc(
  f.object({
    importance: riskImportanceSchema,
    collapse: riskCollapseSchema,
    checkEveryMs: doc(
      f.number('>= 0'),
      'The check grid: the importance and the collapse are read at every multiple of it (0: after every event, for instant metrics only).',
    ),
    absorbBelow: doc(
      f.number('finite').optional(),
      'A trajectory whose importance has reached this value and then falls below it is over (absorbed: it cannot matter any more), e.g. 1 for an empty system.',
    ),
    method: doc(f.oneOf(RISK_METHODS).optional(), 'adaptive (adaptive multilevel splitting; default), fixed (fixed-level splitting at levels) or monte-carlo.'),
    levels: doc(f.array(f.number('finite'), 'levels', 1).optional(), 'The importance levels of fixed-level splitting, ascending (required by fixed).'),
    particles: doc(f.integer('an integer >= 2', 2).optional(), 'Particles of adaptive splitting, or trajectories per level of fixed-level splitting.'),
    repetitions: doc(f.integer('an integer >= 2', 2).optional(), 'Independent repetitions; the 95% interval is over them.'),
    killCount: doc(f.positiveInt().optional(), 'Particles adaptive splitting discards at least per iteration.'),
    importanceStep: doc(f.number('> 0').optional(), 'The grid the importance is rounded down to in adaptive splitting (1 for counts).'),
    runs: doc(f.positiveInt().optional(), 'Runs of monte-carlo (required by monte-carlo).'),
  }),
  'What `retrystorm risk` estimates: P(collapse within the horizon), the horizon being the scenario\'s horizonMs; `run` ignores it.',
);

/** The `risk` section after validation. */
export type RiskSection = z.output<typeof riskSchema>;
/** What the levels are placed on. */
export type RiskImportance = z.output<typeof riskImportanceSchema>;
/** The collapse condition. */
export type RiskCollapse = z.output<typeof riskCollapseSchema>;
