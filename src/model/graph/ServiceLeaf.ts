import { deriveSeed } from '../../engine/random.js';
import * as outcomeModule from '../../policy/outcome.js';
import type { BackendStats, Leaf, LeafAnswer, ServerSeries, ServerTotals } from '../leaves/Leaf.js';
import type { FrameTable } from '../layers/FrameTable.js';
import type { Layers } from '../layers/Layers.js';
import type { LeafLink, SendGate } from '../layers/LeafLink.js';
import type { RequestTable } from '../RequestTable.js';
import * as requestTableModule from '../RequestTable.js';
import type { Bulkhead } from './Bulkhead.js';
import type { ServiceRuntime } from './ServiceRuntime.js';
import { tableGrew } from '../../engine/memoryMeter.js';
import type { MetricWindowSpec } from '../../metrics/MetricWindows.js';
import { WindowTallies } from '../../metrics/WindowTallies.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Outcome } = outcomeModule;
const { R_CANCELLED, R_HANG } = requestTableModule;

/** {@link ServiceLeaf.inner} of a request the callee holds nothing for. */
export const NO_INNER = -1;

/** Where a stack's calls go: one (service, endpoint), or a weighted mix of entries (a workload's stack). */
export interface ServiceTarget {
  service: ServiceRuntime;
  endpoint: number;
  /** Weight in a mix (normalised over the targets). */
  weight: number;
}

/** One edge's counters (docs/experiments.md, "Service graphs"), counted from t = 0 on, the drain included. */
export class EdgeCounters {
  calls = 0;
  retries = 0;
  ownRetries = 0;
  /** Attempts the caller's bulkhead refused (never sent, so not among the calls). */
  bulkheadFull = 0;
}

/** A uniform draw in [0, 1) keyed by (seed, operation): mulberry32's output function on a Weyl sequence (Tommy Ettinger, 2017). */
function keyedUniform(seed: number, key: number): number {
  let z = (seed + Math.imul(key | 0, 0x6d2b79f5)) | 0;
  z = Math.imul(z ^ (z >>> 15), z | 1);
  z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
  return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
}

/**
 * The leaf of a stack whose last layer calls a service of a graph (docs/experiments.md, "Service graphs"): an
 * adapter implementing the leaf contract. A request reaching it is handed to the callee's runtime,
 * which answers through the stack's `respond`; it remembers, per request of the stack's table, what
 * the callee holds for it (a request slot of the callee's fleet, or a handler), so that an abandoned
 * or withdrawn request reaches it. It counts the calls of its edge: arrivals, those sent while a layer
 * on the path from the entry was retrying (`chain`), and those where a layer of its own stack was.
 * With a {@link Bulkhead} on its (caller, callee) pair it is its stack's {@link SendGate}: an attempt
 * takes a slot of its backend as it is sent and gives it back when its request is released (its
 * answer reached the last layer), abandoned (the attempt timed out) or withdrawn (cancelled).
 */
export class ServiceLeaf implements Leaf, SendGate {
  readonly arrivesAhead = false;
  private readonly req: RequestTable;
  readonly layers: Layers;
  /** The stack's frames (read: the path of a call up to its top frame). */
  private readonly frames: FrameTable;
  /** The stack's side of the leaf (its LeafHost): where the callee's answers go. */
  private readonly host: LeafLink;
  /** The index of this stack among the graph's callers. */
  readonly caller: number;
  readonly targets: ServiceTarget[];
  private readonly cumulative: number[];
  private readonly mixSeed: number;
  readonly edges: EdgeCounters[];
  /** Per target: its edge's calls in each metric window (null without windows: {@link countInWindows}). */
  windowTallies: WindowTallies[] | null = null;
  /**
   * The stack's requests are slots of its one callee's fleet table (every call site's are): the
   * fleet serves a plain endpoint's request as it is, and a handler runs in it (its work steps, its
   * held worker), with no slot of the callee's own, and the stack alone frees them, as a leaf's
   * host does.
   */
  readonly direct: boolean;
  /** Per request: what the callee holds for it (NO_INNER: nothing; for a {@link direct} stack, the request itself), and which target it went to. */
  inner = new Int32Array(64);
  private targetOf = new Int32Array(64);
  /** Per request: 1 when a layer of this stack was past its first attempt when it was sent. */
  private own = new Uint8Array(64);
  /** Per top frame of the stack: the answer that reached it was a degraded success. */
  degradedTop = new Uint8Array(64);
  /** Degraded successes answered from t = 0 on to calls still waited for (a workload's stack: its degraded operations). */
  degradedAnswers = 0;
  /** The bulkhead of this stack's (caller, callee) pair, or null. */
  readonly bulkhead: Bulkhead | null;
  /** Per request: 1 while it holds a slot of the bulkhead. */
  private slot = new Uint8Array(64);
  readonly refusal = Outcome.LOCAL_BULKHEAD_FULL;

