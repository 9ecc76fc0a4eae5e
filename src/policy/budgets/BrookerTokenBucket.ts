import * as outcomeModule from '../outcome.js';
import type { RetryBudget } from './RetryBudget.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Outcome } = outcomeModule;

/** Marc Brooker's retry token bucket (2022). */
export interface BrookerTokenBucketSpec {
  kind: 'brooker-token-bucket';
  /** Most tokens the bucket holds (it starts full). */
  capacity: number;
  /** Tokens added at every call start (or every success, see `creditOn`). */
  creditPerCall: number;
  /** `call-start`: credit every first try, as the published code does; `success`: credit every successful attempt, as the post says. */
  creditOn: 'call-start' | 'success';
  /** Tokens a retry takes. */
  retryCost: number;
  /** A retry needs strictly more tokens than this. */
  minToRetry: number;
}

/**
 * Defaults of mbrooker/simulator_example:retry_sim (retry_strategy.py `AdaptiveRetryStrategy`, run
 * with fill rate 0.1 and size 5): "a success adds 0.1 token, a retry costs 1", the bucket capped at 5,
 * a retry only when more than 1 token is left (Marc Brooker, "Fixing retries with token buckets and
 * circuit breakers", 2022: mbrooker/mbrooker-blog:_posts/2022-02-28-retries.md).
 */
export const BROOKER_TOKEN_BUCKET_DEFAULTS = { capacity: 5, creditPerCall: 0.1, retryCost: 1, minToRetry: 1, creditOn: 'call-start' } as const;

/**
 * Brooker's token bucket ("Fixing retries with token buckets and circuit breakers", 2022; code in
 * mbrooker/simulator_example:retry_sim/retry_strategy.py). The post says a success adds 0.1 token;
 * the published code credits `creditPerCall` at every call start (`start()`, first tries only),
 * which is the default (`creditOn: 'call-start'`; `success` credits every successful attempt
 * instead): tokens = min(capacity, tokens + credit); a retry is allowed while tokens > minToRetry
 * and takes `retryCost`. Starts full. Gauge: tokens.
 */
export class BrookerTokenBucket implements RetryBudget {
  readonly refusal = 'budget-exhausted' as const;
  private tokens: number;

  constructor(private readonly spec: BrookerTokenBucketSpec) {
    this.tokens = spec.capacity;
  }

  private credit(): void {
    this.tokens = Math.min(this.spec.capacity, this.tokens + this.spec.creditPerCall);
  }

  onAttempt(_nowMs: number, isRetry: boolean): void {
    if (!isRetry && this.spec.creditOn === 'call-start') this.credit();
  }

  onOutcome(_nowMs: number, outcome: number): void {
    if (outcome === Outcome.SUCCESS && this.spec.creditOn === 'success') this.credit();
  }

  allowRetry(): boolean {
    return this.tokens > this.spec.minToRetry;
  }

  onRetryScheduled(): void {
    this.tokens -= this.spec.retryCost;
  }

  /** No tokens: a bucket added during a run starts empty. */
  drain(): void {
    this.tokens = 0;
  }

  gauge(): number {
    return this.tokens;
  }
}
