import { goodputCap, goodputSuccessRate } from '../metrics/metricBounds.js';
import { boundedMetricStats, type MetricStats } from '../metrics/metricStats.js';

export { metricStats, type MetricStats } from '../metrics/metricStats.js';

/**
 * Statistics of every metric present in the replications (a metric absent from some is computed over
 * the others), each interval within what the metric can take (`boundedMetricStats`: a yes/no outcome's
 * is the Wilson interval, a share's and a count's are clipped to their range, and a goodput's also to
 * the offered rate of its replications, read from the success rate beside it).
 */
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
    const rate = goodputSuccessRate(k);
    const cap = rate === null ? Infinity : goodputCap(reps.map((r) => r[k] ?? null), reps.map((r) => r[rate] ?? null));
    out[k] = boundedMetricStats(k, vals, cap);
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
