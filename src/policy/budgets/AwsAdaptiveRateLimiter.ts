import * as outcomeModule from '../outcome.js';
import type { AdmissionControl } from './AdmissionControl.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Outcome } = outcomeModule;

/** The AWS SDK adaptive retry mode's client-side rate limiter. */
export interface AwsAdaptiveSpec {
  kind: 'aws-adaptive';
  /** CUBIC multiplicative decrease: rate = beta x W_max on a throttle. */
  beta: number;
  /** CUBIC scale constant C in rate = C (t - t_throttle - k)^3 + W_max. */
  scaleConstant: number;
  /** Weight of the newest measurement in the measured-rate average. */
  smooth: number;
  /** The send rate never goes below this (requests per second). */
  minFillRate: number;
  /** The bucket always holds at least this many tokens. */
  minCapacity: number;
  /** Width of the buckets the measured rate is computed over. */
  bucketMs: number;
}

/**
 * Defaults of smithy-lang/smithy-typescript:packages/util-retry/src/DefaultRateLimiter.ts (beta 0.7,
 * scaleConstant 0.4, smooth 0.8, minFillRate 0.5, minCapacity 1, rate buckets of 0.5 s), the same as
 * boto/botocore:botocore/retries/throttling.py `CubicCalculator` (_BETA 0.7, _SCALE_CONSTANT 0.4),
 * bucket.py `TokenBucket` (_MIN_RATE 0.5) and adaptive.py `RateClocker` (_DEFAULT_SMOOTHING 0.8,
 * _TIME_BUCKET_RANGE 0.5).
 */
export const AWS_ADAPTIVE_DEFAULTS = {
  beta: 0.7,
  scaleConstant: 0.4,
  smooth: 0.8,
  minFillRate: 0.5,
  minCapacity: 1,
  bucketMs: 500,
} as const;

/**
 * The AWS SDK adaptive mode (smithy-typescript util-retry DefaultRateLimiter.ts; botocore
 * retries/adaptive.py `ClientRateLimiter`): a sending token bucket that is off until the first
 * throttling answer (429 or "overloaded"); from then on every attempt, first tries included, takes
 * one token, and an attempt finding less than one waits (1 - tokens) / fillRate; the token is taken
 * at once, leaving a debt later attempts queue behind (the SDK takes it after sleeping without
 * refilling, to the same effect). Every answer updates the measured send rate (an EWMA, weight
 * `smooth`, of the answers per `bucketMs` bucket) and then the allowed rate by CUBIC:
 * on a throttle W_max = the measured rate (or min(measured, fill rate) once enabled),
 * k = (W_max (1 - beta) / C)^(1/3), rate = beta W_max; on a success
 * rate = C (t - t_throttle - k)^3 + W_max. The bucket's fill rate becomes
 * max(min(rate, 2 x measured), minFillRate) and its size max(that rate, minCapacity).
 * Times in seconds as in the source; the source's rounding to 8 decimals is left out. The clock
 * starts at the first call. Gauge: the fill rate (requests per second) once enabled, 0 before.
 */
export class AwsAdaptiveRateLimiter implements AdmissionControl {
  private enabled = false;
  private capacity = 0;
  private maxCapacity: number;
  private fillRate: number;
  private lastTimestamp = NaN;
  private measuredTxRate = 0;
  private requestCount = 0;
  private lastTxRateBucket = NaN;
  private lastMaxRate = 0;
  private lastThrottleTime = NaN;
  private timeWindow = 0;
  private readonly bucketsPerSec: number;

  constructor(private readonly spec: AwsAdaptiveSpec) {
    this.fillRate = spec.minFillRate;
    this.maxCapacity = spec.minCapacity;
    this.bucketsPerSec = 1000 / spec.bucketMs;
  }

  /** The source's constructor reads the clock; here the first call does. */
  private start(t: number): void {
    if (this.lastThrottleTime === this.lastThrottleTime) return;
    this.lastThrottleTime = t;
    this.lastTxRateBucket = Math.floor(t);
  }

  private refill(t: number): void {
    if (this.lastTimestamp !== this.lastTimestamp) {
      this.lastTimestamp = t;
      return;
    }
    this.capacity = Math.min(this.maxCapacity, this.capacity + (t - this.lastTimestamp) * this.fillRate);
    this.lastTimestamp = t;
  }

  admit(nowMs: number, _u?: number): number {
    const t = nowMs / 1000;
    this.start(t);
    if (!this.enabled) return 0;
    this.refill(t);
    let delayMs = 0;
    if (this.capacity < 1) delayMs = ((1 - this.capacity) / this.fillRate) * 1000;
    this.capacity -= 1;
    return delayMs;
  }

  onOutcome(nowMs: number, outcome: number, _accepted?: boolean): void {
    const t = nowMs / 1000;
    this.start(t);
    this.updateMeasuredRate(t);
    let rate: number;
    if (outcome === Outcome.S429 || outcome === Outcome.OVERLOADED) {
      const rateToUse = this.enabled ? Math.min(this.measuredTxRate, this.fillRate) : this.measuredTxRate;
      this.lastMaxRate = rateToUse;
      this.updateTimeWindow();
      this.lastThrottleTime = t;
      rate = rateToUse * this.spec.beta;
      this.enabled = true;
    } else {
      this.updateTimeWindow();
      rate = this.spec.scaleConstant * Math.pow(t - this.lastThrottleTime - this.timeWindow, 3) + this.lastMaxRate;
    }
    this.setRate(t, Math.min(rate, 2 * this.measuredTxRate));
  }

  private updateTimeWindow(): void {
    this.timeWindow = Math.pow((this.lastMaxRate * (1 - this.spec.beta)) / this.spec.scaleConstant, 1 / 3);
  }

  private setRate(t: number, newRate: number): void {
    this.refill(t);
    this.fillRate = Math.max(newRate, this.spec.minFillRate);
    this.maxCapacity = Math.max(newRate, this.spec.minCapacity);
    this.capacity = Math.min(this.capacity, this.maxCapacity);
  }

  private updateMeasuredRate(t: number): void {
    const bucket = Math.floor(t * this.bucketsPerSec) / this.bucketsPerSec;
    this.requestCount++;
    if (bucket > this.lastTxRateBucket) {
      const current = this.requestCount / (bucket - this.lastTxRateBucket);
      this.measuredTxRate = current * this.spec.smooth + this.measuredTxRate * (1 - this.spec.smooth);
      this.requestCount = 0;
      this.lastTxRateBucket = bucket;
    }
  }

  /** The measured send rate (answers per second, smoothed). */
  measuredRate(): number {
    return this.measuredTxRate;
  }

  /** The allowed send rate (the bucket's fill rate). */
  sendRate(): number {
    return this.fillRate;
  }

  isEnabled(): boolean {
    return this.enabled;
  }

  gauge(_nowMs?: number): number {
    return this.enabled ? this.fillRate : 0;
  }
}
