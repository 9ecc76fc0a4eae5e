/**
 * Finagle's time-windowed adder (twitter/util:util-core/src/main/scala/com/twitter/util/
 * WindowedAdder.scala): a sum over roughly `rangeMs`, kept as `slices - 1` finished slices of
 * rangeMs / slices (integer division, as the source's Longs) plus the slice being written. A slice
 * ends when at least one slice width has passed since the previous end (`old`), so slices are not
 * aligned to absolute time; skipped slices are zeroed. Time is passed in; the first call starts the
 * clock (the source starts it at construction). Nothing is allocated after construction.
 */
export class WindowedAdder {
  private readonly windowMs: number;
  private readonly n: number;
  private readonly buf: Float64Array;
  private i = 0;
  private old = NaN;
  private writer = 0;

  constructor(rangeMs: number, slices: number) {
    if (!Number.isInteger(slices) || slices < 2) throw new RangeError(`slices must be an integer > 1 (got ${slices})`);
    this.windowMs = Math.trunc(rangeMs / slices);
    if (!(this.windowMs > 0)) throw new RangeError(`rangeMs / slices must be >= 1 ms (got ${rangeMs} / ${slices})`);
    this.n = slices - 1;
    this.buf = new Float64Array(this.n);
  }

  private touch(nowMs: number): void {
    if (this.old !== this.old) {
      this.old = nowMs;
      return;
    }
    if (nowMs - this.old >= this.windowMs) this.expired(nowMs);
  }

  /** The source's `expired()`: commit the current slice, move on, zero any skipped slices. */
  private expired(nowMs: number): void {
    const n = this.n;
    this.buf[this.i] = this.writer;
    this.writer = 0;
    this.i = (this.i + 1) % n;
    const nskip = Math.min(Math.trunc((nowMs - this.old) / this.windowMs) - 1, n);
    if (nskip > 0) {
      const r = Math.min(nskip, n - this.i);
      this.buf.fill(0, this.i, this.i + r);
      this.buf.fill(0, 0, nskip - r);
      this.i = (this.i + nskip) % n;
    }
    this.old = nowMs;
  }

  add(nowMs: number, x: number): void {
    this.touch(nowMs);
    this.writer += x;
  }

  sum(nowMs: number): number {
    this.touch(nowMs);
    let s = this.writer;
    for (let k = 0; k < this.n; k++) s += this.buf[k] as number;
    return s;
  }
}
