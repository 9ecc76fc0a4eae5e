import { backoffCeilingMs, backoffDelayMs, initialPrevSleepMs, nextPrevSleepMs } from './backoff.js';
import { isIdempotent, isRetryable, retryOnMask } from './classify.js';
import { GiveUp, Outcome, type GiveUpCode } from './outcome.js';
import { quantizeUpMs } from './timer.js';
import type { BackoffSpec, Method, PolicySpec } from './types.js';

/** Deadline modes as integers. */
export const DeadlineModeCode = { propagate: 0, fresh: 1, none: 2 } as const;
/** Retry-After modes as integers. */
export const RetryAfterCode = { ignore: 0, honor: 1, 'honor-plus-jitter': 2 } as const;

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
  readonly retryAfter: 0 | 1 | 2;
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
  };
}

/** Whether the policy treats `method` as idempotent. */
export function policyIdempotent(p: CompiledPolicy, method: Method): boolean {
  return isIdempotent(method, p.spec.idempotency);
}

/** The deadline this layer works to: the incoming one, or none (+Infinity) in `none` mode. */
export function effectiveDeadlineAtMs(p: CompiledPolicy, incomingDeadlineAtMs: number): number {
  return p.deadlineMode === DeadlineModeCode.none ? Infinity : incomingDeadlineAtMs;
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

/**
 * Steps 1-4 of the retry decision after attempt number `attemptsMade` ended with `outcome`:
 * 1. deadline passed (remaining <= 0) -> `deadline`; 2. success -> `success`;
 * 3. not retryable -> `not-retryable`; 4. attempt cap reached -> `attempt-limit`.
 * Returns {@link CONTINUE} when a retry may follow (budgets are asked next, step 5).
 */
export function judgeOutcome(
  p: CompiledPolicy,
  attemptsMade: number,
  outcome: number,
  idempotent: boolean,
  nowMs: number,
  deadlineAtMs: number,
): GiveUpCode | typeof CONTINUE {
  if (deadlineAtMs - nowMs <= 0) return GiveUp.DEADLINE;
  if (outcome === Outcome.SUCCESS) return GiveUp.SUCCESS;
  if (!isRetryable(outcome, idempotent, p.retryOnMask)) return GiveUp.NOT_RETRYABLE;
  if (attemptsMade >= p.maxAttempts) return GiveUp.ATTEMPT_LIMIT;
  return CONTINUE;
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
  /** The decorrelated-jitter state to carry to the next retry. */
  nextPrevSleepMs = 0;
}

/**
 * Steps 6-8 of the retry decision for retry number `retry` (1 for the first retry):
 * 6. delay = backoff sample; a server Retry-After hint (`retryAfterMs`, NaN when absent; counted
 *    from the response's arrival, i.e. `nowMs`) is never undercut: `honor` = max(hint, sample),
 *    `honor-plus-jitter` = hint + sample, `ignore` = sample;
 * 7. the wake-up is rounded up to the layer's timer tick;
 * 8. a wait >= the remaining deadline gives `wait-exceeds-deadline` at once (a wait is never
 *    shortened to fit).
 * `u` is the uniform draw in [0, 1] for the jitter.
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
): RetryPlan {
  const b = p.backoff;
  const ceiling = backoffCeilingMs(b, retry, prevSleepMs);
  const sample = backoffDelayMs(b, retry, prevSleepMs, u);
  let delay = sample;
  if (retryAfterMs === retryAfterMs && p.retryAfter !== RetryAfterCode.ignore) {
    delay = p.retryAfter === RetryAfterCode.honor ? Math.max(retryAfterMs, sample) : retryAfterMs + sample;
  }
  const wakeAt = quantizeUpMs(nowMs + delay, p.tickMs);
  out.ceilingMs = ceiling;
  out.backoffMs = sample;
  out.delayMs = delay;
  out.wakeAtMs = wakeAt;
  out.waitMs = wakeAt - nowMs;
  out.nextPrevSleepMs = nextPrevSleepMs(b, sample, prevSleepMs);
  out.giveUp = wakeAt - nowMs >= deadlineAtMs - nowMs ? GiveUp.WAIT_EXCEEDS_DEADLINE : CONTINUE;
  return out;
}

export { initialPrevSleepMs };
