/**
 * What values each metric of summary.json can take, written once: the sweep's intervals across
 * replications (`boundedMetricStats`), the report's axes and tables and `tune`'s bounds
 * (`src/report/metrics.ts`) all read it from here. A name is read by its last dotted segment, so a
 * window's, a workload's or a cache's metric is bounded as the run's is (`windows.after.recovered`
 * like any `recovered`).
 */

/** The values a metric can take, both ends included (`max` Infinity: no upper bound). */
export interface MetricRange {
  min: number;
  max: number;
}

/** A share of something (a success rate, a hit ratio, a share of replications): 0 to 1. */
export const FRACTION: MetricRange = { min: 0, max: 1 };
/** A count, a time, a rate per second, a ratio of counts: 0 or more. */
export const NON_NEGATIVE: MetricRange = { min: 0, max: Infinity };

/**
 * How a metric's values are bounded, which decides its interval across replications:
 * - `outcome`: a yes/no outcome of each replication, 0 or 1 (`recovered`, `truncated`); its mean is
 *   k of n replications and its interval the Wilson score interval;
 * - `fraction`: a share within each replication, in [0, 1] (`successRate`, `hitRatio`); the Student-t
 *   interval of its mean, clipped to [0, 1];
 * - `non-negative`: every other metric (counts, times, rates, ratios of counts, utilisation, which a
 *   capacity window can push past 1); the Student-t interval clipped at 0, and a goodput's also at the
 *   offered rate ({@link goodputCap}).
 */
export type MetricScale = 'outcome' | 'fraction' | 'non-negative';

/** Last segments of the metrics that are 0 or 1 in each replication. */
const OUTCOME_FIELDS: ReadonlySet<string> = new Set(['recovered', 'truncated']);
/** Last segments of the metrics that are a share in [0, 1] within each replication. */
const FRACTION_FIELDS: ReadonlySet<string> = new Set(['successRate', 'hitRatio']);
/** Last segment of a goodput (operations that succeed per second), which cannot exceed the offered rate. */
const GOODPUT_FIELD = 'goodputPerSec';
/** Last segment of the success rate beside a goodput, from which the offered rate is read. */
const SUCCESS_RATE_FIELD = 'successRate';

/**
 * Fewer replications than this and an interval rests on few runs: the Student-t quantile of 2 runs is
 * 12.7 (against 1.96 for many), the Wilson interval of 2 of 2 is [0.34, 1], and the report marks every
 * such interval so.
 */
export const FEW_RUNS = 5;

/** Whether an interval over `n` replications rests on few runs (fewer than {@link FEW_RUNS}, and more than one). */
export function restsOnFewRuns(n: number): boolean {
  return n > 1 && n < FEW_RUNS;
}

function lastSegment(name: string): string {
  const i = name.lastIndexOf('.');
  return i < 0 ? name : name.slice(i + 1);
}

/** How the metric `name` is bounded (see {@link MetricScale}). */
export function metricScale(name: string): MetricScale {
  const last = lastSegment(name);
  if (OUTCOME_FIELDS.has(last)) return 'outcome';
  if (FRACTION_FIELDS.has(last)) return 'fraction';
  return 'non-negative';
}

/** The values the metric `name` can take: [0, 1] for an outcome or a fraction, else [0, Infinity). */
export function metricRange(name: string): MetricRange {
  return metricScale(name) === 'non-negative' ? NON_NEGATIVE : FRACTION;
}

/** Whether the metric `name` is a yes/no outcome per replication (its mean is k of n runs). */
export function isOutcomeMetric(name: string): boolean {
  return metricScale(name) === 'outcome';
}

/**
 * The name of the success rate measured beside the goodput `name` (`windows.after.goodputPerSec` ->
 * `windows.after.successRate`), or null when `name` is not a goodput.
 */
export function goodputSuccessRate(name: string): string | null {
  return lastSegment(name) === GOODPUT_FIELD ? name.slice(0, name.length - GOODPUT_FIELD.length) + SUCCESS_RATE_FIELD : null;
}

/**
 * The rate a goodput cannot exceed across these replications: the largest offered rate of any of
 * them, each read as goodput / success rate (operations succeeded per second over succeeded per
 * operation offered: operations offered per second), and never below the largest goodput observed (a
 * window's successes may include operations offered before it started, so its quotient is an
 * estimate). Replications without both numbers, or with a success rate of 0, tell nothing; with none
 * left the cap is Infinity. `goodput` and `successRate` are given per replication, in the same order
 * (null where a replication lacks one).
 */
export function goodputCap(goodput: ReadonlyArray<number | null>, successRate: ReadonlyArray<number | null>): number {
  let cap = -Infinity;
  let known = false;
  for (let i = 0; i < goodput.length; i++) {
    const g = goodput[i];
    const s = successRate[i];
    if (g === null || g === undefined) continue;
    cap = Math.max(cap, g);
    if (s !== null && s !== undefined && s > 0) {
      cap = Math.max(cap, g / s);
      known = true;
    }
  }
  return known ? cap : Infinity;
}
