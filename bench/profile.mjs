// CPU profile of one benchmark workload through the full model, summarised by self time.
//   node bench/profile.mjs mm1|storm|graph|aws [--top N] [--keep DIR]
// runs the workload in a child under `node --cpu-prof` and prints the functions with the most
// self time (V8's sampling profiler; inlined functions count toward the function they were
// inlined into). The .cpuprofile is kept in DIR (default: a temporary directory), for Chrome
// DevTools or speedscope.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);

async function child(name) {
  const { Model } = await import('../dist/model/Model.js');
  const { graphScenario, mm1Scenario, stormScenario } = await import('./lib/scenarios.mjs');
  if (name === 'mm1') {
    const sc = mm1Scenario(2_000_000);
    for (let i = 0; i < 3; i++) new Model(sc, { seed: i + 1 }).run();
  } else if (name === 'storm') {
    const sc = stormScenario();
    for (let i = 0; i < 3; i++) new Model(sc, { seed: i + 1 }).run();
  } else if (name === 'graph') {
    const sc = graphScenario();
    for (let i = 0; i < 3; i++) new Model(sc, { seed: i + 1 }).run();
  } else if (name === 'aws') {
    const { awsSweepTasks, runAwsTasks } = await import('./lib/awsPlan.mjs');
    const { plan, tasks } = awsSweepTasks(!args.includes('--full'));
    runAwsTasks(plan, tasks);
  } else {
    throw new Error(`unknown workload ${name} (mm1, storm, graph, aws)`);
  }
}

/** Self time per function (name and source position) from a .cpuprofile. */
export function topFunctions(profile, top = 15) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = profile.timeDeltas;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const n = byId.get(profile.samples[i]);
    const d = dt[i] ?? 0;
    total += d;
    const cf = n.callFrame;
    const url = cf.url.startsWith('file:') ? relative(root, fileURLToPath(cf.url)) : cf.url;
    const key = `${cf.functionName || '(anonymous)'}  ${url ? `${url}:${cf.lineNumber + 1}` : ''}`.trim();
    self.set(key, (self.get(key) ?? 0) + d);
  }
  return {
    totalMs: total / 1000,
    rows: [...self.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, us]) => ({ fn, selfMs: us / 1000, pct: (100 * us) / total })),
  };
}

if (process.argv[1] !== here) {
  // imported (for topFunctions): nothing to run
} else if (args[0] === '--child') {
  await child(args[1]);
} else {
  const name = args[0] ?? 'mm1';
  const ti = args.indexOf('--top');
  const top = ti >= 0 ? Number(args[ti + 1]) : 15;
  const ki = args.indexOf('--keep');
  let dir;
  if (ki >= 0) {
    dir = args[ki + 1];
    mkdirSync(dir, { recursive: true });
  } else dir = mkdtempSync(join(tmpdir(), 'retrystorm-profile-'));
  const before = new Set(readdirSync(dir));
  const extra = args.includes('--full') ? ['--full'] : [];
  const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, here, '--child', name, ...extra], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile') && !before.has(f));
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const { totalMs, rows } = topFunctions(profile, top);
  console.log(`${name}: ${totalMs.toFixed(0)} ms sampled; profile ${join(dir, file)}`);
  console.log(`${'self ms'.padStart(9)} ${'%'.padStart(6)}  function`);
  for (const row of rows) console.log(`${row.selfMs.toFixed(0).padStart(9)} ${row.pct.toFixed(1).padStart(6)}  ${row.fn}`);
}
