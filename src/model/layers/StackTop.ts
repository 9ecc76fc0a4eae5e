import type { Simulator } from '../../engine/simulator.js';
import * as classifyModule from '../../policy/classify.js';
import type { Folds } from '../folds.js';
import type { Leaf } from '../leaves/Leaf.js';
import type { Measurements } from '../Measurements.js';
import type { RequestTable } from '../RequestTable.js';
import type { Scenario } from '../scenario.js';
import type { OperationStarter, Workload } from '../workloads/Workload.js';
import type { LayerGuards } from './LayerGuards.js';
import { LeafLink, type SendGate } from './LeafLink.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { METHOD_CODES } = classifyModule;

/**
 * Where the calls of a graph's call site end: its top frames are started by a handler
 * ({@link StackTop.openCall}), not by a workload, and their ends go to the handler's join.
 */
export interface CallEnds {
  /** Top frame f's call ended at t (f is already free): why, and the outcome it returns. */
  callEnded(f: number, reason: number, outcome: number, t: number): void;
  /** Whether the handler that started top frame f still waits for it (and the handler's own caller for it). */
  wanted(f: number): boolean;
}

/**
 * The top of a stack of layers: where the calls of its top frames come from and where they end. A
 * workload's stack starts a top frame for each operation of the workload ({@link OperationStarter})
 * and ends the operation when that frame ends; a graph's call site opens a top frame for each call
 * of a handler ({@link openCall}, {@link startCall}, {@link cancelCall}) and hands its end to the
 * site's {@link CallEnds}. `Layers` extends it with the retry loop, whose frames it begins
 * (`beginCall`), and whose top frames end here (`Layers.endFrame`: {@link endOperation}, or the
 * site); the three share the frames of `FrameTable` and the leaf side of {@link LeafLink}.
 */
export abstract class StackTop extends LeafLink implements OperationStarter {
  /** Per layer: its instances (a frame's client goes through instance client % instances). */
  readonly instances: number[];
  private readonly opMethod: number;
  private readonly opDeadlineMs: number;
  private nextOpSeq = 0;
  /** Operations in flight (a workload's stack). */
  inFlightOps = 0;
  private maxInFlight = Infinity;
  private workload!: Workload;
  /** A graph's call site: where its calls end (null: a workload's stack, whose top frames are operations). */
  protected site: CallEnds | null = null;

  constructor(sc: Scenario, sim: Simulator, req: RequestTable, m: Measurements, initialFrames: number, seed: number, folds: Folds, kindBase: number) {
    super(sc, sim, req, m, initialFrames, seed, folds, kindBase);
    this.opMethod = METHOD_CODES[sc.workload.method];
    this.opDeadlineMs = sc.workload.deadlineMs ?? Infinity;
    this.instances = sc.stack.map((l) => l.instances);
  }

  /** Per layer instance: the retry budgets and admission controls (see `Layers`). */
  abstract readonly guards: LayerGuards;
  /** A call arrives at frame f's layer: its retry loop starts (see `Layers`). */
  abstract beginCall(f: number, t: number): void;
  /** Frame f's call (of layer k) starts its loop's state at t, before its first attempt (see `Layers`). */
  protected abstract initCall(f: number, k: number, t: number): void;
  /** Before an attempt of frame f, the loop's answer (see `Layers`). */
  abstract startAttempt(f: number, t: number): void;
  /** Send an admitted attempt of frame f (see `Layers`). */
  abstract sendAttempt(f: number, t: number): void;
  /** Frame f is cancelled, and its downstream call with it (see `Layers`). */
  protected abstract cancelFrame(f: number, t: number): void;

  /** Connect the leaf the last layer calls, and the workload whose operations start here (told when one ends). */
  connect(leaf: Leaf, workload: Workload): void {
    this.connectLeaf(leaf);
    this.workload = workload;
    this.maxInFlight = workload.maxInFlight;
  }

  /** Connect a graph's call site: the leaf is the callee service, the calls end at `site`, and `gate` (a bulkhead) may refuse its attempts. */
  connectCallSite(leaf: Leaf, site: CallEnds, gate: SendGate | null = null): void {
    this.connectLeaf(leaf, gate);
    this.site = site;
  }

  /** Client `client` starts an operation at t: a top frame with the workload's method and deadline, its call begun ({@link OperationStarter}). */
  startOperation(client: number, bad: number, t: number): void {
    const f = this.allocFrame();
    this.fLayer[f] = 0;
    this.fParent[f] = -1;
    this.fParentGen[f] = 0;
    this.fClient[f] = client;
    if (this.guards.guarded[0]) this.fInst[f] = client % (this.instances[0] as number);
    this.fMethod[f] = this.opMethod;
    this.fBad[f] = bad;
    this.fChain[f] = 0;
    this.fOpSeq[f] = this.nextOpSeq++;
    this.fDeadline[f] = t + this.opDeadlineMs;
    this.inFlightOps++;
    this.m.gInFlight.set(t, this.inFlightOps);
    // Each operation in flight holds memory until it ends: past the cap the run stops (say so rather than run out of memory).
    if (this.inFlightOps > this.maxInFlight) this.sim.stop();
    if (t >= 0) this.m.operationStarted(t);
    this.beginCall(f, t);
  }

  /**
   * A handler opens a call through this call site's stack at t: a top frame whose deadline is the
   * handler's (the absolute time its caller stops waiting), `chain` 1 when a layer upstream is on a
   * retry, and the calling backend as its client (the layers' instance), its call begun as
   * {@link beginCall} begins one. Its first attempt starts with {@link startCall}; its end goes to
   * the site's {@link CallEnds}.
   */
  openCall(backend: number, method: number, bad: number, chain: number, opSeq: number, deadlineMs: number, t: number): number {
    const f = this.allocFrame();
    this.fLayer[f] = 0;
    this.fParent[f] = -1;
    this.fParentGen[f] = 0;
    this.fClient[f] = backend;
    if (this.guards.guarded[0]) this.fInst[f] = backend % (this.instances[0] as number);
    this.fMethod[f] = method;
    this.fBad[f] = bad;
    this.fChain[f] = chain;
    this.fOpSeq[f] = opSeq;
    this.fDeadline[f] = deadlineMs;
    this.initCall(f, 0, t);
    return f;
  }

  /**
   * The first attempt of the call {@link openCall} opened at t. With no deadline and no admission
   * control at the top layer the loop's answer before it is to send (RetryLoop.beforeAttempt), so it
   * is sent without asking.
   */
  startCall(f: number, t: number): void {
    if (this.fDeadline[f] === Infinity && !this.guards.hasAdmission[0]) this.sendAttempt(f, t);
    else this.startAttempt(f, t);
  }

  /** Cancel the call of top frame f (its handler no longer waits): it stops, and its downstream work is withdrawn. */
  cancelCall(f: number, t: number): void {
    this.cancelFrame(f, t);
  }

  /** Whether the caller of top frame f still waits for it: a workload's operation always does; a call site's call while its handler waits. */
  protected override topWanted(f: number): boolean {
    return this.site === null || this.site.wanted(f);
  }

  /** Top frame f's operation ended at t (why: `reason`), as its frame ends: the workload is told. */
  protected endOperation(f: number, reason: number, t: number): void {
    this.inFlightOps--;
    this.m.gInFlight.set(t, this.inFlightOps);
    this.m.operationEnded(reason, this.fStart[f] as number, t);
    this.workload.ended(this.fClient[f] as number, t);
  }
}
