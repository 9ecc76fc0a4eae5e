import { ClientRandom, deriveSeed } from '../../engine/random.js';
import type { Simulator } from '../../engine/simulator.js';
import { backoffIsRandom, initialPrevSleepMs } from '../../policy/backoff.js';
import { isIdempotent } from '../../policy/classify.js';
import {
  attemptTimeoutMs,
  CONTINUE,
  effectiveDeadlineAtMs,
  judgeOutcome,
  planRetry,
  retryableForBudgets,
  RetryPlan,
  type CompiledPolicy,
  type PlanContext,
} from '../../policy/decision.js';
import { GIVE_UP_NAMES, GiveUp, Outcome } from '../../policy/outcome.js';
import { K_FRAME_ARRIVE, K_FRAME_RESPONSE, K_FRAME_SEND, K_FRAME_TIMEOUT, K_FRAME_WAKE } from '../eventKinds.js';
import type { Folds } from '../folds.js';
import type { Leaf } from '../leaves/Leaf.js';
import type { Measurements } from '../Measurements.js';
import { R_CANCELLED, R_FREE, R_HANG, type RequestTable } from '../RequestTable.js';
import type { Method, Scenario } from '../scenario.js';
import type { OperationStarter, Workload } from '../workloads/Workload.js';
import { NO_CHILD } from './FrameTable.js';
import { LeafLink } from './LeafLink.js';
import { Hedging } from './Hedging.js';
import { LayerGuards } from './LayerGuards.js';
import { traceAttempt, traceCall, traceGiveUp, traceOutcome, traceWait, type TraceSink } from './traceEvents.js';

const METHOD_CODES: Record<Method, number> = { GET: 0, HEAD: 1, PUT: 2, DELETE: 3, POST: 4 };
const METHODS: Method[] = ['GET', 'HEAD', 'PUT', 'DELETE', 'POST'];
const GIVE_UP_COUNT = GIVE_UP_NAMES.length;

/** How the model runs the layers. */
export interface LayersOptions {
  seed: number;
  /** The layers' policies, compiled. */
  policies: CompiledPolicy[];
  /** Fix every jitter draw to this fraction of its range (teaching and tests). */
  fixedDraw: number | undefined;
  trace: TraceSink | undefined;
  folds: Folds;
}

/**
 * The stack of retrying layers: each layer's call for one operation is a frame (a row of the
 * {@link FrameTable}) that runs its layer's retry loop (src/policy, README "The retry decision")
 * against the next hop: the next layer's frame, or a request to the leaf. A caller that stops
 * waiting (an attempt timeout) abandons its downstream call, which goes on unless cancellation is
 * enabled: orphaned frames keep retrying, and server time spent on requests nobody waits for is
 * wasted work. It is the leaf's host: the leaf's answers come back here. Per-client jitter state
 * lives in typed arrays; nothing is allocated per event.
 */
export class Layers extends LeafLink implements OperationStarter {
  private readonly sc: Scenario;
  readonly policies: CompiledPolicy[];
  /** idempotent[layer * 5 + methodCode]. */
  private readonly idempotent: Uint8Array;
  private readonly jitter: ClientRandom[];
  private readonly needsDraw: boolean[];
  /** The backoff's starting "previous sleep" and whether its jitter is seeded at call start. */
  private readonly initialSleep: Float64Array;
  private readonly timeSeeded: boolean[];
  readonly instances: number[];
  readonly hedging: boolean[];
  readonly guards: LayerGuards;
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
  private readonly plan = new RetryPlan();
  private readonly planCtx: PlanContext = { outcome: 0, callStartMs: NaN };
  private readonly horizonMs: number;

  // Operations.
  private readonly opMethod: number;
  private readonly opDeadlineMs: number;
  private nextOpSeq = 0;
  inFlightOps = 0;
  private maxInFlight = Infinity;
  private workload!: Workload;

