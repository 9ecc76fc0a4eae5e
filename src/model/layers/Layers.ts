import { ClientRandom, deriveSeed } from '../../engine/random.js';
import type { Simulator } from '../../engine/simulator.js';
import { idempotencyInto, METHOD_CODES, METHOD_COUNT } from '../../policy/classify.js';
import type { CompiledPolicy } from '../../policy/decision.js';
import { GIVE_UP_NAMES } from '../../policy/outcome.js';
import * as outcomeModule from '../../policy/outcome.js';
import type { AdmissionControl } from '../../policy/budgets/AdmissionControl.js';
import type { BudgetChain } from '../../policy/budgets/BudgetChain.js';
import { EndedAttempt, RetryLoop, RetryStep, type NextCode, type UniformDraw } from '../../policy/retryLoop.js';
import * as retryLoopModule from '../../policy/retryLoop.js';
import * as eventKindsModule from '../eventKinds.js';
import type { Folds } from '../folds.js';
import type { Measurements } from '../Measurements.js';
import type { RequestTable } from '../RequestTable.js';
import * as requestTableModule from '../RequestTable.js';
import type { Policy, Scenario } from '../scenario.js';
import * as frameTableModule from './FrameTable.js';
import { Hedging } from './Hedging.js';
import { LayerGuards } from './LayerGuards.js';
import { PolicySwaps } from './PolicySwaps.js';
import { StackTop } from './StackTop.js';
import { traceAttempt, traceCall, traceGiveUp, traceOutcome, traceWait, type TraceSink } from './traceEvents.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { GiveUp, Outcome } = outcomeModule;
const { Next } = retryLoopModule;
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
 * loop decides, the layers do what it says: send, wait, hedge or end) against the next hop: the next layer's frame, or a request to the leaf. A caller that stops
 * waiting (an attempt timeout) abandons its downstream call, which goes on unless cancellation is
 * enabled: orphaned frames keep retrying, and server time spent on requests nobody waits for is
 * wasted work. It is the leaf's host: the leaf's answers come back here. Per-client jitter state
 * lives in typed arrays; nothing is allocated per event. Where its top frames' calls come from and
 * end (a workload's operations, a call site's calls) is {@link StackTop}, which it extends; a timed
 * intervention's change of a layer's policy is {@link PolicySwaps}'.
 */
export class Layers extends StackTop implements UniformDraw {
  private readonly sc: Scenario;
  /** Per layer: the retry loop of its policy, and the step its answers are written into. */
  readonly loops: RetryLoop[];
  readonly step = new RetryStep();
  /** What the retry loop is told when an attempt ends (filled in place before each decision). */
  private readonly attemptEnd = new EndedAttempt();
  /** Per layer and method: 1 where its policy deems the method idempotent, at idempotent[layer * METHOD_COUNT + methodCode] (policy/classify.ts, idempotencyInto). */
  readonly idempotent: Uint8Array;
  private readonly jitter: ClientRandom[];
  /** Whether the backoff's jitter is seeded at call start. */
  private readonly timeSeeded: boolean[];
  /** The layer and client the loop's next jitter draw is for ({@link uniform}). */
  private drawLayer = 0;
  private drawClient = 0;
  readonly hedging: boolean[];
  override readonly guards: LayerGuards;
  readonly hedges: Hedging;
  /**
   * The event queue's lane for the layer's timeouts, where it has a per-attempt timeout (-1:
   * none). With a constant timeout they come in time order, so they need no heap, and most of them
   * are stale by the time they pop (the attempt ended first).
   */
  private readonly timeoutLane: Int32Array;
  /** Where the backoff is none or constant: the lane for its wake-ups (in time order but for Retry-After hints). */
  private readonly wakeLane: Int32Array;
  private readonly fixedDraw: number | undefined;
  readonly trace: TraceSink | undefined;
  private readonly horizonMs: number;

  /** The timed interventions' changes of policy and the retries they re-check (null until the first change: {@link swapPolicy}). */
  private swaps: PolicySwaps | null = null;
  /** Some wake-up may have to be asked again ({@link wake}): set by the first policy change that marks a retry; the dispatch calls `startAttempt` directly until then. */
  rechecks = false;

