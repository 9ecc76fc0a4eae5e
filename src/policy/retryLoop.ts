import type { AdmissionControl } from './budgets/AdmissionControl.js';
import type { BudgetChain } from './budgets/BudgetChain.js';
import * as classifyModule from './classify.js';
import type { CompiledPolicy } from './decision.js';
import type { GiveUpCode } from './outcome.js';
import * as outcomeModule from './outcome.js';
import { RetryPlan, type PlanContext } from './retrySteps.js';
import * as retryStepsModule from './retrySteps.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { acceptedByBackend } = classifyModule;
const { GiveUp, Outcome } = outcomeModule;
const { attemptTimeoutMs, CONTINUE, effectiveDeadlineAtMs, isHedgeNonFatal, judgeOutcome, planRetry, retryableForBudgets } = retryStepsModule;

/**
 * The retry loop of one layer: the whole decision order of the retry decision, written once, as a
 * pure state machine. The simulator's layers (src/model/layers), `retry()`/`retryingFetch` and
 * `check`'s worst-case walk all drive it, and none of them keeps a copy of the order. It knows no
 * clock, no timer and no random generator: the caller passes the time of each event and a source of
 * uniform draws, keeps the call's state (attempts made, the backoff's state, the deadline) and does
 * what the answer says. Answers are written into a reusable {@link RetryStep} and returned as an
 * integer {@link Next} code, so that a decision allocates nothing.
 *
 * One call of the layer:
 * - on arrival at `t`: `deadlineAtMs(incoming, t)` is the deadline it works to;
 * - before each attempt: {@link RetryLoop.beforeAttempt} (a spent deadline ends the call without
 *   calling; the admission control may refuse the attempt, `throttled`, or delay it);
 * - when the attempt is sent: {@link RetryLoop.startAttempt} (the budgets count it; its timeout),
 *   or {@link RetryLoop.startAttemptUntilMs} (the same, as the time it stops waiting);
 * - when it ends: {@link RetryLoop.afterAttempt}, in this order:
 *   0. the budgets and the admission control are told how it ended;
 *   1. deadline passed (remaining <= 0) -> `deadline`;
 *   2. success -> `success`;
 *   3. not retryable (a permanent error, a non-idempotent method after an unknown outcome or a 5xx,
 *      a gRPC pushback saying do not retry) -> `not-retryable`;
 *   4. attempt cap reached -> `attempt-limit`;
 *   4a. the server's hint asks for a wait longer than the policy's `maxRetryAfterMs` ->
 *      `retry-after-too-long` (a wait is never shortened; see {@link judgeOutcome});
 *   5. a budget or breaker refuses -> `budget-exhausted` / `circuit-open`;
 *   6. the backoff is drawn (one uniform draw, only for a random backoff); a server hint sets the
 *      delay according to the policy's Retry-After mode ({@link planRetry});
 *   7. the wake-up is rounded up to the layer's timer tick;
 *   8. a wait >= the remaining deadline (or a wake-up after `maxElapsedMs`) ->
 *      `wait-exceeds-deadline`, at once: a wait is never shortened to fit;
 *   9. otherwise the budgets are charged for the retry, and the caller waits until `wakeAtMs`
 *      and asks {@link RetryLoop.beforeAttempt} again.
 * - an attempt withdrawn before it ended (the caller aborted, a classifier threw):
 *   {@link RetryLoop.withdrawAttempt}.
 * A hedging layer (gRPC A6) uses {@link RetryLoop.hedgeAnswered}, {@link RetryLoop.hedgeDue} and
 * {@link RetryLoop.nextHedgeAtMs} after each answer and hedging delay instead of afterAttempt.
 */
export class RetryLoop {
  private readonly ctx: PlanContext = { outcome: Outcome.SUCCESS, callStartMs: NaN };
  /** The policy hedges (gRPC A6): its calls are driven by the hedging methods. */
  readonly hedged: boolean;
  /** The backoff's previous sleep as a call begins (`CompiledBackoff.initialPrevSleepMs`), read as every call begins. */
  readonly initialPrevSleepMs: number;

