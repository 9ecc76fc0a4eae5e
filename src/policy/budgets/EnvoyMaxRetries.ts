import type { RetryBudget } from './RetryBudget.js';

/** Envoy's cluster circuit breaker `max_retries`. */
export interface EnvoyMaxRetriesSpec {
  kind: 'envoy-max-retries';
  /** Most retries in flight at once. */
  maxRetries: number;
}

/** Default max_retries 3 (envoyproxy/envoy:api/envoy/config/cluster/v3/circuit_breaker.proto, `Thresholds`). */
export const ENVOY_MAX_RETRIES_DEFAULTS = { maxRetries: 3 } as const;

/**
 * Envoy's `max_retries` circuit breaker (circuit_breaker.proto): at most `maxRetries` retries of this
 * instance in flight at once (retry attempts sent and not yet ended). Every attempt counted by
 * onAttempt must be ended by onOutcome. Gauge: active retries.
 */
export class EnvoyMaxRetries implements RetryBudget {
  readonly refusal = 'budget-exhausted' as const;
  private activeRetries = 0;

  constructor(private readonly spec: EnvoyMaxRetriesSpec) {}

  onAttempt(_nowMs: number, isRetry: boolean): void {
    if (isRetry) this.activeRetries++;
  }

  onOutcome(_nowMs: number, _outcome: number, wasRetry: boolean): void {
    if (wasRetry && this.activeRetries > 0) this.activeRetries--;
  }

  allowRetry(): boolean {
    return this.activeRetries < this.spec.maxRetries;
  }

  onRetryScheduled(): void {}

  gauge(): number {
    return this.activeRetries;
  }
}
