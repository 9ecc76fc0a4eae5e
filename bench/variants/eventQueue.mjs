// Diagnostic, not a benchmark: src's EventQueue beside two variants of it, on the hold model, to
// estimate what the changes proposed in docs/performance.md would buy:
//   V1  the same five arrays and API, +Infinity in the slots past the end (no bounds test for the
//       right child) and the smaller child chosen without a branch (the tie test rarely taken);
//   V2  V1 plus lazy root removal: pop leaves a hole at the root, and a push that follows fills it
//       with one sift-down (instead of a sift-down and a sift-up); a pop or size fills it first.
// Every variant must give the reference's event order (checked).
//   node bench/variants/eventQueue.mjs
import { EventQueue } from '../../dist/engine/eventQueue.js';
import { median, startClock } from '../lib/clock.mjs';
import { referenceHold } from '../reference/hold.mjs';
import { exp1, seed } from '../reference/random.mjs';

class SentinelQueue {
  constructor(capacity = 1024) {
    this.times = new Float64Array(capacity + 1).fill(Infinity);
    this.seqs = new Float64Array(capacity + 1);
    this.kinds = new Int32Array(capacity + 1);
    this.as = new Int32Array(capacity + 1);
    this.bs = new Int32Array(capacity + 1);
    this.n = 0;
    this.nextSeq = 0;
    this.lastTimeMs = 0;
    this.lastKind = 0;
    this.lastA = 0;
    this.lastB = 0;
  }

  get size() {
    return this.n;
  }

  grow() {
    const c = (this.times.length - 1) * 2 + 1;
    const t = new Float64Array(c).fill(Infinity);
    t.set(this.times.subarray(0, this.n));
    this.times = t;
    for (const k of ['seqs', 'kinds', 'as', 'bs']) {
      const a = new this[k].constructor(c);
      a.set(this[k]);
      this[k] = a;
    }
  }

  push(timeMs, kind, a, b) {
    if (this.n + 1 >= this.times.length) this.grow();
    const { times, seqs, kinds, as, bs } = this;
    const seq = this.nextSeq++;
    let i = this.n++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = times[p];
      if (pt < timeMs || (pt === timeMs && seqs[p] < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[p];
      kinds[i] = kinds[p];
      as[i] = as[p];
      bs[i] = bs[p];
      i = p;
    }
    times[i] = timeMs;
    seqs[i] = seq;
    kinds[i] = kind;
    as[i] = a;
    bs[i] = b;
  }

  /** Put (t, s, k, a, b) at the root's hole and sift it down within the first `lim` slots. */
  siftDown(t, s, k, a, b, lim) {
    const { times, seqs, kinds, as, bs } = this;
    let i = 0;
    let c = 1;
    while (c < lim) {
      const c1 = c + 1;
      const t1 = times[c1];
      const t0 = times[c];
      c += (t1 < t0) | 0;
      if (t1 === t0 && seqs[c1] < seqs[c]) c = c1;
      const ct = times[c];
      if (t < ct || (t === ct && s < seqs[c])) break;
      times[i] = ct;
      seqs[i] = seqs[c];
      kinds[i] = kinds[c];
      as[i] = as[c];
      bs[i] = bs[c];
      i = c;
      c = 2 * c + 1;
    }
    times[i] = t;
    seqs[i] = s;
    kinds[i] = k;
    as[i] = a;
    bs[i] = b;
  }

  pop() {
    const n = this.n;
    if (n === 0) return false;
    const { times, seqs, kinds, as, bs } = this;
    this.lastTimeMs = times[0];
    this.lastKind = kinds[0];
    this.lastA = as[0];
    this.lastB = bs[0];
    const last = n - 1;
    this.n = last;
    const t = times[last];
    times[last] = Infinity;
    this.siftDown(t, seqs[last], kinds[last], as[last], bs[last], last);
    return true;
  }
}

class LazyRootQueue extends SentinelQueue {
  constructor(capacity) {
    super(capacity);
    this.hole = false;
  }

  get size() {
    return this.hole ? this.n - 1 : this.n;
  }

  fill() {
    this.hole = false;
    const last = --this.n;
    const times = this.times;
    if (last === 0) {
      times[0] = Infinity;
      return;
    }
    const t = times[last];
    times[last] = Infinity;
    this.siftDown(t, this.seqs[last], this.kinds[last], this.as[last], this.bs[last], last);
  }

  push(timeMs, kind, a, b) {
    if (!this.hole) {
      super.push(timeMs, kind, a, b);
      return;
    }
    this.hole = false;
    this.siftDown(timeMs, this.nextSeq++, kind, a, b, this.n);
  }

  pop() {
    if (this.hole) this.fill();
    if (this.n === 0) return false;
    this.lastTimeMs = this.times[0];
    this.lastKind = this.kinds[0];
    this.lastA = this.as[0];
    this.lastB = this.bs[0];
    this.hole = true;
    return true;
  }
}

function hold(Queue, n, events, seedValue) {
  seed(seedValue);
  const q = new Queue(1024);
  for (let i = 0; i < n; i++) q.push(exp1(), 1, i, 0);
  const clock = startClock();
  for (let e = 0; e < events; e++) {
    q.pop();
    q.push(q.lastTimeMs + exp1(), 1, q.lastA, 0);
  }
  const t = clock.stop();
  return { rate: events / t.cpuSec, nowMs: q.lastTimeMs };
}

const EVENTS = 2_000_000;
for (const n of [10, 1_000, 10_000, 100_000]) {
  const rates = { reference: [], EventQueue: [], V1: [], V2: [] };
  for (let r = 0; r < 5; r++) {
    const ref = referenceHold(n, EVENTS, r + 1);
    rates.reference.push(EVENTS / ref.cpuSec);
    for (const [name, Q] of [['EventQueue', EventQueue], ['V1', SentinelQueue], ['V2', LazyRootQueue]]) {
      const x = hold(Q, n, EVENTS, r + 1);
      if (x.nowMs !== ref.nowMs) throw new Error(`${name}, ${n} pending: event order differs from the reference`);
      rates[name].push(x.rate);
    }
  }
  const ref = median(rates.reference);
  const show = (name) => `${name} ${(median(rates[name]) / 1e6).toFixed(2)} M ev/s (${((100 * median(rates[name])) / ref).toFixed(0)}%)`;
  console.log(`hold, ${n} pending: reference ${(ref / 1e6).toFixed(2)} M ev/s; ${show('EventQueue')}; ${show('V1')}; ${show('V2')}`);
}