  constructor(readonly policy: CompiledPolicy) {
    this.hedged = policy.spec.hedging !== undefined;
    this.initialPrevSleepMs = policy.compiledBackoff.initialPrevSleepMs;
  }

  /** The deadline a call arriving at `nowMs` with `incomingDeadlineAtMs` works to (see {@link effectiveDeadlineAtMs}). */
  deadlineAtMs(incomingDeadlineAtMs: number, nowMs: number): number {
    return effectiveDeadlineAtMs(this.policy, incomingDeadlineAtMs, nowMs);
  }

  /**
   * Before an attempt (the first, or a retry whose wait has ended), `attemptsMade` attempts having
   * been sent, the last of which ended with `lastOutcome` (DEADLINE_EXCEEDED before any):
   * remaining <= 0 -> END `deadline` without calling; then the admission control, if any, with one
   * draw: a refusal -> END `throttled` (returning the local `throttled` outcome when no call was
   * made); a delay that does not fit before the deadline -> END `deadline`; a delay -> SEND_LATER
   * at `wakeAtMs` (the attempt is then sent without asking again); else SEND now.
   */
  beforeAttempt(
    attemptsMade: number,
    lastOutcome: number,
    nowMs: number,
    deadlineAtMs: number,
    admission: AdmissionControl | null,
    draw: UniformDraw,
    out: RetryStep,
  ): NextCode {
    out.planned = false;
    if (deadlineAtMs - nowMs <= 0) return end(out, GiveUp.DEADLINE, lastOutcome);
    if (admission !== null) {
      const d = admission.admit(nowMs, draw.uniform());
      if (d < 0) return end(out, GiveUp.THROTTLED, attemptsMade > 0 ? lastOutcome : Outcome.LOCAL_THROTTLED);
      if (d > 0) {
        if (nowMs + d >= deadlineAtMs) return end(out, GiveUp.DEADLINE, lastOutcome);
        out.wakeAtMs = nowMs + d;
        return (out.next = Next.SEND_LATER);
      }
    }
    out.wakeAtMs = nowMs;
    return (out.next = Next.SEND);
  }

  /**
   * Attempt number `attemptNumber` (1 for the first) is sent at `nowMs`: the budgets count it, and
   * the time it is given is returned (+Infinity: it waits forever): {@link attemptTimeoutMs}, or
   * for a hedged copy the time to the deadline (every copy waits up to the call's deadline).
   */
  startAttempt(attemptNumber: number, nowMs: number, deadlineAtMs: number, chain: BudgetChain | null): number {
    if (chain !== null) chain.onAttempt(nowMs, attemptNumber > 1);
    return this.hedged ? deadlineAtMs - nowMs : attemptTimeoutMs(this.policy, nowMs, deadlineAtMs);
  }

  /**
   * {@link startAttempt} for a caller that keeps absolute times (the simulator's layers): the
   * budgets count the attempt, and the time it stops waiting is returned (+Infinity: never),
   * `nowMs` + {@link attemptTimeoutMs}, or for a hedged copy the call's deadline itself.
   */
  startAttemptUntilMs(attemptNumber: number, nowMs: number, deadlineAtMs: number, chain: BudgetChain | null): number {
    if (chain !== null) chain.onAttempt(nowMs, attemptNumber > 1);
    return this.hedged ? deadlineAtMs : nowMs + attemptTimeoutMs(this.policy, nowMs, deadlineAtMs);
  }

