import { makeSampler, type Sampler } from '../../engine/distributions.js';
import type { Uniform } from '../../engine/random.js';
import type { Simulator } from '../../engine/simulator.js';
import * as eventKindsModule from '../eventKinds.js';
import type { Workload as WorkloadSpec } from '../scenario.js';
import { streamFor, streamIf } from '../streams.js';
import type { OperationStarter, Workload } from './Workload.js';
import * as workloadModule from './Workload.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { drawBad } = workloadModule;
const { K_OP_START } = eventKindsModule;

type ClosedSpec = Extract<WorkloadSpec, { kind: 'closed' }>;

/**
 * Clients that start together at `startMs` (from the start of the run, warm-up included): the
 * first operation of each. Clients that all start at the same instant start in order, so a lane
 * of the event queue holds them without a heap.
 */
export function scheduleFirstStarts(sim: Simulator, clients: number, start: Sampler, constant: boolean, baseMs: number, kindBase = 0): void {
  const lane = constant ? sim.addLane() : -1;
  for (let c = 0; c < clients; c++) sim.atInLane(lane, baseMs + start.sample(), kindBase + K_OP_START, c, 0);
}

/**
 * A closed loop: `clients` clients, each doing operations one after another with a think time in
 * between, until `durationMs`; the first starts are spread by `startMs` from the start of the run.
 */
export class ClosedLoop implements Workload {
  pending = 0;
  readonly maxInFlight = Infinity;
  private readonly think: Sampler;
  private readonly start0: Sampler;
  private readonly startConstant: boolean;
  /** With a constant think time the next starts come in time order: a lane of the event queue (-1: the heap). */
  private readonly thinkLane: number;
  private readonly u: Uniform;
  private readonly clients: number;
  private readonly badFraction: number;
  private readonly durationMs: number;

  constructor(
    w: ClosedSpec,
    private readonly sim: Simulator,
    seed: number,
    private readonly ops: OperationStarter,
    private readonly kindBase = 0,
  ) {
    this.think = makeSampler(w.thinkMs, streamFor(w.thinkMs, seed, 'think'));
    this.start0 = makeSampler(w.startMs, streamFor(w.startMs, seed, 'start'));
    this.startConstant = w.startMs.dist === 'constant';
    this.thinkLane = w.thinkMs.dist === 'constant' ? sim.addLane() : -1;
    this.u = streamIf(w.permanentErrorFraction > 0, seed, 'workload');
    this.clients = w.clients;
    this.badFraction = w.permanentErrorFraction;
    this.durationMs = w.durationMs;
  }

  start(t0: number): void {
    scheduleFirstStarts(this.sim, this.clients, this.start0, this.startConstant, t0, this.kindBase);
    this.pending += this.clients;
  }

  fire(_kind: number, client: number, t: number): void {
    this.pending--;
    this.ops.startOperation(client, drawBad(this.u, this.badFraction), t);
  }

  /** The client thinks, then starts its next operation (if that is before the end of the workload). */
  ended(client: number, t: number): void {
    const next = t + this.think.sample();
    if (next < this.durationMs) {
      this.sim.atInLane(this.thinkLane, next, this.kindBase + K_OP_START, client, 0);
      this.pending++;
    }
  }
}
