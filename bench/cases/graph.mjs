// A service graph through the full model (bench/lib/scenarios.mjs graphScenario): a frontend
// fanning out to 3 mid-tier services, each calling 2 of 3 shared backends (7 services), 10,000
// closed-loop clients, a 10 s full outage of one backend. Its calls per CPU-second on all edges
// (entry edge included), measured beside the storm's leaf attempts per CPU-second (the storm row's
// scenario, bench/lib/scenarios.mjs stormScenario), alternated run by run. Each run is a child
// process of its own that warms up on its own scenario first (`--child graph|storm SEED`), as the
// benchmark cases run apart (bench/lib/caseArgs.mjs): a graph run in a process that also ran the
// storm runs on the compiled code and type feedback of both (the layers' leaf is a service in one
// and a server in the other), which a sweep of graph cells never does. `--one-process` measures
// both in this process instead, warmed up on both (for comparison).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Model } from '../../dist/model/Model.js';
import { median, startClock } from '../lib/clock.mjs';
import { caseOptions, emit, fmtPct, fmtRate } from '../lib/caseArgs.mjs';
import { graphScenario, stormScenario } from '../lib/scenarios.mjs';

/** At least 60% of the storm's leaf attempts per CPU-second. */
const TARGET_RATIO = 0.6;
const argv = process.argv.slice(2);

/** The warm-up (JIT), not counted: the kind's scenario at a tenth of the clients. */
function warmUp(kind) {
  const make = kind === 'graph' ? graphScenario : stormScenario;
  new Model(make({ clients: 1000, durationMs: 12_000 }), { seed: 99 }).run();
}

/** Run the kind's scenario with `seed` (warmed up first when `warm`): { calls, cpuSec, result }. */
function measure(kind, seed, warm) {
  const make = kind === 'graph' ? graphScenario : stormScenario;
  if (warm) warmUp(kind);
  const sc = make();
  const clock = startClock();
  const r = new Model(sc, { seed }).run();
  const t = clock.stop();
  const calls = kind === 'graph' ? r.edges.reduce((n, e) => n + e.calls, 0) : r.leafCalls;
  return { calls, cpuSec: t.cpuSec, result: r };
}

/** One measured run of `kind` in a child process of its own. */
function child(kind, seed) {
  const out = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', kind, String(seed)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (out.status !== 0) throw new Error(`graph bench: the ${kind} child exited ${out.status}`);
  return JSON.parse(out.stdout);
}

if (argv[0] === '--child') {
  const kind = argv[1];
  const m = measure(kind, Number(argv[2]), true);
  const r = m.result;
  const detail =
    kind === 'graph'
      ? {
          offered: r.operations.offered,
          succeeded: r.operations.succeeded,
          events: r.events,
          edges: r.edges.map((e) => `${e.caller}->${e.callee} ${e.calls.toLocaleString('en-US')}`).join(', '),
        }
      : {};
  process.stdout.write(`${JSON.stringify({ calls: m.calls, cpuSec: m.cpuSec, ...detail })}\n`);
} else {
  const { runs } = caseOptions(5, 3);
  const oneProcess = argv.includes('--one-process');
  if (oneProcess) {
    warmUp('graph');
    warmUp('storm');
  }
  const graphRates = [];
  const stormRates = [];
  const ratios = [];
  let g;
  let s;
  for (let r = 0; r < runs; r++) {
    // The order flips from run to run, so that a trend in the machine's load falls on both alike.
    const order = r % 2 === 0 ? ['storm', 'graph'] : ['graph', 'storm'];
    for (const kind of order) {
      let got;
      if (oneProcess) {
        const m = measure(kind, r + 1, false);
        got = { calls: m.calls, cpuSec: m.cpuSec, offered: m.result.operations.offered, succeeded: m.result.operations.succeeded, events: m.result.events, edges: (m.result.edges ?? []).map((e) => `${e.caller}->${e.callee} ${e.calls.toLocaleString('en-US')}`).join(', ') };
      } else got = child(kind, r + 1);
      if (kind === 'graph') g = got;
      else s = got;
    }
    const gr = g.calls / g.cpuSec;
    const sr = s.calls / s.cpuSec;
    graphRates.push(gr);
    stormRates.push(sr);
    ratios.push(gr / sr);
  }
  const ratio = median(ratios);
  emit({
    rows: [
      {
        benchmark: 'graph, 7 services (calls on all edges)',
        measured: fmtRate(median(graphRates), 'call'),
        reference: `storm ${fmtRate(median(stormRates), 'att')}`,
        ratio: fmtPct(ratio),
        target: `>= ${fmtPct(TARGET_RATIO)} of storm`,
        pass: ratio >= TARGET_RATIO,
        values: { graph: median(graphRates), storm: median(stormRates), ratio, ratios, runs, calls: g.calls, oneProcess },
      },
    ],
    details: [
      `graph: ${g.calls.toLocaleString('en-US')} calls on all edges, ${g.offered.toLocaleString('en-US')} operations ` +
        `(${g.succeeded.toLocaleString('en-US')} ok), ${(g.events / g.calls).toFixed(2)} events/call; edges: ${g.edges}; ` +
        `storm beside it: ${s.calls.toLocaleString('en-US')} leaf attempts; ratios per run: ${ratios.map(fmtPct).join(', ')}` +
        (oneProcess ? ' (both in one process)' : ' (each run a process of its own)'),
    ],
  });
}