  /**
   * The attempt described by `a` ended: steps 0-9 of the class comment. Attempt number
   * `a.attemptsMade` ended at `a.nowMs` with `a.outcome` and the server's hint `a.retryAfterMs`
   * (NaN: none). END with the reason (`success` included) and the outcome returned upward, or RETRY
   * at `wakeAtMs`, with the backoff state to carry to the next decision (`nextPrevSleepMs`,
   * `backoffBase`). When a wait was planned (steps 6-8 ran), `planned` is true and the plan's fields
   * describe it, also when it did not fit. `draw` is called once, at step 6, only when the backoff
   * is random.
   */
  afterAttempt(a: EndedAttempt, draw: UniformDraw, out: RetryStep): NextCode {
    const attemptsMade = a.attemptsMade;
    const outcome = a.outcome;
    const retryAfterMs = a.retryAfterMs;
    const nowMs = a.nowMs;
    const deadlineAtMs = a.deadlineAtMs;
    const backoffBase = a.backoffBase;
    const chain = a.chain;
    const admission = a.admission;
    const p = this.policy;
    out.planned = false;
    if (chain !== null || admission !== null) tellGuards(p, attemptsMade, outcome, retryAfterMs, a.idempotent, nowMs, chain, admission);
    let g: number = judgeOutcome(p, attemptsMade, outcome, a.idempotent, nowMs, deadlineAtMs, retryAfterMs);
    if (g === CONTINUE && chain !== null) g = chain.refuse(nowMs, outcome);
    if (g !== CONTINUE) return end(out, g as GiveUpCode, outcome);
    const u = p.randomBackoff ? draw.uniform() : 0;
    const ctx = this.ctx;
    ctx.outcome = outcome;
    ctx.callStartMs = a.callStartMs;
    planRetry(p, attemptsMade - backoffBase, a.prevSleepMs, retryAfterMs, nowMs, deadlineAtMs, u, out, ctx);
    out.planned = true;
    if (out.giveUp !== CONTINUE) return end(out, out.giveUp, outcome);
    if (chain !== null) chain.onRetryScheduled(nowMs, outcome);
    out.backoffBase = out.resetBackoff ? attemptsMade : backoffBase;
    return (out.next = Next.RETRY);
  }

  /**
   * A retry planned under an earlier policy of the layer wakes at `nowMs` under this loop's policy
   * (a timed intervention changed the policy while it waited; docs/experiments.md, "Timed interventions"): steps
   * 1-4a are asked again for the attempt that ended with `lastOutcome` (`attemptsMade` sent, the
   * hint `retryAfterMs`), and, given a `chain` (budgets added or replaced since the retry was
   * planned), step 5, its charge of step 9 taken when it allows the retry. SEND: go on to
   * {@link beforeAttempt}; END with the reason and `lastOutcome`. The wait already planned is not
   * redrawn.
   */
  recheckRetry(
    attemptsMade: number,
    lastOutcome: number,
    retryAfterMs: number,
    idempotent: boolean,
    nowMs: number,
    deadlineAtMs: number,
    chain: BudgetChain | null,
    out: RetryStep,
  ): NextCode {
    out.planned = false;
    const g = judgeOutcome(this.policy, attemptsMade, lastOutcome, idempotent, nowMs, deadlineAtMs, retryAfterMs);
    if (g !== CONTINUE) return end(out, g, lastOutcome);
    if (chain !== null) {
      const refusal = chain.refuse(nowMs, lastOutcome);
      if (refusal !== CONTINUE) return end(out, refusal as GiveUpCode, lastOutcome);
      chain.onRetryScheduled(nowMs, lastOutcome);
    }
    return (out.next = Next.SEND);
  }

  /**
   * Attempt number `attemptNumber` is withdrawn at `nowMs` before it ended (the caller stopped the
   * call, or could not read its outcome): for the budgets it ends as a timeout that is not retried.
   */
  withdrawAttempt(attemptNumber: number, nowMs: number, chain: BudgetChain | null): void {
    if (chain !== null) chain.onOutcome(nowMs, Outcome.TIMEOUT, attemptNumber > 1, false);
  }

