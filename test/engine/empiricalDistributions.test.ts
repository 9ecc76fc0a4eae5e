import { describe, expect, it } from 'vitest';
import { distMean, isContinuous, makeSampler, validateDist, type DistSpec, type HistogramDist, type SamplesDist } from '../../src/engine/distributions.js';
import { stream } from '../../src/engine/random.js';
import { estimateWork } from '../../src/sweep/estimateWork.js';
import { scenario, server } from '../helpers/scenario.js';

/**
 * PromQL's histogram_quantile for a classic histogram, transcribed from `bucketQuantile` in
 * Prometheus's promql/quantile.go: the bucket whose cumulative count first reaches q * total,
 * then bucketStart + (bucketEnd - bucketStart) * (rank / count), the lowest bucket from 0, and
 * the upper bound of the second highest bucket for a rank in the +Inf bucket. An independent
 * reference for the histogram sampler, which draws this quantile at a uniform rank.
 */
function bucketQuantile(q: number, le: number[], cumulative: number[]): number {
  const observations = cumulative[cumulative.length - 1] as number;
  let rank = q * observations;
  let b = 0;
  while (b < le.length - 1 && !((cumulative[b] as number) >= rank)) b++;
  if (b === le.length - 1) return le[le.length - 2] as number;
  if (b === 0 && (le[0] as number) <= 0) return le[0] as number;
  let bucketStart = 0;
  const bucketEnd = le[b] as number;
  let count = cumulative[b] as number;
  if (b > 0) {
    bucketStart = le[b - 1] as number;
    count -= cumulative[b - 1] as number;
    rank -= cumulative[b - 1] as number;
  }
  return bucketStart + (bucketEnd - bucketStart) * (rank / count);
}

function draws(spec: DistSpec, n: number, seed = 45): Float64Array {
  const s = makeSampler(spec, stream(seed, 'empirical', spec.dist));
  const xs = new Float64Array(n);
  for (let i = 0; i < n; i++) xs[i] = s.sample();
  return xs;
}

/** Kolmogorov-Smirnov distance between the draws (sorted here) and a continuous CDF. */
function ksDistance(xs: Float64Array, cdf: (x: number) => number): number {
  const sorted = Float64Array.from(xs).sort();
  const n = sorted.length;
  let d = 0;
  for (let i = 0; i < n; i++) {
    const F = cdf(sorted[i] as number);
    d = Math.max(d, Math.abs(F - i / n), Math.abs(F - (i + 1) / n));
  }
  return d;
}

/** Kolmogorov's critical value at significance 0.01 for n draws (asymptotic, 1.628 / sqrt(n)). */
const ksCritical01 = (n: number) => 1.628 / Math.sqrt(n);

// Bounds in ms, counts cumulative (a Prometheus _bucket series), 40 of 1,000 observations above 100 ms.
const LE = [2, 5, 10, 20, 50, 100];
const CUMULATIVE = [30, 150, 420, 700, 900, 960, 1000];
/** Sum of the finite buckets' midpoints x counts: 30x1 + 120x3.5 + 270x7.5 + 280x15 + 200x35 + 60x75. */
const FINITE_SUM = 18_175;
/** The _sum that gives the 40 tail observations a mean excess of 50 ms over 100 ms. */
const SUM = FINITE_SUM + 40 * 150;
const exponentialTail: HistogramDist = { dist: 'histogram', le: [...LE, '+Inf'], counts: CUMULATIVE, tail: 'exponential', sum: SUM };

