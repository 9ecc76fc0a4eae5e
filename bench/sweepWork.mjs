// A fixed sweep used by the sweep-scaling benchmark, and a child-process entry that runs a slice of
// it sequentially in one thread (the control: independent processes, no pool).
import { expandExperiment, parseExperimentText } from '../dist/experiment/index.js';
import { runReplication } from '../dist/sweep/runPlan.js';
import { planCells } from '../dist/sweep/runPlan.js';

export const experimentText = JSON.stringify({
  name: 'bench-sweep',
  seed: 3,
  scenario: {
    workload: { kind: 'open', rate: { kind: 'steady', ratePerSec: 400 }, durationMs: 60000 },
    stack: [
      { name: 'app', policy: { maxAttempts: 3, perAttemptTimeoutMs: 200 } },
      { name: 'sdk', policy: { maxAttempts: 3 } },
    ],
    leaf: { kind: 'server', concurrency: 4, serviceMs: { dist: 'exponential', mean: 9 } },
  },
  sweep: { grid: { 'workload.rate.ratePerSec': [300, 350, 400, 450] } },
  replications: 12,
});

export function tasks() {
  const p = parseExperimentText(experimentText, 'bench');
  if (!p.ok) throw new Error(p.errors.join('\n'));
  const e = expandExperiment(p.experiment, { quick: false });
  if (!e.ok) throw new Error(e.errors.join('\n'));
  const out = [];
  for (const { cell, replications } of planCells(e.plan)) for (let r = 0; r < replications; r++) out.push({ cell, r });
  return { plan: e.plan, tasks: out };
}

// As a child process: run tasks with index % n === k sequentially.
if (process.argv[2] === 'slice') {
  const k = Number(process.argv[3]);
  const n = Number(process.argv[4]);
  const { plan, tasks: all } = tasks();
  let count = 0;
  all.forEach((t, i) => {
    if (i % n === k) {
      runReplication(t.cell, t.r, plan.seed);
      count++;
    }
  });
  process.stdout.write(String(count));
}