  /**
   * A copy of a hedged call answered at `nowMs` with `outcome` (gRPC A6 hedging), `attemptsMade`
   * copies having been sent and `outstanding` still in flight after this one: the budgets and the
   * admission control are told; deadline passed -> END `deadline`; success -> END `success`; a
   * fatal failure (not in the policy's `nonFatal`) -> END `not-retryable`; a non-fatal one sends
   * the next copy at once if copies are left and the budgets and the admission control allow it
   * (HEDGE; `cancelHedgeTimer`: the pending hedging delay no longer applies); otherwise, once no
   * copy is in flight, END with the refusal (or `attempt-limit` when every copy was sent), and
   * while copies are in flight WAIT for them.
   */
  hedgeAnswered(
    attemptsMade: number,
    outstanding: number,
    outcome: number,
    nowMs: number,
    deadlineAtMs: number,
    chain: BudgetChain | null,
    admission: AdmissionControl | null,
    draw: UniformDraw,
    out: RetryStep,
  ): NextCode {
    const p = this.policy;
    out.planned = false;
    out.cancelHedgeTimer = false;
    const nonFatal = isHedgeNonFatal(p, outcome);
    if (chain !== null) chain.onOutcome(nowMs, outcome, attemptsMade > 1, nonFatal);
    if (admission !== null) admission.onOutcome(nowMs, outcome, acceptedByBackend(outcome));
    if (deadlineAtMs - nowMs <= 0) return end(out, GiveUp.DEADLINE, outcome);
    if (outcome === Outcome.SUCCESS) return end(out, GiveUp.SUCCESS, outcome);
    if (!nonFatal) return end(out, GiveUp.NOT_RETRYABLE, outcome);
    let reason: number = GiveUp.ATTEMPT_LIMIT;
    if (attemptsMade < hedgeCopies(p)) {
      out.cancelHedgeTimer = true;
      reason = this.hedgeRefusal(outcome, nowMs, chain, admission, draw);
      if (reason === CONTINUE) return (out.next = Next.HEDGE);
    }
    if (outstanding <= 0) return end(out, reason as GiveUpCode, outcome);
    return (out.next = Next.WAIT);
  }

  /**
   * The hedging delay of a hedged call ran out at `nowMs` with no answer, `attemptsMade` copies
   * having been sent, the last answer being `lastOutcome`: HEDGE when the deadline has not passed,
   * copies are left and the budgets and the admission control allow it (then charged); else WAIT.
   */
  hedgeDue(
    attemptsMade: number,
    lastOutcome: number,
    nowMs: number,
    deadlineAtMs: number,
    chain: BudgetChain | null,
    admission: AdmissionControl | null,
    draw: UniformDraw,
    out: RetryStep,
  ): NextCode {
    out.planned = false;
    out.cancelHedgeTimer = false;
    if (deadlineAtMs - nowMs <= 0 || attemptsMade >= hedgeCopies(this.policy)) return (out.next = Next.WAIT);
    return (out.next = this.hedgeRefusal(lastOutcome, nowMs, chain, admission, draw) === CONTINUE ? Next.HEDGE : Next.WAIT);
  }

  /** When the copy after copy number `attemptNumber`, sent at `nowMs`, is due if no answer comes (+Infinity: none is left). */
  nextHedgeAtMs(attemptNumber: number, nowMs: number): number {
    const h = this.policy.spec.hedging;
    return h !== undefined && attemptNumber < h.maxAttempts ? nowMs + h.hedgingDelayMs : Infinity;
  }

  /** Whether the budgets and the admission control let the next copy go now (CONTINUE, the budgets charged) or the reason they refuse. */
  private hedgeRefusal(outcome: number, nowMs: number, chain: BudgetChain | null, admission: AdmissionControl | null, draw: UniformDraw): number {
    if (chain !== null) {
      const refusal = chain.refuse(nowMs, outcome);
      if (refusal !== CONTINUE) return refusal;
    }
    // A delay is a refusal too: a hedge is sent now or not at all.
    if (admission !== null && admission.admit(nowMs, draw.uniform()) !== 0) return GiveUp.THROTTLED;
    if (chain !== null) chain.onRetryScheduled(nowMs, outcome);
    return CONTINUE;
  }
}

/**
 * Step 0 of {@link RetryLoop.afterAttempt}: the budgets and the admission control are told how
 * attempt `attemptsMade` ended (apart, so that the loop's method stays small enough for the
 * compiler to inline where a layer has neither).
 */
function tellGuards(
  p: CompiledPolicy,
  attemptsMade: number,
  outcome: number,
  retryAfterMs: number,
  idempotent: boolean,
  nowMs: number,
  chain: BudgetChain | null,
  admission: AdmissionControl | null,
): void {
  if (chain !== null) chain.onOutcome(nowMs, outcome, attemptsMade > 1, retryableForBudgets(p, outcome, idempotent, retryAfterMs));
  if (admission !== null) admission.onOutcome(nowMs, outcome, acceptedByBackend(outcome));
}

