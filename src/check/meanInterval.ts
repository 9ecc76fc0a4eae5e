/** t(0.975, df) for df = 1..30 (two-sided 95%), from the Student t table. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08,
  2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** The mean of replications and its 95% Student-t confidence interval. */
export interface MeanInterval {
  n: number;
  mean: number;
  sd: number;
  ci95: [number, number];
}

/** Two-sided 95% quantile of Student's t with `df` degrees of freedom (a table to 30, then 1.96 + 2.4 / df). */
export function t975(df: number): number {
  if (df < 1) return NaN;
  return T975[df - 1] ?? 1.96 + 2.4 / df;
}

/**
 * Mean, sample standard deviation and the interval mean +- t(0.975, n - 1) x sd / sqrt(n) of a
 * set of replications (collapsed to the mean for one replication).
 */
export function meanInterval(values: readonly number[]): MeanInterval {
  const n = values.length;
  if (n === 0) return { n, mean: NaN, sd: NaN, ci95: [NaN, NaN] };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { n, mean, sd: 0, ci95: [mean, mean] };
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  const half = (t975(n - 1) * sd) / Math.sqrt(n);
  return { n, mean, sd, ci95: [mean - half, mean + half] };
}
