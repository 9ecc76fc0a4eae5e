import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LogHistogram } from '../../src/metrics/LogHistogram.js';

function histogramOf(values: readonly number[]): LogHistogram {
  const h = new LogHistogram();
  for (const v of values) h.record(v);
  return h;
}

function oneToN(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}

/** The nearest-rank quantile of a sample, computed directly. */
function exactQuantile(sorted: readonly number[], q: number): number {
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length - 1e-9)));
  return sorted[rank - 1] as number;
}

describe('LogHistogram', () => {
  it('keeps count, sum, mean, min and max exact', () => {
    const h = histogramOf(oneToN(10_000));
    expect(h.count).toBe(10_000);
    expect(h.sum).toBe(50_005_000);
    expect(h.mean()).toBe(5000.5);
    expect(h.min).toBe(1);
    expect(h.max).toBe(10_000);
  });

  it('reports quantiles of 1..10000 within 1% of the nearest-rank values', () => {
    const h = histogramOf(oneToN(10_000));
    for (const [q, exact] of [[0.5, 5000], [0.9, 9000], [0.99, 9900], [0.999, 9990], [0.25, 2500]] as const) {
      expect(Math.abs(h.quantile(q) - exact) / exact).toBeLessThan(0.01);
    }
  });

  it('reports a quantile as the midpoint of its bucket, clamped into [min, max]', () => {
    const h = histogramOf(oneToN(10_000));
    // 5000 = 2^12 * 1.2207..., top 7 mantissa bits 28: bucket [4992, 5024), midpoint 5008.
    expect(h.quantile(0.5)).toBe(5008);
    // 9990 lies in [9984, 10048), whose midpoint 10016 is clamped to the max.
    expect(h.quantile(0.999)).toBe(10_000);
    expect(h.summary()).toEqual({
      count: 10_000,
      mean: 5000.5,
      p50: 5008,
      p90: 8992,
      p99: 9888,
      p999: 10_000,
      max: 10_000,
    });
  });

  it('returns min for rank 1 and max for the last rank, exactly', () => {
    const h = histogramOf([3.3, 7.7, 1234.5678]);
    expect(h.quantile(0)).toBe(3.3);
    expect(h.quantile(0.2)).toBe(3.3);
    expect(h.quantile(1)).toBe(1234.5678);
  });

  it('uses the nearest rank even when q * count lands an ulp above an integer', () => {
    const h = histogramOf(oneToN(100));
    // 0.07 * 100 = 7.000000000000001 in float64; rank 7 is the value 7, bucket [7, 7.03125).
    expect(h.quantile(0.07)).toBe(7.015625);
    // rank 8 would be 8's bucket [8, 8.0625).
    expect(h.quantile(0.08)).toBe(8.03125);
  });

  it('stays within 1/256 relative error of the nearest-rank value for any sample', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 1e-6, max: 2 ** 60, noNaN: true }), { minLength: 1, maxLength: 200 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (values, q) => {
          const h = histogramOf(values);
          const exact = exactQuantile([...values].sort((a, b) => a - b), q);
          return Math.abs(h.quantile(q) - exact) <= exact / 256;
        },
      ),
      { seed: 42, numRuns: 500 },
    );
  });

  it('counts zero and values below 1e-6 in a zero bucket reported as the minimum', () => {
    const h = histogramOf([0, 0, 5e-7, 0, 10, 20]);
    expect(h.count).toBe(6);
    expect(h.min).toBe(0);
    expect(h.quantile(0.5)).toBe(0);
    expect(h.quantile(4 / 6)).toBe(0);
    // rank 5 is 10, in bucket [10, 10.0625).
    expect(h.quantile(5 / 6)).toBe(10.03125);
    const tiny = histogramOf([5e-7, 6e-7, 7e-7]);
    expect(tiny.quantile(0.5)).toBe(5e-7);
  });

  it('puts values beyond 2^61 in the top bucket, whose midpoint is clamped', () => {
    const h = histogramOf([2 ** 61, 2 ** 62, 2 ** 70]);
    // The top bucket's midpoint 2^60 * (1 + 127.5 / 128) is below the minimum.
    expect(h.quantile(0.5)).toBe(2 ** 61);
    expect(h.max).toBe(2 ** 70);
  });

  it('is empty until something is recorded: NaN statistics and a null summary', () => {
    const h = new LogHistogram();
    expect(h.count).toBe(0);
    expect(h.mean()).toBeNaN();
    expect(h.min).toBeNaN();
    expect(h.max).toBeNaN();
    expect(h.quantile(0.5)).toBeNaN();
    expect(h.summary()).toEqual({ count: 0, mean: null, p50: null, p90: null, p99: null, p999: null, max: null });
  });

  it('merging two histograms equals recording both samples into one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e9, noNaN: true })),
        fc.array(fc.double({ min: 0, max: 1e9, noNaN: true })),
        (a, b) => {
          const merged = histogramOf(a);
          merged.merge(histogramOf(b));
          const both = histogramOf([...a, ...b]);
          expect(merged.count).toBe(both.count);
          expect(merged.min).toEqual(both.min);
          expect(merged.max).toEqual(both.max);
          expect(merged.sum).toBeCloseTo(both.sum, 3);
          for (const q of [0, 0.1, 0.5, 0.9, 0.99, 1]) expect(merged.quantile(q)).toEqual(both.quantile(q));
        },
      ),
      { seed: 7, numRuns: 200 },
    );
  });

  it('builds the histogram of all operations from successes and failures kept apart', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.double({ min: 0, max: 1e7, noNaN: true }))), (ops) => {
        const ok = new LogHistogram();
        const failed = new LogHistogram();
        for (const [success, ms] of ops) (success ? ok : failed).record(ms);
        const okBefore = ok.summary();
        const all = new LogHistogram();
        all.merge(ok);
        all.merge(failed);
        const recorded = histogramOf(ops.map(([, ms]) => ms));
        expect(all.count).toBe(recorded.count);
        // The sum of a merge is the sum of the partial sums, not the values added one by one.
        expect(all.sum).toBe(0 + ok.sum + failed.sum);
        expect(all.sum).toBeCloseTo(recorded.sum, 3);
        expect([all.min, all.max]).toEqual([recorded.min, recorded.max]);
        for (const q of [0, 0.25, 0.5, 0.9, 0.99, 0.999, 1]) expect(all.quantile(q)).toBe(recorded.quantile(q));
        expect(ok.summary()).toEqual(okBefore); // the merged-in histogram is left as it was
      }),
      { seed: 11, numRuns: 200 },
    );
  });

  it('shows where a merged sum and a recorded sum part in the last bits', () => {
    const a = histogramOf([0.1, 0.2]);
    const b = histogramOf([0.3]);
    a.merge(b);
    expect(a.sum).toBe(0.1 + 0.2 + 0.3); // (0.1 + 0.2) + 0.3, the order of recording
    const c = histogramOf([0.1]);
    c.merge(histogramOf([0.2, 0.3]));
    expect(c.sum).toBe(0.1 + (0.2 + 0.3));
    expect(c.sum).not.toBe(histogramOf([0.1, 0.2, 0.3]).sum); // 0.6 against 0.6000000000000001
    expect(c.quantile(0.5)).toBe(histogramOf([0.1, 0.2, 0.3]).quantile(0.5));
  });

  it('keeps recording after a merge, into buckets it had and buckets it had not', () => {
    const h = histogramOf([1, 2]);
    h.merge(histogramOf([1000]));
    h.record(1000);
    h.record(1e6);
    h.record(0);
    expect([h.count, h.sum, h.min, h.max]).toEqual([6, 1_002_003, 0, 1e6]);
    expect(h.quantile(0.5)).toBe(histogramOf([0, 1, 2, 1000, 1000, 1e6]).quantile(0.5));
  });

  it('merging an empty histogram changes nothing', () => {
    const h = histogramOf([4, 8]);
    h.merge(new LogHistogram());
    expect([h.count, h.sum, h.min, h.max, h.quantile(0.5)]).toEqual([2, 12, 4, 8, 4]);
  });

  it('forgets everything on reset', () => {
    const h = histogramOf([1, 2, 3]);
    h.reset();
    expect(h.summary().count).toBe(0);
    expect(h.min).toBeNaN();
    h.record(42);
    expect([h.count, h.sum, h.min, h.max, h.quantile(0.5)]).toEqual([1, 42, 42, 42, 42]);
  });

  it('rejects negative values, NaN and q outside [0, 1]', () => {
    const h = histogramOf([1]);
    expect(() => h.record(-1)).toThrow(RangeError);
    expect(() => h.record(NaN)).toThrow(RangeError);
    expect(h.count).toBe(1);
    expect(() => h.quantile(1.5)).toThrow(RangeError);
    expect(() => h.quantile(-0.1)).toThrow(RangeError);
    expect(() => h.quantile(NaN)).toThrow(RangeError);
  });
});
