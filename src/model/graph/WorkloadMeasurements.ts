import { Measurements } from '../Measurements.js';
import type { Scenario } from '../scenario.js';

/**
 * What one of a graph's several workloads measures (its operations, its stack's attempts, its
 * entry calls), each operation and entry call also counted in the run's totals (`total`, whose
 * scenario's stack is every workload's layers in turn): the totals' operations, latencies, leaf
 * calls, series and clustering are those of all workloads together.
 */
export class WorkloadMeasurements extends Measurements {
  constructor(
    sc: Scenario,
    private readonly total: Measurements,
  ) {
    super(sc, false);
  }

  override operationStarted(t: number): void {
    super.operationStarted(t);
    this.total.operationStarted(t);
  }

  override operationEnded(reason: number, startMs: number, t: number): void {
    super.operationEnded(reason, startMs, t);
    this.total.operationEnded(reason, startMs, t);
  }

  override leafArrival(chain: number, t: number): void {
    super.leafArrival(chain, t);
    this.total.leafArrival(chain, t);
  }
}
