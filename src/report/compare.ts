import { metricStats } from '../sweep/aggregate.js';
import { studentTQuantile } from '../metrics/studentT.js';
import type { ReportHints } from './reportHints.js';
import { metricMean, sameValue, type ReportPart } from './reportModel.js';
import type { ReportCell } from './types.js';

/**
 * The smallest difference a report calls a difference, as a fraction of the mean compared against
 * (5%): a difference beyond noise but smaller reads as no practical difference. A report's hints
 * may set it per metric (`report.practicalDifference`).
 */
export const DEFAULT_PRACTICAL_DIFFERENCE = 0.05;

/** The difference a - b of one metric between two cells, with its 95% interval when there is one. */
export interface Difference {
  /** Mean of a minus mean of b (paired: the mean of the differences, the same number). */
  mean: number;
  /** Null with fewer than two replications (or pairs): there is no interval. */
  ci95: [number, number] | null;
  /** Pairs (paired) or the smaller number of replications (unpaired). */
  n: number;
  /** Whether the interval is of paired differences (same sweep point, common random numbers). */
  paired: boolean;
}

/**
 * How a difference reads: a clearly lower, a clearly higher, within noise, beyond noise but smaller
 * than the practical threshold (`small`), or no interval to tell. Only `lower` and `higher` are
 * differences; `noise` and `small` are both no practical difference.
 */
export type Verdict = 'lower' | 'higher' | 'noise' | 'small' | 'unknown';

function values(cell: ReportCell, metric: string): Map<number, number> {
  const out = new Map<number, number>();
  const reps = cell.samples?.replications ?? [];
  const vals = cell.samples?.values[metric] ?? [];
  reps.forEach((r, i) => {
    const v = vals[i];
    if (typeof v === 'number' && Number.isFinite(v)) out.set(r, v);
  });
  return out;
}

/** Whether two cells ran on the same seeds (same part and swept parameters: common random numbers). */
export function pairable(a: ReportCell, b: ReportCell): boolean {
  return a.part === b.part && sameValue(a.params, b.params);
}

/**
 * The difference a - b of `metric`. Cells of the same sweep point share their seeds replication by
 * replication (common random numbers), so their difference is taken pair by pair (replications
 * matched by index) and its interval is the sweep's Student-t interval of the paired differences;
 * other cells give the Welch interval of two independent means (with min(n) - 1 degrees of freedom,
 * the conservative choice). Null when either cell did not measure the metric.
 */
export function difference(a: ReportCell, b: ReportCell, metric: string): Difference | null {
  const sa = a.metrics[metric];
  const sb = b.metrics[metric];
  if (!sa || !sb || typeof sa.mean !== 'number' || typeof sb.mean !== 'number' || !Number.isFinite(sa.mean) || !Number.isFinite(sb.mean)) return null;
  if (pairable(a, b) && a.samples && b.samples) {
    const va = values(a, metric);
    const vb = values(b, metric);
    const diffs: number[] = [];
    for (const [r, x] of va) {
      const y = vb.get(r);
      if (y !== undefined) diffs.push(x - y);
    }
    if (diffs.length > 0) {
      const s = metricStats(diffs);
      return { mean: s.mean, ci95: diffs.length >= 2 ? s.ci95 : null, n: diffs.length, paired: true };
    }
  }
  const mean = sa.mean - sb.mean;
  const n = Math.min(sa.n, sb.n);
  if (n < 2 || typeof sa.sd !== 'number' || typeof sb.sd !== 'number') return { mean, ci95: null, n, paired: false };
  const half = studentTQuantile(0.05, n - 1) * Math.sqrt((sa.sd * sa.sd) / sa.n + (sb.sd * sb.sd) / sb.n);
  return { mean, ci95: [mean - half, mean + half], n, paired: false };
}

/**
 * How a difference reads, the one rule every sentence, caption and claim of a report uses: a
 * difference is one only when its 95% interval excludes 0 (beyond noise) and its mean is at least
 * `practical` (a fraction, {@link DEFAULT_PRACTICAL_DIFFERENCE} by default) of `scale`, the mean
 * compared against; an interval below (above) 0 then says a is lower (higher) than b. An interval
 * that includes 0 is `noise`, one beyond noise but under the threshold `small`; without an
 * interval nothing can be told. Differences within a billionth of the values' size count as 0
 * (rounding of equal sums).
 */
export function verdict(d: Difference | null, scale = 0, practical = DEFAULT_PRACTICAL_DIFFERENCE): Verdict {
  if (!d || !d.ci95) return 'unknown';
  const eps = 1e-9 * Math.abs(scale);
  const side = d.ci95[1] < -eps ? 'lower' : d.ci95[0] > eps ? 'higher' : 'noise';
  if (side === 'noise') return side;
  return Math.abs(d.mean) < practical * Math.abs(scale) ? 'small' : side;
}

/** Whether a verdict says there is no practical difference (within noise, or beyond it but under the threshold). */
export function noPracticalDifference(v: Verdict): boolean {
  return v === 'noise' || v === 'small';
}

/** The practical threshold of a metric: the hints' `practicalDifference` for it, else {@link DEFAULT_PRACTICAL_DIFFERENCE}. */
export function practicalDifference(hints: ReportHints, metric: string): number {
  return hints.practicalDifference?.[metric] ?? DEFAULT_PRACTICAL_DIFFERENCE;
}

/** The difference a - b of a metric in a part and its {@link verdict}, against b's mean and the part's threshold for the metric. */
export function judge(part: ReportPart, a: ReportCell, b: ReportCell, metric: string): { difference: Difference | null; verdict: Verdict } {
  const d = difference(a, b, metric);
  return { difference: d, verdict: verdict(d, metricMean(b, metric) ?? 0, practicalDifference(part.hints, metric)) };
}

/** Metrics where more is better (everything else a report ranks is a cost: work, time, failures). */
const HIGHER_IS_BETTER = [/^goodputPerSec$/, /^successRate$/, /^operations\.succeeded$/, /^latencyMs\.count$/, /^windows\..+\.(goodputPerSec|successRate|recovered)$/];

/** Whether a higher value of the metric is the better one. */
export function higherIsBetter(metric: string): boolean {
  return HIGHER_IS_BETTER.some((re) => re.test(metric));
}