describe('histogram distribution (Prometheus buckets)', () => {
  it('reproduces the buckets counts: chi-square below its critical value 22.458 (6 degrees of freedom, significance 0.001)', () => {
    const n = 100_000;
    const xs = draws(exponentialTail, n);
    const observed = new Array<number>(LE.length + 1).fill(0);
    for (const x of xs) {
      let b = 0;
      while (b < LE.length && x > (LE[b] as number)) b++;
      observed[b] = (observed[b] as number) + 1;
    }
    const total = CUMULATIVE[CUMULATIVE.length - 1] as number;
    let chi2 = 0;
    for (let b = 0; b <= LE.length; b++) {
      const expected = (n * ((CUMULATIVE[b] as number) - (b > 0 ? (CUMULATIVE[b - 1] as number) : 0))) / total;
      chi2 += ((observed[b] as number) - expected) ** 2 / expected;
    }
    // 7 categories (6 finite buckets and the +Inf bucket): 6 degrees of freedom; the 0.999 quantile
    // of chi-square(6) is 22.458 (NIST/SEMATECH e-Handbook of Statistical Methods, table 1.3.6.7.4).
    expect(chi2).toBeLessThan(22.458);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
  });

  it('spreads values uniformly within each bucket and exponentially above the last bound (KS at 1%)', () => {
    const total = 1000;
    const cdf = (x: number): number => {
      if (x > 100) return 0.96 + 0.04 * (1 - Math.exp(-(x - 100) / 50));
      let lo = 0;
      let below = 0;
      for (let b = 0; b < LE.length; b++) {
        const hi = LE[b] as number;
        const c = CUMULATIVE[b] as number;
        if (x <= hi) return (below + ((c - below) * (x - lo)) / (hi - lo)) / total;
        lo = hi;
        below = c;
      }
      return 0.96;
    };
    const xs = draws(exponentialTail, 50_000, 7);
    expect(ksDistance(xs, cdf)).toBeLessThan(ksCritical01(xs.length));
  });

  it('draws histogram_quantile at the uniform it is given (promql/quantile.go), the tail at the highest finite bound', () => {
    const le = [0, 1, 4, 8];
    const cumulative = [5, 5, 25, 40, 50];
    const spec: HistogramDist = { dist: 'histogram', le: [...le, '+Inf'], counts: cumulative };
    let next = 0;
    const sampler = makeSampler(spec, () => next);
    for (let k = 0; k < 1000; k++) {
      next = (k + 0.5) / 1000;
      expect(sampler.sample()).toBeCloseTo(bucketQuantile(next, [...le, Infinity], cumulative), 12);
    }
    // One uniform per draw: the sampler asks its stream once each time.
    let calls = 0;
    const counted = makeSampler(spec, () => (calls++, 0.5));
    for (let i = 0; i < 10; i++) counted.sample();
    expect(calls).toBe(10);
  });

  it('with the default tail, draws the +Inf bucket share exactly at the highest finite bound, and nothing above', () => {
    const spec: HistogramDist = { dist: 'histogram', le: [10, 20, '+Inf'], counts: [50, 80, 100] };
    const n = 40_000;
    const xs = draws(spec, n, 3);
    const atBound = xs.filter((x) => x === 20).length;
    expect(Math.max(...xs)).toBe(20);
    // Binomial(n, 0.2): within 4 standard deviations.
    expect(Math.abs(atBound - 0.2 * n)).toBeLessThan(4 * Math.sqrt(n * 0.2 * 0.8));
  });

  it('starts the lowest bucket at min, and draws the same sequence from the same stream', () => {
    const spec: HistogramDist = { dist: 'histogram', le: [10, 20], counts: [1, 2], min: 8 };
    const xs = draws(spec, 10_000);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(8);
    expect(xs.filter((x) => x <= 10).length / xs.length).toBeCloseTo(0.5, 1);
    expect(Array.from(draws(spec, 100))).toEqual(Array.from(draws(spec, 100)));
  });

  it('has an exact mean: the buckets midpoints, the tail at its bound or at sum / count', () => {
    expect(distMean(exponentialTail)).toBeCloseTo(SUM / 1000, 12);
    expect(distMean({ dist: 'histogram', le: [...LE, '+Inf'], counts: CUMULATIVE })).toBeCloseTo((FINITE_SUM + 40 * 100) / 1000, 12);
    expect(distMean({ dist: 'histogram', le: [10, 20], counts: [1, 4], min: 6 })).toBeCloseTo((1 * 8 + 3 * 15) / 4, 12);
    // The mean of many draws agrees (about 0.5% standard error here).
    const xs = draws(exponentialTail, 100_000, 11);
    const m = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(Math.abs(m - SUM / 1000) / (SUM / 1000)).toBeLessThan(0.02);
  });
});

