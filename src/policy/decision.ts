import { backoffIsRandom, compileBackoff, type CompiledBackoff } from './backoff.js';
import { retryableTable, retryOnMask } from './classify.js';
import { DeadlineModeCode, MAX_RETRY_AFTER_DEFAULT_MS, RetryAfterCode, type RetryAfterCodeValue } from './retrySteps.js';
import type { BackoffSpec, PolicySpec } from './types.js';

/**
 * A policy resolved into plain numbers for the hot path (see {@link compilePolicy}); the decisions
 * made with it, and their order, are `RetryLoop`'s (retryLoop.ts).
 */
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
  /**
   * The longest hint the policy waits for (`MAX_RETRY_AFTER_DEFAULT_MS` when absent); +Infinity
   * where the mode does not make the hint a floor of the wait (`ignore`, `clamp`).
   */
  readonly maxRetryAfterMs: number;
  /** The hedging policy's non-fatal classes as a mask (0 without hedging). */
  readonly hedgeNonFatalMask: number;
  /** `isRetryable` under `retryOnMask` for every outcome and idempotency (`retryableTable`). */
  readonly retryable: Uint8Array;
  /** `isRetryable` under `hedgeNonFatalMask` for every outcome and idempotency. */
  readonly hedgeNonFatal: Uint8Array;
  /** The backoff resolved for the hot path (integer kind, ceiling tables). */
  readonly compiledBackoff: CompiledBackoff;
  /** The plan needs its context: the backoff has a `throttledBaseMs` or the policy a `maxElapsedMs`. */
  readonly usesPlanContext: boolean;
  /** The backoff draws a uniform number for each retry (`backoffIsRandom`). */
  readonly randomBackoff: boolean;
}

/** Resolve a policy's options into the numbers the decision functions use. */
export function compilePolicy(spec: PolicySpec): CompiledPolicy {
  const mask = retryOnMask(spec.retryOn);
  const hedgeMask = spec.hedging === undefined ? 0 : retryOnMask(spec.hedging.nonFatal);
  const maxElapsedMs = spec.maxElapsedMs ?? Infinity;
  const compiledBackoff = compileBackoff(spec.backoff);
  return {
    spec,
    maxAttempts: spec.maxAttempts === 'unlimited' ? Infinity : spec.maxAttempts,
    perAttemptTimeoutMs: spec.perAttemptTimeoutMs ?? Infinity,
    hasPerAttemptTimeout: spec.perAttemptTimeoutMs !== undefined,
    deadlineMode: DeadlineModeCode[spec.deadlineMode],
    backoff: spec.backoff,
    tickMs: spec.tickMs,
    retryOnMask: mask,
    retryAfter: RetryAfterCode[spec.retryAfter],
    totalTimeoutMs: spec.totalTimeoutMs ?? Infinity,
    maxElapsedMs,
    maxRetryAfterMs: spec.retryAfter === 'ignore' || spec.retryAfter === 'clamp' ? Infinity : (spec.maxRetryAfterMs ?? MAX_RETRY_AFTER_DEFAULT_MS),
    hedgeNonFatalMask: hedgeMask,
    retryable: retryableTable(mask),
    hedgeNonFatal: retryableTable(hedgeMask),
    compiledBackoff,
    // Without either, the throttling test and the elapsed-time limit cannot change a plan:
    // the base is baseMs whatever the outcome, and callStartMs + Infinity is never exceeded.
    usesPlanContext: compiledBackoff.hasThrottledBase || maxElapsedMs !== Infinity,
    randomBackoff: backoffIsRandom(spec.backoff.kind, spec.backoff),
  };
}
