import type { Uniform } from './random.js';

// Empirical distributions: a distribution given by a histogram (Prometheus buckets) or by a list
// of observed values. Validated here once (the experiment schema asks `empiricalProblem`), compiled
// once per sampler into typed arrays, drawn with one uniform per draw.

/** How a Prometheus histogram's last bucket, above every finite bound, is written in a file. */
export const INF_BOUND = '+Inf';

/**
 * What is drawn for the observations above the highest finite bound (the `+Inf` bucket):
 * - `at-bound`: the highest finite bound itself, the value PromQL's histogram_quantile returns for
 *   a quantile in that bucket ("If a quantile is located in the highest bucket, the upper bound of
 *   the second highest bucket is returned": https://prometheus.io/docs/prometheus/latest/querying/functions/#histogram_quantile);
 * - `exponential`: the highest finite bound plus an exponential excess whose mean makes the
 *   distribution's mean equal `sum / total count` (the histogram's `_sum` over its `_count`).
 */
export const HISTOGRAM_TAILS = ['at-bound', 'exponential'] as const;

/** One of {@link HISTOGRAM_TAILS}. */
export type HistogramTail = (typeof HISTOGRAM_TAILS)[number];

/** What a histogram's optional fields mean when absent: its lowest bucket starts at 0 (as PromQL assumes), and its tail is drawn `at-bound`. */
export const HISTOGRAM_DEFAULTS = { min: 0, tail: 'at-bound' } as const satisfies { min: number; tail: HistogramTail };

/** What a list of samples' `interpolate` means when absent: draw the samples themselves. */
export const SAMPLES_DEFAULTS = { interpolate: false } as const;

/** The most bounds of a histogram, and the most values of a list of samples (each sampler holds a copy in typed arrays). */
export const MAX_EMPIRICAL_VALUES = 100_000;

/**
 * A distribution given by a Prometheus histogram (times in ms): `le` the buckets' upper bounds,
 * strictly increasing, the last one optionally `"+Inf"`; `counts` the cumulative counts of
 * observations <= each bound (a Prometheus `_bucket` series, as a count or a rate), never
 * decreasing, the last the total. The lowest bucket starts at `min` (default 0); within a bucket,
 * values are spread uniformly (linear interpolation, as histogram_quantile does); `tail` says what
 * the `+Inf` bucket's observations draw, `sum` (the `_sum` series) is read by the exponential tail.
 */
export interface HistogramDist {
  dist: 'histogram';
  le: Array<number | typeof INF_BOUND>;
  counts: number[];
  min?: number;
  tail?: HistogramTail;
  sum?: number;
}

/**
 * A distribution given by observed values (times in ms): each draw is one of `values`, each with
 * probability 1/n; with `interpolate`, the distribution whose quantile function is linear between
 * consecutive sorted values (quantile p = x(k) + (p(n-1) - k)(x(k+1) - x(k)), k = floor(p(n-1)):
 * type 7 of R. J. Hyndman and Y. Fan, "Sample Quantiles in Statistical Packages", The American
 * Statistician 50(4), 1996, R's and NumPy's default), continuous between the least and greatest value.
 */
export interface SamplesDist {
  dist: 'samples';
  values: number[];
  interpolate?: boolean;
}

/** A rule an empirical distribution breaks: the field (a path within the distribution) and the rule, e.g. `['counts', 3]`, `must be >= counts.2 ...`. */
export interface DistProblem {
  path: Array<string | number>;
  rule: string;
}

function shown(x: unknown): string {
  if (typeof x === 'number') return String(x);
  const json = JSON.stringify(x);
  return json === undefined ? String(x) : json;
}

const isFiniteNonNegative = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;

/** A list of at most {@link MAX_EMPIRICAL_VALUES} entries, at least one. */
function listProblem(field: string, x: unknown, noun: string): DistProblem | null {
  if (!Array.isArray(x)) return { path: [field], rule: `must be a list of ${noun} (got ${shown(x)})` };
  if (x.length === 0) return { path: [field], rule: `must not be empty (a list of ${noun})` };
  if (x.length > MAX_EMPIRICAL_VALUES) return { path: [field], rule: `must have at most ${MAX_EMPIRICAL_VALUES} entries (got ${x.length})` };
  return null;
}

