// The engine alone: the hold model with 10, 10^3, 10^4 and 10^5 pending timers, src's Simulator
// (dist/engine) against the reference heap, interleaved run by run; the bare EventQueue is timed
// too (detail) to tell the heap from the run loop.
import { median } from '../lib/clock.mjs';
import { caseOptions, emit, fmtPct, fmtRate } from '../lib/caseArgs.mjs';
import { queueHold, simulatorHold } from '../lib/engineHold.mjs';
import { referenceHold } from '../reference/hold.mjs';

const { quick, runs } = caseOptions(5, 3);
const events = quick ? 1_000_000 : 3_000_000;
const sizes = [10, 1_000, 10_000, 100_000];
const TARGET = 0.8;

// warm-up (JIT), not counted
for (const n of [10, 1000]) {
  referenceHold(n, 200_000, 99);
  simulatorHold(n, 200_000, 99);
  queueHold(n, 200_000, 99);
}

const rows = [];
const details = [];
for (const n of sizes) {
  const ref = [];
  const sim = [];
  const q = [];
  const ratios = [];
  for (let r = 0; r < runs; r++) {
    const a = referenceHold(n, events, r + 1);
    const b = simulatorHold(n, events, r + 1);
    const c = queueHold(n, events, r + 1);
    if (a.nowMs !== b.nowMs || a.nowMs !== c.nowMs) throw new Error(`hold n=${n}: the engines disagree on the event order`);
    ref.push(a.events / a.cpuSec);
    sim.push(b.events / b.cpuSec);
    q.push(c.events / c.cpuSec);
    ratios.push(b.events / b.cpuSec / (a.events / a.cpuSec));
  }
  const ratio = median(ratios);
  rows.push({
    benchmark: `engine: hold, ${n.toLocaleString('en-US')} pending`,
    measured: fmtRate(median(sim), 'ev'),
    reference: fmtRate(median(ref), 'ev'),
    ratio: fmtPct(ratio),
    target: `>= ${fmtPct(TARGET)} of ref`,
    pass: ratio >= TARGET,
    values: { simulator: median(sim), reference: median(ref), queueOnly: median(q), ratio, runs, events },
  });
  details.push(
    `hold ${n}: bare EventQueue push/pop ${fmtRate(median(q), 'ev')} (${fmtPct(median(q) / median(ref))} of ref); Simulator.run ${fmtRate(median(sim), 'ev')}`,
  );
}
emit({ rows, details });
