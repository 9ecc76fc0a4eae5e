// Reference engine, M/M/1: Poisson arrivals, exponential service, one server, FIFO, unlimited
// queue. Hand-written and model-specific (see ./hold.mjs for the heap): the event set is the same
// typed-array binary heap ordered by (time, seq) with integer kinds; the FIFO queue is a typed-array
// ring of arrival times; latency is recorded the way a simulator must report it, as a count, a sum
// and a log-bucket histogram indexed by the float's exponent and top mantissa bits (no Math.log).
import { startClock } from '../lib/clock.mjs';
import { exp1, seed } from './random.mjs';

const ARRIVAL = 1;
const DEPARTURE = 2;

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
/** 7 mantissa bits: buckets 1/128 wide relative to their lower bound. */
const SHIFT = 13;
const KEY_MIN = (1023 - 20) << 7;
const BUCKETS = 81 << 7;

/**
 * Run an M/M/1 queue until `ops` customers have arrived and the system has drained.
 * Defaults: arrival rate 80/s, mean service 10 ms (utilisation 0.8, mean time in system 50 ms).
 * Returns the operations, the seconds the run took, the mean latency and its p99 (ms).
 */
export function referenceMM1(ops, seedValue = 1, ratePerSec = 80, serviceMeanMs = 10) {
  const clock = startClock();
  seed(seedValue);
  const meanGapMs = 1000 / ratePerSec;
  // event set (at most 2 pending events here, but the general heap code is kept)
  let cap = 16;
  let T = new Float64Array(cap).fill(Infinity);
  let Q = new Float64Array(cap);
  let K = new Int32Array(cap);
  let size = 0;
  let seq = 0;
  // FIFO of arrival times (ring, grows by doubling)
  let ring = new Float64Array(1024);
  let mask = 1023;
  let head = 0;
  let tail = 0;
  let busy = 0;
  let inService = 0; // arrival time of the customer in service
  const hist = new Float64Array(BUCKETS);
  let count = 0;
  let sum = 0;
  let arrived = 0;

  const push = (t, k) => {
    if (size + 1 >= cap) {
      cap *= 2;
      const t2 = new Float64Array(cap).fill(Infinity);
      t2.set(T.subarray(0, size));
      const q2 = new Float64Array(cap);
      q2.set(Q);
      const k2 = new Int32Array(cap);
      k2.set(K);
      T = t2;
      Q = q2;
      K = k2;
    }
    const s = seq++;
    let i = size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = T[p];
      if (pt < t || (pt === t && Q[p] < s)) break;
      T[i] = pt;
      Q[i] = Q[p];
      K[i] = K[p];
      i = p;
    }
    T[i] = t;
    Q[i] = s;
    K[i] = k;
  };

  push(exp1() * meanGapMs, ARRIVAL);
  while (size > 0) {
    const now = T[0];
    const kind = K[0];
    const last = --size;
    const lt = T[last];
    const ls = Q[last];
    const lk = K[last];
    T[last] = Infinity;
    let i = 0;
    let c = 1;
    while (c < last) {
      const c1 = c + 1;
      const t1 = T[c1];
      const t0 = T[c];
      // smaller child without a branch (the tie test is taken so rarely that it predicts well)
      c += (t1 < t0) | 0;
      if (t1 === t0 && Q[c1] < Q[c]) c = c1;
      const ct = T[c];
      if (lt < ct || (lt === ct && ls < Q[c])) break;
      T[i] = ct;
      Q[i] = Q[c];
      K[i] = K[c];
      i = c;
      c = 2 * c + 1;
    }
    T[i] = lt;
    Q[i] = ls;
    K[i] = lk;

    switch (kind) {
      case ARRIVAL:
        if (++arrived < ops) push(now + exp1() * meanGapMs, ARRIVAL);
        if (busy === 0) {
          busy = 1;
          inService = now;
          push(now + exp1() * serviceMeanMs, DEPARTURE);
        } else {
          if (tail - head > mask) {
            const n = mask + 1;
            const r2 = new Float64Array(2 * n);
            for (let j = 0; j < n; j++) r2[j] = ring[(head + j) & mask];
            ring = r2;
            mask = 2 * n - 1;
            tail -= head;
            head = 0;
          }
          ring[tail++ & mask] = now;
        }
        break;
      case DEPARTURE: {
        const d = now - inService;
        count++;
        sum += d;
        let b = 0;
        if (d >= 1e-6) {
          F64[0] = d;
          b = (U32[HI] >>> SHIFT) - KEY_MIN + 1;
          if (b >= BUCKETS) b = BUCKETS - 1;
        }
        hist[b]++;
        if (tail !== head) {
          inService = ring[head++ & mask];
          push(now + exp1() * serviceMeanMs, DEPARTURE);
        } else busy = 0;
        break;
      }
    }
  }
  const { cpuSec, wallSec } = clock.stop();
  // p99 from the histogram (bucket lower bound; enough for a sanity check)
  let seen = 0;
  let p99 = 0;
  for (let b = 0; b < BUCKETS; b++) {
    seen += hist[b];
    if (seen >= 0.99 * count) {
      U32[HI] = ((b - 1 + KEY_MIN) << SHIFT) >>> 0;
      U32[1 - HI] = 0;
      p99 = b === 0 ? 0 : F64[0];
      break;
    }
  }
  return { ops: arrived, cpuSec, wallSec, meanLatencyMs: sum / count, p99Ms: p99 };
}
