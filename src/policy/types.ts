/** Plain-data shapes of retry policies, as experiment files and the executor give them. */

/** Request method; idempotency by HTTP semantics (RFC 9110 section 9.2.2): POST is not idempotent. */
export type Method = 'GET' | 'HEAD' | 'PUT' | 'DELETE' | 'POST';

export type BackoffKind =
  | 'none'
  | 'constant'
  | 'exponential'
  | 'full-jitter'
  | 'equal-jitter'
  | 'decorrelated-jitter';

/**
 * Backoff between attempts (r = 1 for the first retry):
 * ceiling(r) = min(capMs, baseMs * multiplier^(r - 1 + exponentOffset)).
 * Formulas: AWS Architecture Blog, "Exponential Backoff And Jitter" (Marc Brooker, 2015).
 */
export interface BackoffSpec {
  kind: BackoffKind;
  baseMs: number;
  capMs: number;
  multiplier: number;
  exponentOffset: number;
}

/** Outcome classes a policy can list as retryable. */
export type RetryOnClass =
  | 'timeout'
  | '500'
  | '503'
  | '429'
  | '400'
  | '404'
  | 'conflict'
  | 'throttled'
  | 'circuit-open'
  | 'budget-exhausted';

export type DeadlineMode = 'propagate' | 'fresh' | 'none';
export type RetryAfterMode = 'ignore' | 'honor' | 'honor-plus-jitter';
/** `http`: by method (POST is not idempotent); `always`/`never` override the method. */
export type IdempotencyRule = 'http' | 'always' | 'never';

/** One layer's retry policy (DESIGN.md section 1, "The retry decision"). */
export interface PolicySpec {
  /** Attempts, not retries: 3 = first call + at most 2 retries. */
  maxAttempts: number | 'unlimited';
  /** Per-attempt timeout; absent = the remaining deadline (unbounded without one). */
  perAttemptTimeoutMs?: number;
  deadlineMode: DeadlineMode;
  backoff: BackoffSpec;
  /** Wake-ups are rounded up to multiples of this (aligned to t = 0); 0 = no rounding. */
  tickMs: number;
  retryOn: RetryOnClass[];
  idempotency: IdempotencyRule;
  retryAfter: RetryAfterMode;
}

