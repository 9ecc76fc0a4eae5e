import { tableGrew } from './memoryMeter.js';

/** Kinds are integers in [0, KINDS): the kind is stored in the low bits of the sequence key. */
export const KINDS = 256;
const INV_KINDS = 1 / KINDS;
/** Bytes of one event slot: time and key (Float64), a and b (Int32), in the heap and in a lane. */
export const EVENT_BYTES = 24;
const EMPTY_F64 = new Float64Array(0);
const EMPTY_I32 = new Int32Array(0);

/**
 * Binary min-heap of events over typed arrays, ordered by (timeMs, seq): equal times pop in
 * insertion order (FIFO), like SimPy's `(time, priority, eid)` heap. An event carries an integer
 * `kind` in [0, 256) (the run loop dispatches on it with a switch, never a closure per event) and
 * two integer payload words `a` and `b` (typically an entity index and a generation used as a
 * tombstone, see {@link Timers}). Storage grows by doubling; nothing is allocated per event.
 *
 * The heap moves four parallel arrays per level: time, key, a, b. The key is `seq * 256 + kind`,
 * an exact integer in a float64 (for the first 2^45 pushes, about 3.5e13): sequence numbers are
 * distinct, so ordering by key is ordering by seq, and the kind needs no array of its own.
 *
 * Two details keep it fast: slots past the end hold +Infinity in both time and key, so choosing
 * the smaller child needs no bounds test (and is branch-free; an event at time +Infinity still
 * beats an empty slot on its key); and `pop` leaves the root in place as a hole that the next
 * `push` fills with a single sift-down (a discrete-event loop pops one event and usually pushes
 * one), instead of a sift-down for the pop and a sift-up for the push.
 *
 * Lanes ({@link addLane}, {@link pushLane}) hold events that are scheduled in time order, such as
 * the timeouts of a constant delay: a lane is a FIFO, O(1) to push and to pop, and keeps them out
 * of the heap (timeouts that are cancelled before they fire, typically most of them, would
 * otherwise crowd it). An event pushed to a lane earlier than the lane's last goes to the heap. A
 * pop takes the least (time, seq) among the heap's root and the lanes' heads, so the order of
 * events is the same as with the heap alone.
 */
export class EventQueue {
  private times: Float64Array;
  /** `seq * 256 + kind`. */
  private keys: Float64Array;
  private as: Int32Array;
  private bs: Int32Array;
  /** Slots in use, the hole at the root included. */
  private n = 0;
  /** The root was popped and its slot waits to be refilled. */
  private hole = false;
  private nextSeq = 0;

  /** FIFO lanes (events in nondecreasing time, hence (time, seq), order). */
  private lanes: Lane[] = [];
  /** Where the last {@link pop} took its event from: -1 the heap, else the lane. */
  private lastFrom = -1;
  /** Events in all lanes (0: a pop looks at the heap alone). */
  private inLanes = 0;

  /** Fields of the event removed by the last successful {@link pop}. */
  lastTimeMs = 0;
  lastKind = 0;
  lastA = 0;
  lastB = 0;

  constructor(initialCapacity = 1024) {
    this.times = this.keys = EMPTY_F64;
    this.as = this.bs = EMPTY_I32;
    this.allocate(Math.max(2, initialCapacity | 0) + 1);
  }

  /** Number of pending events (tombstoned ones included: the queue does not know about them). */
  get size(): number {
    return (this.hole ? this.n - 1 : this.n) + this.inLanes;
  }

  /** Time of the earliest pending event; +Infinity when empty. */
  peekTime(): number {
    if (this.hole) this.fill();
    let t = this.times[0] as number;
    for (const l of this.lanes) if (l.length > 0 && (l.headTime() as number) < t) t = l.headTime();
    return t;
  }

  /** A new lane for events scheduled in time order; returns its number for {@link pushLane}. */
  addLane(): number {
    this.lanes.push(new Lane());
    return this.lanes.length - 1;
  }

  /**
   * Insert an event into lane `lane` if it is not earlier than the lane's last event (O(1)),
   * otherwise into the heap; a negative `lane` means the heap. Either way it pops in (time, seq)
   * order among all events.
   */
  pushLane(lane: number, timeMs: number, kind: number, a: number, b: number): void {
    const l = lane >= 0 ? (this.lanes[lane] as Lane) : null;
    if (l === null || !(timeMs >= l.tailTime)) {
      this.push(timeMs, kind, a, b);
      return;
    }
    if ((kind & (KINDS - 1)) !== kind) badKind(kind);
    l.push(timeMs, this.nextSeq++ * KINDS + kind, a, b);
    this.inLanes++;
  }

