import type { Simulator } from '../../engine/simulator.js';
import { idempotencyInto, METHOD_CODES, METHOD_COUNT } from '../../policy/classify.js';
import { compilePolicy, type CompiledPolicy } from '../../policy/decision.js';
import { GIVE_UP_NAMES } from '../../policy/outcome.js';
import * as outcomeModule from '../../policy/outcome.js';
import type { AdmissionControl } from '../../policy/budgets/AdmissionControl.js';
import type { BudgetChain } from '../../policy/budgets/BudgetChain.js';
import { EndedAttempt, RetryLoop, RetryStep, type NextCode } from '../../policy/retryLoop.js';
import * as retryLoopModule from '../../policy/retryLoop.js';
import * as eventKindsModule from '../eventKinds.js';
import type { Folds } from '../folds.js';
import type { Leaf } from '../leaves/Leaf.js';
import type { Measurements } from '../Measurements.js';
import type { RequestTable } from '../RequestTable.js';
import * as requestTableModule from '../RequestTable.js';
import type { Policy, Scenario } from '../scenario.js';
import type { Workload } from '../workloads/Workload.js';
import * as frameTableModule from './FrameTable.js';
import { FrameTable } from './FrameTable.js';
import { Hedging } from './Hedging.js';
import { Hops } from './Hops.js';
import { Jitter } from './Jitter.js';
import { LayerGuards } from './LayerGuards.js';
import { LeafLink, type AttemptEnds, type SendGate } from './LeafLink.js';
import { PolicySwaps } from './PolicySwaps.js';
import { StackTop, type CallEnds, type CallLoop } from './StackTop.js';
import { traceAttempt, traceCall, traceGiveUp, traceOutcome, traceWait, type TraceSink } from './traceEvents.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { GiveUp, Outcome } = outcomeModule;
const { Next, firstAttemptAsks } = retryLoopModule;
const { K_FRAME_ARRIVE, K_FRAME_RESPONSE, K_FRAME_SEND, K_FRAME_TIMEOUT, K_FRAME_WAKE } = eventKindsModule;
const { R_CANCELLED, R_FREE, R_HANG } = requestTableModule;
const { NO_CHILD } = frameTableModule;

// The methods' codes (the frames' `fMethod`) are policy/classify.ts's, and CallEnds is StackTop.ts's; graph/ reads them from here.
export { METHOD_CODES };
export type { CallEnds } from './StackTop.js';
const GIVE_UP_COUNT = GIVE_UP_NAMES.length;
/**
 * The length of a layer's row of {@link Layers.idempotent}: METHOD_COUNT, bound in this module
 * because the decision reads it per attempt (docs/performance.md, "Imported bindings").
 */
const IDEMPOTENT_ROW = METHOD_COUNT;

/** How the model runs the layers. */
export interface LayersOptions {
  seed: number;
  /** The layers' policies, compiled. */
  policies: CompiledPolicy[];
  /** Fix every jitter draw to this fraction of its range (teaching and tests). */
  fixedDraw: number | undefined;
  trace: TraceSink | undefined;
  folds: Folds;
  /** The first of the stack's event kinds (default 0: a workload's stack; see eventKinds.ts). */
  kindBase?: number;
  /** Per layer, the policies timed interventions give it during the run (src/model/interventions.ts); absent: none. */
  laterPolicies?: ReadonlyArray<readonly Policy[]>;
}

/**
 * The stack of retrying layers: each layer's call for one operation is a frame (a row of the
 * {@link FrameTable}) that drives its layer's {@link RetryLoop} (src/policy/retryLoop.ts, the one
 * copy of docs/concepts.md, "The retry decision": the frames keep the call's state in their columns, the
 * loop decides, the layers do what it says: send, wait, hedge or end) against the next hop: the
 * next layer's frame, or a request to the leaf. A caller that stops waiting (an attempt timeout)
 * abandons its downstream call, which goes on unless cancellation is enabled: orphaned frames keep
 * retrying, and server time spent on requests nobody waits for is wasted work. Per-client jitter
 * state lives in typed arrays; nothing is allocated per event.
 *
 * This class is the retry loop of the frames, and it holds the stack's parts, each with a narrow
 * interface: the {@link frames}; the network {@link hops}; the {@link top} of the stack (where
 * the calls of top frames come from and end: a workload's operations, a call site's calls); the
 * {@link link} to the leaf (its requests and answers: the leaf's host); the budgets and admission
 * controls ({@link guards}); the {@link hedges}; the backoff {@link Jitter}; and a timed intervention's re-checks
 * ({@link PolicySwaps}).
 */
