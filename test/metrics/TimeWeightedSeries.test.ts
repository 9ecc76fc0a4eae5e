import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { TimeWeightedSeries } from '../../src/metrics/TimeWeightedSeries.js';

/**
 * The definition, from the whole list of changes: each value's interval, clipped to the window
 * [max(0, startMs), end], spread over the bins it overlaps; the peak over the values held in the window.
 * Exact for the dyadic times and small integer values the tests use, so any order of sums agrees.
 */
function referenceSeries(
  binMs: number,
  maxBins: number,
  startMs: number,
  changes: ReadonlyArray<readonly [tMs: number, value: number]>,
): { means: number[]; mean: number; max: number } {
  const origin = Math.max(0, startMs);
  const end = changes[changes.length - 1]?.[0] ?? startMs;
  const bins = end > origin ? Math.min(maxBins, Math.ceil(end / binMs)) : 0;
  const areas = new Array<number>(bins).fill(0);
  let area = 0;
  let max = -Infinity;
  changes.forEach(([t, v], k) => {
    const next = changes[k + 1]?.[0] ?? t;
    if (t >= origin || next > origin) max = Math.max(max, v);
    const a = Math.max(t, origin);
    if (next <= a) return;
    area += v * (next - a);
    for (let i = Math.floor(a / binMs); i < bins && i * binMs < next; i++) {
      areas[i] = (areas[i] as number) + v * (Math.min(next, (i + 1) * binMs) - Math.max(a, i * binMs));
    }
  });
  const means = areas.map((x, i) => {
    const covered = Math.min(end, (i + 1) * binMs) - Math.max(origin, i * binMs);
    return covered > 0 ? x / covered : 0;
  });
  return { means, mean: end > origin ? area / (end - origin) : NaN, max: max === -Infinity ? NaN : max };
}