/**
 * The first rule a histogram breaks, or null: `le` a non-empty list of numbers >= 0 strictly
 * increasing, `"+Inf"` only last, at least one finite bound; `min` >= 0 and <= the first bound;
 * `counts` as many as `le`, each a finite number >= 0, never decreasing (cumulative), the total
 * > 0; `tail` one of {@link HISTOGRAM_TAILS}; `sum` a finite number >= 0, given only with the
 * exponential tail and required by it when the `+Inf` bucket holds observations, large enough
 * that the tail's mean excess is > 0.
 */
export function histogramProblem(spec: HistogramDist): DistProblem | null {
  const { le, counts } = spec;
  const min = spec.min ?? HISTOGRAM_DEFAULTS.min;
  const tail = spec.tail ?? HISTOGRAM_DEFAULTS.tail;
  const badLe = listProblem('le', le, 'bucket upper bounds');
  if (badLe !== null) return badLe;
  for (let i = 0; i < le.length; i++) {
    const b = le[i];
    if (b === INF_BOUND) {
      if (i !== le.length - 1) return { path: ['le', i], rule: `may be "${INF_BOUND}" only as the last bound (got it before le.${i + 1})` };
      if (i === 0) return { path: ['le'], rule: `must have a finite bound below "${INF_BOUND}"` };
      continue;
    }
    if (!isFiniteNonNegative(b)) return { path: ['le', i], rule: `must be a finite number >= 0 or "${INF_BOUND}" (got ${shown(b)})` };
    const prev = i > 0 ? le[i - 1] : undefined;
    if (typeof prev === 'number' && !(b > prev)) return { path: ['le', i], rule: `must be > le.${i - 1} (bounds strictly increase; got ${b} <= ${prev})` };
  }
  if (!isFiniteNonNegative(min)) return { path: ['min'], rule: `must be a finite number >= 0 (got ${shown(min)})` };
  if (min > (le[0] as number)) return { path: ['min'], rule: `must be <= le.0, the lowest bucket's upper bound (got ${min} > ${shown(le[0])})` };
  const badCounts = listProblem('counts', counts, 'cumulative counts');
  if (badCounts !== null) return badCounts;
  if (counts.length !== le.length) return { path: ['counts'], rule: `must have one count per bound of le (got ${counts.length} counts for ${le.length} bounds)` };
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i];
    if (!isFiniteNonNegative(c)) return { path: ['counts', i], rule: `must be a finite number >= 0 (got ${shown(c)})` };
    const prev = i > 0 ? (counts[i - 1] as number) : 0;
    if (c < prev) return { path: ['counts', i], rule: `must be >= counts.${i - 1} (counts are cumulative, as Prometheus's le buckets; got ${c} < ${prev})` };
  }
  const total = counts[counts.length - 1] as number;
  if (!(total > 0)) return { path: ['counts'], rule: 'must not all be 0 (no observations to draw from)' };
  if (!(HISTOGRAM_TAILS as readonly unknown[]).includes(tail)) return { path: ['tail'], rule: `must be one of ${HISTOGRAM_TAILS.join(', ')} (got ${shown(tail)})` };
  if (tail !== 'exponential') {
    return spec.sum === undefined ? null : { path: ['sum'], rule: `is read only with tail "exponential" (got tail "${tail}")` };
  }
  if (spec.sum !== undefined && !isFiniteNonNegative(spec.sum)) return { path: ['sum'], rule: `must be a finite number >= 0 (got ${shown(spec.sum)})` };
  const parts = histogramParts(spec);
  if (parts.tailCount === 0) return null;
  const above = `${parts.tailCount} ${parts.tailCount === 1 ? 'observation' : 'observations'} above le ${parts.top}`;
  if (spec.sum === undefined) return { path: ['sum'], rule: `is required with tail "exponential" (the histogram's _sum; the "${INF_BOUND}" bucket holds ${above})` };
  if (!(parts.tailExcess > 0)) {
    return {
      path: ['sum'],
      rule:
        `must be > ${parts.finiteSum + parts.tailCount * parts.top} for an exponential tail (got ${spec.sum}): ` +
        `the buckets up to le ${parts.top} hold ${parts.finiteSum} at their midpoints, and the "${INF_BOUND}" bucket holds ${above}`,
    };
  }
  return null;
}

/**
 * The first rule a list of samples breaks, or null: `values` a non-empty list of at most
 * {@link MAX_EMPIRICAL_VALUES} finite numbers >= 0; `interpolate` true or false.
 */
