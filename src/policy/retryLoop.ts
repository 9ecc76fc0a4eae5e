import { compiledNextPrevSleepMs, drawBackoff } from './backoff.js';
import type { AdmissionControl } from './budgets/AdmissionControl.js';
import type { BudgetChain } from './budgets/BudgetChain.js';
import { acceptedByBackend, isThrottlingOutcome, retryableIn } from './classify.js';
import type { CompiledPolicy } from './decision.js';
import { GiveUp, Outcome, type GiveUpCode } from './outcome.js';
import { quantizeUpMs } from './timer.js';

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

  constructor(readonly policy: CompiledPolicy) {
    this.hedged = policy.spec.hedging !== undefined;
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
      const d = admission.admit(nowMs, draw());
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
   * Attempt number `attemptsMade` ended at `nowMs` with `outcome` and the server's hint
   * `retryAfterMs` (NaN: none): steps 0-9 of the class comment. END with the reason (`success`
   * included) and the outcome returned upward, or RETRY at `wakeAtMs`, with the backoff state to
   * carry to the next decision (`nextPrevSleepMs`, `backoffBase`). When a wait was planned (steps
   * 6-8 ran), `planned` is true and the plan's fields describe it, also when it did not fit.
   * `callStartMs` is when the call arrived at this layer (for `maxElapsedMs`); `backoffBase` and
   * `prevSleepMs` are the state the previous decision left (0 and the backoff's initial state for
   * the first). `draw` is called once, at step 6, only when the backoff is random.
   */
  afterAttempt(
    attemptsMade: number,
    outcome: number,
    retryAfterMs: number,
    idempotent: boolean,
    nowMs: number,
    deadlineAtMs: number,
    callStartMs: number,
    backoffBase: number,
    prevSleepMs: number,
    chain: BudgetChain | null,
    admission: AdmissionControl | null,
    draw: UniformDraw,
    out: RetryStep,
  ): NextCode {
    const p = this.policy;
    out.planned = false;
    if (chain !== null) chain.onOutcome(nowMs, outcome, attemptsMade > 1, retryableForBudgets(p, outcome, idempotent, retryAfterMs));
    if (admission !== null) admission.onOutcome(nowMs, outcome, acceptedByBackend(outcome));
    const g = judgeOutcome(p, attemptsMade, outcome, idempotent, nowMs, deadlineAtMs, retryAfterMs);
    if (g !== CONTINUE) return end(out, g, outcome);
    if (chain !== null) {
      const refusal = chain.refuse(nowMs, outcome);
      if (refusal !== CONTINUE) return end(out, refusal as GiveUpCode, outcome);
    }
    const u = p.randomBackoff ? draw() : 0;
    const ctx = this.ctx;
    ctx.outcome = outcome;
    ctx.callStartMs = callStartMs;
    planRetry(p, attemptsMade - backoffBase, prevSleepMs, retryAfterMs, nowMs, deadlineAtMs, u, out, ctx);
    out.planned = true;
    if (out.giveUp !== CONTINUE) return end(out, out.giveUp, outcome);
    if (chain !== null) chain.onRetryScheduled(nowMs, outcome);
    out.backoffBase = out.resetBackoff ? attemptsMade : backoffBase;
    return (out.next = Next.RETRY);
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
    if (admission !== null && admission.admit(nowMs, draw()) !== 0) return GiveUp.THROTTLED;
    if (chain !== null) chain.onRetryScheduled(nowMs, outcome);
    return CONTINUE;
  }
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

/** A source of uniform draws in [0, 1), called only when a decision needs one. */
export type UniformDraw = () => number;

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

/** Deadline modes as integers. */
export const DeadlineModeCode = { propagate: 0, fresh: 1, none: 2 } as const;
/** Retry-After modes as integers. */
export const RetryAfterCode = { ignore: 0, honor: 1, 'honor-plus-jitter': 2, replace: 3, clamp: 4, pushback: 5 } as const;
export type RetryAfterCodeValue = (typeof RetryAfterCode)[keyof typeof RetryAfterCode];

/**
 * Largest extra wait `clamp` allows beyond the computed backoff: botocore standard retry mode 2.1
 * clamps `x-amz-retry-after` to [t_i, t_i + 5 s] (boto/botocore:botocore/retries/standard.py,
 * `ExponentialBackoff._RETRY_AFTER_MAX_ADDITIONAL` = 5 seconds).
 */
export const RETRY_AFTER_CLAMP_EXTRA_MS = 5000;

/**
 * The longest server-required wait a policy accepts by default (`maxRetryAfterMs`): 5 minutes,
 * the bound Envoy puts on a rate-limit reset header (envoyproxy/envoy,
 * api/envoy/config/route/v3/route_components.proto, `RetryPolicy.RateLimitedRetryBackOff.max_interval`:
 * "Defaults to 300 seconds"). Envoy discards a longer hint; here a wait is never shortened, so the
 * call gives up with `retry-after-too-long`.
 */
export const MAX_RETRY_AFTER_DEFAULT_MS = 300_000;

/**
 * The deadline this layer works to: the incoming one (none, +Infinity, in `none` mode), and, when
 * the policy has a `totalTimeoutMs` and the call's arrival time `nowMs` is given, no later than
 * nowMs + totalTimeoutMs (a timeout over all of this layer's attempts, as Envoy's route timeout).
 */
export function effectiveDeadlineAtMs(p: CompiledPolicy, incomingDeadlineAtMs: number, nowMs?: number): number {
  const incoming = p.deadlineMode === DeadlineModeCode.none ? Infinity : incomingDeadlineAtMs;
  if (nowMs === undefined || p.totalTimeoutMs === Infinity) return incoming;
  return Math.min(incoming, nowMs + p.totalTimeoutMs);
}

/**
 * The timeout given to an attempt starting at `nowMs` (README.md, "Concepts", "Deadline"):
 * `propagate`: min(perAttemptTimeout, remaining); `fresh`: the full per-attempt timeout whatever
 * remains (the anti-pattern), or the remaining deadline when no per-attempt timeout is set;
 * `none`: the per-attempt timeout (the deadline is ignored). +Infinity = the attempt waits forever.
 */
export function attemptTimeoutMs(p: CompiledPolicy, nowMs: number, deadlineAtMs: number): number {
  if (p.deadlineMode === DeadlineModeCode.fresh && p.hasPerAttemptTimeout) return p.perAttemptTimeoutMs;
  return Math.min(p.perAttemptTimeoutMs, deadlineAtMs - nowMs);
}

/** No give-up: the decision goes on to the next step. */
export const CONTINUE = -1;

/** A gRPC pushback saying do not retry: a negative hint under `retryAfter: 'pushback'` (gRPC A6, "Pushback"). */
function isPushbackStop(p: CompiledPolicy, retryAfterMs: number): boolean {
  return p.retryAfter === RetryAfterCode.pushback && retryAfterMs < 0;
}

/**
 * Steps 1-4a of the retry decision after attempt number `attemptsMade` ended with `outcome`:
 * 1. deadline passed (remaining <= 0) -> `deadline`; 2. success -> `success`;
 * 3. not retryable (including a gRPC pushback saying do not retry, a negative `retryAfterMs` under
 *    `retryAfter: 'pushback'`) -> `not-retryable`; 4. attempt cap reached -> `attempt-limit`;
 * 4a. a server hint longer than the policy's `maxRetryAfterMs` (in the modes where the hint is a
 *    floor of the wait) -> `retry-after-too-long`. It comes after the attempt cap, so a call that
 *    could not retry anyway says `attempt-limit`, and before the budgets (step 5) and the backoff
 *    draw (step 6), so a retry that will not be made is neither asked of the budgets nor drawn
 *    for; and before step 8, so a hint both too long and past the deadline says
 *    `retry-after-too-long`: the server's answer, not the deadline, ruled the retry out.
 * Returns {@link CONTINUE} when a retry may follow (budgets are asked next, step 5).
 */
export function judgeOutcome(
  p: CompiledPolicy,
  attemptsMade: number,
  outcome: number,
  idempotent: boolean,
  nowMs: number,
  deadlineAtMs: number,
  retryAfterMs = NaN,
): GiveUpCode | typeof CONTINUE {
  if (deadlineAtMs - nowMs <= 0) return GiveUp.DEADLINE;
  if (outcome === Outcome.SUCCESS) return GiveUp.SUCCESS;
  if (!retryableIn(p.retryable, outcome, idempotent) || isPushbackStop(p, retryAfterMs)) return GiveUp.NOT_RETRYABLE;
  if (attemptsMade >= p.maxAttempts) return GiveUp.ATTEMPT_LIMIT;
  if (retryAfterMs > p.maxRetryAfterMs) return GiveUp.RETRY_AFTER_TOO_LONG;
  return CONTINUE;
}

/**
 * The `retryable` flag budgets are told in `RetryBudget.onOutcome`: a failure the policy would retry
 * (whatever the attempt count or deadline), or a gRPC pushback saying do not retry, which gRPC A6
 * also counts as a failure for retry throttling. False for a success.
 */
export function retryableForBudgets(p: CompiledPolicy, outcome: number, idempotent: boolean, retryAfterMs = NaN): boolean {
  if (outcome === Outcome.SUCCESS) return false;
  return retryableIn(p.retryable, outcome, idempotent) || isPushbackStop(p, retryAfterMs);
}

/**
 * Whether a hedged attempt's failure is non-fatal (gRPC A6 `nonFatalStatusCodes`: send the next
 * hedge at once) rather than fatal (end the call). Hedged methods are idempotent by construction.
 */
export function isHedgeNonFatal(p: CompiledPolicy, outcome: number): boolean {
  return outcome !== Outcome.SUCCESS && retryableIn(p.hedgeNonFatal, outcome, true);
}

/** What `planRetry` needs to know about the call beyond the numbers it takes (reuse one object). */
export interface PlanContext {
  /** The outcome that triggered the retry (a 429 uses the backoff's `throttledBaseMs`). */
  outcome: number;
  /** When the call arrived at this layer (for `maxElapsedMs`); NaN = unknown (not enforced). */
  callStartMs: number;
}

/** Result of {@link planRetry}, written into a reusable object (no allocation on the hot path). */
export class RetryPlan {
  /** `wait-exceeds-deadline`, or {@link CONTINUE} when the retry goes ahead. */
  giveUp: GiveUpCode | typeof CONTINUE = CONTINUE;
  /** The backoff ceiling of this retry (upper end of the drawn range). */
  ceilingMs = 0;
  /** The backoff sample before Retry-After and tick rounding. */
  backoffMs = 0;
  /** The delay after Retry-After handling, before tick rounding. */
  delayMs = 0;
  /** The actual wait: wakeAtMs - nowMs. */
  waitMs = 0;
  /** When the next attempt starts (on a tick boundary). */
  wakeAtMs = 0;
  /** The backoff state (decorrelated jitter's or Polly's) to carry to the next retry. */
  nextPrevSleepMs = 0;
  /**
   * A gRPC pushback (n >= 0) set this wait: the backoff sequence restarts, so the next computed
   * backoff is that of retry 1 again. The caller counts retries for the backoff from here
   * (pass `retry - retriesBeforeReset` as `retry` next time, where retriesBeforeReset is this
   * plan's retry number) and carries `nextPrevSleepMs`, already reset to the initial state.
   */
  resetBackoff = false;
}

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

/**
 * Steps 6-8 of the retry decision for retry number `retry` (1 for the first retry, counted since
 * the last backoff reset):
 * 6. delay = backoff sample; a server hint (`retryAfterMs`, NaN when absent; counted from the
 *    response's arrival, i.e. `nowMs`): `honor` = max(hint, sample), `honor-plus-jitter` =
 *    hint + sample, `replace` = hint, `clamp` = min(max(hint, sample), sample + 5 s) (botocore),
 *    `pushback` = exactly the hint (gRPC A6: "retry in n ms", and the backoff restarts:
 *    `resetBackoff`), `ignore` = sample. A negative hint counts as absent (under `pushback`
 *    {@link judgeOutcome} has already refused the retry);
 * 7. the wake-up is rounded up to the layer's timer tick;
 * 8. a wait >= the remaining deadline gives `wait-exceeds-deadline` at once (a wait is never
 *    shortened to fit); so does a wake-up after callStartMs + maxElapsedMs (cenkalti/backoff v5
 *    `Retry`: stop when the next wait exceeds MaxElapsedTime minus the time elapsed).
 * `u` is the uniform draw in [0, 1) for the jitter; `ctx` (optional) gives the triggering outcome
 * and the call's start.
 */
export function planRetry(
  p: CompiledPolicy,
  retry: number,
  prevSleepMs: number,
  retryAfterMs: number,
  nowMs: number,
  deadlineAtMs: number,
  u: number,
  out: RetryPlan,
  ctx?: PlanContext,
): RetryPlan {
  const throttled = p.usesPlanContext && ctx !== undefined && isThrottlingOutcome(ctx.outcome);
  drawBackoff(p.compiledBackoff, retry, prevSleepMs, u, throttled, out);
  const sample = out.backoffMs;
  const delay = retryAfterMs >= 0 ? hintedDelayMs(p.retryAfter, retryAfterMs, sample) : sample;
  const reset = retryAfterMs >= 0 && p.retryAfter === RetryAfterCode.pushback;
  const wakeAt = quantizeUpMs(nowMs + delay, p.tickMs);
  out.delayMs = delay;
  out.wakeAtMs = wakeAt;
  out.waitMs = wakeAt - nowMs;
  out.resetBackoff = reset;
  out.nextPrevSleepMs = reset
    ? p.compiledBackoff.initialPrevSleepMs
    : compiledNextPrevSleepMs(p.compiledBackoff, sample, prevSleepMs, retry, u);
  out.giveUp =
    wakeAt - nowMs >= deadlineAtMs - nowMs || (p.usesPlanContext && wakeAt > elapsedLimitMs(p, ctx))
      ? GiveUp.WAIT_EXCEEDS_DEADLINE
      : CONTINUE;
  return out;
}

/**
 * Step 6 with a server hint `retryAfterMs` >= 0: the delay the policy's Retry-After mode gives
 * (see {@link planRetry}; `clamp` as botocore standard retry mode 2.1, `pushback` as gRPC A6).
 */
function hintedDelayMs(mode: RetryAfterCodeValue, retryAfterMs: number, sample: number): number {
  switch (mode) {
    case RetryAfterCode.honor:
      return Math.max(retryAfterMs, sample);
    case RetryAfterCode['honor-plus-jitter']:
      return retryAfterMs + sample;
    case RetryAfterCode.replace:
      return retryAfterMs;
    case RetryAfterCode.clamp:
      return Math.max(sample, Math.min(retryAfterMs, sample + RETRY_AFTER_CLAMP_EXTRA_MS));
    case RetryAfterCode.pushback:
      return retryAfterMs;
    default:
      return sample;
  }
}

/** The latest wake-up `maxElapsedMs` allows: +Infinity without a context or a known call start. */
function elapsedLimitMs(p: CompiledPolicy, ctx: PlanContext | undefined): number {
  return ctx !== undefined && ctx.callStartMs === ctx.callStartMs ? ctx.callStartMs + p.maxElapsedMs : Infinity;
}
