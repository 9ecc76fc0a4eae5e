import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { StreamingClustering } from '../../src/metrics/StreamingClustering.js';
import type { ClusteringResult } from '../../src/metrics/StreamingClustering.js';
import { EDGE_WIDTHS_MS, edgeTime } from './binEdgeTimes.js';

function clusteringOf(binMs: number, times: readonly number[]): StreamingClustering {
  const c = new StreamingClustering(binMs);
  for (const t of times) c.record(t);
  return c;
}

/** mulberry32: a small seeded generator of uniforms in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The definition, two passes: counts per floor(t / binMs) (a time in an earlier bin than the latest is
 * refused), then the statistics by the formulas of {@link StreamingClustering.result} over the window.
 */
class ReferenceClustering {
  private readonly counts = new Map<number, number>();
  private last = -Infinity;
  constructor(readonly binMs: number) {}
  /** False (and nothing counted) where the streaming version must throw. */
  record(tMs: number): boolean {
    const b = Math.floor(tMs / this.binMs);
    if (!(b >= 0 && b >= this.last)) return false;
    this.last = b;
    this.counts.set(b, (this.counts.get(b) ?? 0) + 1);
    return true;
  }
  result(fromMs?: number, toMs?: number): ClusteringResult {
    const binMs = this.binMs;
    if (this.counts.size === 0) {
      return { binMs, bins: 0, arrivals: 0, mean: 0, peakToMean: 0, dispersionIndex: 0, maxBin: 0 };
    }
    const first = Math.min(...this.counts.keys());
    let bins = this.last - first + 1;
    if (fromMs !== undefined) bins += Math.max(0, first - Math.floor(fromMs / binMs));
    if (toMs !== undefined) bins += Math.max(0, Math.floor(toMs / binMs) - this.last);
    let sum = 0;
    let sumSq = 0;
    let maxBin = 0;
    for (const c of this.counts.values()) {
      sum += c;
      sumSq += c * c;
      maxBin = Math.max(maxBin, c);
    }
    const mean = sum / bins;
    const variance = Math.max(0, (sumSq - sum * mean) / bins);
    return { binMs, bins, arrivals: sum, mean, peakToMean: maxBin / mean, dispersionIndex: variance / mean, maxBin };
  }
}

