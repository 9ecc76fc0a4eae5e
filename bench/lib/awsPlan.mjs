// The aws-contention-2015 sweep through the real loader: experiments/aws-contention-2015.json
// when it exists (its `sweep` part: 19 client counts x 5 strategies x 100 replications), otherwise
// the same plan built here, expanded by dist/experiment's expandExperiment; each replication runs
// through dist/sweep/runPlan.js runReplication, single thread, as a sweep worker runs it.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expandExperiment, parseExperimentText } from '../../dist/experiment/index.js';
import { planCells, runReplication } from '../../dist/sweep/runPlan.js';

const FILE = fileURLToPath(new URL('../../experiments/aws-contention-2015.json', import.meta.url));

/** The plan built here when the experiment file is absent (same scenario, variants and grid). */
export const FALLBACK_EXPERIMENT = {
  name: 'aws-contention-2015',
  seed: 2015,
  scenario: {
    workload: { kind: 'burst', clients: 100, method: 'PUT' },
    stack: [
      {
        name: 'client',
        policy: { maxAttempts: 'unlimited', backoff: { kind: 'full-jitter', baseMs: 5, capMs: 2000, multiplier: 2, exponentOffset: 1 } },
      },
    ],
    leaf: { kind: 'occ' },
    network: { hopMs: { dist: 'abs-normal', mean: 10, sd: 2 } },
    metrics: { timeSeriesBinMs: 1000, clusteringBinMs: [10, 100] },
  },
  variants: Object.fromEntries(
    ['none', 'exponential', 'full-jitter', 'equal-jitter', 'decorrelated-jitter'].map((k) => [k, { 'stack.0.policy.backoff.kind': k }]),
  ),
  sweep: { grid: { 'workload.clients': Array.from({ length: 19 }, (_, i) => 10 * (i + 1)) } },
  replications: 100,
  quick: { replications: 10 },
};

/** Expand the sweep; `quick` uses the experiment's quick mode (10 replications). */
export function awsSweepTasks(quick) {
  const fromFile = existsSync(FILE);
  const text = fromFile ? readFileSync(FILE, 'utf8') : JSON.stringify(FALLBACK_EXPERIMENT);
  const parsed = parseExperimentText(text, fromFile ? FILE : 'aws-contention-2015 (built in bench/lib/awsPlan.mjs)');
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const expanded = expandExperiment(parsed.experiment, { quick });
  if (!expanded.ok) throw new Error(expanded.errors.join('\n'));
  const plan = expanded.plan;
  let cells = planCells(plan);
  // The study's sweep is the part with the client-count grid; other parts (e.g. a time series at N = 100) are not timed.
  if (cells.some((c) => c.cell.part === 'sweep')) cells = cells.filter((c) => c.cell.part === 'sweep');
  const tasks = [];
  for (const { cell, replications } of cells) for (let r = 0; r < replications; r++) tasks.push({ cell, r });
  return { source: fromFile ? 'experiments/aws-contention-2015.json' : 'built-in plan', plan, cells: cells.length, tasks };
}

/** Run every task in this thread; returns the total writes (the study's "calls"). */
export function runAwsTasks(plan, tasks) {
  let writes = 0;
  for (const { cell, r } of tasks) {
    const rec = runReplication(cell, r, plan.seed);
    if (rec.state !== 'ok') throw new Error(`${rec.key} replication ${r}: ${rec.error}`);
    writes += rec.results.writes ?? 0;
  }
  return writes;
}
