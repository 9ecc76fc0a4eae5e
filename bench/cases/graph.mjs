// A service graph through the full model (bench/lib/scenarios.mjs graphScenario): a frontend
// fanning out to 3 mid-tier services, each calling 2 of 3 shared backends (7 services), 10,000
// closed-loop clients, a 10 s full outage of one backend. Its calls per CPU-second on all edges
// (entry edge included), measured beside the storm's leaf attempts per CPU-second (the storm row's
// scenario, bench/lib/scenarios.mjs stormScenario), interleaved run by run in this process.
import { Model } from '../../dist/model/Model.js';
import { median, startClock } from '../lib/clock.mjs';
import { caseOptions, emit, fmtPct, fmtRate } from '../lib/caseArgs.mjs';
import { graphScenario, stormScenario } from '../lib/scenarios.mjs';

const { runs } = caseOptions(5, 3);
/** At least 60% of the storm's leaf attempts per CPU-second. */
const TARGET_RATIO = 0.6;
const graph = graphScenario();
const storm = stormScenario();

// warm-up (JIT), not counted
new Model(graphScenario({ clients: 1000, durationMs: 12_000 }), { seed: 99 }).run();
new Model(stormScenario({ clients: 1000, durationMs: 12_000 }), { seed: 99 }).run();

const graphRates = [];
const stormRates = [];
const ratios = [];
let g;
let s;
for (let r = 0; r < runs; r++) {
  let clock = startClock();
  s = new Model(storm, { seed: r + 1 }).run();
  const st = clock.stop();
  clock = startClock();
  g = new Model(graph, { seed: r + 1 }).run();
  const gt = clock.stop();
  const calls = g.edges.reduce((n, e) => n + e.calls, 0);
  const gr = calls / gt.cpuSec;
  const sr = s.leafCalls / st.cpuSec;
  graphRates.push(gr);
  stormRates.push(sr);
  ratios.push(gr / sr);
}
const ratio = median(ratios);
const calls = g.edges.reduce((n, e) => n + e.calls, 0);
const edges = g.edges.map((e) => `${e.caller}->${e.callee} ${e.calls.toLocaleString('en-US')}`).join(', ');
emit({
  rows: [
    {
      benchmark: 'graph, 7 services (calls on all edges)',
      measured: fmtRate(median(graphRates), 'call'),
      reference: `storm ${fmtRate(median(stormRates), 'att')}`,
      ratio: fmtPct(ratio),
      target: `>= ${fmtPct(TARGET_RATIO)} of storm`,
      pass: ratio >= TARGET_RATIO,
      values: { graph: median(graphRates), storm: median(stormRates), ratio, ratios, runs, calls },
    },
  ],
  details: [
    `graph: ${calls.toLocaleString('en-US')} calls on all edges, ${g.operations.offered.toLocaleString('en-US')} operations ` +
      `(${g.operations.succeeded.toLocaleString('en-US')} ok), ${(g.events / calls).toFixed(2)} events/call; edges: ${edges}; ` +
      `storm beside it: ${s.leafCalls.toLocaleString('en-US')} leaf attempts; ratios per run: ${ratios.map(fmtPct).join(', ')}`,
  ],
});