export class Layers implements CallLoop, AttemptEnds {
  private readonly sc: Scenario;
  private readonly sim: Simulator;
  private readonly req: RequestTable;
  private readonly m: Measurements;
  private readonly folds: Folds;
  /** The number of layers. */
  readonly L: number;
  /** The first of this stack's event kinds: 0 for a workload's stack, a range of its own for each call site of a graph. */
  readonly kb: number;
  /** The frames: their columns, written only through the table's own steps. */
  readonly frames: FrameTable;
  /** The hops between the layers, and from the last layer to the leaf. */
  readonly hops: Hops;
  /** Per layer instance: the retry budgets and admission controls. */
  readonly guards: LayerGuards;
  /** The top of the stack: a workload's operations (the workload's `OperationStarter`) or a graph call site's calls. */
  readonly top: StackTop;
  /** The link to the leaf: the last layer's requests and the leaf's answers (the leaf's `LeafHost`). */
  readonly link: LeafLink;
  /** Per layer: its instances (a frame's client goes through instance client % instances). */
  private readonly instances: number[];
  /** Per layer: the retry loop of its policy (a timed intervention swaps it: {@link swapPolicy}), and the step its answers are written into. */
  readonly loops: RetryLoop[];
  readonly step = new RetryStep();
  /** What the retry loop is told when an attempt ends (filled in place before each decision). */
  private readonly attemptEnd = new EndedAttempt();
  /** Per layer and method: 1 where its policy deems the method idempotent, at idempotent[layer * METHOD_COUNT + methodCode] (policy/classify.ts, idempotencyInto). */
  readonly idempotent: Uint8Array;
  /** The backoff jitter the loops draw: per layer, each client's stream. */
  private readonly jitter: Jitter;
  /** Per layer: a call's start does more than open its frame (its jitter is time-seeded, or the run is traced): {@link callBegun}. */
  private readonly callHooks: boolean[];
  /** Per layer: it hedges its calls. */
  readonly hedging: boolean[];
  readonly hedges: Hedging;
  /** The queue's lane for the layer's timeouts (-1: none): in time order with a constant timeout, and most are stale by the time they pop. */
  private readonly timeoutLane: Int32Array;
  /** Where the backoff is none or constant: the lane for its wake-ups (in time order but for Retry-After hints). */
  private readonly wakeLane: Int32Array;
  readonly trace: TraceSink | undefined;
  private readonly horizonMs: number;

  /** The retries a timed intervention's change of policy re-checks (null until the first change that marks one: {@link swapPolicy}). */
  private swaps: PolicySwaps | null = null;
  /** Some wake-up may have to be asked again ({@link wake}): set by the first policy change that marks a retry; the dispatch calls `startAttempt` directly until then. */
  rechecks = false;

  /** The layers of `sc.stack`, over the request table `req`, with room for `initialFrames` frames to start with. */
  constructor(sc: Scenario, sim: Simulator, req: RequestTable, m: Measurements, initialFrames: number, o: LayersOptions) {
    this.sc = sc;
    this.sim = sim;
    this.req = req;
    this.m = m;
    this.folds = o.folds;
    this.trace = o.trace;
    this.horizonMs = sc.horizonMs;
    const seed = o.seed;
    const L = sc.stack.length;
    this.L = L;
    this.kb = o.kindBase ?? 0;
    this.frames = new FrameTable(initialFrames);
    this.hops = new Hops(sc, sim, seed, this.kb);
    this.instances = sc.stack.map((l) => l.instances);
    this.loops = o.policies.map((p) => new RetryLoop(p));
    this.idempotent = new Uint8Array(L * METHOD_COUNT);
    sc.stack.forEach((l, k) => idempotencyInto(this.idempotent, k * METHOD_COUNT, l.policy.idempotency));
    this.jitter = new Jitter(sc, seed, o.fixedDraw);
    this.callHooks = this.jitter.timeSeeded.map((seeded) => seeded || o.trace !== undefined);
    this.timeoutLane = Int32Array.from(sc.stack, (l) => (l.policy.perAttemptTimeoutMs !== undefined ? sim.addLane() : -1));
    this.wakeLane = Int32Array.from(sc.stack, (l) => {
      const kind = l.policy.backoff.kind;
      return l.policy.maxAttempts !== 1 && (kind === 'none' || kind === 'constant') ? sim.addLane() : -1;
    });
    this.guards = new LayerGuards(sc, seed, o.laterPolicies);
    this.hedging = sc.stack.map((l) => l.policy.hedging !== undefined);
    this.top = new StackTop(sc, sim, m, this.frames, this.guards, this);
    this.link = new LeafLink(L, req, m, this.frames, this.hops, this.folds, this, this.top);
    this.hedges = new Hedging(this, this.frames, sim);
  }

