// M/M/1 through the full model (dist/model/Model.js: one non-retrying layer, open loop, one
// server) against the reference M/M/1 (bench/reference/mm1.mjs), interleaved run by run.
import { Model } from '../../dist/model/Model.js';
import { median, startClock } from '../lib/clock.mjs';
import { caseOptions, emit, fmtPct, fmtRate } from '../lib/caseArgs.mjs';
import { mm1Scenario } from '../lib/scenarios.mjs';
import { referenceMM1 } from '../reference/mm1.mjs';

const { quick, runs } = caseOptions(5, 3);
const ops = quick ? 500_000 : 2_000_000;
const TARGET = 5_000_000;
const scenario = mm1Scenario(ops);

// warm-up (JIT), not counted
referenceMM1(100_000, 99);
new Model(mm1Scenario(100_000), { seed: 99 }).run();

const model = [];
const ref = [];
const ratios = [];
let lastModel;
let lastRef;
for (let r = 0; r < runs; r++) {
  const a = referenceMM1(ops, r + 1);
  const clock = startClock();
  const m = new Model(scenario, { seed: r + 1 }).run();
  const t = clock.stop();
  const mr = m.operations.offered / t.cpuSec;
  const rr = a.ops / a.cpuSec;
  model.push(mr);
  ref.push(rr);
  ratios.push(mr / rr);
  lastModel = m;
  lastRef = a;
}
const rate = median(model);
emit({
  rows: [
    {
      benchmark: 'M/M/1, full model (1 layer)',
      measured: fmtRate(rate, 'ops'),
      reference: fmtRate(median(ref), 'ops'),
      ratio: fmtPct(median(ratios)),
      target: '>= 5.00 M ops/s',
      pass: rate >= TARGET,
      values: { model: rate, reference: median(ref), ratio: median(ratios), runs, ops },
    },
  ],
  details: [
    `M/M/1 (rho 0.8, theory W = 50 ms): model mean latency ${lastModel.latencyMs.mean.toFixed(2)} ms, p99 ${lastModel.latencyMs.p99} ms, ` +
      `${(lastModel.events / lastModel.operations.offered).toFixed(2)} events/op; reference ${lastRef.meanLatencyMs.toFixed(2)} ms, p99 ~${lastRef.p99Ms.toFixed(0)} ms`,
  ],
});
