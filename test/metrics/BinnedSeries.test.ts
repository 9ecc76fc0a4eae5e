import { describe, expect, it } from 'vitest';
import { BinnedSeries } from '../../src/metrics/BinnedSeries.js';

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

  it('rejects a bin width that is not > 0 and a maxBins that is not a positive integer', () => {
    expect(() => new BinnedSeries(0)).toThrow(/binMs must be > 0/);
    expect(() => new BinnedSeries(-1)).toThrow(RangeError);
    expect(() => new BinnedSeries(10, 0)).toThrow(/maxBins must be a positive integer/);
    expect(() => new BinnedSeries(10, 2.5)).toThrow(RangeError);
  });
});
