import type { Simulator } from '../../engine/simulator.js';
import * as classifyModule from '../../policy/classify.js';
import * as outcomeModule from '../../policy/outcome.js';
import type { Measurements } from '../Measurements.js';
import type { Scenario } from '../scenario.js';
import type { OperationStarter, Workload } from '../workloads/Workload.js';
import type { FrameTable } from './FrameTable.js';
import type { LayerGuards } from './LayerGuards.js';
import type { TopWaits } from './LeafLink.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { METHOD_CODES } = classifyModule;
const { GiveUp, Outcome } = outcomeModule;

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

/** What the top of a stack asks of the retry loop of its frames (`Layers`). */
export interface CallLoop {
  /** A top frame opened for a call of `client` through instance `inst`, its loop's state started at t, before its first attempt (the frame is returned). */
  openTop(client: number, inst: number, method: number, bad: number, chain: number, opSeq: number, deadlineMs: number, t: number): number;
  /** The first attempt of frame f's call (of layer k): sent, or first asked of the loop (send, send later or end). */
  firstAttempt(f: number, k: number, t: number): void;
  /** Frame f is cancelled, and its downstream call with it. */
  cancelFrame(f: number, t: number): void;
}

/**
 * The top of a stack of layers: where the calls of its top frames come from and where they end. A
 * workload's stack starts a top frame for each operation of the workload ({@link OperationStarter})
 * and ends the operation when that frame ends ({@link ended}); a graph's call site opens a top
 * frame for each call of a handler ({@link openCall}, {@link startCall}, {@link cancelCall}) and
 * hands its end to the site's {@link CallEnds}. The calls themselves are the retry loop's
 * ({@link CallLoop}).
 */
export class StackTop implements OperationStarter, TopWaits {
  private readonly sim: Simulator;
  private readonly m: Measurements;
  private readonly frames: FrameTable;
  private readonly guards: LayerGuards;
  private readonly loop: CallLoop;
  /** The top layer's instances (a frame's client goes through instance client % instances). */
  private readonly topInstances: number;
  private readonly opMethod: number;
  private readonly opDeadlineMs: number;
  private nextOpSeq = 0;
  /** Operations in flight (a workload's stack). */
  inFlightOps = 0;
  private maxInFlight = Infinity;
  private workload!: Workload;
  /** A graph's call site: where its calls end (null: a workload's stack, whose top frames are operations). */
  private site: CallEnds | null = null;

  /** The top of `sc`'s stack, its frames in `frames`, its calls run by `loop`. */
  constructor(sc: Scenario, sim: Simulator, m: Measurements, frames: FrameTable, guards: LayerGuards, loop: CallLoop) {
    this.sim = sim;
    this.m = m;
    this.frames = frames;
    this.guards = guards;
    this.loop = loop;
    this.opMethod = METHOD_CODES[sc.workload.method];
    this.opDeadlineMs = sc.workload.deadlineMs ?? Infinity;
    this.topInstances = (sc.stack[0] as Scenario['stack'][number]).instances;
  }

  /** The workload whose operations start here (told when one ends). */
  connectWorkload(workload: Workload): void {
    this.workload = workload;
    this.maxInFlight = workload.maxInFlight;
  }

  /** A graph's call site: its calls end at `site`. */
  connectSite(site: CallEnds): void {
    this.site = site;
  }

  /** The top layer's instance that `client` goes through, where the layer has budgets or admission control (0 elsewhere). */
  private instOf(client: number): number {
    return this.guards.guarded[0] ? client % this.topInstances : 0;
  }

  /** Client `client` starts an operation at t: a top frame with the workload's method and deadline, its call begun ({@link OperationStarter}). */
  startOperation(client: number, bad: number, t: number): void {
    const f = this.loop.openTop(client, this.instOf(client), this.opMethod, bad, 0, this.nextOpSeq++, t + this.opDeadlineMs, t);
    this.inFlightOps++;
    this.m.gInFlight.set(t, this.inFlightOps);
    // Each operation in flight holds memory until it ends: past the cap the run stops (say so rather than run out of memory).
    if (this.inFlightOps > this.maxInFlight) this.sim.stop();
    if (t >= 0) this.m.operationStarted(t);
    this.loop.firstAttempt(f, 0, t);
  }

  /**
   * A handler opens a call through this call site's stack at t: a top frame whose deadline is the
   * handler's (the absolute time its caller stops waiting), `chain` 1 when a layer upstream is on a
   * retry, and the calling backend as its client (the layers' instance), its loop's state started
   * as a call's is when it begins. Its first attempt starts with {@link startCall}; its end goes to
   * the site's {@link CallEnds}.
   */
  openCall(backend: number, method: number, bad: number, chain: number, opSeq: number, deadlineMs: number, t: number): number {
    return this.loop.openTop(backend, this.instOf(backend), method, bad, chain, opSeq, deadlineMs, t);
  }

  /** The first attempt of the call {@link openCall} opened at t (`CallLoop.firstAttempt`). */
  startCall(f: number, t: number): void {
    this.loop.firstAttempt(f, 0, t);
  }

  /** Cancel the call of top frame f (its handler no longer waits): it stops, and its downstream work is withdrawn. */
  cancelCall(f: number, t: number): void {
    this.loop.cancelFrame(f, t);
  }

  /** Whether the caller of top frame f still waits for it: a workload's operation always does; a call site's call while its handler waits. */
  wanted(f: number): boolean {
    return this.site === null || this.site.wanted(f);
  }

  /** Top frame f's call ended at t (why: `reason`, a give-up code; its last outcome): its call site is told, or its operation ends; the frame is freed. */
  ended(f: number, reason: number, outcome: number, t: number): void {
    const site = this.site;
    if (site !== null) {
      this.frames.free(f);
      site.callEnded(f, reason, reason === GiveUp.SUCCESS ? Outcome.SUCCESS : outcome, t);
      return;
    }
    const frames = this.frames;
    this.inFlightOps--;
    this.m.gInFlight.set(t, this.inFlightOps);
    this.m.operationEnded(reason, frames.fStart[f] as number, t);
    this.workload.ended(frames.fClient[f] as number, t);
    frames.free(f);
  }
}
