import { innerEndWidth, innerStartWidth } from './binBounds.js';

/** Clustering statistics of a stream of event times, as returned by {@link StreamingClustering.result}. */
export interface ClusteringResult {
  /** Bin width the counts were taken in. */
  binMs: number;
  /** Bins from the first arrival's bin to the last arrival's bin inclusive (empty bins included). */
  bins: number;
  /** Events recorded. */
  arrivals: number;
  /** Mean events per bin, arrivals / bins. */
  mean: number;
  /** Largest bin count over the mean: 1 for a perfectly even stream, large for bursts. */
  peakToMean: number;
  /** Population variance over the mean of the per-bin counts: 0 for a regular stream, about 1 for Poisson. */
  dispersionIndex: number;
  /** Largest number of events in one bin. */
  maxBin: number;
}

/** Current-bin marker before the first arrival: no integer bin equals it, and every bin >= 0 exceeds it. */
const NO_BIN = -0.5;

/**
 * How clustered a stream of event times is (server arrivals under synchronised retries), from its counts
 * per bin of `binMs`: peak-to-mean ratio and index of dispersion (variance-to-mean ratio; Cox and Lewis,
 * "The Statistical Analysis of Series of Events", 1966), computed in O(1) memory. Times must arrive in
 * nondecreasing order; only the current bin's count is kept, and finished bins (and the empty ones
 * between them) are folded into running count, sum, sum of squares and maximum. Bounds of the times
 * certainly in the current bin are kept too, so an arrival in it is counted without a division.
 */
export class StreamingClustering {
  /** Bin width in ms. */
  readonly binMs: number;
  private cur = NO_BIN;
  private first = NO_BIN;
  private curCount = 0;
  private doneBins = 0;
  private doneSum = 0;
  private doneSumSq = 0;
  private doneMax = 0;
  /** Times certainly in the current bin, [curLo, curHi) (empty before the first arrival). */
  private curLo = Infinity;
  private curHi = -Infinity;
  /** binMs nudged up and down so that [bin * binUpMs, (bin + 1) * binDownMs) is inside the bin. */
  private readonly binUpMs: number;
  private readonly binDownMs: number;

  /** `binMs` must be a finite number > 0 (fractional widths such as 0.5 or 15.6 are fine). */
  constructor(binMs: number) {
    if (!(binMs > 0 && binMs < Infinity)) throw new RangeError(`StreamingClustering: binMs must be > 0 (got ${binMs})`);
    this.binMs = binMs;
    this.binUpMs = innerStartWidth(binMs);
    this.binDownMs = innerEndWidth(binMs);
  }

  /** Count an event at `tMs` (>= 0, not earlier than the previous one) in bin floor(tMs / binMs). */
  record(tMs: number): void {
    if (tMs >= this.curLo && tMs < this.curHi) {
      this.curCount++;
      return;
    }
    this.recordOutside(tMs);
  }

  /** {@link record} outside the current bin's bounds: divides, and closes the bin if `tMs` is past it. */
  private recordOutside(tMs: number): void {
    const b = Math.floor(tMs / this.binMs);
    const cur = this.cur;
    if (b === cur) {
      this.curCount++;
      return;
    }
    if (!(b > cur)) outOfOrder(tMs, cur);
    if (cur !== NO_BIN) {
      const c = this.curCount;
      // The finished bin plus the empty bins before b, which add to the count only.
      this.doneBins += b - cur;
      this.doneSum += c;
      this.doneSumSq += c * c;
      if (c > this.doneMax) this.doneMax = c;
    }
    if (cur === NO_BIN) this.first = b;
    this.cur = b;
    this.curCount = 1;
    this.curLo = b * this.binUpMs;
    this.curHi = (b + 1) * this.binDownMs;
  }

  /**
   * Statistics over the bins from the first to the last arrival's, or over the measured window
   * [fromMs, toMs] when it is given (empty bins before the first and after the last arrival count
   * as zeros: a single spike then reads as one, not as an even stream). Recording may continue.
   */
  result(fromMs?: number, toMs?: number): ClusteringResult {
    if (this.cur === NO_BIN) {
      return { binMs: this.binMs, bins: 0, arrivals: 0, mean: 0, peakToMean: 0, dispersionIndex: 0, maxBin: 0 };
    }
    const c = this.curCount;
    let bins = this.doneBins + 1;
    if (fromMs !== undefined) bins += Math.max(0, this.first - Math.floor(fromMs / this.binMs));
    if (toMs !== undefined) bins += Math.max(0, Math.floor(toMs / this.binMs) - this.cur);
    const sum = this.doneSum + c;
    const sumSq = this.doneSumSq + c * c;
    const maxBin = c > this.doneMax ? c : this.doneMax;
    const mean = sum / bins;
    const variance = Math.max(0, (sumSq - sum * mean) / bins);
    return {
      binMs: this.binMs,
      bins,
      arrivals: sum,
      mean,
      peakToMean: maxBin / mean,
      dispersionIndex: variance / mean,
      maxBin,
    };
  }
}

/** Thrown out of line: a `throw` with a template string inside a hot method slows down its callers. */
function outOfOrder(tMs: number, cur: number): never {
  throw new RangeError(`StreamingClustering.record: times must be >= 0 and nondecreasing (got ${tMs} after bin ${cur})`);
}