export function samplesProblem(spec: SamplesDist): DistProblem | null {
  const bad = listProblem('values', spec.values, 'observed values');
  if (bad !== null) return bad;
  for (let i = 0; i < spec.values.length; i++) {
    const v = spec.values[i];
    if (!isFiniteNonNegative(v)) return { path: ['values', i], rule: `must be a finite number >= 0 (got ${shown(v)})` };
  }
  const interpolate = spec.interpolate ?? SAMPLES_DEFAULTS.interpolate;
  if (typeof interpolate !== 'boolean') return { path: ['interpolate'], rule: `must be true or false (got ${shown(interpolate)})` };
  return null;
}

/** A histogram's buckets with observations, as the sampler draws them. */
interface HistogramParts {
  /** Per bucket with observations (the `+Inf` bucket last, if it has any): its lower bound, width, probability and cumulative probability up to it. */
  start: number[];
  width: number[];
  count: number[];
  /** The highest finite bound, the observations above it and the total count. */
  top: number;
  tailCount: number;
  total: number;
  /** Sum over the finite buckets of count x midpoint. */
  finiteSum: number;
  /** The exponential tail's mean excess over `top` (NaN without `sum`). */
  tailExcess: number;
}

/** The buckets of a valid histogram that hold observations, and the quantities its mean and tail need. */
function histogramParts(spec: HistogramDist): HistogramParts {
  const { le, counts } = spec;
  const start: number[] = [];
  const width: number[] = [];
  const count: number[] = [];
  let lo = spec.min ?? HISTOGRAM_DEFAULTS.min;
  let below = 0;
  let finiteSum = 0;
  let top = lo;
  let tailCount = 0;
  for (let i = 0; i < le.length; i++) {
    const c = (counts[i] as number) - below;
    const b = le[i] as number | typeof INF_BOUND;
    if (b === INF_BOUND) {
      tailCount = c;
    } else {
      if (c > 0) {
        start.push(lo);
        width.push(b - lo);
        count.push(c);
        finiteSum += c * (lo + (b - lo) / 2);
      }
      lo = b;
      top = b;
    }
    below = counts[i] as number;
  }
  const total = below;
  const tailExcess = spec.sum === undefined || tailCount === 0 ? NaN : (spec.sum - finiteSum) / tailCount - top;
  return { start, width, count, top, tailCount, total, finiteSum, tailExcess };
}

/**
 * The exact mean of a valid histogram: each bucket's midpoint weighted by its share of the
 * observations, the `+Inf` bucket at the highest finite bound (`at-bound`) or at that bound plus
 * the tail's mean excess (`exponential`, so that the mean is `sum / total`).
 */
export function histogramMean(spec: HistogramDist): number {
  const p = histogramParts(spec);
  const tail = p.tailCount === 0 ? 0 : p.tailCount * (p.top + ((spec.tail ?? HISTOGRAM_DEFAULTS.tail) === 'exponential' ? p.tailExcess : 0));
  return (p.finiteSum + tail) / p.total;
}

/** The exact mean of valid samples: their average, or with `interpolate` the mean of the segments between consecutive sorted values, (sum - (least + greatest) / 2) / (n - 1). */
export function samplesMean(spec: SamplesDist): number {
  const xs = spec.values;
  let s = 0;
  let least = Infinity;
  let greatest = -Infinity;
  for (const x of xs) {
    s += x;
    if (x < least) least = x;
    if (x > greatest) greatest = x;
  }
  if (!(spec.interpolate ?? SAMPLES_DEFAULTS.interpolate) || xs.length === 1) return s / xs.length;
  return (s - (least + greatest) / 2) / (xs.length - 1);
}

/**
 * Whether two draws coincide with negligible probability: no bucket with observations narrower
 * than `minRelativeSpread` of its upper bound, and no observation drawn at the bound (`at-bound`
 * tail); for samples, only interpolated ones with every gap between consecutive sorted values
 * wider than `minRelativeSpread` of the greater.
 */
export function empiricalIsContinuous(spec: HistogramDist | SamplesDist, minRelativeSpread: number): boolean {
  if (spec.dist === 'histogram') {
    const p = histogramParts(spec);
    if (p.tailCount > 0 && (spec.tail ?? HISTOGRAM_DEFAULTS.tail) === 'at-bound') return false;
    return p.width.every((w, i) => w > minRelativeSpread * ((p.start[i] as number) + w));
  }
  if (!(spec.interpolate ?? SAMPLES_DEFAULTS.interpolate) || spec.values.length < 2) return false;
  const xs = Float64Array.from(spec.values).sort();
  for (let i = 1; i < xs.length; i++) if (!((xs[i] as number) - (xs[i - 1] as number) > minRelativeSpread * (xs[i] as number))) return false;
  return true;
}