  private grow(): void {
    this.allocate((this.times.length - 1) * 2 + 1);
  }

  /** Move the columns into one new buffer of `c` slots (one allocation instead of four); slots past `n` hold +Infinity. */
  private allocate(c: number): void {
    tableGrew((c - this.times.length) * EVENT_BYTES);
    const buf = new ArrayBuffer(c * 24);
    const t = new Float64Array(buf, 0, c).fill(Infinity);
    t.set(this.times);
    this.times = t;
    const k = new Float64Array(buf, c * 8, c).fill(Infinity);
    k.set(this.keys);
    this.keys = k;
    const a = new Int32Array(buf, c * 16, c);
    a.set(this.as);
    this.as = a;
    const b = new Int32Array(buf, c * 20, c);
    b.set(this.bs);
    this.bs = b;
  }

  /** Put an event at the root's hole and sift it down within the first `lim` slots. */
  private siftDown(t: number, key: number, a: number, b: number, lim: number): void {
    const times = this.times;
    const keys = this.keys;
    const as = this.as;
    const bs = this.bs;
    let i = 0;
    let c = 1;
    while (c < lim) {
      const c1 = c + 1;
      const t0 = times[c] as number;
      const t1 = times[c1] as number;
      // Slots past the end hold (+Infinity, +Infinity): the right child needs no bounds test.
      c += (t1 < t0) as unknown as number;
      if (t1 === t0 && (keys[c1] as number) < (keys[c] as number)) c = c1;
      const ct = times[c] as number;
      const ck = keys[c] as number;
      if (t < ct || (t === ct && key < ck)) break;
      times[i] = ct;
      keys[i] = ck;
      as[i] = as[c] as number;
      bs[i] = bs[c] as number;
      i = c;
      c = 2 * c + 1;
    }
    times[i] = t;
    keys[i] = key;
    as[i] = a;
    bs[i] = b;
  }

  /** Refill the root's hole with the last event. */
  private fill(): void {
    this.hole = false;
    const last = --this.n;
    const times = this.times;
    const keys = this.keys;
    const t = times[last] as number;
    const key = keys[last] as number;
    times[last] = Infinity;
    keys[last] = Infinity;
    if (last === 0) {
      times[0] = Infinity;
      keys[0] = Infinity;
      return;
    }
    this.siftDown(t, key, this.as[last] as number, this.bs[last] as number, last);
  }