  /** The stack's request table. */
  get requests(): RequestTable {
    return this.req;
  }

  /** Connect the leaf the last layer calls, and the workload whose operations start at the top (told when one ends). */
  connect(leaf: Leaf, workload: Workload): void {
    this.link.connect(leaf, null);
    this.top.connectWorkload(workload);
  }

  /** Connect a graph's call site: the leaf is the callee service, the calls end at `site`, and `gate` (a bulkhead) may refuse its attempts. */
  connectCallSite(leaf: Leaf, site: CallEnds, gate: SendGate | null = null): void {
    this.link.connect(leaf, gate);
    this.top.connectSite(site);
  }

  // ---------------------------------------------------------------- the retry loop

  /** A call arrives at frame f's layer: start its retry loop. fDeadline holds the incoming deadline. */
  beginCall(f: number, t: number): void {
    const k = this.frames.fLayer[f] as number;
    this.initCall(f, k, t);
    this.firstAttempt(f, k, t);
  }

  /** The first attempt of frame f's call (of layer k) at t: asked of the loop only where its answer can be other than send (`firstAttemptAsks`). */
  firstAttempt(f: number, k: number, t: number): void {
    if (firstAttemptAsks(this.frames.fDeadline[f] as number, this.guards.hasAdmission[k] as boolean)) this.startAttempt(f, t);
    else this.sendAttempt(f, t);
  }

  /** A top frame for a call of `client` (through `inst`; incoming deadline `deadlineMs`, absolute), its loop's state started at t as {@link initCall} does. */
  openTop(client: number, inst: number, method: number, bad: number, chain: number, opSeq: number, deadlineMs: number, t: number): number {
    const loop = this.loops[0] as RetryLoop;
    const f = this.frames.openTop(client, inst, method, bad, chain, opSeq, loop.deadlineAtMs(deadlineMs, t), loop.initialPrevSleepMs, t);
    if (this.callHooks[0]) this.callBegun(f, 0, t);
    return f;
  }

  /** {@link beginCall} before the first attempt: frame f's call (of layer k) starts its loop's state at t. */
  private initCall(f: number, k: number, t: number): void {
    const fr = this.frames;
    const loop = this.loops[k] as RetryLoop;
    fr.beginCall(f, loop.deadlineAtMs(fr.fDeadline[f] as number, t), loop.initialPrevSleepMs, t);
    if (this.callHooks[k]) this.callBegun(f, k, t);
  }

  /** What else starts with frame f's call (of layer k) at t: its client's time-seeded jitter, its trace event (apart, to keep the start of a call small enough to inline). */
  private callBegun(f: number, k: number, t: number): void {
    this.jitter.callStarted(k, this.frames.fClient[f] as number, t);
    if (this.trace) this.traceCallOf(f, k, t);
  }

  private traceCallOf(f: number, k: number, t: number): void {
    traceCall(this.trace as TraceSink, t, this.frames.fOpSeq[f] as number, k, this.frames.fDeadline[f] as number, f, this.frames.fParent[f] as number);
  }

  /** Frame f's backoff wake-up (armed with generation `gen`) at t: the next attempt starts, unless a policy changed while it waited and the loop now ends the call. */
  wake(f: number, gen: number, t: number): void {
    const swaps = this.swaps;
    if (swaps !== null && swaps.recheckEnds(f, gen, t)) return;
    this.startAttempt(f, t);
  }

  /** Before an attempt, the loop's answer: end the call (a spent deadline, a refusal), send the attempt later (an admission delay) or now. */
  startAttempt(f: number, t: number): void {
    const fr = this.frames;
    const k = fr.fLayer[f] as number;
    const guards = this.guards;
    const admission = guards.hasAdmission[k] ? guards.admission(k, fr.fInst[f] as number) : null;
    const step = this.step;
    const next = (this.loops[k] as RetryLoop).beforeAttempt(
      fr.fAttempts[f] as number,
      fr.fLastOutcome[f] as number,
      t,
      fr.fDeadline[f] as number,
      admission,
      guards,
      step,
    );
    if (next === Next.SEND) this.sendAttempt(f, t);
    else this.notSent(f, next, t);
  }

