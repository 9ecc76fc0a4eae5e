// Instructions executed by a workload, counted by valgrind's callgrind: a measure the machine's
// load does not change (CPU seconds on a shared machine vary by 10% to 30% run to run).
//   node bench/instructions.mjs DIR aws|mm1|storm|graph [--stride N]
// runs the workload with DIR's build (its dist/, bench/ and experiments/) in one thread
// (`node --single-threaded`, so that no compiler or GC thread adds its own count) under
// `valgrind --tool=callgrind` and prints the total. aws: the aws-contention-2015 sweep's quick plan
// (every N-th replication with --stride N); mm1: 2 runs of 200,000 operations; storm: 2 runs with
// 2,000 clients; graph: 2 runs of the graph benchmark's scenario at a fifth of its size (2,000
// clients, backends of 80 workers: the same loads), with the instructions per call on all edges
// (the entry edge included) beside the total. Compare two builds with the same arguments; the count includes Node's start-up
// and the JIT's compilations (the same code in both builds compiles alike). The .out file is kept
// in a temporary directory for callgrind_annotate (JIT code shows as addresses: add
// --perf-basic-prof to map them with /tmp/perf-PID.map).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);

async function child(root, name, stride) {
  const url = (p) => new URL(p, `file://${root}/`).href;
  if (name === 'aws') {
    const { awsSweepTasks, runAwsTasks } = await import(url('bench/lib/awsPlan.mjs'));
    const { plan, tasks } = awsSweepTasks(true);
    const writes = runAwsTasks(plan, tasks.filter((_, i) => i % stride === 0));
    return `${writes} writes`;
  }
  const { Model } = await import(url('dist/model/Model.js'));
  const { graphScenario, mm1Scenario, stormScenario } = await import(url('bench/lib/scenarios.mjs'));
  if (name === 'graph') {
    const sc = graphScenario({ clients: 2000, concurrency: 80 });
    let calls = 0;
    for (let i = 0; i < 2; i++) calls += new Model(sc, { seed: i + 1 }).run().edges.reduce((n, e) => n + e.calls, 0);
    return `${calls} calls on all edges`;
  }
  let sc;
  if (name === 'mm1') sc = mm1Scenario(200_000);
  else if (name === 'storm') sc = stormScenario({ clients: 2000 });
  else throw new Error(`unknown workload ${name} (aws, mm1, storm, graph)`);
  let calls = 0;
  for (let i = 0; i < 2; i++) calls += new Model(sc, { seed: i + 1 }).run().leafCalls;
  return `${calls} leaf calls`;
}

if (args[0] === '--child') {
  process.stdout.write(`${await child(args[1], args[2], Number(args[3]))}\n`);
} else {
  const [dir, name] = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--stride');
  if (!dir || !name) {
    process.stderr.write('usage: node bench/instructions.mjs DIR aws|mm1|storm|graph [--stride N]\n');
    process.exit(2);
  }
  const i = args.indexOf('--stride');
  const stride = i >= 0 ? Number(args[i + 1]) : 1;
  const out = join(mkdtempSync(join(tmpdir(), 'retrystorm-callgrind-')), 'callgrind.out');
  const r = spawnSync(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${out}`,
      process.execPath,
      '--single-threaded',
      fileURLToPath(import.meta.url),
      '--child',
      resolve(dir),
      name,
      String(stride),
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) {
    process.stderr.write(r.stderr);
    process.exit(1);
  }
  const total = /Collected : (\d+)/.exec(r.stderr)?.[1];
  const events = /summary: (\d+)/.exec(readFileSync(out, 'utf8'))?.[1];
  const count = Number(total ?? events);
  const calls = /^(\d+) calls on all edges/.exec(r.stdout.trim())?.[1];
  const perCall = calls === undefined ? '' : `, ${(count / Number(calls)).toFixed(0)} per call`;
  process.stdout.write(`${name} (${resolve(dir)}): ${r.stdout.trim()}, ${count.toLocaleString('en-US')} instructions${perCall} (${out})\n`);
}
