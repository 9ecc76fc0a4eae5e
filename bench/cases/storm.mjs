// The storm through the full model (bench/lib/scenarios.mjs stormScenario) against the
// hand-written storm (bench/reference/storm.mjs), interleaved run by run: leaf attempts per second.
import { Model } from '../../dist/model/Model.js';
import { median, startClock } from '../lib/clock.mjs';
import { caseOptions, emit, fmtPct, fmtRate } from '../lib/caseArgs.mjs';
import { stormScenario } from '../lib/scenarios.mjs';
import { referenceStorm } from '../reference/storm.mjs';

const { runs } = caseOptions(5, 3);
const TARGET = 5_000_000;
const scenario = stormScenario();

// warm-up (JIT), not counted
referenceStorm({ clients: 1000, durationMs: 12_000 }, 99);
new Model(stormScenario({ clients: 1000, durationMs: 12_000 }), { seed: 99 }).run();

const model = [];
const ref = [];
const ratios = [];
let m;
let a;
for (let r = 0; r < runs; r++) {
  a = referenceStorm({}, r + 1);
  const clock = startClock();
  m = new Model(scenario, { seed: r + 1 }).run();
  const t = clock.stop();
  const mr = m.leafCalls / t.cpuSec;
  const rr = a.leafCalls / a.cpuSec;
  model.push(mr);
  ref.push(rr);
  ratios.push(mr / rr);
}
const rate = median(model);
const layers = m.attempts.map((l) => `${l.layer} ${(l.first + l.retries).toLocaleString('en-US')}`).join(', ');
emit({
  rows: [
    {
      benchmark: 'storm, full model (leaf attempts)',
      measured: fmtRate(rate, 'att'),
      reference: fmtRate(median(ref), 'att'),
      ratio: fmtPct(median(ratios)),
      target: '>= 5.00 M att/s',
      pass: rate >= TARGET,
      values: { model: rate, reference: median(ref), ratio: median(ratios), runs, leafCalls: m.leafCalls },
    },
  ],
  details: [
    `storm: model ${m.leafCalls.toLocaleString('en-US')} leaf attempts, ${m.operations.offered.toLocaleString('en-US')} operations ` +
      `(${m.operations.succeeded.toLocaleString('en-US')} ok), attempts per layer: ${layers}, ${(m.events / m.leafCalls).toFixed(2)} events/leaf attempt; ` +
      `reference ${a.leafCalls.toLocaleString('en-US')} leaf attempts, ${a.ops.toLocaleString('en-US')} operations (${a.succeeded.toLocaleString('en-US')} ok)`,
  ],
});
