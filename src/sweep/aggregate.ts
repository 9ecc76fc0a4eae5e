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
 * interval mean +- t(0.975, n-1) * sd / sqrt(n); with one replication it collapses to the mean.
 */
export function metricStats(values: number[]): MetricStats {
  const n = values.length;
  if (n === 0) return { n: 0, mean: NaN, sd: NaN, ci95: [NaN, NaN] };
  const m = mean(values);
  if (n === 1) return { n, mean: m, sd: 0, ci95: [m, m] };
  const sd = sampleStandardDeviation(values);
  const half = (studentTQuantile(0.05, n - 1) * sd) / Math.sqrt(n);
  return { n, mean: m, sd, ci95: [m - half, m + half] };
}

/** Statistics of every metric present in the replications (a metric absent from some is computed over the others). */
export function aggregateMetrics(reps: Array<Record<string, number>>): Record<string, MetricStats> {
  const names = new Set<string>();
  for (const r of reps) for (const k of Object.keys(r)) names.add(k);
  const out: Record<string, MetricStats> = {};
  for (const k of [...names].sort()) {
    const vals: number[] = [];
    for (const r of reps) {
      const v = r[k];
      if (v !== undefined) vals.push(v);
    }
    out[k] = metricStats(vals);
  }
  return out;
}

/** Element-wise mean of equally long or ragged series (shorter ones count as zero past their end). */
export function meanSeries(series: number[][]): number[] {
  const len = Math.max(0, ...series.map((s) => s.length));
  const out = new Array<number>(len).fill(0);
  for (const s of series) for (let i = 0; i < s.length; i++) out[i] = (out[i] as number) + (s[i] as number);
  return out.map((v) => v / Math.max(1, series.length));
}
