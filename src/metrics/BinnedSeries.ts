import { checkBinning } from './checkBinning.js';

/** Initial capacity, in bins, of the growable series. */
const INITIAL_BINS = 256;

/**
 * Event counts per time bin of `binMs` starting at t = 0 (arrivals, successes, goodput per bin), for the
 * time-series charts. Bin i covers [i * binMs, (i + 1) * binMs). Storage is a Float64Array that grows by
 * doubling up to `maxBins`; events at or after maxBins * binMs are counted in {@link overflow} only, and
 * events before 0 (warm-up) are ignored.
 */
export class BinnedSeries {
  /** Bin width in ms. */
  readonly binMs: number;
  /** Largest number of bins kept. */
  readonly maxBins: number;
  private counts: Float64Array;
  private len = 0;
  private over = 0;

  /** `binMs` must be finite and > 0, `maxBins` a positive integer. */
  constructor(binMs: number, maxBins = 1_000_000) {
    checkBinning('BinnedSeries', binMs, maxBins);
    this.binMs = binMs;
    this.maxBins = maxBins;
    this.counts = new Float64Array(Math.min(INITIAL_BINS, maxBins));
  }

  /** Add `n` events at time `tMs` to bin floor(tMs / binMs). */
  add(tMs: number, n = 1): void {
    const b = Math.floor(tMs / this.binMs);
    if (b >= this.maxBins) {
      this.over += n;
      return;
    }
    if (!(b >= 0)) return;
    if (b >= this.counts.length) this.grow(b);
    this.counts[b] = (this.counts[b] as number) + n;
    if (b >= this.len) this.len = b + 1;
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
