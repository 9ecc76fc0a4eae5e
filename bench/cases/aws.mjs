// The aws-contention-2015 sweep at full size through the real loader and runReplication, single
// thread, CPU time by process.cpuUsage(), interleaved with the straightforward event-per-hop
// implementation of the same model (bench/naive/occEventPerHop.mjs).
import { median, startClock } from '../lib/clock.mjs';
import { caseOptions, emit, fmtPct } from '../lib/caseArgs.mjs';
import { awsSweepTasks, runAwsTasks } from '../lib/awsPlan.mjs';
import { runOccSweep } from '../naive/occEventPerHop.mjs';

const { quick, runs } = caseOptions(3, 3);
const loadClock = startClock();
const { source, plan, cells, tasks } = awsSweepTasks(quick);
const load = loadClock.stop();
const replications = tasks.length / cells;
const fullTasks = 19 * 5 * 100;
const scale = tasks.length / fullTasks;
const TARGET_CPU = 3 * scale;
const TARGET_RATIO = 0.2;

const model = [];
const naive = [];
const ratios = [];
let modelWrites = 0;
let naiveWrites = 0;
for (let r = 0; r < runs; r++) {
  const c1 = startClock();
  modelWrites = runAwsTasks(plan, tasks);
  const t1 = c1.stop();
  const c2 = startClock();
  naiveWrites = runOccSweep(replications, 2015 + r).totalWrites;
  const t2 = c2.stop();
  model.push(t1.cpuSec);
  naive.push(t2.cpuSec);
  ratios.push(t1.cpuSec / t2.cpuSec);
}
const cpu = median(model);
const ratio = median(ratios);
const size = `${cells} cells x ${replications}`;
emit({
  rows: [
    {
      benchmark: `aws-contention-2015 sweep CPU (${size})`,
      measured: `${cpu.toFixed(2)} s CPU`,
      reference: `${median(naive).toFixed(2)} s CPU`,
      ratio: fmtPct(ratio),
      target: `< ${TARGET_CPU.toFixed(TARGET_CPU < 1 ? 2 : 0)} s CPU`,
      pass: cpu < TARGET_CPU,
      values: { modelCpuSec: cpu, naiveCpuSec: median(naive), ratio, runs, tasks: tasks.length },
    },
    {
      benchmark: 'aws sweep vs event-per-hop (CPU)',
      measured: `${cpu.toFixed(2)} s CPU`,
      reference: `${median(naive).toFixed(2)} s CPU`,
      ratio: fmtPct(ratio),
      target: `<= ${fmtPct(TARGET_RATIO)} of ref`,
      pass: ratio <= TARGET_RATIO,
      values: { ratio },
    },
  ],
  details: [
    `aws sweep: ${source}, ${tasks.length} replications (${size}), plan expanded in ${load.cpuSec.toFixed(2)} s CPU; ` +
      `writes in all: model ${modelWrites.toLocaleString('en-US')}, event-per-hop ${naiveWrites.toLocaleString('en-US')} ` +
      `(${((100 * (modelWrites - naiveWrites)) / naiveWrites).toFixed(2)}% apart; different random streams)`,
  ],
});
