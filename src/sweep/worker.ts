import type { Cell } from '../experiment/index.js';
import { runReplication, type ReplicationRecord } from './runPlan.js';
import { runRiskCell, type RiskTask } from './riskCell.js';
import type { RiskRecord } from './riskRecord.js';

/** One unit of work sent to a worker thread: plain data only. */
export interface WorkerTask {
  cell: Cell;
  replication: number;
  masterSeed: number;
  /** Fault injection for tests of the pool's fault handling: throw in the task, or kill the worker. */
  fault?: 'throw' | 'exit';
  /** The sweep's interrupt flag (shared memory): raised, it stops the run (src/engine/interrupt.ts). */
  interrupt?: Int32Array;
  /** The bytes of tables the run may hold (src/engine/memoryMeter.ts); absent: no ceiling. */
  runMemoryBytes?: number;
}

/** Worker-thread entry point (piscina): run one replication of one cell, or estimate one cell's risk. */
export default function runTask(task: WorkerTask | RiskTask): ReplicationRecord | RiskRecord {
  if ('kind' in task) return runRiskCell(task);
  if (task.fault === 'exit') process.exit(3);
  return runReplication(task.cell, task.replication, task.masterSeed, task.fault === 'throw', task.interrupt ?? null, task.runMemoryBytes ?? Infinity);
}
