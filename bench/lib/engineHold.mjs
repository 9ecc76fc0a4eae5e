// The engine alone: src's Simulator (dist/engine) running the hold model, with the same
// inlinable exponential sampler as the reference (./reference/random.mjs), so that only the
// event set and the run loop differ.
import { EventQueue } from '../../dist/engine/eventQueue.js';
import { Simulator } from '../../dist/engine/simulator.js';
import { exp1, seed } from '../reference/random.mjs';
import { startClock } from './clock.mjs';

const K_TIMER = 1;

/** Hold model through Simulator.run (the run loop the model uses: one handle() call per event). */
export function simulatorHold(n, events, seedValue = 1) {
  seed(seedValue);
  const sim = new Simulator(0, 1024);
  for (let i = 0; i < n; i++) sim.at(exp1(), K_TIMER, i, 0);
  let check = 0;
  // An object with a handle method, as the model passes (src/engine/simulator.ts, EventDispatcher).
  const handler = {
    handle(kind, a, _b, t) {
      if (kind === K_TIMER) {
        check += a;
        sim.at(t + exp1(), K_TIMER, a, 0);
      }
    },
  };
  const clock = startClock();
  const stats = sim.run(handler, { horizonMs: Infinity, maxEvents: events });
  const { cpuSec, wallSec } = clock.stop();
  return { events: stats.events, cpuSec, wallSec, nowMs: stats.nowMs, check };
}

/** Hold model on the bare EventQueue (push/pop, no run loop): tells the heap from the loop. */
export function queueHold(n, events, seedValue = 1) {
  seed(seedValue);
  const q = new EventQueue(1024);
  for (let i = 0; i < n; i++) q.push(exp1(), K_TIMER, i, 0);
  let check = 0;
  const clock = startClock();
  for (let e = 0; e < events; e++) {
    q.pop();
    const a = q.lastA;
    check += a;
    q.push(q.lastTimeMs + exp1(), K_TIMER, a, 0);
  }
  const { cpuSec, wallSec } = clock.stop();
  return { events, cpuSec, wallSec, nowMs: q.lastTimeMs, check };
}