  /** Graphs with several workloads: their number (0: one workload), and this stack's workload (-1: a call site's, read from each request's key). */
  private readonly wCount: number;
  private readonly wIndex: number;
  /** Per (target, workload): the workload's share of the edge ({@link wCount} > 0 only). */
  private readonly byWorkload: EdgeCounters[];

  constructor(
    req: RequestTable,
    layers: Layers,
    caller: number,
    targets: ServiceTarget[],
    seed: number,
    bulkhead: Bulkhead | null = null,
    workloads: { count: number; index: number } | null = null,
  ) {
    this.req = req;
    this.bulkhead = bulkhead;
    this.wCount = workloads?.count ?? 0;
    this.wIndex = workloads?.index ?? -1;
    this.byWorkload = Array.from({ length: targets.length * this.wCount }, () => new EdgeCounters());
    this.layers = layers;
    this.frames = layers.frames;
    this.host = layers.link;
    this.caller = caller;
    this.targets = targets;
    const total = targets.reduce((s, x) => s + x.weight, 0);
    let acc = 0;
    this.cumulative = targets.map((x) => (acc += x.weight / total));
    this.mixSeed = deriveSeed(seed, 'entries');
    this.edges = targets.map(() => new EdgeCounters());
    this.direct = targets.length === 1 && (targets[0] as ServiceTarget).service.req === req;
  }

  /** Count this stack's edges' calls in the metric windows `specs` too (a scenario with `metrics.windows`). */
  countInWindows(specs: readonly MetricWindowSpec[]): void {
    this.windowTallies = this.targets.map(() => new WindowTallies(specs));
  }

  /** The request table of the calling stack. */
  get callerReq(): RequestTable {
    return this.req;
  }

  /**
   * A {@link direct} stack with no bulkhead calls a plain service whose fleet may answer on arrival (a backend
   * down, a fault, shedding): such an answer needs no request slot ({@link arriveAtOnce}). Asked
   * once the callee's fleet is connected.
   */
  get answersAtOnce(): boolean {
    const callee = (this.targets[0] as ServiceTarget).service;
    return this.direct && this.bulkhead === null && callee.plainOnly && callee.fleet.answersAtOnce;
  }

  private ensure(r: number): void {
    if (r < this.inner.length) return;
    this.growTo(r);
  }

