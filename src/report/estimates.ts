import { FEW_RUNS, isOutcomeMetric, restsOnFewRuns } from '../metrics/metricBounds.js';
import { formatEstimate, formatRange } from './format.js';

/**
 * How the report shows a cell's estimate of a metric, in its table and its sentences, from the
 * summary's mean and 95% interval (already within what the metric can take, `boundedMetricStats`):
 * a yes/no outcome as k of n runs (never `1 ± 6`), an interval symmetric about its mean as `± half`, one
 * that a bound cut (a Wilson interval, a clipped share or count) as the range it is, and every interval
 * over fewer than {@link FEW_RUNS} runs marked as resting on few runs.
 */

/** The numbers of an estimate the report reads (a summary's `MetricStats`, or the report's with nulls). */
export interface EstimateStats {
  n: number;
  mean: number | null;
  ci95: readonly [number | null, number | null];
}

/** An estimate as shown: the value (`1,350`, `1 of 2 runs`), its interval (`± 20`, `[0, 1,350]`, or ''), and whether it rests on few runs. */
export interface ShownEstimate {
  value: string;
  interval: string;
  few: boolean;
}

/** The mark beside an interval that rests on few runs, explained under the table that shows it. */
export const FEW_RUNS_MARK = '†';

/** Why an interval over `runs` runs (a number, or several: `2 or 3`) is marked: `rests on 2 runs, fewer than 5: read it as rough`. */
export function fewRunsText(runs: number | string): string {
  return `rests on ${runs} runs, fewer than ${FEW_RUNS}: read it as rough`;
}

/** A chart's note when its cells have fewer than {@link FEW_RUNS} replications ('' otherwise). */
export function fewRunsCaption(replications: number): string {
  return restsOnFewRuns(replications) ? `Each 95% interval drawn ${fewRunsText(replications)}.` : '';
}

/** k of n runs of a yes/no outcome whose mean over n runs is `mean`, or null when the mean is not a whole count of runs. */
export function outcomeCount(metric: string, mean: number | null, n: number): number | null {
  if (!isOutcomeMetric(metric) || mean === null || !Number.isFinite(mean) || n < 1) return null;
  const k = Math.round(mean * n);
  return Math.abs(k - mean * n) < 1e-6 ? k : null;
}

/** `k of n runs` (`1 of 2 runs`). */
export function runsText(k: number, n: number): string {
  return `${k} of ${n} run${n === 1 ? '' : 's'}`;
}

/**
 * The estimate of `metric` shown in a table or a sentence, its numbers divided by `per` (a duration's
 * unit, 1 otherwise). An interval counts as symmetric when its two halves differ by less than a
 * millionth of its width.
 */
export function showEstimate(metric: string, s: EstimateStats, per = 1): ShownEstimate {
  const k = outcomeCount(metric, s.mean, s.n);
  const [lo, hi] = s.ci95;
  const hasInterval = s.n > 1 && typeof lo === 'number' && typeof hi === 'number' && Number.isFinite(lo) && Number.isFinite(hi);
  if (k !== null) return { value: runsText(k, s.n), interval: '', few: hasInterval && restsOnFewRuns(s.n) };
  if (s.mean === null || !Number.isFinite(s.mean)) return { value: formatEstimate(null, null), interval: '', few: false };
  const mean = s.mean / per;
  if (!hasInterval || hi - lo <= 0) return { value: formatEstimate(mean, null), interval: '', few: false };
  const few = restsOnFewRuns(s.n);
  const below = s.mean - lo;
  const above = hi - s.mean;
  if (Math.abs(above - below) <= 1e-6 * (hi - lo)) {
    const [value, half] = formatEstimate(mean, (hi - lo) / 2 / per).split(' ± ');
    return { value: value ?? '', interval: half === undefined ? '' : `± ${half}`, few: few && half !== undefined };
  }
  // The mean to the precision the interval supports, as the symmetric case's.
  const value = formatEstimate(mean, (hi - lo) / 2 / per).split(' ± ')[0] ?? '';
  return { value, interval: formatRange(lo / per, hi / per), few };
}

/** The replications as a chart's tooltip gives them: `8`, or below {@link FEW_RUNS} `2: the interval rests on 2 runs, fewer than 5: read it as rough`. */
export function runsLabel(n: number): string {
  return restsOnFewRuns(n) ? `${n}: the interval ${fewRunsText(n)}` : String(n);
}
