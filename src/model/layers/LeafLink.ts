import * as outcomeModule from '../../policy/outcome.js';
import * as eventKindsModule from '../eventKinds.js';
import type { Folds } from '../folds.js';
import { LeafAnswer, type LastHop, type Leaf, type LeafHost } from '../leaves/Leaf.js';
import type { Measurements } from '../Measurements.js';
import type { RequestTable } from '../RequestTable.js';
import * as requestTableModule from '../RequestTable.js';
import type { FrameTable } from './FrameTable.js';
import type { Hops } from './Hops.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Outcome } = outcomeModule;
const { K_LEAF_ARRIVE, K_LEAF_RESPONSE } = eventKindsModule;
const { R_HANG, R_HOP } = requestTableModule;

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

/** Where the leaf's answers go: the retry loop of the last layer's frames (`Layers`). */
export interface AttemptEnds {
  /** The retry decision after frame f's current attempt ended at t. */
  attemptEnded(f: number, outcome: number, retryAfterMs: number, t: number): void;
  /** The retry decision taken ahead, when the answer leaves the leaf to arrive at `arriveMs`; false: not taken (nothing changed). */
  retryAhead(f: number, outcome: number, retryAfterMs: number, arriveMs: number): boolean;
}

/** Whether the caller of a top frame still waits for it (the top of the stack, `StackTop`). */
export interface TopWaits {
  /** Whether the caller of top frame f still waits for it. */
  wanted(f: number): boolean;
}

/**
 * The link between the last layer and the leaf: the last layer's requests to the leaf (a request
 * slot per attempt, across the last hop) and the leaf's answers back ({@link LeafHost}), handed to
 * the retry loop ({@link AttemptEnds}). It writes the request table's columns; the frames'
 * columns it reads, and a frame's downstream request it sets through {@link FrameTable.callsRequest}.
 */
export class LeafLink implements LeafHost {
  private readonly req: RequestTable;
  private readonly m: Measurements;
  private readonly frames: FrameTable;
  private readonly hops: Hops;
  private readonly folds: Folds;
  private readonly loop: AttemptEnds;
  private readonly top: TopWaits;
  /** The last layer. */
  private readonly last: number;
  /** The last layer's hop takes no time (`Hops.zero` of {@link last}, read per answer). */
  private readonly lastHopZero: boolean;
  /** The leaf the last layer calls (set by {@link connect}). */
  leaf!: Leaf;
  /** Scratch for {@link Leaf.arriveAtOnce} (read in the same call). */
  private readonly answer = new LeafAnswer();
  /** The leaf may answer at once, where the last hop takes no time ({@link callLeaf}). */
  private answersAtOnce = false;
  /** What may refuse the last layer's attempts at once (a graph call site's bulkhead), or null. */
  private gate: SendGate | null = null;

  /** The link of a stack of `layers` layers over its request table `req`, its answers going to `loop`. */
  constructor(layers: number, req: RequestTable, m: Measurements, frames: FrameTable, hops: Hops, folds: Folds, loop: AttemptEnds, top: TopWaits) {
    this.last = layers - 1;
    this.req = req;
    this.m = m;
    this.frames = frames;
    this.hops = hops;
    this.lastHopZero = hops.zero[this.last] as boolean;
    this.folds = folds;
    this.loop = loop;
    this.top = top;
  }

  /** Connect the leaf the last layer calls, and what may refuse its attempts at once. */
  connect(leaf: Leaf, gate: SendGate | null): void {
    this.leaf = leaf;
    this.answersAtOnce = leaf.answersAtOnce;
    this.gate = gate;
  }

  /**
   * Last-layer frame f's attempt n calls the leaf. With no hop, a leaf that may answer on arrival
   * answers before a request slot is taken (most answers of a failing server need none).
   */
  callLeaf(f: number, k: number, n: number, gen: number, chain: number, end: number, t: number): void {
    const leaf = this.leaf;
    const gate = this.gate;
    if (gate !== null && !gate.admits(f, t)) {
      this.refused(f, gate, t);
      return;
    }
    const hopZero = this.hops.zero[k] as boolean;
    if (hopZero && this.answersAtOnce) {
      this.callLeafAtOnce(f, n, gen, chain, end, t);
      return;
    }
    const fr = this.frames;
    const req = this.req;
    const r = req.alloc();
    this.fillRequest(r, f, gen, chain, end);
    leaf.route(r, f, n);
    fr.callsRequest(f, r);
    const rg = req.timers.arm(r);
    if (hopZero) this.leafArrive(r, t);
    else if (this.folds.readAhead && fr.fBad[f] === 0) leaf.arriveAhead(r, rg, t);
    else this.acrossHop(k, f, r, rg, t);
  }

  /** {@link callLeaf} refused by the gate: the attempt ends at once with the gate's refusal (apart, to keep the send small). */
  private refused(f: number, gate: SendGate, t: number): void {
    this.loop.attemptEnded(f, gate.refusal, NaN, t);
  }