  /** Room for request r (out of line: {@link ensure} is on the path of every request). */
  private growTo(r: number): void {
    let n = this.inner.length;
    while (n <= r) n *= 2;
    // inner, targetOf and slot: Int32; own: Uint8.
    tableGrew((n - this.inner.length) * 13);
    const grow = <T extends Int32Array | Uint8Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a);
      return b;
    };
    this.inner = grow(this.inner);
    this.targetOf = grow(this.targetOf);
    this.own = grow(this.own);
    this.slot = grow(this.slot);
  }

  /** The top frame of the stack above last-layer frame f. */
  topOf(f: number): number {
    const ly = this.frames;
    while ((ly.fParent[f] as number) >= 0) f = ly.fParent[f] as number;
    return f;
  }

  /** 1 when a layer of this stack is past its first attempt as attempt `attempt` of last-layer frame `frame` is sent. */
  private ownRetry(frame: number, attempt: number): number {
    const ly = this.frames;
    let own = attempt > 1;
    for (let f = ly.fParent[frame] as number; !own && f >= 0; f = ly.fParent[f] as number) own = (ly.fAttempts[f] as number) > 1;
    return own ? 1 : 0;
  }

  route(r: number, frame: number, attempt: number): void {
    this.ensure(r);
    this.own[r] = this.ownRetry(frame, attempt);
    let i = 0;
    if (this.targets.length > 1) {
      const u = keyedUniform(this.mixSeed, this.req.opSeq[r] as number);
      while (i < this.targets.length - 1 && u >= (this.cumulative[i] as number)) i++;
    }
    this.targetOf[r] = i;
    this.inner[r] = NO_INNER;
    // A workload's stack keys its operations for the whole graph: its own sequence number x workloads + its index.
    if (this.wIndex >= 0) this.req.opSeq[r] = (this.req.opSeq[r] as number) * this.wCount + this.wIndex;
    const b = this.bulkhead;
    if (b !== null) {
      b.take(this.req.client[r] as number);
      this.slot[r] = 1;
    }
  }

  // ------------------------------------------------------------ the bulkhead (SendGate)

  admits(f: number, t: number): boolean {
    const b = this.bulkhead as Bulkhead;
    if (b.free(this.frames.fClient[f] as number)) return true;
    if (t >= 0) {
      b.refused++;
      (this.edges[0] as EdgeCounters).bulkheadFull++;
      if (this.wCount > 0) (this.byWorkload[this.workloadOfKey(this.frames.fOpSeq[f] as number)] as EdgeCounters).bulkheadFull++;
    }
    return false;
  }

  /** The workload of an operation key (graphs with several workloads). */
  private workloadOfKey(key: number): number {
    return this.wIndex >= 0 ? this.wIndex : key % this.wCount;
  }

  /** Target j's share of workload k (graphs with several workloads). */
  workloadEdge(j: number, k: number): EdgeCounters {
    return this.byWorkload[j * this.wCount + k] as EdgeCounters;
  }

  released(r: number): void {
    this.giveSlot(r);
  }

  /** Request r's attempt no longer holds its slot (if it held one). */
  private giveSlot(r: number): void {
    if (this.slot[r] === 1) {
      this.slot[r] = 0;
      (this.bulkhead as Bulkhead).give(this.req.client[r] as number);
    }
  }

  arrive(r: number, t: number): void {
    const i = this.targetOf[r] as number;
    if (t >= 0) this.count(i, this.req.chain[r] as number, this.own[r] as number, this.req.opSeq[r] as number, t);
    const target = this.targets[i] as ServiceTarget;
    target.service.accept(this, r, target.endpoint, t);
  }

  /** A call on the edge to target i at t >= 0: `chain` and `own` as the request's, for the operation keyed `key`. */
  private count(i: number, chain: number, own: number, key: number, t: number): void {
    const e = this.edges[i] as EdgeCounters;
    e.calls++;
    e.retries += chain;
    e.ownRetries += own;
    const tallies = this.windowTallies;
    if (tallies !== null) (tallies[i] as WindowTallies).add(t, chain);
    if (this.wCount > 0) {
      const w = this.byWorkload[i * this.wCount + this.workloadOfKey(key)] as EdgeCounters;
      w.calls++;
      w.retries += chain;
      w.ownRetries += own;
    }
  }

  /**
   * Attempt `attempt` of last-layer frame `frame` reaches the callee with no hop and no request slot
   * ({@link answersAtOnce}): counted on the edge as {@link route} and {@link arrive} count a
   * request, then the callee answers at once or says what the slot {@link hold} gets must hold.
   */
  arriveAtOnce(frame: number, attempt: number, bad: boolean, t: number, ans: LeafAnswer, chain: number): boolean {
    if (t >= 0) this.count(0, chain, this.ownRetry(frame, attempt), this.frames.fOpSeq[frame] as number, t);
    const target = this.targets[0] as ServiceTarget;
    return target.service.acceptAtOnce(frame, bad, chain, t, ans, this.frames.fOpSeq[frame] as number, target.endpoint);
  }

  /** The index of the endpoint request r went to (at its target service). */
  endpointOf(r: number): number {
    return (this.targets[this.targetOf[r] as number] as ServiceTarget).endpoint;
  }

  /** After {@link arriveAtOnce} returned false: request r (filled) goes to the callee's fleet as `ans` says. */
  hold(r: number, ans: LeafAnswer, t: number): void {
    this.ensure(r);
    this.targetOf[r] = 0;
    (this.targets[0] as ServiceTarget).service.hold(this, r, ans, t);
  }

  // A service answers through its own fleet's events: nothing ahead of its arrival, or of its own.
  arriveAhead(): void {
    throw new Error('internal: a service takes no request ahead of its arrival');
  }

  dispatch(): boolean {
    return false;
  }

  start(): void {}

  finish(): void {}

  /** The callee's fleet reports its own totals (per service). */
  totals(): ServerTotals | null {
    return null;
  }

  series(): ServerSeries | null {
    return null;
  }

  backendStats(): BackendStats[] | undefined {
    return undefined;
  }

  abandon(r: number, t: number): void {
    if (this.bulkhead !== null) this.giveSlot(r);
    const inner = this.inner[r] as number;
    if (inner === NO_INNER) return;
    (this.targets[this.targetOf[r] as number] as ServiceTarget).service.abandon(this, r, inner, t);
  }

  withdraw(r: number, t: number): void {
    if (this.bulkhead !== null) this.giveSlot(r);
    const inner = this.inner[r] as number;
    if (inner === NO_INNER) {
      this.req.state[r] = R_CANCELLED;
      this.host.release(r);
      return;
    }
    // A request of the fleet's own table is in the fleet's state, which its withdrawal reads.
    if (!this.direct) this.req.state[r] = R_CANCELLED;
    (this.targets[this.targetOf[r] as number] as ServiceTarget).service.withdraw(this, r, inner, t);
  }

  // ------------------------------------------------------------ from the callee

  /** The callee answers request r (`degraded`: a success some optional call below did not help). */
  answer(r: number, outcome: number, retryAfterMs: number, degraded: boolean, t: number): void {
    this.inner[r] = NO_INNER;
    if (degraded && outcome === Outcome.SUCCESS && this.host.stillWanted(r)) {
      const top = this.topOf(this.req.parent[r] as number);
      if (top >= this.degradedTop.length) {
        const b = new Uint8Array(Math.max(top + 1, this.degradedTop.length * 2));
        b.set(this.degradedTop);
        this.degradedTop = b;
      }
      this.degradedTop[top] = 1;
      if (t >= 0) this.degradedAnswers++;
    }
    this.host.respond(r, outcome, retryAfterMs, t);
  }

  /** The callee lost request r (a crash, an expired request dropped): nobody answers. */
  lost(r: number, t: number): void {
    this.inner[r] = NO_INNER;
    this.host.drop(r);
    void t;
  }

  /** The callee holds nothing more for request r and it was withdrawn: free it. */
  freed(r: number): void {
    this.inner[r] = NO_INNER;
    this.host.release(r);
  }

  /** The callee's fleet hung request r (a scripted hang): the caller frees it when its attempt times out. */
  hung(r: number): void {
    this.inner[r] = NO_INNER;
    this.req.state[r] = R_HANG;
  }

  /** Whether anyone still waits for request r, up to the entry operation. */
  wanted(r: number): boolean {
    return this.host.stillWanted(r);
  }
}
