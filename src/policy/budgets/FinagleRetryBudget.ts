import type { RetryBudget } from './RetryBudget.js';
import { WindowedAdder } from './WindowedAdder.js';

/** Finagle's `RetryBudget(ttl, minRetriesPerSec, percentCanRetry)`. */
export interface FinagleRetryBudgetSpec {
  kind: 'finagle';
  /** Deposits expire after about this long (1 s to 60 s in the source). */
  ttlMs: number;
  /** A reserve of retries per second on top of the deposits (for new or quiet clients). */
  minRetriesPerSec: number;
  /** Retries allowed per request (0.2 = one retry per five requests; up to 1000). */
  percentCanRetry: number;
}

/** `RetryBudget()` defaults: ttl 10 s, minRetriesPerSec 10, percentCanRetry 0.2 (RetryBudget.scala `apply()`). */
export const FINAGLE_DEFAULTS = { ttlMs: 10_000, minRetriesPerSec: 10, percentCanRetry: 0.2 } as const;

/** TokenRetryBudget.ScaleFactor: lets percentCanRetry be fractional with integer tokens. */
const SCALE_FACTOR = 1000;

/**
 * Finagle's default retry budget (twitter/finagle:finagle-core/src/main/scala/com/twitter/finagle/
 * service/RetryBudget.scala, `RetryBudget.apply`, over twitter/util TokenBucket.newLeakyBucket):
 * each request (first try) deposits 1000 tokens; each retry withdraws 1000 / percentCanRetry
 * (5000 at 0.2, truncated to an integer); deposits and withdrawals expire after ttl (a 10-slice
 * `WindowedAdder`); the bucket also holds a constant reserve of
 * minRetriesPerSec * trunc(ttl in s) * withdrawal (100 retries' worth per ttl by default). A retry
 * is allowed while reserve + windowed sum >= the withdrawal. With percentCanRetry 0 a retry costs 1
 * and requests deposit nothing; with both 0 no retry is ever allowed (`RetryBudget.Empty`).
 * Gauge: the balance, retries that can be made now (trunc((sum + reserve) / withdrawal)).
 */
export class FinagleRetryBudget implements RetryBudget {
  readonly refusal = 'budget-exhausted' as const;
  private readonly adder: WindowedAdder;
  private readonly deposit: number;
  private readonly withdrawal: number;
  private readonly reserve: number;
  private readonly empty: boolean;

  constructor(spec: FinagleRetryBudgetSpec) {
    this.empty = spec.minRetriesPerSec === 0 && spec.percentCanRetry === 0;
    this.deposit = spec.percentCanRetry === 0 ? 0 : SCALE_FACTOR;
    this.withdrawal = spec.percentCanRetry === 0 ? 1 : Math.trunc(SCALE_FACTOR / spec.percentCanRetry);
    this.reserve = spec.minRetriesPerSec * Math.trunc(spec.ttlMs / 1000) * this.withdrawal;
    this.adder = new WindowedAdder(spec.ttlMs, 10);
  }

  onAttempt(nowMs: number, isRetry: boolean): void {
    if (!isRetry && !this.empty) this.adder.add(nowMs, this.deposit);
  }

  onOutcome(): void {}

  allowRetry(nowMs: number): boolean {
    return !this.empty && this.adder.sum(nowMs) + this.reserve >= this.withdrawal;
  }

  onRetryScheduled(nowMs: number): void {
    this.adder.add(nowMs, -this.withdrawal);
  }

  gauge(nowMs: number): number {
    if (this.empty) return 0;
    return Math.trunc((this.adder.sum(nowMs) + this.reserve) / this.withdrawal);
  }
}
