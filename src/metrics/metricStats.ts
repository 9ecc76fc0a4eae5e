import { mean, sampleStandardDeviation } from 'simple-statistics';
import { studentTQuantile } from './studentT.js';

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
 * {@link studentTQuantile}); with one replication it collapses to the mean. The sweep's summaries
 * and `check --simulate` both report it.
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