  constructor(sc: Scenario, sim: Simulator, req: RequestTable, m: Measurements, initialFrames: number, o: LayersOptions) {
    super(sc, sim, req, m, initialFrames, o.seed, o.folds);
    this.sc = sc;
    this.fixedDraw = o.fixedDraw;
    this.trace = o.trace;
    this.horizonMs = sc.horizonMs;
    const seed = o.seed;
    const L = sc.stack.length;
    const clients = sc.workload.clients;
    this.policies = o.policies;
    this.idempotent = new Uint8Array(L * 5);
    sc.stack.forEach((l, k) => {
      METHODS.forEach((meth, i) => {
        this.idempotent[k * 5 + i] = isIdempotent(meth, l.policy.idempotency) ? 1 : 0;
      });
    });
    this.jitter = sc.stack.map((l, k) => new ClientRandom(clients, deriveSeed(seed, 'jitter', k), l.policy.seeding ?? { kind: 'independent' }));
    this.needsDraw = sc.stack.map((l) => backoffIsRandom(l.policy.backoff.kind, l.policy.backoff));
    this.initialSleep = Float64Array.from(sc.stack, (l) => initialPrevSleepMs(l.policy.backoff));
    this.timeSeeded = sc.stack.map((l) => l.policy.seeding?.kind === 'time-seeded');
    this.opMethod = METHOD_CODES[sc.workload.method];
    this.opDeadlineMs = sc.workload.deadlineMs ?? Infinity;
    this.instances = sc.stack.map((l) => l.instances);
    this.timeoutLane = Int32Array.from(sc.stack, (l) => (l.policy.perAttemptTimeoutMs !== undefined ? sim.addLane() : -1));
    this.wakeLane = Int32Array.from(sc.stack, (l) => {
      const kind = l.policy.backoff.kind;
      return l.policy.maxAttempts !== 1 && (kind === 'none' || kind === 'constant') ? sim.addLane() : -1;
    });
    this.guards = new LayerGuards(sc, seed);
    this.hedging = sc.stack.map((l) => l.policy.hedging !== undefined);
    this.hedges = new Hedging(this, sim);
  }

  /** Connect the leaf the last layer calls, and the workload whose operations start here (told when one ends). */
  connect(leaf: Leaf, workload: Workload): void {
    this.connectLeaf(leaf);
    this.workload = workload;
    this.maxInFlight = workload.maxInFlight;
  }

  // ---------------------------------------------------------------- operations

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

  private endOperation(f: number, reason: number, t: number): void {
    this.inFlightOps--;
    this.m.gInFlight.set(t, this.inFlightOps);
    this.m.operationEnded(reason, this.fStart[f] as number, t);
    this.workload.ended(this.fClient[f] as number, t);
  }

  // ---------------------------------------------------------------- the retry loop

  /** A call arrives at frame f's layer: start its retry loop. fDeadline holds the incoming deadline. */
  beginCall(f: number, t: number): void {
    const k = this.fLayer[f] as number;
    const p = this.policies[k] as CompiledPolicy;
    this.fDeadline[f] = effectiveDeadlineAtMs(p, this.fDeadline[f] as number, t);
    this.fAttempts[f] = 0;
    this.fBackoffBase[f] = 0;
    this.fInAttempt[f] = 0;
    this.fOutstanding[f] = 0;
    if (this.timeSeeded[k]) (this.jitter[k] as ClientRandom).start(this.fClient[f] as number, t);
    this.fStart[f] = t;
    this.fPrevSleep[f] = this.initialSleep[k] as number;
    this.fLastOutcome[f] = Outcome.DEADLINE_EXCEEDED;
    this.fLastRA[f] = NaN;
    this.fChild[f] = NO_CHILD;
    if (this.trace) traceCall(this.trace, t, this.fOpSeq[f] as number, k, this.fDeadline[f] as number);
    this.startAttempt(f, t);
  }

  /** Before an attempt: a spent deadline ends the call; the admission control may refuse or delay it. */
  startAttempt(f: number, t: number): void {
    const k = this.fLayer[f] as number;
    const deadline = this.fDeadline[f] as number;
    if (deadline - t <= 0) {
      this.endFrame(f, GiveUp.DEADLINE, this.fLastOutcome[f] as number, this.fLastRA[f] as number, t);
      return;
    }
    if (this.guards.hasAdmission[k]) this.admitAttempt(f, k, deadline, t);
    else this.sendAttempt(f, t);
  }

  /** The admission control refuses the attempt, delays it, or lets it go now. */
  private admitAttempt(f: number, k: number, deadline: number, t: number): void {
    const d = this.guards.admit(k, this.fInst[f] as number, t);
    if (d < 0) {
      const last = (this.fAttempts[f] as number) > 0 ? (this.fLastOutcome[f] as number) : Outcome.LOCAL_THROTTLED;
      this.endFrame(f, GiveUp.THROTTLED, last, this.fLastRA[f] as number, t);
      return;
    }
    if (d > 0) {
      if (t + d >= deadline) {
        this.endFrame(f, GiveUp.DEADLINE, this.fLastOutcome[f] as number, this.fLastRA[f] as number, t);
        return;
      }
      this.sim.at(t + d, K_FRAME_SEND, f, this.frameTimers.arm(f));
      return;
    }
    this.sendAttempt(f, t);
  }

