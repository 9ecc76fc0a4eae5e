import { makeSampler, type Sampler } from '../../engine/distributions.js';
import type { Uniform } from '../../engine/random.js';
import type { Simulator } from '../../engine/simulator.js';
import type { Workload as WorkloadSpec } from '../scenario.js';
import { streamFor, streamIf } from '../streams.js';
import { scheduleFirstStarts } from './ClosedLoop.js';
import { drawBad, type OperationStarter, type Workload } from './Workload.js';

type BurstSpec = Extract<WorkloadSpec, { kind: 'burst' }>;

/** A burst: `clients` clients, one operation each, starting at t = 0 (spread by `startMs`). */
export class Burst implements Workload {
  pending = 0;
  readonly maxInFlight = Infinity;
  private readonly start0: Sampler;
  private readonly startConstant: boolean;
  private readonly u: Uniform;
  private readonly clients: number;
  private readonly badFraction: number;

  constructor(
    w: BurstSpec,
    private readonly sim: Simulator,
    seed: number,
    private readonly ops: OperationStarter,
    private readonly kindBase = 0,
  ) {
    this.start0 = makeSampler(w.startMs, streamFor(w.startMs, seed, 'start'));
    this.startConstant = w.startMs.dist === 'constant';
    this.u = streamIf(w.permanentErrorFraction > 0, seed, 'workload');
    this.clients = w.clients;
    this.badFraction = w.permanentErrorFraction;
  }

  /** The burst starts at t = 0 after the warm-up. */
  start(): void {
    scheduleFirstStarts(this.sim, this.clients, this.start0, this.startConstant, 0, this.kindBase);
    this.pending += this.clients;
  }

  fire(_kind: number, client: number, t: number): void {
    this.pending--;
    this.ops.startOperation(client, drawBad(this.u, this.badFraction), t);
  }

  ended(): void {}
}