/** A fixed list of observed times (ms), with repeated values. */
const SAMPLES = [3, 7, 7, 12, 15, 15, 15, 21, 40, 41, 55, 90, 3, 8, 13, 200, 34, 27, 27, 9];

describe('samples distribution', () => {
  it('reproduces the samples empirical CDF (KS distance at 1%) and draws only the samples', () => {
    const spec: SamplesDist = { dist: 'samples', values: SAMPLES };
    const xs = draws(spec, 50_000);
    const support = [...new Set(SAMPLES)].sort((a, b) => a - b);
    const ecdf = (values: ArrayLike<number>, x: number) => Array.prototype.filter.call(values, (v: number) => v <= x).length / values.length;
    const sortedDraws = Float64Array.from(xs).sort();
    let d = 0;
    for (const x of support) {
      // Draws <= x, by binary search over the sorted draws.
      let lo = 0;
      let hi = sortedDraws.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((sortedDraws[mid] as number) <= x) lo = mid + 1;
        else hi = mid;
      }
      d = Math.max(d, Math.abs(lo / sortedDraws.length - ecdf(SAMPLES, x)));
    }
    expect(d).toBeLessThan(ksCritical01(xs.length));
    expect(xs.every((x) => SAMPLES.includes(x))).toBe(true);
  });

  it('with interpolate, follows the CDF linear between consecutive sorted samples (KS at 1%)', () => {
    const values = [5, 1, 2, 10, 4];
    const sorted = [...values].sort((a, b) => a - b);
    const cdf = (x: number): number => {
      for (let k = 0; k < sorted.length - 1; k++) {
        const a = sorted[k] as number;
        const b = sorted[k + 1] as number;
        if (x <= b) return (k + (x - a) / (b - a)) / (sorted.length - 1);
      }
      return 1;
    };
    const xs = draws({ dist: 'samples', values, interpolate: true }, 50_000);
    expect(ksDistance(xs, cdf)).toBeLessThan(ksCritical01(xs.length));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...xs)).toBeLessThanOrEqual(10);
  });

  it('has an exact mean: the samples average, or the segments between sorted samples', () => {
    expect(distMean({ dist: 'samples', values: [1, 2, 4, 10] })).toBe(17 / 4);
    // Segments 1-2, 2-4, 4-10, each with probability 1/3: (1.5 + 3 + 7) / 3.
    expect(distMean({ dist: 'samples', values: [10, 1, 4, 2], interpolate: true })).toBeCloseTo(11.5 / 3, 14);
    expect(distMean({ dist: 'samples', values: [7], interpolate: true })).toBe(7);
  });
});