  constructor(sc: Scenario, sim: Simulator, req: RequestTable, m: Measurements, initialFrames: number, o: LayersOptions) {
    super(sc, sim, req, m, initialFrames, o.seed, o.folds, o.kindBase ?? 0);
    this.sc = sc;
    this.fixedDraw = o.fixedDraw;
    this.trace = o.trace;
    this.horizonMs = sc.horizonMs;
    const seed = o.seed;
    const L = sc.stack.length;
    const clients = sc.workload.clients;
    this.loops = o.policies.map((p) => new RetryLoop(p));
    this.idempotent = new Uint8Array(L * METHOD_COUNT);
    sc.stack.forEach((l, k) => idempotencyInto(this.idempotent, k * METHOD_COUNT, l.policy.idempotency));
    this.jitter = sc.stack.map((l, k) => new ClientRandom(clients, deriveSeed(seed, 'jitter', k), l.policy.seeding ?? { kind: 'independent' }));
    this.timeSeeded = sc.stack.map((l) => l.policy.seeding?.kind === 'time-seeded');
    this.timeoutLane = Int32Array.from(sc.stack, (l) => (l.policy.perAttemptTimeoutMs !== undefined ? sim.addLane() : -1));
    this.wakeLane = Int32Array.from(sc.stack, (l) => {
      const kind = l.policy.backoff.kind;
      return l.policy.maxAttempts !== 1 && (kind === 'none' || kind === 'constant') ? sim.addLane() : -1;
    });
    this.guards = new LayerGuards(sc, seed, o.laterPolicies);
    this.hedging = sc.stack.map((l) => l.policy.hedging !== undefined);
    this.hedges = new Hedging(this, sim);
  }

  /** The stack's request table. */
  get requests(): RequestTable {
    return this.req;
  }

  // ---------------------------------------------------------------- the retry loop

  /** A call arrives at frame f's layer: start its retry loop. fDeadline holds the incoming deadline. */
  override beginCall(f: number, t: number): void {
    this.initCall(f, this.fLayer[f] as number, t);
    this.startAttempt(f, t);
  }

  /** {@link beginCall} before the first attempt: frame f's call (of layer k) starts its loop's state at t. */
  protected override initCall(f: number, k: number, t: number): void {
    const loop = this.loops[k] as RetryLoop;
    this.fDeadline[f] = loop.deadlineAtMs(this.fDeadline[f] as number, t);
    this.fAttempts[f] = 0;
    this.fBackoffBase[f] = 0;
    this.fInAttempt[f] = 0;
    this.fOutstanding[f] = 0;
    if (this.timeSeeded[k]) (this.jitter[k] as ClientRandom).start(this.fClient[f] as number, t);
    this.fStart[f] = t;
    this.fPrevSleep[f] = loop.policy.compiledBackoff.initialPrevSleepMs;
    this.fLastOutcome[f] = Outcome.DEADLINE_EXCEEDED;
    this.fLastRA[f] = NaN;
    this.fChild[f] = NO_CHILD;
    if (this.trace) this.traceCallOf(f, k, t);
  }

  private traceCallOf(f: number, k: number, t: number): void {
    traceCall(this.trace as TraceSink, t, this.fOpSeq[f] as number, k, this.fDeadline[f] as number, f, this.fParent[f] as number);
  }

  /** Frame f's backoff wake-up (armed with generation `gen`) at t: the next attempt starts, unless a policy changed while it waited and the loop now ends the call. */
  wake(f: number, gen: number, t: number): void {
    const swaps = this.swaps;
    if (swaps !== null && swaps.recheckEnds(f, gen, t)) return;
    this.startAttempt(f, t);
  }

  /** Before an attempt, the loop's answer: end the call (a spent deadline, a refusal), send the attempt later (an admission delay) or now. */
  override startAttempt(f: number, t: number): void {
    const k = this.fLayer[f] as number;
    const guards = this.guards;
    const admission = guards.hasAdmission[k] ? guards.admission(k, this.fInst[f] as number) : null;
    const step = this.step;
    const next = (this.loops[k] as RetryLoop).beforeAttempt(
      this.fAttempts[f] as number,
      this.fLastOutcome[f] as number,
      t,
      this.fDeadline[f] as number,
      admission,
      guards,
      step,
    );
    if (next === Next.SEND) this.sendAttempt(f, t);
    else if (next === Next.SEND_LATER) this.sim.at(step.wakeAtMs, this.kb + K_FRAME_SEND, f, this.frameTimers.arm(f));
    else this.endFrame(f, step.reason, step.outcome, this.fLastRA[f] as number, t);
  }

