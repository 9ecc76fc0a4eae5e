// Sweep scaling (bench/sweepScaling.mjs): the worker pool with 2 threads against 1, beside the
// two-process control measured in the same run.
import { caseOptions, emit, fmtPct } from '../lib/caseArgs.mjs';
import { sweepScaling } from '../sweepScaling.mjs';

const { runs } = caseOptions(3, 1);
/**
 * Below this control speed-up two processes do not get two cores (the machine is busy with other
 * work): the pool's scaling cannot be judged, and the row says n/a rather than pass or miss.
 */
const MIN_CONTROL_SPEEDUP = 1.3;
const s = await sweepScaling(runs);
const judged = s.controlSpeedup >= MIN_CONTROL_SPEEDUP;
emit({
  rows: [
    {
      benchmark: `sweep scaling (${s.tasks} reps, 2 vs 1 worker)`,
      measured: `${s.poolSpeedup.toFixed(2)}x speed-up`,
      reference: `${s.controlSpeedup.toFixed(2)}x (2 procs)`,
      ratio: fmtPct(s.ratio),
      target: '>= 90% of ref',
      pass: judged ? s.ratio >= 0.9 : null,
      values: s,
    },
  ],
  details: [
    `sweep scaling: pool 1 worker ${(s.pool1 / 1000).toFixed(2)} s, 2 workers ${(s.pool2 / 1000).toFixed(2)} s; ` +
      `control 1 process ${(s.proc1 / 1000).toFixed(2)} s, 2 processes ${(s.proc2 / 1000).toFixed(2)} s (wall, medians of ${runs})` +
      (judged ? '' : `; the control's speed-up is below ${MIN_CONTROL_SPEEDUP}x, so no second core was free: not judged`),
  ],
});
