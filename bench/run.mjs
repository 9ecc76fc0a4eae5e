// Benchmarks: `npm run bench` (builds first), or `node bench/run.mjs [--quick] [--only a,b]
// [--json FILE]`. Every benchmark runs in its own child process and is measured beside its
// reference in the same run (interleaved, medians of several runs): these machines are shared and
// noisy, so the ratios are what to trust. Rates are per CPU-second of the benchmark process.
//   engine  hold model, src's Simulator vs the reference heap (bench/reference/hold.mjs)
//   mm1     M/M/1 through the full model vs the reference M/M/1 (bench/reference/mm1.mjs)
//   storm   10,000 clients, 3 layers x 3 attempts, 10 s of failure, vs bench/reference/storm.mjs
//   graph   7 services (a frontend, 3 mid-tier, 3 shared backends), 10,000 clients, a 10 s backend
//           outage: calls per CPU-second on all edges vs the storm's leaf attempts, in the same process
//   aws     the aws-contention-2015 sweep vs an event-per-hop implementation (bench/naive/)
//   memory  peak RSS: 1,000,000 clients; 10,000,000 open-loop operations vs 1,000,000
//   sweep   worker-pool scaling vs two processes (bench/sweepScaling.mjs)
//   risk    rare-event splitting on the real M/M/1 model at p ~ 1e-6 vs plain Monte Carlo's cost
//           for the same relative error (work-normalised relative variance; bench/cases/risk.mjs)
//   snapshot  a copy of a run's state at 5 s (storm and graph, 10,000 clients): CPU ms and MB per
//           copy vs the CPU of the run to that point (bench/cases/snapshot.mjs)
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const CASES = {
  engine: 'engine.mjs',
  mm1: 'mm1.mjs',
  storm: 'storm.mjs',
  graph: 'graph.mjs',
  aws: 'aws.mjs',
  memory: 'memoryRuns.mjs',
  sweep: 'sweepScaling.mjs',
  risk: 'risk.mjs',
  snapshot: 'snapshot.mjs',
};

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const onlyAt = argv.indexOf('--only');
const only = onlyAt >= 0 ? argv[onlyAt + 1].split(',') : Object.keys(CASES);
const jsonAt = argv.indexOf('--json');
const jsonFile = jsonAt >= 0 ? argv[jsonAt + 1] : null;
for (const name of only) if (!(name in CASES)) throw new Error(`unknown benchmark ${name} (one of ${Object.keys(CASES).join(', ')})`);

function machine() {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpu = m[1].trim();
  } catch {
    // not Linux
  }
  return { cpu, cores: cpus().length, node: process.version, platform: `${process.platform} ${process.arch}` };
}

const info = machine();
const load0 = loadavg();
const t0 = performance.now();
const results = [];
let failed = false;
for (const name of only) {
  process.stderr.write(`running ${name}${quick ? ' (quick)' : ''} ...\n`);
  const file = fileURLToPath(new URL(`./cases/${CASES[name]}`, import.meta.url));
  const started = performance.now();
  const r = spawnSync(process.execPath, [file, ...(quick ? ['--quick'] : [])], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 << 20,
  });
  const wallSec = (performance.now() - started) / 1000;
  if (r.status !== 0) {
    failed = true;
    results.push({ name, wallSec, rows: [{ benchmark: name, measured: 'error', reference: '', ratio: '', target: '', pass: false }], details: [`${name}: exited ${r.status}`] });
    continue;
  }
  const out = JSON.parse(r.stdout.trim().split('\n').pop());
  results.push({ name, wallSec, ...out });
}
const load1 = loadavg();
const totalSec = (performance.now() - t0) / 1000;

const header = ['benchmark', 'measured', 'reference', 'ratio', 'target', 'result'];
const table = results.flatMap((c) => c.rows.map((r) => [r.benchmark, r.measured, r.reference, r.ratio, r.target, r.pass === null ? 'n/a' : r.pass ? 'pass' : 'MISS']));
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
const line = (cells) => cells.map((c, i) => (i === 0 || i === 4 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
console.log(`retrystorm benchmarks${quick ? ' (quick)' : ''}: ${info.cpu}, ${info.cores} cores, node ${info.node}, ${info.platform}`);
console.log(`load average ${load0.map((x) => x.toFixed(2)).join(' ')} at the start, ${load1.map((x) => x.toFixed(2)).join(' ')} at the end; ${totalSec.toFixed(0)} s in all`);
console.log('rates per CPU-second; medians of several runs; reference measured in the same run (see docs/performance.md)');
console.log('');
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const row of table) console.log(line(row));
console.log('');
for (const c of results) for (const d of c.details ?? []) console.log(`  ${d}`);
if (jsonFile) {
  writeFileSync(jsonFile, `${JSON.stringify({ machine: info, quick, loadavg: { start: load0, end: load1 }, totalSec, results }, null, 2)}\n`);
  console.log(`\nresults written to ${jsonFile}`);
}
if (failed) process.exitCode = 1;