  /** Send an attempt (admitted): count it, arm its timeout, and call the next hop. */
  override sendAttempt(f: number, t: number): void {
    const k = this.fLayer[f] as number;
    const n = (this.fAttempts[f] as number) + 1;
    this.fAttempts[f] = n;
    const hedged = this.hedging[k] as boolean;
    const m = this.m;
    if (t >= 0) {
      if (n === 1) m.layerFirst[k] = (m.layerFirst[k] as number) + 1;
      else if (hedged) m.layerHedges[k] = (m.layerHedges[k] as number) + 1;
      else m.layerRetries[k] = (m.layerRetries[k] as number) + 1;
    }
    const loop = this.loops[k] as RetryLoop;
    const deadline = this.fDeadline[f] as number;
    const chain = this.guards.hasBudget[k] ? this.guards.chain(k, this.fInst[f] as number) : null;
    this.fInAttempt[f] = 1;
    let gen: number;
    let end: number;
    if (hedged) {
      end = loop.startAttemptUntilMs(n, t, deadline, chain);
      gen = this.hedges.armAttempt(f, k, loop, n, end, t);
    } else {
      const timeout = loop.startAttempt(n, t, deadline, chain);
      end = t + timeout;
      gen = this.frameTimers.arm(f);
      if (end < Infinity) this.sim.atInLane(this.timeoutLane[k] as number, end, this.kb + K_FRAME_TIMEOUT, f, gen);
      if (this.trace) traceAttempt(this.trace, t, this.fOpSeq[f] as number, k, n, timeout, f);
    }
    this.fAttemptEnd[f] = end;
    const retryChain = this.fChain[f] === 1 || n > 1 ? 1 : 0;
    if (k < this.L - 1) this.callNextLayer(f, k, gen, retryChain, end, t);
    else this.callLeaf(f, k, n, gen, retryChain, end, t);
  }
  /** Frame f's attempt calls the next layer down: a new frame, its call starting after the hop. */
  private callNextLayer(f: number, k: number, gen: number, chain: number, end: number, t: number): void {
    const c = this.allocFrame();
    this.fLayer[c] = k + 1;
    this.fParent[c] = f;
    this.fParentGen[c] = gen;
    this.fClient[c] = this.fClient[f] as number;
    if (this.guards.guarded[k + 1]) this.fInst[c] = (this.fClient[f] as number) % (this.instances[k + 1] as number);
    this.fMethod[c] = this.fMethod[f] as number;
    this.fBad[c] = this.fBad[f] as number;
    this.fChain[c] = chain;
    this.fOpSeq[c] = this.fOpSeq[f] as number;
    this.fDeadline[c] = end;
    this.fChild[c] = NO_CHILD;
    this.fChild[f] = c;
    const cg = this.frameTimers.arm(c);
    if (this.hopZero[k]) this.beginCall(c, t);
    else this.acrossHop(k, this.fClient[c] as number, K_FRAME_ARRIVE, c, cg, t);
  }

  /** Frame f's attempt timed out: its downstream call is abandoned (or cancelled), and the retry decision follows. */
  attemptTimedOut(f: number, t: number): void {
    const c = this.fChild[f] as number;
    if (c !== NO_CHILD && c < 0) {
      this.leaf.abandon(~c, t);
      if (this.req.state[~c] === R_HANG) {
        this.fChild[f] = NO_CHILD;
        this.release(~c);
      }
    }
    if (this.sc.cancellation) this.cancelDownstream(f, t);
    this.attemptEnded(f, Outcome.TIMEOUT, NaN, t);
  }