/** Copies of a hedged call in total (1 without hedging). */
function hedgeCopies(p: CompiledPolicy): number {
  return p.spec.hedging?.maxAttempts ?? 1;
}

/** Ends the call: `reason`, returning `outcome` upward. */
function end(out: RetryStep, reason: GiveUpCode, outcome: number): NextCode {
  out.reason = reason;
  out.outcome = outcome;
  return (out.next = Next.END);
}

/**
 * A source of uniform draws in [0, 1), asked only when a decision needs one. An object with a
 * method rather than a function: a caller that builds one source per run (the simulator's layers)
 * passes instances of one class, so the call stays the same function from run to run.
 */
export interface UniformDraw {
  uniform(): number;
}

/**
 * What the caller of {@link RetryLoop.afterAttempt} knows when an attempt ends, written in place
 * before each decision into one object per caller (nothing is allocated per attempt).
 */
export class EndedAttempt {
  /** Attempts made so far, the one that ended included. */
  attemptsMade = 0;
  /** The attempt's outcome code. */
  outcome: number = Outcome.SUCCESS;
  /** The answer's Retry-After in ms (NaN: none). */
  retryAfterMs = NaN;
  /** The request may be sent again after an unknown outcome (the layer's idempotency rule for its method). */
  idempotent = false;
  /** When the attempt ended. */
  nowMs = 0;
  /** The absolute time the call must end by (Infinity: none). */
  deadlineAtMs = Infinity;
  /** When the call arrived at this layer (for `maxElapsedMs`). */
  callStartMs = 0;
  /** The state the previous decision left: attempts before the last backoff reset (0 for the first), and the backoff's previous sleep. */
  backoffBase = 0;
  prevSleepMs = 0;
  /** The budgets and the admission control of the caller's layer instance (null: none). */
  chain: BudgetChain | null = null;
  admission: AdmissionControl | null = null;
}

/**
 * Whether the first attempt of a call is asked of {@link RetryLoop.beforeAttempt} at all: with no
 * deadline (+Infinity) and no admission control its answer can only be SEND now, so the model sends
 * it without asking, and the worst-case walk of `check` does the same, call for call.
 */
export function firstAttemptAsks(deadlineAtMs: number, hasAdmission: boolean): boolean {
  return deadlineAtMs !== Infinity || hasAdmission;
}

/** What the caller of a {@link RetryLoop} does next ({@link RetryStep.next}). */
export const Next = {
  /** Send the attempt now ({@link RetryLoop.startAttempt}). */
  SEND: 0,
  /** The admission control delays the attempt: send it at `wakeAtMs`, without asking again. */
  SEND_LATER: 1,
  /** Wait until `wakeAtMs`, then ask {@link RetryLoop.beforeAttempt} again. */
  RETRY: 2,
  /** The call ends with `reason` (`success` included), returning `outcome` upward. */
  END: 3,
  /** Hedging: send the next copy now. */
  HEDGE: 4,
  /** Hedging: nothing to send now; wait for the copies in flight (or the next hedging delay). */
  WAIT: 5,
} as const;
export type NextCode = (typeof Next)[keyof typeof Next];

/** One answer of a {@link RetryLoop}, written into a reusable object (no allocation per decision). */
export class RetryStep extends RetryPlan {
  /** What to do next (the value the method returned). */
  next: NextCode = Next.SEND;
  /** With END: why the call ended (`success` included). */
  reason: GiveUpCode = GiveUp.SUCCESS;
  /** With END: the outcome the call returns upward (its last attempt's, or a local one). */
  outcome: number = Outcome.SUCCESS;
  /** A wait was planned (steps 6-8 ran): the plan's fields describe it, also when it did not fit. */
  planned = false;
  /** With RETRY: the attempt count the backoff counts retries from (changed by a gRPC pushback). */
  backoffBase = 0;
  /** Hedging: a pending hedging delay no longer applies (the next copy was sent or refused now). */
  cancelHedgeTimer = false;
}