  /** Send an attempt (admitted): count it, arm its timeout, and call the next hop. */
  sendAttempt(f: number, t: number): void {
    const k = this.fLayer[f] as number;
    const p = this.policies[k] as CompiledPolicy;
    const deadline = this.fDeadline[f] as number;
    const n = (this.fAttempts[f] as number) + 1;
    this.fAttempts[f] = n;
    const hedged = this.hedging[k] as boolean;
    const m = this.m;
    if (t >= 0) {
      if (n === 1) m.layerFirst[k] = (m.layerFirst[k] as number) + 1;
      else if (hedged) m.layerHedges[k] = (m.layerHedges[k] as number) + 1;
      else m.layerRetries[k] = (m.layerRetries[k] as number) + 1;
    }
    if (this.guards.hasBudget[k]) this.guards.attemptSent(k, this.fInst[f] as number, t, n > 1);
    this.fInAttempt[f] = 1;
    let gen: number;
    let end: number;
    if (hedged) {
      end = deadline;
      gen = this.hedges.armAttempt(f, k, p, n, end, t);
    } else {
      const timeout = attemptTimeoutMs(p, t, deadline);
      end = t + timeout;
      gen = this.frameTimers.arm(f);
      if (end < Infinity) this.sim.atInLane(this.timeoutLane[k] as number, end, K_FRAME_TIMEOUT, f, gen);
      if (this.trace) traceAttempt(this.trace, t, this.fOpSeq[f] as number, k, n, timeout);
    }
    this.fAttemptEnd[f] = end;
    const chain = this.fChain[f] === 1 || n > 1 ? 1 : 0;
    if (k < this.L - 1) this.callNextLayer(f, k, gen, chain, end, t);
    else this.callLeaf(f, k, n, gen, chain, end, t);
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
    else this.sim.atInLane(this.hopLane[k] as number, t + this.hopMs(k, this.fClient[c] as number), K_FRAME_ARRIVE, c, cg);
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

  /** The retry decision (README "The retry decision") after frame f's current attempt ended. */
  override attemptEnded(f: number, outcome: number, retryAfterMs: number, t: number): void {
    const k = this.fLayer[f] as number;
    if (this.hedging[k]) {
      this.hedges.ended(f, outcome, retryAfterMs, t);
      return;
    }
    const p = this.policies[k] as CompiledPolicy;
    const gen = this.frameTimers.arm(f);
    this.fChild[f] = NO_CHILD;
    this.fInAttempt[f] = 0;
    this.fLastOutcome[f] = outcome;
    this.fLastRA[f] = retryAfterMs;
    const attempts = this.fAttempts[f] as number;
    if (this.trace) traceOutcome(this.trace, t, this.fOpSeq[f] as number, k, attempts, outcome, retryAfterMs);
    const deadline = this.fDeadline[f] as number;
    const idem = this.idempotent[k * 5 + (this.fMethod[f] as number)] === 1;
    const guards = this.guards;
    const guarded = guards.guarded[k] as boolean;
    if (guarded) {
      const retryable = guards.hasBudget[k] ? retryableForBudgets(p, outcome, idem, retryAfterMs) : false;
      guards.attemptEnded(k, this.fInst[f] as number, t, outcome, attempts > 1, retryable);
    }
    const g = judgeOutcome(p, attempts, outcome, idem, t, deadline, retryAfterMs);
    if (g !== CONTINUE) {
      this.endFrame(f, g, outcome, retryAfterMs, t);
      return;
    }
    if (guarded && guards.hasBudget[k]) {
      const refusal = guards.refuse(k, this.fInst[f] as number, t, outcome);
      if (refusal !== CONTINUE) {
        this.endFrame(f, refusal, outcome, retryAfterMs, t);
        return;
      }
    }
    this.retryLater(f, k, p, outcome, retryAfterMs, attempts, deadline, gen, t);
  }

  /** Frame f retries after its backoff: plan the wait from the attempt that ended at t and arm the wake-up. */
  private retryLater(
    f: number,
    k: number,
    p: CompiledPolicy,
    outcome: number,
    retryAfterMs: number,
    attempts: number,
    deadline: number,
    gen: number,
    t: number,
    ahead = false,
  ): void {
    const u = this.needsDraw[k] ? this.draw(k, this.fClient[f] as number) : 0;
    const ctx = this.planCtx;
    ctx.outcome = outcome;
    ctx.callStartMs = this.fStart[f] as number;
    const base = this.fBackoffBase[f] as number;
    const plan = planRetry(p, attempts - base, this.fPrevSleep[f] as number, retryAfterMs, t, deadline, u, this.plan, ctx);
    if (this.trace) traceWait(this.trace, t, this.fOpSeq[f] as number, k, attempts, plan);
    if (plan.giveUp !== CONTINUE) {
      this.endFrame(f, plan.giveUp, outcome, retryAfterMs, t);
      return;
    }
    if (this.guards.hasBudget[k]) this.guards.retryScheduled(k, this.fInst[f] as number, t, outcome);
    if (plan.resetBackoff) this.fBackoffBase[f] = attempts;
    this.fPrevSleep[f] = plan.nextPrevSleepMs;
    // Sent ahead only if the wake-up would run before the horizon. (A run stopped by its event cap
    // is the exception: its last retries sent ahead may be counted after its last event.)
    if (ahead && plan.wakeAtMs <= this.horizonMs) this.sendAttempt(f, plan.wakeAtMs);
    else this.sim.atInLane(this.wakeLane[k] as number, plan.wakeAtMs, K_FRAME_WAKE, f, gen);
  }

  /**
   * The retry decision of a last-layer frame whose answer is still crossing the hop back, taken when
   * the answer leaves the leaf instead of when it arrives at `arriveMs` (one event less per retry).
   * Only where nothing can reach the frame in between (folds.ts, `foldAnswers`): the decision, the
   * draw and the wake-up are the same as at arrival. Returns false, having changed nothing, when the
   * attempt does not lead to a retry (the answer then crosses the hop as an event).
   */
  protected override retryAhead(f: number, outcome: number, retryAfterMs: number, arriveMs: number): boolean {
    const k = this.L - 1;
    const p = this.policies[k] as CompiledPolicy;
    const attempts = this.fAttempts[f] as number;
    const deadline = this.fDeadline[f] as number;
    if (deadline !== Infinity) return false;
    const idem = this.idempotent[k * 5 + (this.fMethod[f] as number)] === 1;
    if (judgeOutcome(p, attempts, outcome, idem, arriveMs, deadline, retryAfterMs) !== CONTINUE) return false;
    const gen = this.frameTimers.arm(f);
    this.fChild[f] = NO_CHILD;
    this.fInAttempt[f] = 0;
    this.fLastOutcome[f] = outcome;
    this.fLastRA[f] = retryAfterMs;
    // With no deadline and no maxElapsedMs (required by foldAnswers) a planned wait always fits.
    this.retryLater(f, k, p, outcome, retryAfterMs, attempts, deadline, gen, arriveMs, this.folds.sendAhead);
    return true;
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
    if (this.trace) traceGiveUp(this.trace, t, this.fOpSeq[f] as number, k, reason, this.fAttempts[f] as number, outcome);
    const parent = this.fParent[f] as number;
    if (parent < 0) {
      this.endOperation(f, reason, t);
      this.freeFrame(f);
      return;
    }
    this.answerParent(f, k, parent, reason === GiveUp.SUCCESS ? Outcome.SUCCESS : outcome, retryAfterMs, t);
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
    this.sim.atInLane(this.hopLane[pk] as number, t + this.hopMs(pk, this.fClient[f] as number), K_FRAME_RESPONSE, f, g);
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
      this.cancelDownstream(c, t);
      const ck = this.fLayer[c] as number;
      if (this.fInAttempt[c] === 1 && this.guards.hasBudget[ck]) this.guards.attemptWithdrawn(ck, this.fInst[c] as number, t, (this.fAttempts[c] as number) > 1);
      if (t >= 0) this.m.layerCancelled[ck] = (this.m.layerCancelled[ck] as number) + 1;
      this.freeFrame(c);
      return;
    }
    const r = ~c;
    const state = this.req.state[r];
    if (state === R_FREE || state === R_CANCELLED) return;
    this.leaf.withdraw(r, t);
  }

  /** Close the layers' series at the end of the run. */
  finish(endMs: number): void {
    this.guards.finish(endMs);
  }
}