  /** The retry decision (docs/concepts.md, "The retry decision", the loop's afterAttempt) after frame f's current attempt ended. */
  override attemptEnded(f: number, outcome: number, retryAfterMs: number, t: number): void {
    const k = this.fLayer[f] as number;
    if (this.hedging[k]) {
      this.hedges.ended(f, outcome, retryAfterMs, t);
      return;
    }
    const gen = this.frameTimers.arm(f);
    this.fChild[f] = NO_CHILD;
    this.fInAttempt[f] = 0;
    this.fLastOutcome[f] = outcome;
    this.fLastRA[f] = retryAfterMs;
    if (this.trace) this.traceOutcomeOf(f, k, outcome, retryAfterMs, t);
    const next = this.guards.guarded[k] ? this.decideGuarded(f, k, outcome, retryAfterMs, t) : this.decide(f, k, outcome, retryAfterMs, t, null, null);
    if (next === Next.RETRY) this.retryLater(f, k, gen, false);
    else this.endFrame(f, this.step.reason, outcome, retryAfterMs, t);
  }

  /** {@link decide} for a layer with budgets, breakers or an admission control: those of frame f's instance. */
  private decideGuarded(f: number, k: number, outcome: number, retryAfterMs: number, t: number): NextCode {
    const inst = this.fInst[f] as number;
    return this.decide(f, k, outcome, retryAfterMs, t, this.guards.decisionChain(k, inst), this.guards.admission(k, inst));
  }

  private traceOutcomeOf(f: number, k: number, outcome: number, retryAfterMs: number, t: number): void {
    traceOutcome(this.trace as TraceSink, t, this.fOpSeq[f] as number, k, this.fAttempts[f] as number, outcome, retryAfterMs, f);
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
    const step = this.step;
    this.drawLayer = k;
    this.drawClient = this.fClient[f] as number;
    const a = this.attemptEnd;
    a.attemptsMade = this.fAttempts[f] as number;
    a.outcome = outcome;
    a.retryAfterMs = retryAfterMs;
    a.idempotent = this.idempotent[k * IDEMPOTENT_ROW + (this.fMethod[f] as number)] === 1;
    a.nowMs = t;
    a.deadlineAtMs = this.fDeadline[f] as number;
    a.callStartMs = this.fStart[f] as number;
    a.backoffBase = this.fBackoffBase[f] as number;
    a.prevSleepMs = this.fPrevSleep[f] as number;
    a.chain = chain;
    a.admission = admission;
    const next = (this.loops[k] as RetryLoop).afterAttempt(a, this, step);
    if (this.trace && step.planned) this.traceWaitOf(f, k, t);
    return next;
  }

  private traceWaitOf(f: number, k: number, t: number): void {
    traceWait(this.trace as TraceSink, t, this.fOpSeq[f] as number, k, this.fAttempts[f] as number, this.step, f);
  }

