/**
 * Binary min-heap of events over typed arrays, ordered by (timeMs, seq): equal times pop in
 * insertion order (FIFO), like SimPy's `(time, priority, eid)` heap. An event carries an integer
 * `kind` (the run loop dispatches on it with a switch, never a closure per event) and two integer
 * payload words `a` and `b` (typically an entity index and a generation used as a tombstone, see
 * {@link Timers}). Storage grows by doubling; nothing is allocated per event.
 */
export class EventQueue {
  private times: Float64Array;
  private seqs: Float64Array;
  private kinds: Int32Array;
  private as: Int32Array;
  private bs: Int32Array;
  private n = 0;
  private nextSeq = 0;

  /** Fields of the event removed by the last successful {@link pop}. */
  lastTimeMs = 0;
  lastKind = 0;
  lastA = 0;
  lastB = 0;

  constructor(initialCapacity = 1024) {
    const c = Math.max(2, initialCapacity | 0);
    this.times = new Float64Array(c);
    this.seqs = new Float64Array(c);
    this.kinds = new Int32Array(c);
    this.as = new Int32Array(c);
    this.bs = new Int32Array(c);
  }

  /** Number of pending events (tombstoned ones included: the queue does not know about them). */
  get size(): number {
    return this.n;
  }

  /** Time of the earliest pending event; +Infinity when empty. */
  peekTime(): number {
    return this.n > 0 ? (this.times[0] as number) : Infinity;
  }

  private grow(): void {
    const c = this.times.length * 2;
    const t = new Float64Array(c); t.set(this.times); this.times = t;
    const s = new Float64Array(c); s.set(this.seqs); this.seqs = s;
    const k = new Int32Array(c); k.set(this.kinds); this.kinds = k;
    const a = new Int32Array(c); a.set(this.as); this.as = a;
    const b = new Int32Array(c); b.set(this.bs); this.bs = b;
  }

  /** Insert an event, O(log n). `timeMs` must not be NaN (it may be negative: warm-up runs before 0). */
  push(timeMs: number, kind: number, a: number, b: number): void {
    if (this.n === this.times.length) this.grow();
    const times = this.times;
    const seqs = this.seqs;
    const kinds = this.kinds;
    const as = this.as;
    const bs = this.bs;
    const seq = this.nextSeq++;
    let i = this.n++;
    // Sift up with a hole: move parents down until the slot fits.
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = times[p] as number;
      if (pt < timeMs || (pt === timeMs && (seqs[p] as number) < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[p] as number;
      kinds[i] = kinds[p] as number;
      as[i] = as[p] as number;
      bs[i] = bs[p] as number;
      i = p;
    }
    times[i] = timeMs;
    seqs[i] = seq;
    kinds[i] = kind;
    as[i] = a;
    bs[i] = b;
  }

  /**
   * Remove the earliest event; its fields are then in `lastTimeMs`, `lastKind`, `lastA`, `lastB`
   * (no object is returned). Returns false when the queue is empty.
   */
  pop(): boolean {
    const n = this.n;
    if (n === 0) return false;
    const times = this.times;
    const seqs = this.seqs;
    const kinds = this.kinds;
    const as = this.as;
    const bs = this.bs;
    this.lastTimeMs = times[0] as number;
    this.lastKind = kinds[0] as number;
    this.lastA = as[0] as number;
    this.lastB = bs[0] as number;
    const last = n - 1;
    this.n = last;
    if (last === 0) return true;
    const t = times[last] as number;
    const s = seqs[last] as number;
    // Sift down with a hole from the root.
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= last) break;
      const r = c + 1;
      if (r < last) {
        const ct = times[c] as number;
        const rt = times[r] as number;
        if (rt < ct || (rt === ct && (seqs[r] as number) < (seqs[c] as number))) c = r;
      }
      const ct = times[c] as number;
      if (t < ct || (t === ct && s < (seqs[c] as number))) break;
      times[i] = ct;
      seqs[i] = seqs[c] as number;
      kinds[i] = kinds[c] as number;
      as[i] = as[c] as number;
      bs[i] = bs[c] as number;
      i = c;
    }
    times[i] = t;
    seqs[i] = s;
    kinds[i] = kinds[last] as number;
    as[i] = as[last] as number;
    bs[i] = bs[last] as number;
    return true;
  }

  /** Drop every pending event (sequence numbers keep counting, so order stays FIFO across clears). */
  clear(): void {
    this.n = 0;
  }
}
