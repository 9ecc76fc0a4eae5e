import * as backoffModule from './backoff.js';
import * as classifyModule from './classify.js';
import type { CompiledPolicy } from './decision.js';
import type { GiveUpCode } from './outcome.js';
import * as outcomeModule from './outcome.js';
import * as timerModule from './timer.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { compiledNextPrevSleepMs, drawBackoff } = backoffModule;
const { isThrottlingOutcome, retryableIn } = classifyModule;
const { GiveUp, Outcome } = outcomeModule;
const { quantizeUpMs } = timerModule;

/*
 * The steps of the retry decision as pure functions, which `RetryLoop` (retryLoop.ts) runs
 * in their order: the deadline a layer works to and an attempt's timeout, steps 1-4a on an
 * attempt's outcome ({@link judgeOutcome}), and steps 6-8, the wait and whether it fits
 * ({@link planRetry}); with the integer codes of the policy's modes they read.
 */

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
 * The timeout given to an attempt starting at `nowMs` (docs/concepts.md, "Concepts", "Deadline"):
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
  // The times start as NaN (nothing planned yet) rather than 0: a field that starts as a small
  // integer and later holds fractions changes its representation in V8, which discards the
  // optimized code of every method reading the plan each time a new run builds its own plan.
  /** `wait-exceeds-deadline`, or {@link CONTINUE} when the retry goes ahead. */
  giveUp: GiveUpCode | typeof CONTINUE = CONTINUE;
  /** The backoff ceiling of this retry (upper end of the drawn range). */
  ceilingMs = NaN;
  /** The backoff sample before Retry-After and tick rounding. */
  backoffMs = NaN;
  /** The delay after Retry-After handling, before tick rounding. */
  delayMs = NaN;
  /** The actual wait: wakeAtMs - nowMs. */
  waitMs = NaN;
  /** When the next attempt starts (on a tick boundary). */
  wakeAtMs = NaN;
  /** The backoff state (decorrelated jitter's or Polly's) to carry to the next retry. */
  nextPrevSleepMs = NaN;
  /**
   * A gRPC pushback (n >= 0) set this wait: the backoff sequence restarts, so the next computed
   * backoff is that of retry 1 again. The caller counts retries for the backoff from here
   * (pass `retry - retriesBeforeReset` as `retry` next time, where retriesBeforeReset is this
   * plan's retry number) and carries `nextPrevSleepMs`, already reset to the initial state.
   */
  resetBackoff = false;
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
