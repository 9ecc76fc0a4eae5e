import type { RetryBudget } from './RetryBudget.js';
import { SlidingWindow } from './SlidingWindow.js';

/** The SRE per-client retry budget: retries may not exceed `ratio` of the first tries over `windowMs`. */
export interface SreRatioBudgetSpec {
  kind: 'sre-ratio';
  /** Largest retries / first tries ratio (0.1: at most 1.1x the first tries reach the next hop). */
  ratio: number;
  /** The sliding window over which both are counted. */
  windowMs: number;
}

/**
 * Defaults: ratio 0.1 (Google SRE book ch. 21, "Handling Overload": "a per-client retry budget ...
 * retry only while retries / requests < 10%"). The book gives no window; 60 s (one minute, the unit
 * of its server-wide budget in ch. 22) is this project's choice.
 */
export const SRE_RATIO_DEFAULTS = { ratio: 0.1, windowMs: 60_000 } as const;

const SLICES = 60;
const FIRST = 0;
const RETRIES = 1;

/**
 * Google SRE book ch. 21 per-client retry budget, as docs/concepts.md ("Concepts", "Budgets and breakers") states it: "The SRE
 * ratio budget compares retries with first tries over its window (10% gives at most 1.1x)". A retry
 * is allowed only if, counting it, retries / first tries stays within the ratio over the sliding
 * window (60 slices), so retries never exceed ratio x first tries (the book's "retries / requests
 * < 10%", applied so that it holds after the retry too); first tries are counted when sent,
 * retries when scheduled. No first try in the window: no retry.
 * Gauge: the current retries / first tries ratio (0 without first tries).
 */
export class SreRatioBudget implements RetryBudget {
  readonly refusal = 'budget-exhausted' as const;
  private readonly window: SlidingWindow;
  private readonly ratio: number;

  constructor(spec: SreRatioBudgetSpec) {
    this.ratio = spec.ratio;
    this.window = new SlidingWindow(spec.windowMs, SLICES, 2);
  }

  onAttempt(nowMs: number, isRetry: boolean): void {
    if (!isRetry) this.window.add(nowMs, FIRST, 1);
  }

  onOutcome(): void {}

  allowRetry(nowMs: number): boolean {
    const first = this.window.total(nowMs, FIRST);
    return first > 0 && this.window.total(nowMs, RETRIES) + 1 <= this.ratio * first + 1e-9;
  }

  onRetryScheduled(nowMs: number): void {
    this.window.add(nowMs, RETRIES, 1);
  }

  gauge(nowMs: number): number {
    const first = this.window.total(nowMs, FIRST);
    return first > 0 ? this.window.total(nowMs, RETRIES) / first : 0;
  }
}