  /** Request r (armed with generation `rg`) of frame f crosses the last hop (layer k's) as an event (apart, to keep the send small). */
  private acrossHop(k: number, f: number, r: number, rg: number, t: number): void {
    this.hops.send(k, this.frames.fClient[f] as number, K_LEAF_ARRIVE, r, rg, t);
  }

  /**
   * {@link callLeaf} with no hop to a leaf that may answer on arrival (apart, so that the path
   * through the hop stays small enough for the compiler to inline into the layers' send).
   */
  private callLeafAtOnce(f: number, n: number, gen: number, chain: number, end: number, t: number): void {
    const leaf = this.leaf;
    this.m.leafArrival(chain, t);
    const ans = this.answer;
    if (leaf.arriveAtOnce(f, n, this.frames.fBad[f] === 1, t, ans, chain)) {
      this.loop.attemptEnded(f, ans.verdict, ans.retryAfterMs, t);
      return;
    }
    const r = this.req.alloc();
    this.fillRequest(r, f, gen, chain, end);
    this.frames.callsRequest(f, r);
    this.req.timers.arm(r);
    leaf.hold(r, ans, t);
  }

  /** A request slot for frame f's attempt (armed with generation `gen`) to the leaf. */
  private fillRequest(r: number, f: number, gen: number, chain: number, end: number): void {
    const req = this.req;
    const fr = this.frames;
    req.state[r] = R_HOP;
    req.parent[r] = f;
    req.parentGen[r] = gen;
    req.client[r] = fr.fClient[f] as number;
    req.bad[r] = fr.fBad[f] as number;
    req.chain[r] = chain;
    req.opSeq[r] = fr.fOpSeq[f] as number;
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
    if (!this.frames.frameTimers.isLive(f, pg)) {
      this.release(r);
      return;
    }
    if (this.lastHopZero) {
      this.release(r);
      this.loop.attemptEnded(f, outcome, retryAfterMs, t);
      return;
    }
    this.respondAcrossHop(r, f, outcome, retryAfterMs, t);
  }

  /** {@link respond} where the last hop takes time: the retry decision may be taken ahead (folds.ts), else the answer crosses the hop as an event (apart, to keep the answer without a hop small). */
  private respondAcrossHop(r: number, f: number, outcome: number, retryAfterMs: number, t: number): void {
    const k = this.last;
    const arriveMs = t + this.hops.ms(k, this.frames.fClient[f] as number);
    if (this.folds.foldAnswers && outcome !== Outcome.SUCCESS && this.loop.retryAhead(f, outcome, retryAfterMs, arriveMs)) {
      this.release(r);
      return;
    }
    const g = this.req.timers.arm(r);
    this.req.state[r] = R_HOP;
    this.req.outcome[r] = outcome;
    this.req.retryAfter[r] = retryAfterMs;
    this.hops.arrive(k, arriveMs, K_LEAF_RESPONSE, r, g);
  }

  /** The leaf's answer to request r reached the last layer. */
  leafResponseArrived(r: number, t: number): void {
    const f = this.req.parent[r] as number;
    const pg = this.req.parentGen[r] as number;
    const outcome = this.req.outcome[r] as number;
    const ra = this.req.retryAfter[r] as number;
    this.release(r);
    if (this.frames.frameTimers.isLive(f, pg)) this.loop.attemptEnded(f, outcome, ra, t);
  }

  /**
   * Whether anyone still waits for request r's answer: its caller's attempt is live, and so on up
   * the chain to an operation that has not ended. Work nobody waits for is wasted.
   */
  stillWanted(r: number): boolean {
    const fr = this.frames;
    let f = this.req.parent[r] as number;
    if (!fr.frameTimers.isLive(f, this.req.parentGen[r] as number)) return false;
    for (;;) {
      const p = fr.fParent[f] as number;
      if (p < 0) return this.top.wanted(f);
      if (!fr.frameTimers.isLive(p, fr.fParentGen[f] as number)) return false;
      f = p;
    }
  }

  /**
   * Work the leaf lost (a crash, an expired request dropped): nobody answers. The slot is kept while
   * its caller still waits (the caller's timeout frees it), so the caller's reference stays valid.
   */
  drop(r: number): void {
    if (this.frames.frameTimers.isLive(this.req.parent[r] as number, this.req.parentGen[r] as number)) {
      this.req.state[r] = R_HANG;
      this.req.timers.cancel(r);
    } else this.release(r);
  }

  /** Release a request slot. */
  release(r: number): void {
    if (this.gate !== null) this.gate.released(r);
    this.req.release(r);
  }

  /** The last layer's hop, as the leaf draws it. */
  lastHop(): LastHop {
    return this.hops.lastHop(this.last);
  }

  /** The layers never send a request that holds its worker (only a threaded handler does). */
  workerTaken(r: number): void {
    throw new Error(`internal: request ${r} of a layer's leaf holds a worker`);
  }
}
