import { MAX_SERIES_BINS } from './BinnedSeries.js';
import { checkBinning } from './checkBinning.js';

/** Initial capacity, in bins, of the growable series. */
const INITIAL_BINS = 16;

/**
 * A gauge (queue length, requests in flight, budget tokens) whose value changes at event times, measured
 * as time-weighted averages: the area under the step function, value * dt, accumulates into bins of
 * `binMs` from t = 0 (an interval is split at bin boundaries), and into an overall total. The window is
 * [max(0, startMs), end]: a warm-up that runs at negative times moves the value but adds no area. Bin
 * storage is a Float64Array that grows by doubling up to `maxBins`; area after maxBins * binMs counts
 * toward {@link mean} only. Nothing is allocated per change.
 */
export class TimeWeightedSeries {
  /** Bin width in ms. */
  readonly binMs: number;
  /** Largest number of bins kept. */
  readonly maxBins: number;
  /** Time at which the gauge starts with its initial value; may be negative (warm-up). */
  readonly startMs: number;
  private readonly origin: number;
  private areas: Float64Array;
  // Changing numbers start as numbers, not as undefined: a field defined first as undefined would box
  // every double stored into it afterwards in a new heap number (an allocation per change).
  private lastT = 0;
  private cur = 0;
  private area = 0;
  private peak = 0;
  /** The bin that held the last interval, and its bounds: most changes fall in it (no division). */
  private binIndex = -1;
  private binStart = 0;
  private binEnd = 0;

  /** The gauge holds `initialValue` from `startMs` (finite); `binMs` must be > 0, `maxBins` a positive integer. */
  constructor(binMs: number, maxBins = MAX_SERIES_BINS, startMs = 0, initialValue = 0) {
    checkBinning('TimeWeightedSeries', binMs, maxBins);
    if (!Number.isFinite(startMs)) throw new RangeError(`TimeWeightedSeries: startMs must be finite (got ${startMs})`);
    this.binMs = binMs;
    this.maxBins = maxBins;
    this.startMs = startMs;
    this.origin = startMs > 0 ? startMs : 0;
    this.areas = new Float64Array(Math.min(INITIAL_BINS, maxBins));
    this.lastT = startMs;
    this.cur = initialValue;
    this.peak = startMs >= 0 ? initialValue : -Infinity;
  }

  /** The current value. */
  get value(): number {
    return this.cur;
  }

  /**
   * Change the value at `tMs` (not earlier than the previous change); the old value's area is accumulated.
   * The common case, a change in the bin of the last one, is handled here and the rest in
   * {@link setElsewhere}: a small method that V8 inlines into the hot callers within its budget. The
   * last bin's bounds are set only once the window is open (by {@link spread}), so a previous change
   * inside them was in the window.
   */
  set(tMs: number, value: number): void {
    const t0 = this.lastT;
    if (t0 >= this.binStart && tMs < this.binEnd && tMs >= t0) {
      const v = this.cur;
      if (tMs > t0 && v !== 0) {
        const d = v * (tMs - t0);
        this.area += d;
        const k = this.binIndex;
        this.areas[k] = (this.areas[k] as number) + d;
      }
      if (value > this.peak) this.peak = value;
      this.cur = value;
      this.lastT = tMs;
    } else this.setElsewhere(tMs, value);
  }

  /** {@link set} when the change is not in the last change's bin (or goes backwards: an error). */
  private setElsewhere(tMs: number, value: number): void {
    const t0 = this.lastT;
    if (!(tMs >= t0)) backwards(tMs, t0);
    if (t0 >= this.origin) {
      // The window is open: the old value was compared with the peak when it was set.
      const v = this.cur;
      if (tMs > t0 && v !== 0) {
        this.area += v * (tMs - t0);
        this.spread(t0, tMs, v);
      }
      if (value > this.peak) this.peak = value;
    } else this.setBeforeWindow(tMs, value);
    this.cur = value;
    this.lastT = tMs;
  }

