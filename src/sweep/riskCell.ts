// One cell's estimate of `retrystorm risk`, as a worker thread runs it.
import type { Cell } from '../experiment/index.js';
import { replicationSeed } from '../experiment/index.js';
import type { RiskSection } from '../experiment/riskSchema.js';
import { watchInterrupt } from '../engine/interrupt.js';
import { watchRunMemory } from '../engine/memoryMeter.js';
import { estimateCellRisk } from '../riskModel/index.js';
import type { RiskRecord } from './riskRecord.js';

/** One cell of a risk run sent to a worker thread: plain data only. */
export interface RiskTask {
  kind: 'risk';
  cell: Cell;
  risk: RiskSection;
  masterSeed: number;
  /** The run's interrupt flag (shared memory, src/engine/interrupt.ts): raised, the estimate stops between trajectories and within a trajectory. */
  interrupt?: Int32Array;
  /** The bytes of tables each copy of a run may hold (src/engine/memoryMeter.ts; src/sweep/riskMemory.ts, riskCopyCeiling); absent: no ceiling. */
  runMemoryBytes?: number;
}

/**
 * The master seed of a cell's estimate: its replication-0 seed, derived as a sweep derives a
 * replication's (master seed, part, parameters; not the variant: common random numbers), so the
 * variants of a sweep point are estimated on the same random starts. The estimate's repetitions
 * are inside it.
 */
export function riskCellSeed(masterSeed: number, cell: Cell): number {
  return replicationSeed(masterSeed, cell.part, cell.params, 0);
}

/**
 * Estimate one cell (`estimateCellRisk`): an `ok` record, or an `errored` one saying why it failed
 * (a copy of a run that outgrew `runMemoryBytes` among them: `RiskMemoryError`, the meter's reason).
 * Once the interrupt flag is up it throws (whatever the estimate returned or threw): the cell is
 * not done, and a resumed run estimates it again.
 */
export function runRiskCell(task: RiskTask): RiskRecord {
  const { cell } = task;
  const seed = riskCellSeed(task.masterSeed, cell);
  const id = { key: cell.key, part: cell.part, variant: cell.variant, params: cell.params, seed };
  const flag = task.interrupt ?? null;
  const stopped = () => flag !== null && Atomics.load(flag, 0) !== 0;
  watchInterrupt(flag);
  watchRunMemory(task.runMemoryBytes ?? Infinity);
  try {
    const risk = estimateCellRisk(cell.scenario, task.risk, seed, { shouldStop: stopped });
    if (stopped()) throw new Error('interrupted');
    return { ...id, state: 'ok', risk };
  } catch (e) {
    if (stopped()) throw e;
    return { ...id, state: 'errored', error: (e as Error).message };
  } finally {
    watchInterrupt(null);
    watchRunMemory(Infinity);
  }
}
