import * as distributionsModule from '../../engine/distributions.js';
import type { Uniform } from '../../engine/random.js';
import { stream } from '../../engine/random.js';
import type { Simulator } from '../../engine/simulator.js';
import * as eventKindsModule from '../eventKinds.js';
import { rateFunction, type RateFunction } from '../rateSchedule.js';
import type { Workload as WorkloadSpec } from '../scenario.js';
import { streamIf } from '../streams.js';
import type { OperationStarter, Workload } from './Workload.js';
import * as workloadModule from './Workload.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { drawBad } = workloadModule;
const { standardExponential } = distributionsModule;
const { K_ARRIVAL } = eventKindsModule;

type OpenSpec = Extract<WorkloadSpec, { kind: 'open' }>;

/**
 * An open loop: Poisson arrivals at a rate that follows a schedule (steady, step, spike, ramp)
 * until `durationMs`, each operation belonging to one of `clients` clients drawn at random.
 */
export class OpenLoop implements Workload {
  pending = 0;
  readonly maxInFlight: number;
  private readonly rate: RateFunction;
  /** A steady rate needs no thinning. */
  private readonly steady: boolean;
  private readonly arrivalU: Uniform;
  private readonly u: Uniform;
  private readonly clients: number;
  private readonly badFraction: number;
  private readonly durationMs: number;

  constructor(
    w: OpenSpec,
    maxInFlight: number,
    private readonly sim: Simulator,
    seed: number,
    private readonly ops: OperationStarter,
    private readonly kindBase = 0,
  ) {
    this.maxInFlight = maxInFlight;
    this.rate = rateFunction(w.rate);
    this.steady = w.rate.kind === 'steady';
    this.arrivalU = stream(seed, 'arrivals');
    this.u = streamIf(w.clients > 1 || w.permanentErrorFraction > 0, seed, 'workload');
    this.clients = w.clients;
    this.badFraction = w.permanentErrorFraction;
    this.durationMs = w.durationMs;
  }

  start(t0: number): void {
    this.scheduleNext(t0);
  }

  fire(_kind: number, _a: number, t: number): void {
    this.pending--;
    const client = this.clients > 1 ? Math.floor(this.u() * this.clients) : 0;
    this.ops.startOperation(client, drawBad(this.u, this.badFraction), t);
    this.scheduleNext(t);
  }

  ended(): void {}

  private scheduleNext(fromMs: number): void {
    const rf = this.rate;
    const max = rf.maxRatePerSec;
    if (!(max > 0)) return;
    const t = this.steady ? fromMs + (standardExponential(this.arrivalU) * 1000) / max : this.thinned(fromMs);
    if (t >= this.durationMs) return;
    this.sim.at(t, this.kindBase + K_ARRIVAL, 0, 0);
    this.pending++;
  }

  /**
   * The next arrival of a time-varying rate by thinning (Lewis & Shedler 1979): candidates at the
   * maximum rate, each kept with probability rate(t)/max; the first candidate past the end of the
   * workload is returned as it is (no arrival).
   */
  private thinned(fromMs: number): number {
    const rf = this.rate;
    const max = rf.maxRatePerSec;
    const u = this.arrivalU;
    let t = fromMs;
    for (;;) {
      t += (standardExponential(u) * 1000) / max;
      if (t >= this.durationMs) return t;
      const r = rf.ratePerSec(t);
      if (r >= max || u() * max < r) return t;
    }
  }
}
