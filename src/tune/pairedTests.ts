import { metricStats, type MetricStats } from '../sweep/aggregate.js';
import { studentTQuantile } from '../metrics/studentT.js';

/**
 * Statistics of the paired differences a[r] - b[r] over the replications both have (r < min of
 * the lengths). Pairs share their common random numbers (the same replication seed), so the
 * variance of the difference is far below that of either mean.
 */
export function pairedDifference(a: readonly number[], b: readonly number[]): MetricStats {
  const n = Math.min(a.length, b.length);
  const d: number[] = [];
  for (let r = 0; r < n; r++) d.push((a[r] as number) - (b[r] as number));
  return metricStats(d);
}

/** Half-width of a Student-t interval of a mean: t * sd / sqrt(n), for a two-tailed probability. */
function halfWidth(stats: MetricStats, twoTailP: number): number {
  if (stats.n < 2) return Infinity;
  return (studentTQuantile(twoTailP, stats.n - 1) * stats.sd) / Math.sqrt(stats.n);
}

/**
 * One-sided paired Student-t test at 95% that `a` is larger than `b` (mean difference > 0): the
 * lower bound of the one-sided 95% interval of the mean difference, mean - t(0.95, n - 1) * sd /
 * sqrt(n) (the two-tailed 10% quantile), is above 0. With fewer than 2 pairs it never is.
 * Student's paired t-test (e.g. Montgomery, "Design and Analysis of Experiments", 8th ed., 2.5.1).
 */
export function pairedGreater(a: readonly number[], b: readonly number[]): boolean {
  const d = pairedDifference(a, b);
  if (d.n < 2) return false;
  return d.mean - halfWidth(d, 0.1) > 0;
}

/**
 * Equivalence by two one-sided tests at 5% (Schuirmann 1987, "A comparison of the two one-sided
 * tests procedure and the power approach for assessing the equivalence of average
 * bioavailability", J. Pharmacokinet. Biopharm. 15(6)): the two-sided 90% paired interval of
 * the mean of a - b lies within [-delta, +delta].
 */
export function pairedEquivalent(a: readonly number[], b: readonly number[], delta: number): boolean {
  const d = pairedDifference(a, b);
  if (d.n < 2) return false;
  const h = halfWidth(d, 0.1);
  return d.mean - h >= -delta && d.mean + h <= delta;
}
