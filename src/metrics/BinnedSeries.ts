import { innerEndWidth, innerStartWidth } from './binBounds.js';
import { checkBinning } from './checkBinning.js';

/** The most bins a series keeps (a run's time series stop there; `timeSeries.cutAtMs` says where). */
export const MAX_SERIES_BINS = 1_000_000;

/** Initial capacity, in bins, of the growable series. */
const INITIAL_BINS = 16;

/**
 * Event counts per time bin of `binMs` starting at t = 0 (arrivals, successes, goodput per bin), for the
 * time-series charts. Bin i covers [i * binMs, (i + 1) * binMs). Storage is a Float64Array that grows by
 * doubling up to `maxBins`; events at or after maxBins * binMs are counted in {@link overflow} only, and
 * events before 0 (warm-up) are ignored. The last bin counted in and bounds of the times certainly inside
 * it are kept, so that an event in the same bin as the last one binned is counted without a division.
 */
export class BinnedSeries {
  /** Bin width in ms. */
  readonly binMs: number;
  /** Largest number of bins kept. */
  readonly maxBins: number;
  private counts: Float64Array;
  private len = 0;
  private over = 0;
  /** The bin of the last binned event and [binLo, binHi), times certainly in it (empty until then). */
  private bin = 0;
  private binLo = Infinity;
  private binHi = -Infinity;
  /** binMs nudged up and down so that [bin * binUpMs, (bin + 1) * binDownMs) is inside the bin. */
  private readonly binUpMs: number;
  private readonly binDownMs: number;

  /** `binMs` must be finite and > 0, `maxBins` a positive integer. */
  constructor(binMs: number, maxBins = MAX_SERIES_BINS) {
    checkBinning('BinnedSeries', binMs, maxBins);
    this.binMs = binMs;
    this.maxBins = maxBins;
    this.binUpMs = innerStartWidth(binMs);
    this.binDownMs = innerEndWidth(binMs);
    this.counts = new Float64Array(Math.min(INITIAL_BINS, maxBins));
  }

  /** Add `n` events at time `tMs` to bin floor(tMs / binMs). Times may come in any order. */
  add(tMs: number, n = 1): void {
    if (tMs >= this.binLo && tMs < this.binHi) {
      const k = this.bin;
      this.counts[k] = (this.counts[k] as number) + n;
      return;
    }
    this.addToBin(tMs, n);
  }

  /** {@link add} outside the last bin's bounds: divides, counts, and makes the bin the current one. */
  private addToBin(tMs: number, n: number): void {
    const b = Math.floor(tMs / this.binMs);
    if (b >= this.maxBins) {
      this.over += n;
      return;
    }
    if (!(b >= 0)) return;
    if (b >= this.counts.length) this.grow(b);
    this.counts[b] = (this.counts[b] as number) + n;
    if (b >= this.len) this.len = b + 1;
    this.bin = b;
    this.binLo = b * this.binUpMs;
    this.binHi = (b + 1) * this.binDownMs;
  }

  private grow(bin: number): void {
    let c = this.counts.length;
    while (c <= bin) c *= 2;
    const next = new Float64Array(Math.min(c, this.maxBins));
    next.set(this.counts);
    this.counts = next;
  }

  /** Bins up to the last one touched by {@link add} or covered by {@link extendTo}, whichever is later. */
  get length(): number {
    return this.len;
  }

  /** Events that fell at or after maxBins * binMs and were not binned. */
  get overflow(): number {
    return this.over;
  }

  /** Make the series cover [0, tMs), so that it spans the whole run even if its tail saw no events. */
  extendTo(tMs: number): void {
    const bins = Math.min(this.maxBins, Math.ceil(tMs / this.binMs));
    if (bins > this.len) this.len = bins;
  }

  /** Counts per bin; `lengthBins` (default {@link length}) truncates or pads with zeros. */
  toArray(lengthBins = this.len): number[] {
    const out = new Array<number>(lengthBins).fill(0);
    const n = Math.min(lengthBins, this.counts.length);
    const counts = this.counts;
    for (let i = 0; i < n; i++) out[i] = counts[i] as number;
    return out;
  }
}
