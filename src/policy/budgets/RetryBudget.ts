import { BrookerBreaker, type BrookerBreakerSpec } from './BrookerBreaker.js';
import { BrookerTokenBucket, type BrookerTokenBucketSpec } from './BrookerTokenBucket.js';
import { EnvoyMaxRetries, type EnvoyMaxRetriesSpec } from './EnvoyMaxRetries.js';
import { EnvoyRetryBudget, type EnvoyRetryBudgetSpec } from './EnvoyRetryBudget.js';
import { FinagleRetryBudget, type FinagleRetryBudgetSpec } from './FinagleRetryBudget.js';
import { GrpcRetryThrottle, type GrpcRetryThrottleSpec } from './GrpcRetryThrottle.js';
import { RetryCircuitBreaker, type RetryCircuitBreakerSpec } from './RetryCircuitBreaker.js';
import { ServerWideBudget, type ServerWideBudgetSpec } from './ServerWideBudget.js';
import { SreRatioBudget, type SreRatioBudgetSpec } from './SreRatioBudget.js';
import { TokenBucketQuota, type TokenBucketQuotaSpec } from './TokenBucketQuota.js';

/**
 * A retry budget, throttle or breaker of one layer instance: a pure state machine driven by the
 * layer's events, time always passed in (docs/concepts.md, "Concepts": "They are asked at step 5 and
 * charged only when the retry is actually scheduled (after step 8)"). Per attempt the caller calls
 * `onAttempt` when it is sent, then `onOutcome` when it ends (before the retry decision), then,
 * when steps 1-4 allow a retry, `allowRetry`, and `onRetryScheduled` once step 8 has passed.
 */
export interface RetryBudget {
  /** 'budget-exhausted' or 'circuit-open': the give-up reason when allowRetry refuses. */
  readonly refusal: 'budget-exhausted' | 'circuit-open';
  /** An attempt is sent by this instance (first tries and retries). */
  onAttempt(nowMs: number, isRetry: boolean): void;
  /**
   * An attempt ended: outcome is an Outcome code (src/policy/outcome.ts); retryable says whether the
   * policy would retry it (see `retryableForBudgets` in decision.ts: a retryable failure, or a gRPC
   * pushback saying do not retry); wasRetry whether the attempt was a retry.
   */
  onOutcome(nowMs: number, outcome: number, wasRetry: boolean, retryable: boolean): void;
  /** Step 5 of the retry decision: may a retry be scheduled now (after an attempt that ended with `outcome`)? Must not change state. */
  allowRetry(nowMs: number, outcome: number): boolean;
  /** The retry was actually scheduled (after step 8): charge for it. */
  onRetryScheduled(nowMs: number, outcome: number): void;
  /** The value for the time series (tokens left, retry ratio, 1 = open / 0 = closed ...). */
  gauge(nowMs: number): number;
  /**
   * Empty the budget (a budget an operator adds during a run, docs/experiments.md, "Timed interventions", holds
   * nothing yet): a bucket holds no tokens. Absent where a fresh budget is already empty (it
   * counts the requests and retries it sees: ratios, deposits, breakers, concurrent retries).
   */
  drain?(): void;
}

/** Every retry budget, throttle and breaker, told apart by `kind`, with every field resolved. */
export type BudgetSpec =
  | SreRatioBudgetSpec
  | TokenBucketQuotaSpec
  | BrookerTokenBucketSpec
  | GrpcRetryThrottleSpec
  | FinagleRetryBudgetSpec
  | EnvoyRetryBudgetSpec
  | EnvoyMaxRetriesSpec
  | RetryCircuitBreakerSpec
  | BrookerBreakerSpec
  | ServerWideBudgetSpec;

export type BudgetKind = BudgetSpec['kind'];

/** The budget kinds, in a stable order (for messages and schemas). */
export const BUDGET_KINDS: readonly [BudgetKind, ...BudgetKind[]] = [
  'sre-ratio',
  'token-bucket',
  'brooker-token-bucket',
  'grpc-throttle',
  'finagle',
  'envoy-retry-budget',
  'envoy-max-retries',
  'circuit-breaker',
  'brooker-breaker',
  'server-wide',
];

/** A fresh budget for one layer instance, drained ({@link RetryBudget.drain}): one added during a run starts empty. */
export function makeEmptyRetryBudget(spec: BudgetSpec): RetryBudget {
  const b = makeRetryBudget(spec);
  b.drain?.();
  return b;
}

/** A fresh budget (its own state) for one layer instance. */
export function makeRetryBudget(spec: BudgetSpec): RetryBudget {
  switch (spec.kind) {
    case 'sre-ratio':
      return new SreRatioBudget(spec);
    case 'token-bucket':
      return new TokenBucketQuota(spec);
    case 'brooker-token-bucket':
      return new BrookerTokenBucket(spec);
    case 'grpc-throttle':
      return new GrpcRetryThrottle(spec);
    case 'finagle':
      return new FinagleRetryBudget(spec);
    case 'envoy-retry-budget':
      return new EnvoyRetryBudget(spec);
    case 'envoy-max-retries':
      return new EnvoyMaxRetries(spec);
    case 'circuit-breaker':
      return new RetryCircuitBreaker(spec);
    case 'brooker-breaker':
      return new BrookerBreaker(spec);
    case 'server-wide':
      return new ServerWideBudget(spec);
  }
}
