// Reference engine, hold model: n pending timers; each step pops the earliest and pushes one at
// now + Exp(1) (the classic benchmark of event-set implementations: J. O. Vaucher and P. Duval,
// "A comparison of simulation event list algorithms", CACM 18(4), 1975; D. W. Jones, "An empirical
// comparison of priority-queue and event-set implementations", CACM 29(4), 1986).
//
// Hand-written and model-specific: a binary min-heap over parallel typed arrays ordered by
// (time, seq), integer payloads, every array in a local, the smaller child chosen without a
// branch, slots at and beyond the size holding +Infinity so that a missing right child never
// wins, and the inlinable ziggurat exponential of ./random.mjs.
import { startClock } from '../lib/clock.mjs';
import { exp1, seed } from './random.mjs';

/**
 * Run `events` steps of the hold model with `n` pending timers; returns the number of events,
 * the seconds the steps took (the initial filling excluded), the final clock and a checksum of
 * the payloads (so that nothing is optimised away).
 */
export function referenceHold(n, events, seedValue = 1) {
  seed(seedValue);
  const cap = n + 2;
  const T = new Float64Array(cap).fill(Infinity); // time
  const Q = new Float64Array(cap); // seq (FIFO among equal times)
  const P = new Int32Array(cap); // payload: kind in the low 4 bits, entity above
  let size = 0;
  let seq = 0;

  // push
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
  for (let i = 0; i < n; i++) push(exp1(), (i << 4) | 1);

  let now = 0;
  let check = 0;
  const clock = startClock();
  for (let e = 0; e < events; e++) {
    // pop the root
    now = T[0];
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
    // dispatch on the integer kind (one kind here: the timer fires and re-arms)
    switch (p & 15) {
      case 1:
        check += p >> 4;
        push(now + exp1(), p);
        break;
    }
  }
  const { cpuSec, wallSec } = clock.stop();
  return { events, cpuSec, wallSec, nowMs: now, check };
}