  /**
   * Insert an event, O(log n). `timeMs` must not be NaN (it may be negative: warm-up runs before 0);
   * `kind` must be an integer in [0, 256) (a RangeError otherwise).
   */
  push(timeMs: number, kind: number, a: number, b: number): void {
    if ((kind & (KINDS - 1)) !== kind) badKind(kind);
    const key = this.nextSeq++ * KINDS + kind;
    if (this.hole) {
      this.hole = false;
      this.siftDown(timeMs, key, a, b, this.n);
      return;
    }
    if (this.n + 1 >= this.times.length) this.grow();
    const times = this.times;
    const keys = this.keys;
    const as = this.as;
    const bs = this.bs;
    let i = this.n++;
    // Sift up with a hole: move parents down until the slot fits.
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = times[p] as number;
      const pk = keys[p] as number;
      if (pt < timeMs || (pt === timeMs && pk < key)) break;
      times[i] = pt;
      keys[i] = pk;
      as[i] = as[p] as number;
      bs[i] = bs[p] as number;
      i = p;
    }
    times[i] = timeMs;
    keys[i] = key;
    as[i] = a;
    bs[i] = b;
  }

  /**
   * Remove the earliest event; its fields are then in `lastTimeMs`, `lastKind`, `lastA`, `lastB`
   * (no object is returned). Returns false when the queue is empty.
   */
  pop(): boolean {
    if (this.hole) this.fill();
    if (this.inLanes > 0) return this.popAmongLanes();
    this.lastFrom = -1;
    if (this.n === 0) return false;
    this.lastTimeMs = this.times[0] as number;
    const key = this.keys[0] as number;
    // Exact: dividing by a power of two and flooring an integer below 2^53 round nothing off.
    this.lastKind = key - Math.floor(key * INV_KINDS) * KINDS;
    this.lastA = this.as[0] as number;
    this.lastB = this.bs[0] as number;
    this.hole = true;
    return true;
  }

  /** {@link pop} when there are lanes: the least of the heap's root and the lanes' heads. */
  private popAmongLanes(): boolean {
    let from = -1;
    let t = this.times[0] as number;
    let key = this.keys[0] as number;
    const lanes = this.lanes;
    for (let i = 0; i < lanes.length; i++) {
      const l = lanes[i] as Lane;
      if (l.length === 0) continue;
      const lt = l.headTime();
      const lk = l.headKey();
      if (lt < t || (lt === t && lk < key)) {
        from = i;
        t = lt;
        key = lk;
      }
    }
    if (from < 0) {
      if (this.n === 0) return false;
      this.lastA = this.as[0] as number;
      this.lastB = this.bs[0] as number;
      this.hole = true;
    } else {
      const l = lanes[from] as Lane;
      this.lastA = l.headA();
      this.lastB = l.headB();
      l.shift();
      this.inLanes--;
    }
    this.lastFrom = from;
    this.lastTimeMs = t;
    this.lastKind = key - Math.floor(key * INV_KINDS) * KINDS;
    return true;
  }

  /**
   * Put back the event the last `pop` removed, right after that pop (no push, peek or clear in
   * between): for a run loop that popped past its horizon. After a clear it puts back nothing.
   */
  unpop(): void {
    if (this.lastFrom < 0) {
      this.hole = false;
      return;
    }
    (this.lanes[this.lastFrom] as Lane).unshift();
    this.inLanes++;
  }

  /** Drop every pending event (sequence numbers keep counting, so order stays FIFO across clears). */
  clear(): void {
    this.times.fill(Infinity);
    this.keys.fill(Infinity);
    this.n = 0;
    this.hole = false;
    for (const l of this.lanes) l.clear();
    this.inLanes = 0;
    this.lastFrom = -1;
  }
}

/** A FIFO ring of events (time, key, a, b) pushed in nondecreasing time; grows by doubling. */
class Lane {
  private times = new Float64Array(16);
  private keys = new Float64Array(16);
  private as = new Int32Array(16);
  private bs = new Int32Array(16);
  private mask = 15;
  private head = 0;
  length = 0;
  /** Time of the last event pushed (-Infinity before the first): later pushes must not be earlier. */
  tailTime = -Infinity;

  push(t: number, key: number, a: number, b: number): void {
    if (this.length > this.mask) this.grow();
    const i = (this.head + this.length) & this.mask;
    this.times[i] = t;
    this.keys[i] = key;
    this.as[i] = a;
    this.bs[i] = b;
    this.length++;
    this.tailTime = t;
  }

  headTime(): number {
    return this.times[this.head] as number;
  }

  headKey(): number {
    return this.keys[this.head] as number;
  }

  headA(): number {
    return this.as[this.head] as number;
  }

  headB(): number {
    return this.bs[this.head] as number;
  }

  shift(): void {
    this.head = (this.head + 1) & this.mask;
    this.length--;
  }

  /** Undo the last {@link shift} (its slot still holds the event). */
  unshift(): void {
    this.head = (this.head - 1) & this.mask;
    this.length++;
  }

  clear(): void {
    this.head = 0;
    this.length = 0;
    this.tailTime = -Infinity;
  }

  private grow(): void {
    const c = (this.mask + 1) * 2;
    tableGrew((c - this.mask - 1) * EVENT_BYTES);
    const times = new Float64Array(c);
    const keys = new Float64Array(c);
    const as = new Int32Array(c);
    const bs = new Int32Array(c);
    for (let k = 0; k < this.length; k++) {
      const i = (this.head + k) & this.mask;
      times[k] = this.times[i] as number;
      keys[k] = this.keys[i] as number;
      as[k] = this.as[i] as number;
      bs[k] = this.bs[i] as number;
    }
    this.times = times;
    this.keys = keys;
    this.as = as;
    this.bs = bs;
    this.mask = c - 1;
    this.head = 0;
  }
}

/** Thrown out of line: a `throw` with a template string inside a hot method slows down its callers. */
function badKind(kind: number): never {
  throw new RangeError(`event kind ${kind}: must be an integer in [0, ${KINDS})`);
}
