import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LogHistogram } from '../../src/metrics/LogHistogram.js';

/** The summary as four separate quantile searches would report it. */
function summaryByQuantiles(h: LogHistogram) {
  if (h.count === 0) return { count: 0, mean: null, p50: null, p90: null, p99: null, p999: null, max: null };
  return { count: h.count, mean: h.mean(), p50: h.quantile(0.5), p90: h.quantile(0.9), p99: h.quantile(0.99), p999: h.quantile(0.999), max: h.max };
}

const value = fc.oneof(
  fc.constant(0),
  fc.double({ min: 0, max: 1e-6, noNaN: true }),
  fc.double({ min: 0, max: 5000, noNaN: true }),
  fc.integer({ min: 0, max: 100 }),
  fc.double({ min: 1e15, max: 1e300, noNaN: true }),
);

describe('LogHistogram.summary', () => {
  it('reports exactly what quantile() reports, field by field and in the same key order', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 3000 }), (values) => {
        const h = new LogHistogram();
        for (const v of values) h.record(v);
        const s = h.summary();
        const want = summaryByQuantiles(h);
        expect(Object.keys(s)).toEqual(Object.keys(want));
        expect(s).toStrictEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it('reports min and max exactly for ranks 1 and count, bucket midpoints between', () => {
    const h = new LogHistogram();
    h.record(7.3);
    expect(h.summary()).toStrictEqual({ count: 1, mean: 7.3, p50: 7.3, p90: 7.3, p99: 7.3, p999: 7.3, max: 7.3 });
    h.record(100.1);
    expect(h.summary()).toStrictEqual({ count: 2, mean: (7.3 + 100.1) / 2, p50: 7.3, p90: 100.1, p99: 100.1, p999: 100.1, max: 100.1 });
    const k = new LogHistogram();
    for (let i = 1; i <= 1000; i++) k.record(i);
    const s = k.summary();
    // Ranks 500, 900, 990 and 999 of 1..1000: bucket midpoints.
    expect([s.p50, s.p90, s.p99, s.p999]).toEqual([501, 902, 990, 998]);
    expect([s.p50, s.p90, s.p99, s.p999]).toEqual([k.quantile(0.5), k.quantile(0.9), k.quantile(0.99), k.quantile(0.999)]);
  });

  it('agrees with quantile() after merges, including values in the top bucket', () => {
    const a = new LogHistogram();
    const b = new LogHistogram();
    for (let i = 0; i < 500; i++) a.record(i * 0.37);
    for (let i = 0; i < 20; i++) b.record(1e300 / (i + 1));
    a.merge(b);
    expect(a.summary()).toStrictEqual(summaryByQuantiles(a));
  });
});
