import * as outcomeModule from '../outcome.js';
import type { RetryBudget } from './RetryBudget.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Outcome } = outcomeModule;

/** The AWS SDK standard-mode retry quota. */
export interface TokenBucketQuotaSpec {
  kind: 'token-bucket';
  /** Tokens at the start, and the most the bucket holds. */
  capacity: number;
  /** Cost of a retry after any failure not listed below. */
  retryCost: number;
  /** Cost of a retry after a timeout. */
  timeoutCost: number;
  /** Cost of a retry after a 500 or 503 (AWS SDK JS v3 counts them as TRANSIENT, like timeouts). */
  serverErrorCost: number;
  /** Cost of a retry after a throttling error (429). */
  throttlingCost: number;
  /** Refund of a success at the first try. */
  noRetryIncrement: number;
}

/**
 * Defaults of botocore's standard mode (boto/botocore:botocore/retries/quota.py `RetryQuota`
 * INITIAL_CAPACITY 500; standard.py `RetryQuotaChecker`: _RETRY_COST 5, _TIMEOUT_RETRY_REQUEST 10,
 * _NO_RETRY_INCREMENT 1; the same constants in smithy-lang/smithy-typescript:
 * packages/util-retry/src/constants.ts). A 500/503 and a 429 cost `retryCost` unless given.
 */
export const TOKEN_BUCKET_DEFAULTS = { capacity: 500, retryCost: 5, timeoutCost: 10, noRetryIncrement: 1 } as const;

/**
 * The 2026 retry behaviour (opt-in AWS_NEW_RETRIES_2026 / SMITHY_NEW_RETRIES_2026): every retry
 * costs 14, a retry after a throttling error 5 (smithy-typescript util-retry
 * retries-2026-config.ts `Retry.cost()` / `Retry.throttlingCost()`; botocore standard.py
 * `_RETRY_COST_V2` 14, `_THROTTLING_RETRY_COST` 5).
 */
export const TOKEN_BUCKET_2026 = {
  capacity: 500,
  retryCost: 14,
  timeoutCost: 14,
  serverErrorCost: 14,
  throttlingCost: 5,
  noRetryIncrement: 1,
} as const;

/**
 * The AWS SDK standard retry quota (botocore retries/quota.py and standard.py; smithy-typescript
 * util-retry StandardRetryStrategy.ts): a bucket of `capacity` tokens, full at the start. A retry
 * needs the cost of the failure that caused it (timeouts `timeoutCost`, 500/503
 * `serverErrorCost`, 429 `throttlingCost`, others `retryCost`) and is refused when fewer tokens
 * remain ("No tokens: fail at once"); scheduling it takes the cost. A success at the first try
 * refunds `noRetryIncrement`; a success of a retry refunds what the last retry of this instance
 * cost (the SDKs refund the cost recorded on the operation's own token; one instance tracks the
 * last one). The bucket never holds more than `capacity`. Gauge: tokens left.
 */
export class TokenBucketQuota implements RetryBudget {
  readonly refusal = 'budget-exhausted' as const;
  private tokens: number;
  private lastRetryCost: number;

  constructor(private readonly spec: TokenBucketQuotaSpec) {
    this.tokens = spec.capacity;
    this.lastRetryCost = spec.retryCost;
  }

  /** What a retry after `outcome` costs. */
  costOf(outcome: number): number {
    switch (outcome) {
      case Outcome.TIMEOUT:
      case Outcome.DEADLINE_EXCEEDED:
        return this.spec.timeoutCost;
      case Outcome.S500:
      case Outcome.S503:
      case Outcome.S502:
      case Outcome.S504:
        return this.spec.serverErrorCost;
      case Outcome.S429:
        return this.spec.throttlingCost;
      default:
        return this.spec.retryCost;
    }
  }

  onAttempt(): void {}

  onOutcome(_nowMs: number, outcome: number, wasRetry: boolean): void {
    if (outcome !== Outcome.SUCCESS) return;
    const refund = wasRetry ? this.lastRetryCost : this.spec.noRetryIncrement;
    this.tokens = Math.min(this.spec.capacity, this.tokens + refund);
  }

  allowRetry(_nowMs: number, outcome: number): boolean {
    return this.tokens >= this.costOf(outcome);
  }

  onRetryScheduled(_nowMs: number, outcome: number): void {
    const cost = this.costOf(outcome);
    this.tokens -= cost;
    this.lastRetryCost = cost;
  }

  /** No tokens: a bucket added during a run starts empty. */
  drain(): void {
    this.tokens = 0;
  }

  gauge(): number {
    return this.tokens;
  }
}