  /**
   * Frame f retries as its loop planned (in {@link step}): carry the backoff's state and arm the
   * wake-up, or, `ahead`, send the attempt at once with the wake-up's time.
   */
  private retryLater(f: number, k: number, gen: number, ahead: boolean): void {
    const step = this.step;
    this.fBackoffBase[f] = step.backoffBase;
    this.fPrevSleep[f] = step.nextPrevSleepMs;
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
  protected override retryAhead(f: number, outcome: number, retryAfterMs: number, arriveMs: number): boolean {
    const k = this.L - 1;
    if (this.fDeadline[f] !== Infinity) return false;
    if (this.decide(f, k, outcome, retryAfterMs, arriveMs, null, null) !== Next.RETRY) return false;
    const gen = this.frameTimers.arm(f);
    this.fChild[f] = NO_CHILD;
    this.fInAttempt[f] = 0;
    this.fLastOutcome[f] = outcome;
    this.fLastRA[f] = retryAfterMs;
    this.retryLater(f, k, gen, this.folds.sendAhead);
    return true;
  }

  /** The jitter draw the loops ask for (the layers are their {@link UniformDraw}): layer `drawLayer`'s stream of client `drawClient`. */
  uniform(): number {
    return this.draw(this.drawLayer, this.drawClient);
  }

  /** Layer k's jitter draw for `client` (its stream, or the fixed draw). */
  draw(k: number, client: number): number {
    if (this.fixedDraw !== undefined) return this.fixedDraw;
    return (this.jitter[k] as ClientRandom).next(client);
  }

  /** Frame f gives up (or succeeds): report to its caller, or end the operation at the top. */
  endFrame(f: number, reason: number, outcome: number, retryAfterMs: number, t: number): void {
    const k = this.fLayer[f] as number;
    if (this.hedging[k]) this.hedgeTimers.cancel(f);
    const m = this.m;
    if (t >= 0) m.layerGiveUps[k * GIVE_UP_COUNT + reason] = (m.layerGiveUps[k * GIVE_UP_COUNT + reason] as number) + 1;
    if (this.trace) this.traceGiveUpOf(f, k, reason, outcome, t);
    const parent = this.fParent[f] as number;
    if (parent < 0) this.endTop(f, reason, outcome, t);
    else this.answerParent(f, k, parent, reason === GiveUp.SUCCESS ? Outcome.SUCCESS : outcome, retryAfterMs, t);
  }

  /** Top frame f's call ends: its call site is told, or its operation ends. */
  private endTop(f: number, reason: number, outcome: number, t: number): void {
    const site = this.site;
    if (site !== null) {
      this.freeFrame(f);
      site.callEnded(f, reason, reason === GiveUp.SUCCESS ? Outcome.SUCCESS : outcome, t);
      return;
    }
    this.endOperation(f, reason, t);
    this.freeFrame(f);
  }

  private traceGiveUpOf(f: number, k: number, reason: number, outcome: number, t: number): void {
    traceGiveUp(this.trace as TraceSink, t, this.fOpSeq[f] as number, k, reason, this.fAttempts[f] as number, outcome, f);
  }

  /** Frame f (of layer k) answers `result` to its parent's attempt, across the hop between them. */
  private answerParent(f: number, k: number, parent: number, result: number, retryAfterMs: number, t: number): void {
    const pg = this.fParentGen[f] as number;
    if (!this.frameTimers.isLive(parent, pg)) {
      this.freeFrame(f);
      return;
    }
    const pk = k - 1;
    if (this.hopZero[pk]) {
      this.freeFrame(f);
      this.attemptEnded(parent, result, retryAfterMs, t);
      return;
    }
    this.fResOutcome[f] = result;
    this.fResRA[f] = retryAfterMs;
    const g = this.frameTimers.arm(f);
    this.acrossHop(pk, this.fClient[f] as number, K_FRAME_RESPONSE, f, g, t);
  }

  /** Frame f's answer reached its caller across the hop. */
  frameResponseArrived(f: number, t: number): void {
    const parent = this.fParent[f] as number;
    const pg = this.fParentGen[f] as number;
    const result = this.fResOutcome[f] as number;
    const ra = this.fResRA[f] as number;
    this.freeFrame(f);
    if (this.frameTimers.isLive(parent, pg)) this.attemptEnded(parent, result, ra, t);
  }

  /** Cancellation propagated downstream: the abandoned call stops, its leaf work is withdrawn. */
  cancelDownstream(f: number, t: number): void {
    const c = this.fChild[f] as number;
    if (c === NO_CHILD) return;
    this.fChild[f] = NO_CHILD;
    if (c >= 0) {
      this.cancelFrame(c, t);
      return;
    }
    const r = ~c;
    const state = this.req.state[r];
    if (state === R_FREE || state === R_CANCELLED) return;
    this.leaf.withdraw(r, t);
  }

  /** Frame c is cancelled: its own downstream call first, then its attempt is withdrawn from the budgets and the frame freed. */
  protected override cancelFrame(c: number, t: number): void {
    this.cancelDownstream(c, t);
    const ck = this.fLayer[c] as number;
    if (this.fInAttempt[c] === 1 && this.guards.hasBudget[ck]) {
      (this.loops[ck] as RetryLoop).withdrawAttempt(this.fAttempts[c] as number, t, this.guards.chain(ck, this.fInst[c] as number));
    }
    if (t >= 0) this.m.layerCancelled[ck] = (this.m.layerCancelled[ck] as number) + 1;
    this.freeFrame(c);
  }

  // ---------------------------------------------------------------- timed interventions

  /** Layer k takes `policy` at t (a timed intervention, docs/experiments.md, "Timed interventions"): see {@link PolicySwaps.swap}. */
  swapPolicy(k: number, policy: Policy, t: number): void {
    (this.swaps ??= new PolicySwaps(this)).swap(k, policy, this.frameCount, t);
  }

  /** Close the layers' series at the end of the run. */
  finish(endMs: number): void {
    this.guards.finish(endMs);
  }
}
