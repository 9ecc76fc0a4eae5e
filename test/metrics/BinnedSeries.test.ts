import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BinnedSeries } from '../../src/metrics/BinnedSeries.js';
import { EDGE_WIDTHS_MS, edgeTime } from './binEdgeTimes.js';

/** The definition, division by division: counts per floor(t / binMs), overflow at maxBins, nothing before 0. */
class ReferenceBins {
  readonly counts: number[] = [];
  overflow = 0;
  constructor(
    readonly binMs: number,
    readonly maxBins: number,
  ) {}
  add(tMs: number, n: number): void {
    const b = Math.floor(tMs / this.binMs);
    if (b >= this.maxBins) this.overflow += n;
    else if (b >= 0) this.counts[b] = (this.counts[b] ?? 0) + n;
  }
  toArray(): number[] {
    return Array.from(this.counts, (c) => c ?? 0);
  }
}

describe('BinnedSeries', () => {
  it('counts events per bin [i * binMs, (i + 1) * binMs)', () => {
    const s = new BinnedSeries(10);
    for (const t of [0, 9.999, 10, 35, 35, 39]) s.add(t);
    s.add(12, 5);
    expect(s.length).toBe(4);
    expect(s.toArray()).toEqual([2, 6, 0, 3]);
  });

  it('bins fractional widths by floor(t / binMs)', () => {
    const s = new BinnedSeries(0.5);
    for (const t of [0.25, 0.5, 0.74, 1.6]) s.add(t);
    expect(s.toArray()).toEqual([1, 2, 0, 1]);
  });

  it('accepts events in any order', () => {
    const s = new BinnedSeries(1);
    s.add(3);
    s.add(0);
    s.add(3.5);
    expect(s.toArray()).toEqual([1, 0, 0, 2]);
  });

  it('grows past its initial capacity without losing counts', () => {
    const s = new BinnedSeries(1);
    s.add(0);
    s.add(100_000.5, 2);
    s.add(300);
    const a = s.toArray();
    expect(s.length).toBe(100_001);
    expect(a.length).toBe(100_001);
    expect([a[0], a[300], a[100_000]]).toEqual([1, 1, 2]);
    expect(a.reduce((x, y) => x + y, 0)).toBe(4);
  });

  it('pads or truncates to a requested length', () => {
    const s = new BinnedSeries(10);
    s.add(15, 3);
    expect(s.toArray(5)).toEqual([0, 3, 0, 0, 0]);
    expect(s.toArray(1)).toEqual([0]);
    expect(s.toArray(0)).toEqual([]);
  });

  it('extends its length to cover a whole run with a quiet tail', () => {
    const s = new BinnedSeries(10);
    s.add(5);
    s.extendTo(40);
    expect(s.length).toBe(4);
    s.extendTo(41);
    expect(s.length).toBe(5);
    s.extendTo(20); // never shrinks
    expect(s.length).toBe(5);
    expect(s.toArray()).toEqual([1, 0, 0, 0, 0]);
    s.add(75);
    expect(s.length).toBe(8);
  });

  it('counts events at or after maxBins * binMs as overflow and bins nothing for them', () => {
    const s = new BinnedSeries(10, 3);
    s.add(29.999);
    s.add(30, 2);
    s.add(1e9);
    expect(s.overflow).toBe(3);
    expect(s.length).toBe(3);
    expect(s.toArray()).toEqual([0, 0, 1]);
    s.extendTo(1000);
    expect(s.length).toBe(3);
  });

  it('ignores events before t = 0 (warm-up)', () => {
    const s = new BinnedSeries(10);
    s.add(-5);
    s.add(-0.001);
    expect(s.length).toBe(0);
    expect(s.overflow).toBe(0);
    expect(s.toArray()).toEqual([]);
  });

  it('bins a time by floor(t / binMs) even where that disagrees with the product bin * binMs', () => {
    const s = new BinnedSeries(0.1);
    s.add(4.31); // bin 43
    s.add(4.3); // 43 * 0.1 is 4.3, but 4.3 / 0.1 is 42.99999999999999: bin 42
    s.add(1.65); // bin 16
    s.add(1.7); // below 17 * 0.1 (1.7000000000000002), but 1.7 / 0.1 is 17: bin 17
    const a = s.toArray();
    expect([a[16], a[17], a[42], a[43]]).toEqual([1, 1, 1, 1]);
  });

  it('counts like a division per event for times in any order: at and beside bin edges, far apart, before 0', () => {
    const maxBins = 64;
    const event = (binMs: number) => fc.tuple(edgeTime(binMs, true), fc.integer({ min: 1, max: 3 }));
    const events = (binMs: number) => fc.array(event(binMs), { maxLength: 120 });
    const arbitrary = fc
      .constantFrom(...EDGE_WIDTHS_MS)
      .chain((binMs) => fc.tuple(fc.constant(binMs), events(binMs), fc.boolean(), fc.nat()));
    fc.assert(
      fc.property(arbitrary, ([binMs, list, sorted, cut]) => {
        if (sorted) list.sort((x, y) => x[0] - y[0]);
        const s = new BinnedSeries(binMs, maxBins);
        const ref = new ReferenceBins(binMs, maxBins);
        list.forEach(([t, n], i) => {
          s.add(t, n);
          ref.add(t, n);
          if (i === cut % list.length) expect(s.toArray()).toEqual(ref.toArray());
        });
        expect(s.toArray()).toEqual(ref.toArray());
        expect(s.length).toBe(ref.counts.length);
        expect(s.overflow).toBe(ref.overflow);
      }),
      { seed: 42, numRuns: 1500 },
    );
  });

  it('rejects a bin width that is not > 0 and a maxBins that is not a positive integer', () => {
    expect(() => new BinnedSeries(0)).toThrow(/binMs must be > 0/);
    expect(() => new BinnedSeries(-1)).toThrow(RangeError);
    expect(() => new BinnedSeries(10, 0)).toThrow(/maxBins must be a positive integer/);
    expect(() => new BinnedSeries(10, 2.5)).toThrow(RangeError);
  });
});
