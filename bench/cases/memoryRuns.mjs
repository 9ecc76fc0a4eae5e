// Memory benchmarks, each size in its own child process (bench/cases/memory.mjs) so that peak RSS
// belongs to one run: 1,000,000 closed-loop clients against Node's own footprint, and an open loop
// of 10,000,000 operations against one of 1,000,000 (memory must not grow with the operations).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from '../lib/clock.mjs';
import { caseOptions, emit, fmtMB, fmtPct } from '../lib/caseArgs.mjs';

const { quick, runs } = caseOptions(2, 1);
const child = fileURLToPath(new URL('./memory.mjs', import.meta.url));
/** The target: under 1 GB (10^9 bytes) of peak RSS. */
const GB = 1e9;
/** Peak RSS differs by about 1% between identical runs (when V8 grows its heap, GC timing). */
const NOISE = 0.02;

function measure(what, n) {
  const r = spawnSync(process.execPath, [child, what, String(n ?? '')], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`memory ${what} ${n}: exit ${r.status}\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

function summarize(xs) {
  return { peak: median(xs.map((x) => x.peakRssBytes)), last: xs[xs.length - 1], cpu: median(xs.map((x) => x.cpuSec)) };
}

function repeat(what, n) {
  return summarize(Array.from({ length: runs }, () => measure(what, n)));
}

const clients = 1_000_000;
const bigOps = quick ? 3_000_000 : 10_000_000;
const smallOps = 1_000_000;
const base = repeat('baseline');
const many = repeat('clients', clients);
// The open-loop pair is compared at a tolerance close to the RSS noise, so it takes more runs,
// alternated so that a drift of the machine affects both sizes alike.
const openRuns = quick ? 2 : 5;
const pairs = Array.from({ length: openRuns }, () => [measure('open', smallOps), measure('open', bigOps)]);
const small = summarize(pairs.map((p) => p[0]));
const big = summarize(pairs.map((p) => p[1]));
const growth = big.peak / small.peak;
emit({
  rows: [
    {
      benchmark: '1,000,000 closed-loop clients, peak RSS',
      measured: fmtMB(many.peak),
      reference: `${fmtMB(base.peak)} (node)`,
      ratio: `${(many.peak / base.peak).toFixed(2)}x`,
      target: '< 1000 MB',
      pass: many.peak < GB,
      values: { peakRssBytes: many.peak, baselineBytes: base.peak, runs },
    },
    {
      benchmark: `open loop ${(bigOps / 1e6).toFixed(0)}M ops vs 1M, peak RSS`,
      measured: fmtMB(big.peak),
      reference: `${fmtMB(small.peak)} (1M)`,
      ratio: fmtPct(growth),
      target: `<= 1M run (+${fmtPct(NOISE)} noise)`,
      pass: growth <= 1 + NOISE,
      values: { bigBytes: big.peak, smallBytes: small.peak, growth, runs: openRuns },
    },
  ],
  details: [
    `1M clients: ${many.last.ops.toLocaleString('en-US')} operations, ${many.last.events.toLocaleString('en-US')} events in ${many.cpu.toFixed(2)} s CPU; ` +
      `${(((many.peak - base.peak) / clients) | 0)} bytes per client above Node's own ${fmtMB(base.peak)}`,
    `open loop: ${small.last.ops.toLocaleString('en-US')} ops in ${small.cpu.toFixed(2)} s CPU, ${big.last.ops.toLocaleString('en-US')} ops in ${big.cpu.toFixed(2)} s CPU ` +
      `(${((big.last.ops / big.cpu) / 1e6).toFixed(2)} M ops/s, 3 attempts, 1,000 clients)`,
  ],
});
