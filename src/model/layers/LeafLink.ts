import { makeSampler, type Sampler } from '../../engine/distributions.js';
import { ClientRandom, deriveSeed, type Uniform } from '../../engine/random.js';
import type { Simulator } from '../../engine/simulator.js';
import * as outcomeModule from '../../policy/outcome.js';
import * as eventKindsModule from '../eventKinds.js';
import type { Folds } from '../folds.js';
import { LeafAnswer, type LastHop, type Leaf, type LeafHost } from '../leaves/Leaf.js';
import type { Measurements } from '../Measurements.js';
import type { RequestTable } from '../RequestTable.js';
import * as requestTableModule from '../RequestTable.js';
import type { Dist, Scenario } from '../scenario.js';
import * as streamsModule from '../streams.js';
import { FrameTable } from './FrameTable.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Outcome } = outcomeModule;
const { K_LEAF_ARRIVE, K_LEAF_RESPONSE } = eventKindsModule;
const { R_HANG, R_HOP } = requestTableModule;
const { notDrawn } = streamsModule;

/** A constant delay above 0 (what it schedules comes in time order). */
export function constantAboveZero(d: Dist): boolean {
  return d.dist === 'constant' && d.value > 0;
}

/**
 * What may refuse the last layer's attempts before any request is made (a service graph's
 * bulkhead, graph/Bulkhead.ts): asked as an attempt is sent, told when a request slot of the stack
 * is released.
 */
export interface SendGate {
  /** Whether last-layer frame f may send its attempt at t; false: it is refused with `refusal`. */
  admits(f: number, t: number): boolean;
  /** The outcome of a refused attempt. */
  readonly refusal: number;
  /** Request r of the stack is released (its answer reached the last layer, or nothing waits for it). */
  released(r: number): void;
}

/**
 * The layers' side of the network and of the leaf: the hops between layers (each client's
 * messages draw their delays from the client's own stream), the last layer's requests to the leaf
 * and the leaf's answers back ({@link LeafHost}). `StackTop` extends it with the top of the stack
 * (operations, call sites) and `Layers` extends that with the retry loop; they share the frames of
 * {@link FrameTable}.
 */
export abstract class LeafLink extends FrameTable implements LeafHost {
  protected readonly sim: Simulator;
  protected readonly req: RequestTable;
  protected readonly m: Measurements;
  protected leaf!: Leaf;
  /** The number of layers. */
  readonly L: number;
  /** Per layer: the delay of its hop down (and of the answer back), drawn through {@link hopMs}. */
  private readonly hop: Sampler[];
  /** The client whose network stream the next hop draw comes from (shared with the leaf's {@link LastHop}). */
  private readonly netStream = { client: 0 };
  /** Per layer: its hop takes no time. */
  readonly hopZero: boolean[];
  /** Per layer whose hop is a constant delay above 0: the lane for the messages crossing it (-1: none). */
  readonly hopLane: Int32Array;
  protected readonly folds: Folds;
  /** Scratch for {@link Leaf.arriveAtOnce} (read in the same call). */
  private readonly answer = new LeafAnswer();
  /** The leaf may answer at once, where the last hop takes no time ({@link callLeaf}). */
  private answersAtOnce = false;
  /** The first of this stack's event kinds: 0 for a workload's stack, a range of its own for each call site of a graph. */
  readonly kb: number;
  /** What may refuse the last layer's attempts at once (a graph call site's bulkhead), or null. */
  private gate: SendGate | null = null;

