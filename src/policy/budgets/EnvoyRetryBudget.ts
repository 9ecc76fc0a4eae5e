import type { RetryBudget } from './RetryBudget.js';

/** Envoy's cluster `retry_budget` (circuit breaker thresholds). */
export interface EnvoyRetryBudgetSpec {
  kind: 'envoy-retry-budget';
  /** Concurrent retries as a percentage (0-100) of active requests. */
  budgetPercent: number;
  /** The limit never goes below this many concurrent retries. */
  minRetryConcurrency: number;
}

/**
 * Defaults: budget_percent 20%, min_retry_concurrency 3 (envoyproxy/envoy:api/envoy/config/cluster/
 * v3/circuit_breaker.proto, `RetryBudget`).
 */
export const ENVOY_RETRY_BUDGET_DEFAULTS = { budgetPercent: 20, minRetryConcurrency: 3 } as const;

/**
 * Envoy's retry budget (circuit_breaker.proto `RetryBudget`; the cluster resource manager's
 * `max()`): a retry may start while active retries < max(trunc(budgetPercent / 100 * active
 * requests), minRetryConcurrency). Here the active requests of this instance are its attempts sent
 * and not yet ended (first tries and retries; a client has no pending queue), and active retries
 * its retry attempts sent and not yet ended. (Envoy also counts a retry while it waits out its
 * backoff.) Every attempt counted by onAttempt must be ended by onOutcome. Gauge: active retries.
 */
export class EnvoyRetryBudget implements RetryBudget {
  readonly refusal = 'budget-exhausted' as const;
  private active = 0;
  private activeRetries = 0;

  constructor(private readonly spec: EnvoyRetryBudgetSpec) {}

  onAttempt(_nowMs: number, isRetry: boolean): void {
    this.active++;
    if (isRetry) this.activeRetries++;
  }

  onOutcome(_nowMs: number, _outcome: number, wasRetry: boolean): void {
    if (this.active > 0) this.active--;
    if (wasRetry && this.activeRetries > 0) this.activeRetries--;
  }

  /** The current limit on concurrent retries. */
  limit(): number {
    return Math.max(Math.trunc((this.spec.budgetPercent / 100) * this.active), this.spec.minRetryConcurrency);
  }

  allowRetry(): boolean {
    return this.activeRetries < this.limit();
  }

  onRetryScheduled(): void {}

  gauge(): number {
    return this.activeRetries;
  }
}
