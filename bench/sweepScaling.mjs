// Sweep scaling: the worker pool with 2 threads against 1, beside a control measured in the same
// run: the same work split over two independent single-threaded processes against one.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSweep } from '../dist/sweep/runSweep.js';
import { experimentText, tasks } from './sweepWork.mjs';

const here = fileURLToPath(new URL('./sweepWork.mjs', import.meta.url));

function procs(n) {
  const t0 = performance.now();
  return Promise.all(
    Array.from({ length: n }, (_, k) =>
      new Promise((resolve, reject) => {
        const c = spawn(process.execPath, [here, 'slice', String(k), String(n)], { stdio: ['ignore', 'pipe', 'inherit'] });
        c.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`slice ${k} exited ${code}`))));
      }),
    ),
  ).then(() => performance.now() - t0);
}

async function pool(workers) {
  const { plan } = tasks();
  const t0 = performance.now();
  await runSweep(plan, {
    outDir: mkdtempSync(join(tmpdir(), 'retrystorm-bench-')),
    workers,
    manifest: { experiment: plan.name, seed: plan.seed, version: 'bench', sourceSha256: '', source: experimentText, quick: false, set: [] },
  });
  return performance.now() - t0;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

export async function sweepScaling(runs = 3) {
  const r = { pool1: [], pool2: [], proc1: [], proc2: [] };
  for (let i = 0; i < runs; i++) {
    r.proc1.push(await procs(1));
    r.proc2.push(await procs(2));
    r.pool1.push(await pool(1));
    r.pool2.push(await pool(2));
  }
  const m = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, median(v)]));
  const poolSpeedup = m.pool1 / m.pool2;
  const controlSpeedup = m.proc1 / m.proc2;
  return { ...m, poolSpeedup, controlSpeedup, ratio: poolSpeedup / controlSpeedup, tasks: tasks().tasks.length };
}