describe('TimeWeightedSeries', () => {
  it('averages a step function over each bin, with a change exactly on a bin boundary', () => {
    const s = new TimeWeightedSeries(10);
    s.set(5, 2);
    s.set(25, 4);
    s.set(30, 1); // on the boundary between bins 2 and 3
    s.finish(40);
    // [0,10): 0*5 + 2*5; [10,20): 2*10; [20,30): 2*5 + 4*5; [30,40): 1*10.
    expect(s.binMeans()).toEqual([1, 2, 3, 1]);
    expect(s.length).toBe(4);
    expect(s.mean()).toBe(70 / 40);
    expect(s.max).toBe(4);
    expect(s.value).toBe(1);
  });

  it('splits an interval spanning several bins and averages the final partial bin over its covered part', () => {
    const s = new TimeWeightedSeries(10);
    s.set(3, 6);
    s.finish(47);
    expect(s.binMeans()).toEqual([4.2, 6, 6, 6, 6]);
    expect(s.mean()).toBe((6 * 44) / 47);
  });

  it('gives a value held from one boundary to the next to that bin only', () => {
    const s = new TimeWeightedSeries(10);
    s.set(10, 5);
    s.set(20, 0);
    s.finish(30);
    expect(s.binMeans()).toEqual([0, 5, 0]);
  });

  it('tracks the value through a warm-up at negative times but measures from t = 0', () => {
    const s = new TimeWeightedSeries(10, 1_000_000, -100, 7);
    s.set(-50, 3);
    s.set(-10, 5);
    s.set(10, 1);
    s.finish(20);
    expect(s.binMeans()).toEqual([5, 1]);
    expect(s.mean()).toBe(3);
    expect(s.max).toBe(5); // 7 and 3 were only held before 0
  });

  it('splits a warm-up interval that crosses t = 0', () => {
    const s = new TimeWeightedSeries(10, 1_000_000, -100);
    s.set(-5, 4);
    s.set(5, 2);
    s.finish(10);
    expect(s.binMeans()).toEqual([3]);
    expect(s.mean()).toBe(3);
  });

  it('starts the window at a positive startMs with its initial value', () => {
    const s = new TimeWeightedSeries(10, 1_000_000, 15, 4);
    s.finish(30);
    expect(s.binMeans()).toEqual([0, 4, 4]);
    expect(s.mean()).toBe(4);
    expect(s.max).toBe(4);
  });

  it('adds deltas to the current value', () => {
    const s = new TimeWeightedSeries(10);
    s.add(0, 1);
    s.add(2, 1);
    s.add(4, 1);
    s.add(6, -3);
    s.finish(10);
    // 1*2 + 2*2 + 3*2 + 0*4 over 10 ms.
    expect(s.binMeans()).toEqual([1.2]);
    expect(s.max).toBe(3);
    expect(s.value).toBe(0);
  });

  it('counts a change of zero duration in the max but not in any area', () => {
    const s = new TimeWeightedSeries(10);
    s.set(10, 9);
    s.set(10, 2);
    s.finish(20);
    expect(s.max).toBe(9);
    expect(s.binMeans()).toEqual([0, 2]);
  });

  it('counts a value set exactly when the window opens in the max, but not one replaced then', () => {
    const s = new TimeWeightedSeries(10, 1_000_000, -10, 0);
    s.set(-5, 7); // replaced at 0: held only before the window
    s.set(0, 9);
    s.set(0, 1);
    s.finish(10);
    expect(s.max).toBe(9);
    expect(s.binMeans()).toEqual([1]);
  });

  it('keeps at most maxBins bins but averages the whole window', () => {
    const s = new TimeWeightedSeries(10, 2, 0, 1);
    s.set(15, 3);
    s.finish(50);
    expect(s.length).toBe(2);
    expect(s.binMeans()).toEqual([1, 2]);
    expect(s.mean()).toBe((15 + 3 * 35) / 50);
  });

  it('pads or truncates bin means to a requested length', () => {
    const s = new TimeWeightedSeries(10, 1_000_000, 0, 2);
    s.finish(20);
    expect(s.binMeans(4)).toEqual([2, 2, 0, 0]);
    expect(s.binMeans(1)).toEqual([2]);
  });

  it('grows past its initial capacity', () => {
    const s = new TimeWeightedSeries(1);
    s.set(1000, 3);
    s.set(1001, 0);
    s.finish(100_000);
    const means = s.binMeans();
    expect(means.length).toBe(100_000);
    expect([means[999], means[1000], means[1001]]).toEqual([0, 3, 0]);
    expect(s.mean()).toBe(3 / 100_000);
  });

  it('has an empty window before anything is measured: NaN mean and max, no bins', () => {
    const s = new TimeWeightedSeries(10, 1_000_000, -20, 4);
    s.set(-10, 6);
    expect(s.mean()).toBeNaN();
    expect(s.max).toBeNaN();
    expect(s.length).toBe(0);
    expect(s.binMeans()).toEqual([]);
  });

  it('rejects going back in time and bad binning', () => {
    const s = new TimeWeightedSeries(10);
    s.set(5, 1);
    expect(() => s.set(4, 2)).toThrow(RangeError);
    expect(() => s.finish(NaN)).toThrow(RangeError);
    expect(s.value).toBe(1);
    // Finishing before the last change keeps the window as it is (a change after the measured end).
    expect(() => s.finish(3)).not.toThrow();
    expect(s.value).toBe(1);
    expect(() => new TimeWeightedSeries(0)).toThrow(RangeError);
    expect(() => new TimeWeightedSeries(10, -1)).toThrow(RangeError);
    expect(() => new TimeWeightedSeries(10, 10, NaN)).toThrow(RangeError);
  });

  it('agrees with the definition on fractional times: unchanged values, bin edges, far gaps, warm-up', () => {
    const sixtyFourths = (max: number) => fc.integer({ min: 0, max }).map((n) => n / 64);
    const step = fc.record({
      dtMs: fc.oneof({ arbitrary: sixtyFourths(2000), weight: 6 }, { arbitrary: sixtyFourths(2 ** 18), weight: 1 }),
      value: fc.option(fc.integer({ min: -2, max: 6 }), { nil: undefined, freq: 3 }), // undefined: unchanged
    });
    fc.assert(
      fc.property(
        fc.constantFrom(0.25, 1, 8, 1024),
        fc.constantFrom(3, 64, 100_000),
        fc.integer({ min: -200 * 64, max: 50 * 64 }).map((n) => n / 64),
        fc.integer({ min: 0, max: 3 }),
        fc.array(step, { maxLength: 60 }),
        (binMs, maxBins, startMs, initialValue, steps) => {
          const s = new TimeWeightedSeries(binMs, maxBins, startMs, initialValue);
          const changes: Array<[number, number]> = [[startMs, initialValue]];
          let t = startMs;
          for (const { dtMs, value } of steps) {
            t += dtMs;
            const v = value ?? s.value;
            s.set(t, v);
            changes.push([t, v]);
          }
          s.finish(t);
          s.finish(t - 1); // before the last change: keeps the window as it is
          const ref = referenceSeries(binMs, maxBins, startMs, changes);
          expect(s.binMeans()).toEqual(ref.means);
          expect(s.mean()).toBe(ref.mean);
          expect(s.max).toBe(ref.max);
        },
      ),
      { seed: 7, numRuns: 500 },
    );
  });

  it('agrees with integrating the step function one millisecond at a time', () => {
    const step = fc.record({ dt: fc.integer({ min: 0, max: 30 }), value: fc.integer({ min: 0, max: 50 }) });
    fc.assert(
      fc.property(
        fc.integer({ min: -40, max: 10 }),
        fc.array(step, { maxLength: 30 }),
        fc.integer({ min: 0, max: 30 }),
        (startMs, steps, tail) => {
          const binMs = 4;
          const s = new TimeWeightedSeries(binMs, 1_000_000, startMs);
          const valueAt: number[] = []; // value held over [m, m + 1) for m >= startMs
          let t = startMs;
          let v = 0;
          for (const { dt, value } of steps) {
            for (let m = t; m < t + dt; m++) valueAt[m - startMs] = v;
            t += dt;
            s.set(t, value);
            v = value;
          }
          for (let m = t; m < t + tail; m++) valueAt[m - startMs] = v;
          const end = t + tail;
          s.finish(end);
          const origin = Math.max(0, startMs);
          const bins = end > origin ? Math.ceil(end / binMs) : 0;
          const expected: number[] = [];
          let area = 0;
          for (let b = 0; b < bins; b++) {
            let sum = 0;
            let covered = 0;
            for (let m = b * binMs; m < (b + 1) * binMs; m++) {
              if (m < origin || m >= end) continue;
              sum += valueAt[m - startMs] as number;
              covered++;
            }
            area += sum;
            expected.push(covered > 0 ? sum / covered : 0);
          }
          expect(s.binMeans()).toEqual(expected);
          if (end > origin) expect(s.mean()).toBe(area / (end - origin));
        },
      ),
      { seed: 2015, numRuns: 300 },
    );
  });
});