  /** {@link startAttempt} when the loop does not send now: the attempt is sent later (an admission delay), or the call ends (apart, to keep the start small enough to inline). */
  private notSent(f: number, next: NextCode, t: number): void {
    const fr = this.frames;
    const step = this.step;
    if (next === Next.SEND_LATER) this.sim.at(step.wakeAtMs, this.kb + K_FRAME_SEND, f, fr.frameTimers.arm(f));
    else this.endFrame(f, step.reason, step.outcome, fr.fLastRA[f] as number, t);
  }

  /** Send an attempt (admitted): count it, arm its timeout, and call the next hop. */
  sendAttempt(f: number, t: number): void {
    const fr = this.frames;
    const k = fr.fLayer[f] as number;
    const n = (fr.fAttempts[f] as number) + 1;
    const hedged = this.hedging[k] as boolean;
    const m = this.m;
    if (t >= 0) {
      if (n === 1) m.layerFirst[k] = (m.layerFirst[k] as number) + 1;
      else if (hedged) m.layerHedges[k] = (m.layerHedges[k] as number) + 1;
      else m.layerRetries[k] = (m.layerRetries[k] as number) + 1;
    }
    const loop = this.loops[k] as RetryLoop;
    const deadline = fr.fDeadline[f] as number;
    const chain = this.guards.hasBudget[k] ? this.guards.chain(k, fr.fInst[f] as number) : null;
    let gen: number;
    let end: number;
    if (hedged) {
      end = loop.startAttemptUntilMs(n, t, deadline, chain);
      gen = this.hedges.armAttempt(f, k, loop, n, end, t);
    } else {
      const timeout = loop.startAttempt(n, t, deadline, chain);
      end = t + timeout;
      gen = fr.frameTimers.arm(f);
      if (end < Infinity) this.sim.atInLane(this.timeoutLane[k] as number, end, this.kb + K_FRAME_TIMEOUT, f, gen);
      if (this.trace) traceAttempt(this.trace, t, fr.fOpSeq[f] as number, k, n, timeout, f);
    }
    fr.attemptSent(f, n, end);
    const retryChain = fr.fChain[f] === 1 || n > 1 ? 1 : 0;
    if (k < this.L - 1) this.callNextLayer(f, k, gen, retryChain, end, t);
    else this.link.callLeaf(f, k, n, gen, retryChain, end, t);
  }

  /** Frame f's attempt calls the next layer down: a new frame, its call starting after the hop. */
  private callNextLayer(f: number, k: number, gen: number, chain: number, end: number, t: number): void {
    const fr = this.frames;
    const inst = this.guards.guarded[k + 1] ? (fr.fClient[f] as number) % (this.instances[k + 1] as number) : 0;
    const c = fr.openChild(f, gen, inst, chain, end);
    const cg = fr.frameTimers.arm(c);
    if (this.hops.zero[k]) this.beginCall(c, t);
    else this.hops.send(k, fr.fClient[c] as number, K_FRAME_ARRIVE, c, cg, t);
  }

  /** Frame f's attempt timed out: its downstream call is abandoned (or cancelled), and the retry decision follows. */
  attemptTimedOut(f: number, t: number): void {
    const fr = this.frames;
    const c = fr.fChild[f] as number;
    if (c !== NO_CHILD && c < 0) {
      this.link.leaf.abandon(~c, t);
      if (this.req.state[~c] === R_HANG) {
        fr.dropChild(f);
        this.link.release(~c);
      }
    }
    if (this.sc.cancellation) this.cancelDownstream(f, t);
    this.attemptEnded(f, Outcome.TIMEOUT, NaN, t);
  }

  /** The retry decision (docs/concepts.md, "The retry decision", the loop's afterAttempt) after frame f's current attempt ended. */
  attemptEnded(f: number, outcome: number, retryAfterMs: number, t: number): void {
    const fr = this.frames;
    const k = fr.fLayer[f] as number;
    if (this.hedging[k]) {
      this.hedges.ended(f, outcome, retryAfterMs, t);
      return;
    }
    const gen = fr.frameTimers.arm(f);
    fr.attemptOver(f, outcome, retryAfterMs);
    if (this.trace) this.traceOutcomeOf(f, k, outcome, retryAfterMs, t);
    const next = this.guards.guarded[k] ? this.decideGuarded(f, k, outcome, retryAfterMs, t) : this.decide(f, k, outcome, retryAfterMs, t, null, null);
    if (next === Next.RETRY) this.retryLater(f, k, gen, false);
    else this.endFrame(f, this.step.reason, outcome, retryAfterMs, t);
  }