  constructor(sc: Scenario, sim: Simulator, req: RequestTable, m: Measurements, initialFrames: number, seed: number, folds: Folds, kindBase = 0) {
    super(initialFrames);
    this.kb = kindBase;
    this.sim = sim;
    this.req = req;
    this.m = m;
    this.folds = folds;
    this.L = sc.stack.length;
    const hopDists = sc.stack.map((l) => l.hopMs ?? sc.network.hopMs);
    // Each client's messages draw their hops from the client's own stream, in the client's own order.
    const net = hopDists.some((d) => d.dist !== 'constant')
      ? new ClientRandom(sc.workload.clients, deriveSeed(seed, 'network'), { kind: 'independent' })
      : null;
    const stream = this.netStream;
    const uNet: Uniform = net ? () => net.next(stream.client) : notDrawn;
    this.hop = hopDists.map((d) => makeSampler(d, uNet));
    // What a constant delay above 0 schedules comes in time order: a lane of the event queue (-1: the heap).
    this.hopLane = Int32Array.from(hopDists, (d) => (constantAboveZero(d) ? sim.addLane() : -1));
    this.hopZero = hopDists.map((d) => d.dist === 'constant' && d.value === 0);
  }

  /** The retry decision after frame f's current attempt ended (see `Layers`). */
  abstract attemptEnded(f: number, outcome: number, retryAfterMs: number, t: number): void;

  /** Whether the caller of top frame f still waits for it (a workload's operation: always; a graph's call: its handler's join and the handler's caller). */
  protected abstract topWanted(f: number): boolean;

  /** The retry decision taken ahead, when the answer leaves the leaf (see `Layers`); false: not taken. */
  protected abstract retryAhead(f: number, outcome: number, retryAfterMs: number, arriveMs: number): boolean;

  /** Connect the leaf the last layer calls, and what may refuse its attempts at once. */
  protected connectLeaf(leaf: Leaf, gate: SendGate | null = null): void {
    this.leaf = leaf;
    this.answersAtOnce = leaf.answersAtOnce;
    this.gate = gate;
  }

  /** The delay of a message of `client` over layer k's hop, from the client's network stream. */
  hopMs(k: number, client: number): number {
    this.netStream.client = client;
    return (this.hop[k] as Sampler).sample();
  }

  /**
   * Send event `kind` of this stack (with `a`, `b`) across layer k's hop, sent at t by `client`: it
   * arrives after the hop's delay, drawn from the client's network stream.
   */
  protected acrossHop(k: number, client: number, kind: number, a: number, b: number, t: number): void {
    this.sim.atInLane(this.hopLane[k] as number, t + this.hopMs(k, client), this.kb + kind, a, b);
  }

  /**
   * Last-layer frame f's attempt n calls the leaf. With no hop, a leaf that may answer on arrival
   * answers before a request slot is taken (most answers of a failing server need none).
   */
  protected callLeaf(f: number, k: number, n: number, gen: number, chain: number, end: number, t: number): void {
    const leaf = this.leaf;
    if (this.gate !== null && !this.gate.admits(f, t)) {
      this.attemptEnded(f, this.gate.refusal, NaN, t);
      return;
    }
    const hopZero = this.hopZero[k] as boolean;
    if (hopZero && this.answersAtOnce) {
      this.callLeafAtOnce(f, n, gen, chain, end, t);
      return;
    }
    const r = this.req.alloc();
    this.fillRequest(r, f, gen, chain, end);
    leaf.route(r, f, n);
    this.fChild[f] = ~r;
    const rg = this.req.timers.arm(r);
    if (hopZero) this.leafArrive(r, t);
    else if (this.folds.readAhead && this.fBad[f] === 0) leaf.arriveAhead(r, rg, t);
    else this.acrossHop(k, this.fClient[f] as number, K_LEAF_ARRIVE, r, rg, t);
  }

  /**
   * {@link callLeaf} with no hop to a leaf that may answer on arrival (apart, so that the path
   * through the hop stays small enough for the compiler to inline into the layers' send).
   */
  private callLeafAtOnce(f: number, n: number, gen: number, chain: number, end: number, t: number): void {
    const leaf = this.leaf;
    this.m.leafArrival(chain, t);
    const ans = this.answer;
    if (leaf.arriveAtOnce(f, n, this.fBad[f] === 1, t, ans, chain)) {
      this.attemptEnded(f, ans.verdict, ans.retryAfterMs, t);
      return;
    }
    const r = this.req.alloc();
    this.fillRequest(r, f, gen, chain, end);
    this.fChild[f] = ~r;
    this.req.timers.arm(r);
    leaf.hold(r, ans, t);
  }