/**
 * A sampler of a valid histogram: one uniform u per draw, the bucket found by binary search over
 * the cumulative probabilities (computed once, here), and the value interpolated linearly within
 * the bucket, start + width (u - F(start)) / p: the quantile at rank u exactly as PromQL's
 * histogram_quantile computes it (`bucketQuantile` in Prometheus's promql/quantile.go:
 * `bucketStart + (bucketEnd-bucketStart)*(rank/count)`, the lowest bucket starting at 0). The
 * `+Inf` bucket draws the highest finite bound (`at-bound`, histogram_quantile's answer there)
 * or that bound plus an exponential excess by inversion (`exponential`).
 */
export class HistogramSampler {
  private readonly start: Float64Array;
  private readonly width: Float64Array;
  private readonly cumLo: Float64Array;
  private readonly cumHi: Float64Array;
  private readonly invP: Float64Array;
  /** The `+Inf` bucket's index among those drawn when its tail is exponential, else -1. */
  private readonly tailIndex: number;
  private readonly top: number;
  private readonly tailExcess: number;
  private readonly invTailP: number;

  constructor(
    spec: HistogramDist,
    private readonly u: Uniform,
  ) {
    const p = histogramParts(spec);
    const start = [...p.start];
    const width = [...p.width];
    const count = [...p.count];
    const exponential = p.tailCount > 0 && (spec.tail ?? HISTOGRAM_DEFAULTS.tail) === 'exponential';
    if (p.tailCount > 0) {
      start.push(p.top);
      width.push(0);
      count.push(p.tailCount);
    }
    const n = count.length;
    this.start = Float64Array.from(start);
    this.width = Float64Array.from(width);
    this.cumLo = new Float64Array(n);
    this.cumHi = new Float64Array(n);
    this.invP = new Float64Array(n);
    let below = 0;
    for (let i = 0; i < n; i++) {
      const lo = below / p.total;
      below += count[i] as number;
      const hi = i === n - 1 ? 1 : below / p.total;
      this.cumLo[i] = lo;
      this.cumHi[i] = hi;
      this.invP[i] = 1 / (hi - lo);
    }
    this.tailIndex = exponential ? n - 1 : -1;
    this.top = p.top;
    this.tailExcess = exponential ? p.tailExcess : 0;
    this.invTailP = exponential ? 1 / (1 - (this.cumLo[n - 1] as number)) : 0;
  }

  /** The next draw. */
  sample(): number {
    const u = this.u();
    const cum = this.cumHi;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (u < (cum[mid] as number)) hi = mid;
      else lo = mid + 1;
    }
    // Survival within the tail, (1 - u) / P(tail), lies in (0, 1]: its logarithm is finite.
    if (lo === this.tailIndex) return this.top - this.tailExcess * Math.log((1 - u) * this.invTailP);
    return (this.start[lo] as number) + (this.width[lo] as number) * (u - (this.cumLo[lo] as number)) * (this.invP[lo] as number);
  }
}

/**
 * A sampler of valid samples: one uniform u per draw; values[floor(u n)], or with `interpolate`
 * the type-7 quantile at u (see {@link SamplesDist}) between the sorted values (sorted once, here).
 */
export class SamplesSampler {
  private readonly xs: Float64Array;
  private readonly interpolate: boolean;

  constructor(
    spec: SamplesDist,
    private readonly u: Uniform,
  ) {
    this.interpolate = (spec.interpolate ?? SAMPLES_DEFAULTS.interpolate) && spec.values.length > 1;
    this.xs = this.interpolate ? Float64Array.from(spec.values).sort() : Float64Array.from(spec.values);
  }

  /** The next draw. */
  sample(): number {
    const xs = this.xs;
    if (!this.interpolate) {
      const i = (this.u() * xs.length) | 0;
      return xs[i < xs.length ? i : xs.length - 1] as number;
    }
    const t = this.u() * (xs.length - 1);
    const k = Math.min(t | 0, xs.length - 2);
    const x = xs[k] as number;
    return x + (t - k) * ((xs[k + 1] as number) - x);
  }
}
