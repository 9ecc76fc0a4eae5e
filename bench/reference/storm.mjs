// Reference for the storm benchmark: closed-loop clients call a server through L nested layers,
// each making up to A attempts with full-jitter backoff (no hop delays: the layers are in-process,
// as with the scenario's default network); the server fails every request during a fault window,
// then serves them (c workers, exponential service, FIFO queue). Hand-written and model-specific:
// each client has one path through the stack at a time, so its state is one attempt counter per
// layer in a typed array; events are the heap of ./hold.mjs with the kind, layer and client packed
// into one integer.
import { startClock } from '../lib/clock.mjs';
import { exp1, seed, uniform } from './random.mjs';

const START = 1;
const WAKE = 2;
const DONE = 3;

/** The storm of bench/lib/scenarios.mjs (`stormScenario`), with the same defaults. */
export const STORM_DEFAULTS = {
  clients: 10_000,
  durationMs: 20_000,
  thinkMeanMs: 1000,
  startMaxMs: 1000,
  layers: 3,
  attempts: 3,
  baseMs: 10,
  capMs: 1000,
  faultFromMs: 0,
  faultToMs: 10_000,
  faultProbability: 1,
  concurrency: 200,
  serviceMeanMs: 10,
};

/** Run the storm; returns leaf calls, operations, successes, failures, attempts per layer and the seconds it took. */
export function referenceStorm(options = {}, seedValue = 1) {
  const o = { ...STORM_DEFAULTS, ...options };
  const clock = startClock();
  seed(seedValue);
  const N = o.clients;
  const L = o.layers;
  const A = o.attempts;
  const durationMs = o.durationMs;
  const thinkMs = o.thinkMeanMs;
  const serviceMs = o.serviceMeanMs;
  const faultFrom = o.faultFromMs;
  const faultTo = o.faultToMs;
  const faultP = o.faultProbability;
  const conc = o.concurrency;
  // full-jitter ceilings of retries 1 .. A-1: min(cap, base * 2^(r - 1))
  const ceil = new Float64Array(A + 1);
  for (let r = 1; r < A; r++) ceil[r] = Math.min(o.capMs, o.baseMs * 2 ** (r - 1));

  const cap = N + 2;
  const T = new Float64Array(cap).fill(Infinity);
  const Q = new Float64Array(cap);
  const P = new Int32Array(cap); // client << 4 | layer << 2 | kind
  let size = 0;
  let seq = 0;
  const push = (t, p) => {
    const s = seq++;
    let i = size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = T[parent];
      if (pt < t || (pt === t && Q[parent] < s)) break;
      T[i] = pt;
      Q[i] = Q[parent];
      P[i] = P[parent];
      i = parent;
    }
    T[i] = t;
    Q[i] = s;
    P[i] = p;
  };

  const att = new Uint8Array(N * L);
  const opStart = new Float64Array(N);
  const ring = new Int32Array(N); // FIFO of waiting clients (at most N)
  let head = 0;
  let len = 0;
  let busy = 0;
  let leafCalls = 0;
  let ops = 0;
  let succeeded = 0;
  let failed = 0;
  let latencySum = 0;
  const first = new Float64Array(L);
  const retries = new Float64Array(L);

  const endOp = (client, t, ok) => {
    if (ok) {
      succeeded++;
      latencySum += t - opStart[client];
    } else failed++;
    const next = t + exp1() * thinkMs;
    if (next < durationMs) push(next, (client << 4) | START);
  };

  // the leaf's answer was a failure: the deepest layer decides, and so on up while layers give up
  const fail = (client, t) => {
    const base = client * L;
    for (let k = L - 1; k >= 0; k--) {
      const a = att[base + k];
      if (a < A) {
        push(t + uniform() * ceil[a], (client << 4) | (k << 2) | WAKE);
        return;
      }
    }
    endOp(client, t, false);
  };

  // layer k makes an attempt: the layers below start their calls, down to the leaf
  const attempt = (client, k, t) => {
    const base = client * L;
    const a = att[base + k] + 1;
    att[base + k] = a;
    if (a === 1) first[k]++;
    else retries[k]++;
    for (let j = k + 1; j < L; j++) {
      att[base + j] = 1;
      first[j]++;
    }
    leafCalls++;
    if (t >= faultFrom && t < faultTo && uniform() < faultP) {
      fail(client, t);
    } else if (busy < conc) {
      busy++;
      push(t + exp1() * serviceMs, (client << 4) | DONE);
    } else {
      ring[(head + len++) % N] = client;
    }
  };

  for (let c = 0; c < N; c++) push(uniform() * o.startMaxMs, (c << 4) | START);

  while (size > 0) {
    const now = T[0];
    const p = P[0];
    const last = --size;
    const lt = T[last];
    const ls = Q[last];
    const lp = P[last];
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
      P[i] = P[c];
      i = c;
      c = 2 * c + 1;
    }
    T[i] = lt;
    Q[i] = ls;
    P[i] = lp;

    const client = p >> 4;
    switch (p & 3) {
      case START:
        ops++;
        opStart[client] = now;
        att[client * L] = 0;
        attempt(client, 0, now);
        break;
      case WAKE:
        attempt(client, (p >> 2) & 3, now);
        break;
      case DONE:
        busy--;
        endOp(client, now, true);
        if (len > 0) {
          const next = ring[head];
          head = (head + 1) % N;
          len--;
          busy++;
          push(now + exp1() * serviceMs, (next << 4) | DONE);
        }
        break;
    }
  }
  const { cpuSec, wallSec } = clock.stop();
  return {
    leafCalls,
    ops,
    succeeded,
    failed,
    meanLatencyMs: succeeded > 0 ? latencySum / succeeded : NaN,
    first: [...first],
    retries: [...retries],
    cpuSec,
    wallSec,
  };
}
