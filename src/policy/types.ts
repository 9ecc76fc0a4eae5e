/** Plain-data shapes of retry policies, as experiment files and the executor give them. */

import type { AdmissionSpec } from './budgets/AdmissionControl.js';
import type { BudgetSpec } from './budgets/RetryBudget.js';
import type { RetryOnClass } from './classify.js';

export type { AdmissionSpec } from './budgets/AdmissionControl.js';
export type { BudgetSpec } from './budgets/RetryBudget.js';
export type { RetryOnClass } from './classify.js';

/** Request method; idempotency by HTTP semantics (RFC 9110 section 9.2.2): POST is not idempotent. */
export type Method = 'GET' | 'HEAD' | 'PUT' | 'DELETE' | 'POST';

/**
 * Backoff formulas. The first six are the AWS Architecture Blog's (2015); the others reproduce
 * retry libraries exactly (see `backoffDelayMs` in backoff.ts for each formula and its source).
 */
export type BackoffKind =
  | 'none'
  | 'constant'
  | 'exponential'
  | 'full-jitter'
  | 'equal-jitter'
  | 'decorrelated-jitter'
  | 'linear'
  | 'aws-sdk-js'
  | 'envoy'
  | 'polly-decorrelated-v2'
  | 'randomized'
  | 'node-retry'
  | 'random-exponential';

/**
 * Backoff between attempts (r = 1 for the first retry):
 * ceiling(r) = min(capMs, baseMs * multiplier^(r - 1 + exponentOffset)).
 * Formulas: AWS Architecture Blog, "Exponential Backoff And Jitter" (Marc Brooker, 2015); the
 * library kinds are documented in backoff.ts. `capMs` may be +Infinity (no cap).
 */
export interface BackoffSpec {
  kind: BackoffKind;
  baseMs: number;
  capMs: number;
  multiplier: number;
  exponentOffset: number;
  /**
   * `randomized` (cenkalti/backoff, google-http-client, resilience4j): the wait is drawn from
   * [i(1 - f), i(1 + f)] around the interval i; default 0.5.
   */
  randomizationFactor?: number;
  /** `node-retry` (npm `retry`): multiply by R ~ U[1, 2) (`randomize: true`); default false. */
  randomize?: boolean;
  /** `random-exponential` (tenacity `wait_random_exponential`): the low end of the draw; default 0. */
  minMs?: number;
  /**
   * Base used instead of `baseMs` when the failure that triggered the retry is a throttling error
   * (429): the AWS SDKs' throttling base (JS v3: 500 ms; the 2026 retry behaviour: 1 s).
   * Applies to every kind that grows from `baseMs`.
   */
  throttledBaseMs?: number;
}


export type DeadlineMode = 'propagate' | 'fresh' | 'none';

/**
 * What a server's hint does to the wait (`retryAfterMs` of an answer):
 * - `ignore`: the backoff alone;
 * - `honor`: max(hint, backoff) (never earlier than the server asked; AWS SDK JS v3);
 * - `honor-plus-jitter`: hint + backoff;
 * - `replace`: the hint instead of the backoff (.NET `HttpRetryStrategyOptions.ShouldRetryAfterHeader`);
 * - `clamp`: the hint clamped to [backoff, backoff + 5 s] (botocore standard retry mode 2.1);
 * - `pushback`: gRPC A6 server pushback (`grpc-retry-pushback-ms`): a hint n >= 0 means wait
 *   exactly n and restart the backoff sequence; a negative hint means do not retry.
 */
export type RetryAfterMode = 'ignore' | 'honor' | 'honor-plus-jitter' | 'replace' | 'clamp' | 'pushback';

/** `http`: by method (POST is not idempotent); `always`/`never` override the method. */
export type IdempotencyRule = 'http' | 'always' | 'never';

/**
 * How the jitter streams of a layer's clients are seeded (docs/concepts.md, "Concepts", "Random
 * seeding"); the same shape as the engine's `SeedingMode`:
 * `independent` (each client its own stream), `shared` (every client seeded alike: identical
 * jitter sequences), `time-seeded` (seed = floor(start time / resolutionMs): clients that start in
 * the same window draw identical sequences).
 */
export type SeedingSpec =
  | { kind: 'independent' }
  | { kind: 'shared' }
  | { kind: 'time-seeded'; resolutionMs: number };

/**
 * Hedged requests (gRPC proposal A6, `hedgingPolicy`): the first attempt is sent at once; while no
 * answer has come, another copy is sent every `hedgingDelayMs`, up to `maxAttempts` copies in
 * flight in total; the first success wins (the others are cancelled); a non-fatal failure sends the
 * next copy at once; any other failure ends the call. Hedges are throttled by the same retry
 * tokens as retries. A policy has hedging or retries (maxAttempts > 1), not both.
 */
export interface HedgingSpec {
  /** Copies in total, the original included (A6 clamps it to 5 on the client). */
  maxAttempts: number;
  hedgingDelayMs: number;
  /** Failures that send the next copy at once instead of ending the call (A6 nonFatalStatusCodes). */
  nonFatal: RetryOnClass[];
}

/** One layer's retry policy (docs/concepts.md, "Concepts", "The retry decision"). */
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
  /**
   * A timeout over all attempts of one call to this layer, counted from the call's arrival (Envoy's
   * route timeout, which "includes all retries"): the layer works to
   * min(incoming deadline, arrival + totalTimeoutMs). Absent = none.
   */
  totalTimeoutMs?: number;
  /**
   * A budget of elapsed time for retrying, counted from the call's arrival at this layer, that does
   * not cut an attempt short (cenkalti/backoff's and google-http-client's MaxElapsedTime): a retry
   * whose wake-up would fall after arrival + maxElapsedMs is not made (`wait-exceeds-deadline`).
   */
  maxElapsedMs?: number;
  /**
   * The longest server-required wait (Retry-After, gRPC pushback) the layer accepts: a hint longer
   * than this ends the call with `retry-after-too-long` instead of waiting (a wait is never
   * shortened). Absent = `MAX_RETRY_AFTER_DEFAULT_MS` (5 minutes, retrySteps.ts). Applies where the
   * hint is a floor of the wait (`honor`, `honor-plus-jitter`, `replace`, `pushback`).
   */
  maxRetryAfterMs?: number;
  /** How the layer's jitter streams are seeded; absent = `independent`. */
  seeding?: SeedingSpec;
  /** Retry budgets and breakers asked at step 5, each instance of the layer holding its own state. */
  budget?: BudgetSpec[];
  /** Admission control asked before every attempt (first tries included). */
  admission?: AdmissionSpec;
  /** Hedged requests instead of retries. */
  /**
   * Envoy's `previous_hosts` retry host predicate: a retry to a load-balanced pool avoids the
   * backends this call already tried (when others are available).
   */
  retryHostPredicate?: 'previous-hosts';
  hedging?: HedgingSpec;
}