describe('StreamingClustering', () => {
  it('counts the empty bins between arrivals as zeros', () => {
    // Bins of 10 ms: [3, 0, 2, 0, 0, 1]; mean 1, variance 14/6 - 1 = 4/3.
    expect(clusteringOf(10, [0, 1, 2, 25, 27, 51]).result()).toEqual({
      binMs: 10,
      bins: 6,
      arrivals: 6,
      mean: 1,
      peakToMean: 3,
      dispersionIndex: 4 / 3,
      maxBin: 3,
    });
  });

  it('starts the window at the first arrival’s bin, not at t = 0', () => {
    // Bins 10..13 of 10 ms: [2, 0, 0, 2]; mean 1, variance 1.
    expect(clusteringOf(10, [100, 109, 130, 135]).result()).toEqual({
      binMs: 10,
      bins: 4,
      arrivals: 4,
      mean: 1,
      peakToMean: 2,
      dispersionIndex: 1,
      maxBin: 2,
    });
  });

  it('bins by floor(t / binMs) with fractional widths', () => {
    // Bins of 0.5 ms: [1, 2, 0, 1]; mean 1, variance 6/4 - 1 = 0.5.
    expect(clusteringOf(0.5, [0.25, 0.5, 0.74, 1.6]).result()).toMatchObject({
      bins: 4,
      arrivals: 4,
      mean: 1,
      peakToMean: 2,
      dispersionIndex: 0.5,
      maxBin: 2,
    });
    // 15.6 / 15.6 is bin 1 and 46.8 / 15.6 bin 3: [1, 1, 0, 1].
    expect(clusteringOf(15.6, [0, 15.6, 46.8]).result()).toMatchObject({ bins: 4, arrivals: 3, mean: 0.75, maxBin: 1 });
  });

  it('reports a single bin as peak-to-mean 1 and dispersion 0', () => {
    expect(clusteringOf(1000, [1, 2, 2, 3, 999]).result()).toEqual({
      binMs: 1000,
      bins: 1,
      arrivals: 5,
      mean: 5,
      peakToMean: 1,
      dispersionIndex: 0,
      maxBin: 5,
    });
  });

  it('reports zeros when nothing arrived', () => {
    expect(new StreamingClustering(10).result()).toEqual({
      binMs: 10,
      bins: 0,
      arrivals: 0,
      mean: 0,
      peakToMean: 0,
      dispersionIndex: 0,
      maxBin: 0,
    });
  });

  it('gives dispersion 0 for a perfectly regular stream', () => {
    const times = Array.from({ length: 1000 }, (_, i) => i);
    expect(clusteringOf(10, times).result()).toMatchObject({ bins: 100, mean: 10, peakToMean: 1, dispersionIndex: 0 });
  });

  it('gives dispersion about 1 for a Poisson stream, matching a two-pass computation', () => {
    const rand = mulberry32(12345);
    const c = new StreamingClustering(10);
    const counts: number[] = [];
    let t = 0;
    for (let i = 0; i < 200_000; i++) {
      t += -Math.log(1 - rand()); // exponential gaps, 1 per ms
      c.record(t);
      const b = Math.floor(t / 10);
      counts[b] = (counts[b] ?? 0) + 1;
    }
    const first = counts.findIndex((x) => x !== undefined);
    const window = Array.from(counts.slice(first), (x) => x ?? 0);
    const mean = window.reduce((s, x) => s + x, 0) / window.length;
    const variance = window.reduce((s, x) => s + (x - mean) ** 2, 0) / window.length;
    const r = c.result();
    expect(r.arrivals).toBe(200_000);
    expect(r.bins).toBe(window.length);
    expect(r.maxBin).toBe(Math.max(...window));
    expect(r.mean).toBeCloseTo(mean, 12);
    expect(r.dispersionIndex).toBeCloseTo(variance / mean, 9);
    expect(Math.abs(r.dispersionIndex - 1)).toBeLessThan(0.05);
  });

  it('can be read mid-stream without disturbing what follows', () => {
    const times = [0, 1, 2, 25, 27, 51, 51, 52, 90];
    const read = new StreamingClustering(10);
    for (const [i, t] of times.entries()) {
      read.record(t);
      if (i === 4) expect(read.result()).toMatchObject({ bins: 3, arrivals: 5, maxBin: 3 });
      read.result();
    }
    expect(read.result()).toEqual(clusteringOf(10, times).result());
  });

  it('bins a time by floor(t / binMs) even where that disagrees with the product bin * binMs', () => {
    // 4.3 / 0.1 is 42.99999999999999 (bin 42) though 43 * 0.1 is 4.3; 1.7 / 0.1 is 17 though 1.7 < 17 * 0.1.
    expect(clusteringOf(0.1, [1.65, 1.7, 1.75, 4.3, 4.3]).result()).toMatchObject({ bins: 27, arrivals: 5, maxBin: 2 });
    expect(() => clusteringOf(0.1, [4.31, 4.3])).toThrow(RangeError); // back from bin 43 to bin 42
  });

  it('matches a two-pass computation on times at, beside and inside bin edges and after far gaps', () => {
    const arbitrary = fc.constantFrom(...EDGE_WIDTHS_MS).chain((binMs) =>
      fc.tuple(
        fc.constant(binMs),
        fc
          .array(edgeTime(binMs, false), { maxLength: 150 })
          .map((ts) => ts.filter((t) => t < Infinity).sort((a, b) => a - b)),
        fc.array(fc.nat(), { maxLength: 6 }), // positions where two neighbours are swapped: a step back in time
        fc.option(fc.double({ min: 0, max: 1e4, noNaN: true }), { nil: undefined }),
      ),
    );
    fc.assert(
      fc.property(arbitrary, ([binMs, times, swaps, toMs]) => {
        for (const p of swaps) {
          const i = p % Math.max(1, times.length - 1);
          if (i + 1 < times.length) [times[i], times[i + 1]] = [times[i + 1] as number, times[i] as number];
        }
        const c = new StreamingClustering(binMs);
        const ref = new ReferenceClustering(binMs);
        for (const t of times) {
          if (ref.record(t)) c.record(t);
          else expect(() => c.record(t)).toThrow(RangeError);
        }
        expect(c.result()).toEqual(ref.result());
        expect(c.result(0, toMs)).toEqual(ref.result(0, toMs));
      }),
      { seed: 42, numRuns: 1500 },
    );
  });

  it('rejects times that go back to an earlier bin or below 0, and bad bin widths', () => {
    const c = clusteringOf(10, [25]);
    expect(() => c.record(19)).toThrow(RangeError);
    expect(c.result().arrivals).toBe(1);
    c.record(21); // same bin, earlier time: still counted
    expect(c.result().arrivals).toBe(2);
    expect(() => new StreamingClustering(10).record(-1)).toThrow(RangeError);
    expect(() => new StreamingClustering(0)).toThrow(RangeError);
    expect(() => new StreamingClustering(NaN)).toThrow(RangeError);
    expect(() => new StreamingClustering(Infinity)).toThrow(RangeError);
  });
});
