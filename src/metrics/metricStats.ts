import { mean, sampleStandardDeviation } from 'simple-statistics';
import { metricRange, metricScale } from './metricBounds.js';
import { studentTQuantile } from './studentT.js';
import { wilsonInterval } from './wilson.js';

/** Mean, sample standard deviation and 95% confidence interval of a metric across replications. */
export interface MetricStats {
  n: number;
  mean: number;
  sd: number;
  ci95: [number, number];
}

/**
 * Statistics of one metric over replications, in replication order (so the sums, and the bytes
 * of the summary, do not depend on how the work was scheduled). The interval is the Student-t
 * interval mean +- t(0.975, n-1) * sd / sqrt(n), the quantile by Hill's Algorithm 396 (1970, see
 * {@link studentTQuantile}); with one replication it collapses to the mean. It knows nothing of the
 * values' bounds: a metric of summary.json goes through {@link boundedMetricStats}.
 */
export function metricStats(values: readonly number[]): MetricStats {
  const n = values.length;
  if (n === 0) return { n: 0, mean: NaN, sd: NaN, ci95: [NaN, NaN] };
  const m = mean(values as number[]);
  if (n === 1) return { n, mean: m, sd: 0, ci95: [m, m] };
  const sd = sampleStandardDeviation(values as number[]);
  const half = (studentTQuantile(0.05, n - 1) * sd) / Math.sqrt(n);
  return { n, mean: m, sd, ci95: [m - half, m + half] };
}

/** `[lo, hi]` clipped to `[min, max]` (each end moved inside, never past the other). */
export function clipInterval(ci: readonly [number, number], min: number, max: number): [number, number] {
  return [Math.min(max, Math.max(min, ci[0])), Math.max(min, Math.min(max, ci[1]))];
}

/**
 * Statistics of the metric `name` over replications, its interval within what the metric can take
 * (its scale, `src/metrics/metricBounds.ts`); the mean and sd are {@link metricStats}'s:
 * - a yes/no outcome (every value 0 or 1: `recovered`), k of n replications: the Wilson score
 *   interval of k/n ({@link wilsonInterval}; Wilson 1927, JASA 22:209; Newcombe 1998, Statistics in
 *   Medicine 17:857), never outside [0, 1] nor a point at 0 or n of n;
 * - a share averaged over replications (`successRate`): the Student-t interval clipped to [0, 1].
 *   Clipped rather than computed on the logit scale, because the rates of collapsed or healthy runs
 *   sit at exactly 0 or 1, where a logit needs an arbitrary continuity correction, and a rate of
 *   thousands of correlated operations in one run is not a binomial proportion; inside [0, 1] the
 *   interval is the t interval unchanged;
 * - anything else: the Student-t interval clipped at 0, and at `max` when given (a goodput's
 *   offered rate, `goodputCap` of `metricBounds.ts`).
 * With one replication the interval is the value itself, as {@link metricStats}'s (no interval).
 */
export function boundedMetricStats(name: string, values: readonly number[], max: number = Infinity): MetricStats {
  const s = metricStats(values);
  if (s.n <= 1) return s;
  const range = metricRange(name);
  if (metricScale(name) === 'outcome' && values.every((v) => v === 0 || v === 1)) {
    let k = 0;
    for (const v of values) k += v;
    return { ...s, ci95: wilsonInterval(k, s.n) };
  }
  return { ...s, ci95: clipInterval(s.ci95, range.min, Math.min(range.max, max)) };
}