  /** {@link decide} for a layer with budgets, breakers or an admission control: those of frame f's instance. */
  private decideGuarded(f: number, k: number, outcome: number, retryAfterMs: number, t: number): NextCode {
    const inst = this.frames.fInst[f] as number;
    return this.decide(f, k, outcome, retryAfterMs, t, this.guards.decisionChain(k, inst), this.guards.admission(k, inst));
  }

  private traceOutcomeOf(f: number, k: number, outcome: number, retryAfterMs: number, t: number): void {
    traceOutcome(this.trace as TraceSink, t, this.frames.fOpSeq[f] as number, k, this.frames.fAttempts[f] as number, outcome, retryAfterMs, f);
  }

  /** Frame f's retry loop decides after its attempt ended at t (its answer in {@link step}). */
  private decide(
    f: number,
    k: number,
    outcome: number,
    retryAfterMs: number,
    t: number,
    chain: BudgetChain | null,
    admission: AdmissionControl | null,
  ): NextCode {
    const fr = this.frames;
    const step = this.step;
    const jitter = this.jitter;
    jitter.aim(k, fr.fClient[f] as number);
    const a = this.attemptEnd;
    a.attemptsMade = fr.fAttempts[f] as number;
    a.outcome = outcome;
    a.retryAfterMs = retryAfterMs;
    a.idempotent = this.idempotent[k * IDEMPOTENT_ROW + (fr.fMethod[f] as number)] === 1;
    a.nowMs = t;
    a.deadlineAtMs = fr.fDeadline[f] as number;
    a.callStartMs = fr.fStart[f] as number;
    a.backoffBase = fr.fBackoffBase[f] as number;
    a.prevSleepMs = fr.fPrevSleep[f] as number;
    a.chain = chain;
    a.admission = admission;
    const next = (this.loops[k] as RetryLoop).afterAttempt(a, jitter, step);
    if (this.trace && step.planned) this.traceWaitOf(f, k, t);
    return next;
  }

  private traceWaitOf(f: number, k: number, t: number): void {
    traceWait(this.trace as TraceSink, t, this.frames.fOpSeq[f] as number, k, this.frames.fAttempts[f] as number, this.step, f);
  }

  /** Frame f retries as its loop planned (in {@link step}): carry the backoff's state and arm the wake-up, or, `ahead`, send the attempt at once with the wake-up's time. */
  private retryLater(f: number, k: number, gen: number, ahead: boolean): void {
    const step = this.step;
    this.frames.retryPlanned(f, step.backoffBase, step.nextPrevSleepMs);
    // Sent ahead only if the wake-up would run before the horizon. (A run stopped by its event cap
    // is the exception: its last retries sent ahead may be counted after its last event.)
    if (ahead && step.wakeAtMs <= this.horizonMs) this.sendAttempt(f, step.wakeAtMs);
    else this.sim.atInLane(this.wakeLane[k] as number, step.wakeAtMs, this.kb + K_FRAME_WAKE, f, gen);
  }

  /**
   * The retry decision of a last-layer frame whose answer is still crossing the hop back, taken when
   * the answer leaves the leaf instead of when it arrives at `arriveMs` (one event less per retry).
   * Only where nothing can reach the frame in between (folds.ts, `foldAnswers`: among others, no
   * deadline, no budget, no admission control and no maxElapsedMs at the last layer): the decision,
   * the draw and the wake-up are the same as at arrival. Returns false, having changed nothing, when
   * the attempt does not lead to a retry (the answer then crosses the hop as an event): without a
   * deadline or maxElapsedMs a planned wait always fits, so the loop ends the call only before its
   * draw.
   */
  retryAhead(f: number, outcome: number, retryAfterMs: number, arriveMs: number): boolean {
    const k = this.L - 1;
    const fr = this.frames;
    if (fr.fDeadline[f] !== Infinity) return false;
    if (this.decide(f, k, outcome, retryAfterMs, arriveMs, null, null) !== Next.RETRY) return false;
    const gen = fr.frameTimers.arm(f);
    fr.attemptOver(f, outcome, retryAfterMs);
    this.retryLater(f, k, gen, this.folds.sendAhead);
    return true;
  }

