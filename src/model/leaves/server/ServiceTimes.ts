import { makeSampler, type Sampler } from '../../../engine/distributions.js';
import { stream } from '../../../engine/random.js';
import type { Simulator } from '../../../engine/simulator.js';
import type { Dist, ServerLeaf } from '../../scenario.js';
import * as streamsModule from '../../streams.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { notDrawn } = streamsModule;

/**
 * How long a backend of a farm serves a request (docs/concepts.md, "The model"): each backend's own
 * `serviceMs` (from the farm's `service` stream), the `work` steps of a service's handlers
 * registered with {@link registerWork} (each from a stream of its own), and the backend's
 * degradation at its current load. Held by {@link Backends}.
 */
export class ServiceTimes {
  private readonly specs: ServerLeaf[];
  private readonly seed: number;
  private readonly samplers: Sampler[];
  /** The samplers of handlers' `work` steps ({@link registerWork}); request column `work` k > 0 draws from entry k - 1. */
  private readonly workSamplers: Sampler[] = [];
  private readonly workNames = new Set<string>();
  /**
   * Per backend with a constant service time: the event queue's lane for its completions (-1:
   * none). Services that start in time order and last the same end in time order; backends with
   * the same constant share a lane.
   */
  readonly lane: Int32Array;

  /** The service times of backends `specs`, drawn from streams of `seed`, with lanes of `sim`. */
  constructor(specs: ServerLeaf[], sim: Simulator, seed: number) {
    this.specs = specs;
    this.seed = seed;
    const uService = stream(seed, 'service');
    this.samplers = specs.map((s) => makeSampler(s.serviceMs, uService));
    const laneOf = new Map<number, number>();
    this.lane = Int32Array.from(specs, (s) => {
      if (s.serviceMs.dist !== 'constant') return -1;
      const v = s.serviceMs.value;
      let lane = laneOf.get(v);
      if (lane === undefined) laneOf.set(v, (lane = sim.addLane()));
      return lane;
    });
  }

  /**
   * Register the service time of a handler's `work` step (once per step, before the run): returns
   * the value of request column `work` that makes a request's service draw from it instead of its
   * backend's own `serviceMs`. Each step draws from its own stream, named by `name` (unique per
   * farm, e.g. `endpoint/step`), so the backends' `service` stream and every other step's draws are
   * the same whatever else is registered or run. A backend's degradation applies to these draws too.
   */
  registerWork(serviceMs: Dist, name: string): number {
    if (this.workNames.has(name)) throw new Error(`internal: work sampler ${name} registered twice`);
    this.workNames.add(name);
    this.workSamplers.push(makeSampler(serviceMs, serviceMs.dist === 'constant' ? notDrawn : stream(this.seed, 'work', name)));
    return this.workSamplers.length;
  }

  /**
   * A service time on backend b with `busy` workers busy: a draw from `work`'s sampler (0: the
   * backend's own `serviceMs`), degraded as the backend's degradation says.
   */
  draw(b: number, work: number, busy: number): number {
    const d = work === 0 ? (this.samplers[b] as Sampler).sample() : (this.workSamplers[work - 1] as Sampler).sample();
    return (this.specs[b] as ServerLeaf).degradation === undefined ? d : this.degraded(b, d, busy);
  }

  /** Service time `d` on backend b as its degradation makes it with `busy` workers busy. */
  private degraded(b: number, d: number, busy: number): number {
    const deg = (this.specs[b] as ServerLeaf).degradation;
    if (deg === undefined) return d;
    if (deg.kind === 'linear') return d + deg.perInFlightMs * busy;
    return busy > deg.inFlightAbove ? d * deg.factor : d;
  }
}
