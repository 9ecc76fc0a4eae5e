import type { RetryBudget } from './RetryBudget.js';
import { SlidingWindow } from './SlidingWindow.js';

/** A server-wide retry budget: retries per minute per process. */
export interface ServerWideBudgetSpec {
  kind: 'server-wide';
  retriesPerMinute: number;
}

/** Default 60 retries per minute (Google SRE book ch. 22, "Addressing Cascading Failures": "e.g. 60 retries per minute in a process"). */
export const SERVER_WIDE_DEFAULTS = { retriesPerMinute: 60 } as const;

const MINUTE_MS = 60_000;
const SLICES = 60;

/**
 * The SRE book's server-wide retry budget (ch. 22): at most `retriesPerMinute` retries scheduled by
 * this instance over a sliding minute (60 slices of 1 s); beyond it the call fails
 * (`budget-exhausted`). Gauge: retries left in the current minute.
 */
export class ServerWideBudget implements RetryBudget {
  readonly refusal = 'budget-exhausted' as const;
  private readonly window = new SlidingWindow(MINUTE_MS, SLICES, 1);

  constructor(private readonly spec: ServerWideBudgetSpec) {}

  onAttempt(): void {}

  onOutcome(): void {}

  allowRetry(nowMs: number): boolean {
    return this.window.total(nowMs, 0) < this.spec.retriesPerMinute;
  }

  onRetryScheduled(nowMs: number): void {
    this.window.add(nowMs, 0, 1);
  }

  gauge(nowMs: number): number {
    return Math.max(0, this.spec.retriesPerMinute - this.window.total(nowMs, 0));
  }
}
