import * as isDependencyFailureModule from './isDependencyFailure.js';
import type { RetryBudget } from './RetryBudget.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { isDependencyFailure } = isDependencyFailureModule;

/** Marc Brooker's retry circuit breaker (2022), with a cumulative rate. */
export interface BrookerBreakerSpec {
  kind: 'brooker-breaker';
  /** No retries while failures / calls is above this. */
  threshold: number;
}

/**
 * Default threshold 0.1 ("retry only below 10% failures": Marc Brooker, "Fixing retries with token
 * buckets and circuit breakers", 2022, mbrooker/mbrooker-blog:_posts/2022-02-28-retries.md).
 */
export const BROOKER_BREAKER_DEFAULTS = { threshold: 0.1 } as const;

/**
 * Brooker's retry breaker (mbrooker/simulator_example:retry_sim/retry_strategy.py
 * `CircuitBreakerRetryStrategy`): `calls` counts call starts (first tries), `failures` counts every
 * failed attempt (first tries and retries; recorded before the decision, as `should_retry` does);
 * a retry is refused while failures / calls > threshold. Both counts are cumulative and never
 * decay. (The post reports that it trips at about half the expected failure rate.)
 * A failure is any outcome but a success or a 400/404. Gauge: 1 open, 0 closed.
 */
export class BrookerBreaker implements RetryBudget {
  readonly refusal = 'circuit-open' as const;
  private calls = 0;
  private failures = 0;

  constructor(private readonly spec: BrookerBreakerSpec) {}

  onAttempt(_nowMs: number, isRetry: boolean): void {
    if (!isRetry) this.calls++;
  }

  onOutcome(_nowMs: number, outcome: number): void {
    if (isDependencyFailure(outcome)) this.failures++;
  }

  private isOpen(): boolean {
    return this.failures / this.calls > this.spec.threshold;
  }

  allowRetry(): boolean {
    return !this.isOpen();
  }

  onRetryScheduled(): void {}

  gauge(): number {
    return this.isOpen() ? 1 : 0;
  }
}