  /** A request slot for frame f's attempt (armed with generation `gen`) to the leaf. */
  private fillRequest(r: number, f: number, gen: number, chain: number, end: number): void {
    const req = this.req;
    req.state[r] = R_HOP;
    req.parent[r] = f;
    req.parentGen[r] = gen;
    req.client[r] = this.fClient[f] as number;
    req.bad[r] = this.fBad[f] as number;
    req.chain[r] = chain;
    req.opSeq[r] = this.fOpSeq[f] as number;
    req.deadline[r] = end;
    req.retryAfter[r] = NaN;
    req.backend[r] = -1;
    req.lbOpen[r] = 0;
  }

  /** Request r crosses the last hop and reaches the leaf at t. */
  leafArrive(r: number, t: number): void {
    this.m.leafArrival(this.req.chain[r] as number, t);
    this.leaf.arrive(r, t);
  }

  /** The leaf answers request r: the answer crosses the last hop back to its caller. */
  respond(r: number, outcome: number, retryAfterMs: number, t: number): void {
    const f = this.req.parent[r] as number;
    const pg = this.req.parentGen[r] as number;
    if (!this.frameTimers.isLive(f, pg)) {
      this.release(r);
      return;
    }
    const k = this.L - 1;
    if (this.hopZero[k]) {
      this.release(r);
      this.attemptEnded(f, outcome, retryAfterMs, t);
      return;
    }
    const arriveMs = t + this.hopMs(k, this.fClient[f] as number);
    if (this.folds.foldAnswers && outcome !== Outcome.SUCCESS && this.retryAhead(f, outcome, retryAfterMs, arriveMs)) {
      this.release(r);
      return;
    }
    const g = this.req.timers.arm(r);
    this.req.state[r] = R_HOP;
    this.req.outcome[r] = outcome;
    this.req.retryAfter[r] = retryAfterMs;
    this.sim.atInLane(this.hopLane[k] as number, arriveMs, this.kb + K_LEAF_RESPONSE, r, g);
  }

  /** The leaf's answer to request r reached the last layer. */
  leafResponseArrived(r: number, t: number): void {
    const f = this.req.parent[r] as number;
    const pg = this.req.parentGen[r] as number;
    const outcome = this.req.outcome[r] as number;
    const ra = this.req.retryAfter[r] as number;
    this.release(r);
    if (this.frameTimers.isLive(f, pg)) this.attemptEnded(f, outcome, ra, t);
  }

  /**
   * Whether anyone still waits for request r's answer: its caller's attempt is live, and so on up
   * the chain to an operation that has not ended. Work nobody waits for is wasted.
   */
  stillWanted(r: number): boolean {
    let f = this.req.parent[r] as number;
    if (!this.frameTimers.isLive(f, this.req.parentGen[r] as number)) return false;
    for (;;) {
      const p = this.fParent[f] as number;
      if (p < 0) return this.topWanted(f);
      if (!this.frameTimers.isLive(p, this.fParentGen[f] as number)) return false;
      f = p;
    }
  }

  /**
   * Work the leaf lost (a crash, an expired request dropped): nobody answers. The slot is kept while
   * its caller still waits (the caller's timeout frees it), so the caller's reference stays valid.
   */
  drop(r: number): void {
    if (this.frameTimers.isLive(this.req.parent[r] as number, this.req.parentGen[r] as number)) {
      this.req.state[r] = R_HANG;
      this.req.timers.cancel(r);
    } else this.release(r);
  }

  /** Release a request slot. */
  release(r: number): void {
    if (this.gate !== null) this.gate.released(r);
    this.req.release(r);
  }

  lastHop(): LastHop {
    return { stream: this.netStream, sample: this.hop[this.L - 1] as Sampler };
  }

  /** The layers never send a request that holds its worker (only a threaded handler does). */
  workerTaken(r: number): void {
    throw new Error(`internal: request ${r} of a layer's leaf holds a worker`);
  }
}