  /** Frame f gives up (or succeeds): report to its caller, or end the call at the top. */
  endFrame(f: number, reason: number, outcome: number, retryAfterMs: number, t: number): void {
    const fr = this.frames;
    const k = fr.fLayer[f] as number;
    if (this.hedging[k]) fr.hedgeTimers.cancel(f);
    const m = this.m;
    if (t >= 0) m.layerGiveUps[k * GIVE_UP_COUNT + reason] = (m.layerGiveUps[k * GIVE_UP_COUNT + reason] as number) + 1;
    if (this.trace) this.traceGiveUpOf(f, k, reason, outcome, t);
    const parent = fr.fParent[f] as number;
    if (parent < 0) this.top.ended(f, reason, outcome, t);
    else this.answerParent(f, k, parent, reason === GiveUp.SUCCESS ? Outcome.SUCCESS : outcome, retryAfterMs, t);
  }

  private traceGiveUpOf(f: number, k: number, reason: number, outcome: number, t: number): void {
    traceGiveUp(this.trace as TraceSink, t, this.frames.fOpSeq[f] as number, k, reason, this.frames.fAttempts[f] as number, outcome, f);
  }

  /** Frame f (of layer k) answers `result` to its parent's attempt, across the hop between them. */
  private answerParent(f: number, k: number, parent: number, result: number, retryAfterMs: number, t: number): void {
    const fr = this.frames;
    const pg = fr.fParentGen[f] as number;
    if (!fr.frameTimers.isLive(parent, pg)) {
      fr.free(f);
      return;
    }
    const pk = k - 1;
    if (this.hops.zero[pk]) {
      fr.free(f);
      this.attemptEnded(parent, result, retryAfterMs, t);
      return;
    }
    fr.holdAnswer(f, result, retryAfterMs);
    const g = fr.frameTimers.arm(f);
    this.hops.send(pk, fr.fClient[f] as number, K_FRAME_RESPONSE, f, g, t);
  }

  /** Frame f's answer reached its caller across the hop. */
  frameResponseArrived(f: number, t: number): void {
    const fr = this.frames;
    const parent = fr.fParent[f] as number;
    const pg = fr.fParentGen[f] as number;
    const result = fr.fResOutcome[f] as number;
    const ra = fr.fResRA[f] as number;
    fr.free(f);
    if (fr.frameTimers.isLive(parent, pg)) this.attemptEnded(parent, result, ra, t);
  }

  /** Cancellation propagated downstream: the abandoned call stops, its leaf work is withdrawn. */
  cancelDownstream(f: number, t: number): void {
    const fr = this.frames;
    const c = fr.fChild[f] as number;
    if (c === NO_CHILD) return;
    fr.dropChild(f);
    if (c >= 0) {
      this.cancelFrame(c, t);
      return;
    }
    const r = ~c;
    const state = this.req.state[r];
    if (state === R_FREE || state === R_CANCELLED) return;
    this.link.leaf.withdraw(r, t);
  }

  /** Frame c is cancelled: its own downstream call first, then its attempt is withdrawn from the budgets and the frame freed. */
  cancelFrame(c: number, t: number): void {
    this.cancelDownstream(c, t);
    const fr = this.frames;
    const ck = fr.fLayer[c] as number;
    if (fr.fInAttempt[c] === 1 && this.guards.hasBudget[ck]) {
      (this.loops[ck] as RetryLoop).withdrawAttempt(fr.fAttempts[c] as number, t, this.guards.chain(ck, fr.fInst[c] as number));
    }
    if (t >= 0) this.m.layerCancelled[ck] = (this.m.layerCancelled[ck] as number) + 1;
    fr.free(c);
  }

  // ---------------------------------------------------------------- timed interventions

  /**
   * Layer k takes `policy` at t (a timed intervention, docs/experiments.md, "Timed interventions"): its retry loop is recompiled and
   * swapped in, in every instance; its budgets and admission control follow (`LayerGuards.swap`). Every frame of the
   * layer waiting for a retry is marked for a re-check ({@link PolicySwaps.markWaiting}). The policy's hedging and
   * seeding stay (validation), so a hedging layer marks none.
   */
  swapPolicy(k: number, policy: Policy, t: number): void {
    this.loops[k] = new RetryLoop(compilePolicy(policy));
    idempotencyInto(this.idempotent, k * METHOD_COUNT, policy.idempotency);
    const newBudgets = this.guards.swap(k, policy, t);
    if (this.hedging[k]) return;
    (this.swaps ??= new PolicySwaps(this, this.frames)).markWaiting(k, newBudgets);
    this.rechecks = true;
  }

  /** Close the layers' series at the end of the run. */
  finish(endMs: number): void {
    this.guards.finish(endMs);
  }
}
