/**
 * Counters summed over a sliding window of time, kept as a fixed ring of `slices` time slices of
 * width windowMs / slices, aligned to absolute time (slice k covers [k * width, (k + 1) * width)).
 * The window is the current slice and the `slices - 1` before it. Each slice holds one value per
 * channel (e.g. requests and successes). Running totals make every call O(1) (moving past many
 * slices clears at most `slices` of them); nothing is allocated after construction. Time is passed
 * in; moving backwards in time is treated as staying in the current slice.
 */
export class SlidingWindow {
  private readonly values: Float64Array;
  private readonly totals: Float64Array;
  private readonly widthMs: number;
  private head = 0;
  private started = false;

  constructor(
    windowMs: number,
    private readonly slices: number,
    private readonly channels: number,
  ) {
    if (!(windowMs > 0) || !Number.isFinite(windowMs)) throw new RangeError(`windowMs must be a finite number > 0 (got ${windowMs})`);
    if (!Number.isInteger(slices) || slices < 1) throw new RangeError(`slices must be a positive integer (got ${slices})`);
    this.widthMs = windowMs / slices;
    this.values = new Float64Array(slices * channels);
    this.totals = new Float64Array(channels);
  }

  /** Drops the slices that left the window by `nowMs`. */
  private advance(nowMs: number): void {
    const k = Math.floor(nowMs / this.widthMs);
    if (!this.started) {
      this.started = true;
      this.head = k;
      return;
    }
    if (k <= this.head) return;
    const steps = Math.min(k - this.head, this.slices);
    const n = this.slices;
    const c = this.channels;
    for (let s = 1; s <= steps; s++) {
      const slot = (((this.head + s) % n) + n) % n;
      for (let ch = 0; ch < c; ch++) {
        const i = slot * c + ch;
        this.totals[ch] = (this.totals[ch] as number) - (this.values[i] as number);
        this.values[i] = 0;
      }
    }
    if (steps === n) this.totals.fill(0);
    this.head = k;
  }

  /** Adds `amount` to `channel` in the slice of `nowMs`. */
  add(nowMs: number, channel: number, amount: number): void {
    this.advance(nowMs);
    const n = this.slices;
    const slot = ((this.head % n) + n) % n;
    const i = slot * this.channels + channel;
    this.values[i] = (this.values[i] as number) + amount;
    this.totals[channel] = (this.totals[channel] as number) + amount;
  }

  /** The sum of `channel` over the window ending at `nowMs` (expired slices are dropped first). */
  total(nowMs: number, channel: number): number {
    this.advance(nowMs);
    return this.totals[channel] as number;
  }
}
