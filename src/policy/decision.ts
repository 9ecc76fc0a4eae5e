import { backoffIsRandom } from './backoff.js';
import { compileBackoff, type CompiledBackoff } from './compiledBackoff.js';
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
  return new PolicyNumbers(spec);
}

/**
 * {@link CompiledPolicy} as a class rather than an object literal: a model compiles its policies
 * anew for every run, and instances of one class keep one hidden class from run to run, where a
 * literal can get another one in a later run (V8 builds a literal's boilerplate only when the
 * literal runs again) and make V8 discard the optimized code that read the policies of the first.
 */
class PolicyNumbers implements CompiledPolicy {
  readonly spec: PolicySpec;
  readonly maxAttempts: number;
  readonly perAttemptTimeoutMs: number;
  readonly hasPerAttemptTimeout: boolean;
  readonly deadlineMode: 0 | 1 | 2;
  readonly backoff: BackoffSpec;
  readonly tickMs: number;
  readonly retryOnMask: number;
  readonly retryAfter: RetryAfterCodeValue;
  readonly totalTimeoutMs: number;
  readonly maxElapsedMs: number;
  readonly maxRetryAfterMs: number;
  readonly hedgeNonFatalMask: number;
  readonly retryable: Uint8Array;
  readonly hedgeNonFatal: Uint8Array;
  readonly compiledBackoff: CompiledBackoff;
  readonly usesPlanContext: boolean;
  readonly randomBackoff: boolean;

  constructor(spec: PolicySpec) {
    const mask = retryOnMask(spec.retryOn);
    const hedgeMask = spec.hedging === undefined ? 0 : retryOnMask(spec.hedging.nonFatal);
    const maxElapsedMs = spec.maxElapsedMs ?? Infinity;
    const compiledBackoff = compileBackoff(spec.backoff);
    this.spec = spec;
    this.maxAttempts = spec.maxAttempts === 'unlimited' ? Infinity : spec.maxAttempts;
    this.perAttemptTimeoutMs = spec.perAttemptTimeoutMs ?? Infinity;
    this.hasPerAttemptTimeout = spec.perAttemptTimeoutMs !== undefined;
    this.deadlineMode = DeadlineModeCode[spec.deadlineMode];
    this.backoff = spec.backoff;
    this.tickMs = spec.tickMs;
    this.retryOnMask = mask;
    this.retryAfter = RetryAfterCode[spec.retryAfter];
    this.totalTimeoutMs = spec.totalTimeoutMs ?? Infinity;
    this.maxElapsedMs = maxElapsedMs;
    this.maxRetryAfterMs =
      spec.retryAfter === 'ignore' || spec.retryAfter === 'clamp' ? Infinity : (spec.maxRetryAfterMs ?? MAX_RETRY_AFTER_DEFAULT_MS);
    this.hedgeNonFatalMask = hedgeMask;
    this.retryable = retryableTable(mask);
    this.hedgeNonFatal = retryableTable(hedgeMask);
    this.compiledBackoff = compiledBackoff;
    // Without either, the throttling test and the elapsed-time limit cannot change a plan:
    // the base is baseMs whatever the outcome, and callStartMs + Infinity is never exceeded.
    this.usesPlanContext = compiledBackoff.hasThrottledBase || maxElapsedMs !== Infinity;
    this.randomBackoff = backoffIsRandom(spec.backoff.kind, spec.backoff);
  }
}
