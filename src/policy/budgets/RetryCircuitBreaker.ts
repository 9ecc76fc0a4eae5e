import * as isDependencyFailureModule from './isDependencyFailure.js';
import type { RetryBudget } from './RetryBudget.js';
import { SlidingWindow } from './SlidingWindow.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { isDependencyFailure } = isDependencyFailureModule;

/** A retry circuit breaker over a sliding window. */
export interface RetryCircuitBreakerSpec {
  kind: 'circuit-breaker';
  /** Open (no retries) while failures / attempts in the window is above this. */
  threshold: number;
  windowMs: number;
  /** Stays closed while the window holds fewer ended attempts than this. */
  minRequests: number;
}

/**
 * Defaults: threshold 0.1 ("retry only below 10% failures", Marc Brooker, "Fixing retries with
 * token buckets and circuit breakers", 2022); window 10 s and 10 attempts minimum are this
 * project's choice (the post's breaker has no window).
 */
export const CIRCUIT_BREAKER_DEFAULTS = { threshold: 0.1, windowMs: 10_000, minRequests: 10 } as const;

const SLICES = 10;
const ENDED = 0;
const FAILED = 1;

/**
 * A retry circuit breaker: first tries always go, but retries stop (`circuit-open`) while the
 * failure rate of the attempts that ended in the sliding window (10 slices) is above `threshold`,
 * once at least `minRequests` ended there. A failure is any outcome but a success or a 400/404.
 * It closes again as failures leave the window. Gauge: 1 open, 0 closed.
 */
export class RetryCircuitBreaker implements RetryBudget {
  readonly refusal = 'circuit-open' as const;
  private readonly window: SlidingWindow;

  constructor(private readonly spec: RetryCircuitBreakerSpec) {
    this.window = new SlidingWindow(spec.windowMs, SLICES, 2);
  }

  onAttempt(): void {}

  onOutcome(nowMs: number, outcome: number): void {
    this.window.add(nowMs, ENDED, 1);
    if (isDependencyFailure(outcome)) this.window.add(nowMs, FAILED, 1);
  }

  /** Whether the breaker is open at `nowMs`. */
  isOpen(nowMs: number): boolean {
    const ended = this.window.total(nowMs, ENDED);
    return ended >= this.spec.minRequests && ended > 0 && this.window.total(nowMs, FAILED) / ended > this.spec.threshold;
  }

  allowRetry(nowMs: number): boolean {
    return !this.isOpen(nowMs);
  }

  onRetryScheduled(): void {}

  gauge(nowMs: number): number {
    return this.isOpen(nowMs) ? 1 : 0;
  }
}