  /** The part of {@link set} for a previous change before the window opened (warm-up). */
  private setBeforeWindow(tMs: number, value: number): void {
    const a = this.origin;
    if (tMs > a) {
      const v = this.cur;
      if (v > this.peak) this.peak = v;
      if (v !== 0) {
        this.area += v * (tMs - a);
        this.spread(a, tMs, v);
      }
    }
    if (tMs >= a && value > this.peak) this.peak = value;
  }

  /** Change the value by `delta` at `tMs`. */
  add(tMs: number, delta: number): void {
    this.set(tMs, this.cur + delta);
  }

  /** Close the measured window at `endMs`, holding the current value until then. */
  finish(endMs: number): void {
    // A change recorded after the end (a periodic check outliving the run) keeps the window where it is.
    if (!(endMs < this.lastT)) this.set(endMs, this.cur);
  }

  /** Add the area of value `v` held over [a, b) (0 <= a < b) to the bins it spans. */
  private spread(a: number, b: number, v: number): void {
    if (a >= this.binStart && b < this.binEnd) {
      const k = this.binIndex;
      this.areas[k] = (this.areas[k] as number) + v * (b - a);
      return;
    }
    const w = this.binMs;
    const maxBins = this.maxBins;
    const i = Math.floor(a / w);
    if (i >= maxBins) return;
    const j = Math.floor(b / w);
    const last = j < maxBins ? j : maxBins - 1;
    if (last >= this.areas.length) this.grow(last);
    const areas = this.areas;
    if (j < maxBins) {
      this.binIndex = j;
      this.binStart = j * w;
      this.binEnd = (j + 1) * w;
    }
    if (i === j) {
      areas[i] = (areas[i] as number) + v * (b - a);
      return;
    }
    areas[i] = (areas[i] as number) + v * ((i + 1) * w - a);
    const full = v * w;
    for (let k = i + 1; k < j && k < maxBins; k++) areas[k] = (areas[k] as number) + full;
    if (j < maxBins) areas[j] = (areas[j] as number) + v * (b - j * w);
  }

  private grow(bin: number): void {
    let c = this.areas.length;
    while (c <= bin) c *= 2;
    const next = new Float64Array(Math.min(c, this.maxBins));
    next.set(this.areas);
    this.areas = next;
  }

  /** Bins from t = 0 up to the last change or {@link finish} time (a final partial bin included). */
  get length(): number {
    const end = this.lastT;
    return end > this.origin ? Math.min(this.maxBins, Math.ceil(end / this.binMs)) : 0;
  }

  /**
   * Time-weighted mean value per bin, each over the part of the bin inside the window (so a final
   * partial bin is averaged over its covered part); `lengthBins` (default {@link length}) truncates or
   * pads, and bins outside the window read 0.
   */
  binMeans(lengthBins = this.length): number[] {
    const out = new Array<number>(lengthBins).fill(0);
    const w = this.binMs;
    const lo = this.origin;
    const hi = this.lastT;
    const areas = this.areas;
    const n = Math.min(lengthBins, areas.length);
    for (let i = 0; i < n; i++) {
      const start = i * w;
      const end = (i + 1) * w;
      let covered = w;
      if (lo > start) covered -= lo - start;
      if (hi < end) covered -= end - hi;
      if (covered > 0) out[i] = (areas[i] as number) / covered;
    }
    return out;
  }

  /** Time-weighted mean value over [max(0, startMs), last change or finish time]; NaN for an empty window. */
  mean(): number {
    const d = this.lastT - this.origin;
    return d > 0 ? this.area / d : NaN;
  }

  /** Largest value held at any instant of the window, changes of zero duration included; NaN before it opens. */
  get max(): number {
    return this.peak === -Infinity ? NaN : this.peak;
  }
}

/** Thrown out of line: a `throw` with a template string inside a hot method slows down its callers. */
function backwards(tMs: number, t0: number): never {
  throw new RangeError(`TimeWeightedSeries.set: times must be nondecreasing (got ${tMs} after ${t0})`);
}
