import { backoffCeilingMs, backoffDelayMs, initialPrevSleepMs, nextPrevSleepMs } from './backoff.js';
import { isIdempotent, isRetryable, isThrottlingOutcome, retryOnMask } from './classify.js';
import { GiveUp, Outcome, type GiveUpCode } from './outcome.js';
import { quantizeUpMs } from './timer.js';
import type { BackoffSpec, Method, PolicySpec } from './types.js';

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

/** A policy resolved into plain numbers for the hot path (see {@link compilePolicy}). */
export interface CompiledPolicy {
  readonly spec: PolicySpec;
  /** +Infinity for "unlimited". */
  readonly maxAttempts: number;
  /** +Infinity when absent. */
  readonly perAttemptTimeoutMs: number;
  readonly hasPerAttemptTimeout: boolean;
  readonly deadlineMode: 0 | 1 | 2;
  readonly backoff: BackoffSpec;
  readonly tickMs: number;
  readonly retryOnMask: number;
  readonly retryAfter: RetryAfterCodeValue;
  /** +Infinity when absent. */
  readonly totalTimeoutMs: number;
  /** +Infinity when absent. */
  readonly maxElapsedMs: number;
  /** The hedging policy's non-fatal classes as a mask (0 without hedging). */
  readonly hedgeNonFatalMask: number;
}

/** Resolve a policy's options into the numbers the decision functions use. */
export function compilePolicy(spec: PolicySpec): CompiledPolicy {
  return {
    spec,
    maxAttempts: spec.maxAttempts === 'unlimited' ? Infinity : spec.maxAttempts,
    perAttemptTimeoutMs: spec.perAttemptTimeoutMs ?? Infinity,
    hasPerAttemptTimeout: spec.perAttemptTimeoutMs !== undefined,
    deadlineMode: DeadlineModeCode[spec.deadlineMode],
    backoff: spec.backoff,
    tickMs: spec.tickMs,
    retryOnMask: retryOnMask(spec.retryOn),
    retryAfter: RetryAfterCode[spec.retryAfter],
    totalTimeoutMs: spec.totalTimeoutMs ?? Infinity,
    maxElapsedMs: spec.maxElapsedMs ?? Infinity,
    hedgeNonFatalMask: spec.hedging === undefined ? 0 : retryOnMask(spec.hedging.nonFatal),
  };
}

/** Whether the policy treats `method` as idempotent. */
export function policyIdempotent(p: CompiledPolicy, method: Method): boolean {
  return isIdempotent(method, p.spec.idempotency);
}

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
 * The timeout given to an attempt starting at `nowMs` (DESIGN.md section 1, "Deadline"):
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

/** Before an attempt: a spent deadline (remaining <= 0) gives `deadline` without calling. */
export function checkBeforeAttempt(nowMs: number, deadlineAtMs: number): GiveUpCode | typeof CONTINUE {
  return deadlineAtMs - nowMs <= 0 ? GiveUp.DEADLINE : CONTINUE;
}

/** A gRPC pushback saying do not retry: a negative hint under `retryAfter: 'pushback'` (gRPC A6, "Pushback"). */
function isPushbackStop(p: CompiledPolicy, retryAfterMs: number): boolean {
  return p.retryAfter === RetryAfterCode.pushback && retryAfterMs < 0;
}

/**
 * Steps 1-4 of the retry decision after attempt number `attemptsMade` ended with `outcome`:
 * 1. deadline passed (remaining <= 0) -> `deadline`; 2. success -> `success`;
 * 3. not retryable (including a gRPC pushback saying do not retry, a negative `retryAfterMs` under
 *    `retryAfter: 'pushback'`) -> `not-retryable`; 4. attempt cap reached -> `attempt-limit`.
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
  if (!isRetryable(outcome, idempotent, p.retryOnMask) || isPushbackStop(p, retryAfterMs)) return GiveUp.NOT_RETRYABLE;
  if (attemptsMade >= p.maxAttempts) return GiveUp.ATTEMPT_LIMIT;
  return CONTINUE;
}

/**
 * The `retryable` flag budgets are told in `RetryBudget.onOutcome`: a failure the policy would retry
 * (whatever the attempt count or deadline), or a gRPC pushback saying do not retry, which gRPC A6
 * also counts as a failure for retry throttling. False for a success.
 */
export function retryableForBudgets(p: CompiledPolicy, outcome: number, idempotent: boolean, retryAfterMs = NaN): boolean {
  if (outcome === Outcome.SUCCESS) return false;
  return isRetryable(outcome, idempotent, p.retryOnMask) || isPushbackStop(p, retryAfterMs);
}

/**
 * Whether a hedged attempt's failure is non-fatal (gRPC A6 `nonFatalStatusCodes`: send the next
 * hedge at once) rather than fatal (end the call). Hedged methods are idempotent by construction.
 */
export function isHedgeNonFatal(p: CompiledPolicy, outcome: number): boolean {
  return outcome !== Outcome.SUCCESS && isRetryable(outcome, true, p.hedgeNonFatalMask);
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
  const b = p.backoff;
  const throttled = ctx !== undefined && isThrottlingOutcome(ctx.outcome);
  const ceiling = backoffCeilingMs(b, retry, prevSleepMs, throttled);
  const sample = backoffDelayMs(b, retry, prevSleepMs, u, throttled);
  let delay = sample;
  let reset = false;
  if (retryAfterMs >= 0) {
    switch (p.retryAfter) {
      case RetryAfterCode.honor:
        delay = Math.max(retryAfterMs, sample);
        break;
      case RetryAfterCode['honor-plus-jitter']:
        delay = retryAfterMs + sample;
        break;
      case RetryAfterCode.replace:
        delay = retryAfterMs;
        break;
      case RetryAfterCode.clamp:
        delay = Math.max(sample, Math.min(retryAfterMs, sample + RETRY_AFTER_CLAMP_EXTRA_MS));
        break;
      case RetryAfterCode.pushback:
        delay = retryAfterMs;
        reset = true;
        break;
      default:
        break;
    }
  }
  const wakeAt = quantizeUpMs(nowMs + delay, p.tickMs);
  out.ceilingMs = ceiling;
  out.backoffMs = sample;
  out.delayMs = delay;
  out.wakeAtMs = wakeAt;
  out.waitMs = wakeAt - nowMs;
  out.resetBackoff = reset;
  out.nextPrevSleepMs = reset ? initialPrevSleepMs(b) : nextPrevSleepMs(b, sample, prevSleepMs, retry, u);
  const elapsedLimit = ctx !== undefined && ctx.callStartMs === ctx.callStartMs ? ctx.callStartMs + p.maxElapsedMs : Infinity;
  out.giveUp =
    wakeAt - nowMs >= deadlineAtMs - nowMs || wakeAt > elapsedLimit ? GiveUp.WAIT_EXCEEDS_DEADLINE : CONTINUE;
  return out;
}

export { initialPrevSleepMs };
