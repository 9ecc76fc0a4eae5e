import { makeSampler, type Sampler } from '../../engine/distributions.js';
import { ClientRandom, clientStream, type Uniform } from '../../engine/random.js';
import type { Simulator } from '../../engine/simulator.js';
import type { LastHop } from '../leaves/Leaf.js';
import type { Dist, Scenario } from '../scenario.js';
import * as streamsModule from '../streams.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { notDrawn } = streamsModule;

/** A constant delay above 0 (what it schedules comes in time order). */
export function constantAboveZero(d: Dist): boolean {
  return d.dist === 'constant' && d.value > 0;
}

/**
 * The network hops of a stack: per layer, the delay of its hop down (to the next layer, or from
 * the last layer to the leaf) and of the answer back. Each client's messages draw their delays from
 * the client's own stream, in the client's own order; a hop of a constant delay above 0 schedules
 * in time order, on a lane of the event queue.
 */
export class Hops {
  /** Per layer: the delay of its hop, drawn through {@link ms}. */
  private readonly hop: Sampler[];
  /** The client whose network stream the next hop draw comes from (shared with the leaf's {@link LastHop}). */
  private readonly netStream = { client: 0 };
  /** Per layer: its hop takes no time. */
  readonly zero: boolean[];
  /** Per layer whose hop is a constant delay above 0: the lane for the messages crossing it (-1: none). */
  readonly lane: Int32Array;
  private readonly sim: Simulator;
  /** The first of the stack's event kinds (see `Layers.kb`). */
  private readonly kb: number;

  /** The hops of `sc.stack` (a layer's `hopMs`, else the network's), scheduling this stack's kinds from `kindBase`. */
  constructor(sc: Scenario, sim: Simulator, seed: number, kindBase: number) {
    this.sim = sim;
    this.kb = kindBase;
    const hopDists = sc.stack.map((l) => l.hopMs ?? sc.network.hopMs);
    const net = hopDists.some((d) => d.dist !== 'constant')
      ? ClientRandom.named(sc.workload.clients, { kind: 'independent' }, seed, 'network')
      : null;
    const uNet: Uniform = net ? clientStream(net, this.netStream) : notDrawn;
    this.hop = hopDists.map((d) => makeSampler(d, uNet));
    this.lane = Int32Array.from(hopDists, (d) => (constantAboveZero(d) ? sim.addLane() : -1));
    this.zero = hopDists.map((d) => d.dist === 'constant' && d.value === 0);
  }

  /** The delay of a message of `client` over layer k's hop, from the client's network stream. */
  ms(k: number, client: number): number {
    this.netStream.client = client;
    return (this.hop[k] as Sampler).sample();
  }

  /**
   * Send event `kind` of the stack (with `a`, `b`) across layer k's hop, sent at t by `client`: it
   * arrives after the hop's delay.
   */
  send(k: number, client: number, kind: number, a: number, b: number, t: number): void {
    this.sim.atInLane(this.lane[k] as number, t + this.ms(k, client), this.kb + kind, a, b);
  }

  /** Event `kind` of the stack (with `a`, `b`) arrives at `arriveMs` across layer k's hop (its delay already drawn). */
  arrive(k: number, arriveMs: number, kind: number, a: number, b: number): void {
    this.sim.atInLane(this.lane[k] as number, arriveMs, this.kb + kind, a, b);
  }

  /** Layer k's hop as the leaf draws it (the last layer's, for a leaf that schedules its own answers). */
  lastHop(k: number): LastHop {
    return { stream: this.netStream, sample: this.hop[k] as Sampler };
  }
}