describe('empirical distributions: continuity and validation', () => {
  it('is continuous only without atoms: no at-bound tail with observations, no repeated or uninterpolated samples', () => {
    expect(isContinuous(exponentialTail)).toBe(true);
    expect(isContinuous({ dist: 'histogram', le: [...LE, '+Inf'], counts: CUMULATIVE })).toBe(false);
    expect(isContinuous({ dist: 'histogram', le: [10, 20, '+Inf'], counts: [3, 5, 5] })).toBe(true);
    expect(isContinuous({ dist: 'histogram', le: [0, 20], counts: [1, 5] })).toBe(false);
    expect(isContinuous({ dist: 'samples', values: [1, 2, 3] })).toBe(false);
    expect(isContinuous({ dist: 'samples', values: [1, 2, 3], interpolate: true })).toBe(true);
    expect(isContinuous({ dist: 'samples', values: [1, 2, 2, 3], interpolate: true })).toBe(false);
  });

  it('names the field and the rule it breaks', () => {
    const h = (over: Partial<HistogramDist>): DistSpec => ({ dist: 'histogram', le: [5, 10, '+Inf'], counts: [1, 3, 4], ...over });
    const cases: Array<[DistSpec, string]> = [
      [h({ le: [5, 5, '+Inf'] }), 'le.1 must be > le.0 (bounds strictly increase; got 5 <= 5)'],
      [h({ le: [5, '+Inf', 10] }), 'le.1 may be "+Inf" only as the last bound (got it before le.2)'],
      [h({ le: ['+Inf'], counts: [1] }), 'le must have a finite bound below "+Inf"'],
      [h({ le: [5, Number.NaN, '+Inf'] }), 'le.1 must be a finite number >= 0 or "+Inf" (got NaN)'],
      [h({ le: [-1, 10, '+Inf'] }), 'le.0 must be a finite number >= 0 or "+Inf" (got -1)'],
      [h({ le: [], counts: [] }), 'le must not be empty (a list of bucket upper bounds)'],
      [h({ counts: [1, 3] }), 'counts must have one count per bound of le (got 2 counts for 3 bounds)'],
      [h({ counts: [1, -3, 4] }), 'counts.1 must be a finite number >= 0 (got -3)'],
      [h({ counts: [1, Number.NaN, 4] }), 'counts.1 must be a finite number >= 0 (got NaN)'],
      [h({ counts: [3, 1, 4] }), "counts.1 must be >= counts.0 (counts are cumulative, as Prometheus's le buckets; got 1 < 3)"],
      [h({ counts: [0, 0, 0] }), 'counts must not all be 0 (no observations to draw from)'],
      [h({ min: 6 }), "min must be <= le.0, the lowest bucket's upper bound (got 6 > 5)"],
      [h({ sum: 20 }), 'sum is read only with tail "exponential" (got tail "at-bound")'],
      [h({ tail: 'exponential' }), 'sum is required with tail "exponential" (the histogram\'s _sum; the "+Inf" bucket holds 1 observation above le 10)'],
      [
        h({ tail: 'exponential', sum: 20 }),
        'sum must be > 27.5 for an exponential tail (got 20): the buckets up to le 10 hold 17.5 at their midpoints, and the "+Inf" bucket holds 1 observation above le 10',
      ],
      [{ dist: 'samples', values: [] }, 'values must not be empty (a list of observed values)'],
      [{ dist: 'samples', values: [1, Number.POSITIVE_INFINITY] }, 'values.1 must be a finite number >= 0 (got Infinity)'],
    ];
    for (const [spec, message] of cases) expect(validateDist(spec)).toBe(message);
    expect(validateDist(h({ tail: 'exponential', sum: 30 }))).toBeNull();
    expect(() => makeSampler(h({ counts: [0, 0, 0] }), stream(1, 'x'))).toThrow('invalid "histogram" distribution: counts must not all be 0');
  });
});

describe('estimates read the exact mean of an empirical distribution', () => {
  it("a closed loop's operations: clients x duration / (mean think + mean service)", () => {
    const think: HistogramDist = { dist: 'histogram', le: [10, 30], counts: [1, 4], min: 0, tail: 'at-bound' };
    const service: SamplesDist = { dist: 'samples', values: [2, 4, 9], interpolate: true };
    const sc = scenario({
      workload: { kind: 'closed', clients: 10, durationMs: 60_000, thinkMs: think, startMs: { dist: 'constant', value: 0 }, method: 'GET', permanentErrorFraction: 0 },
      leaf: server({ serviceMs: service }),
    });
    // Think: (1 x 5 + 3 x 20) / 4 = 16.25 ms; service: segments 2-4 and 4-9, (3 + 6.5) / 2 = 4.75 ms.
    expect(estimateWork(sc).operations).toBe(Math.round((10 * 60_000) / (16.25 + 4.75)));
  });
});
