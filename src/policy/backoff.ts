import type { BackoffKind, BackoffSpec } from './types.js';

/** Integer codes of the backoff kinds, for the hot path. */
export const BackoffCode = {
  none: 0,
  constant: 1,
  exponential: 2,
  'full-jitter': 3,
  'equal-jitter': 4,
  'decorrelated-jitter': 5,
} as const satisfies Record<BackoffKind, number>;

/** The backoff kinds, in a stable order (for messages and schemas). */
export const BACKOFF_KINDS = Object.keys(BackoffCode) as BackoffKind[];

/** Largest exponent ever evaluated: 2^1100 is already +Infinity, so the cap wins long before. */
const MAX_EXPONENT = 1100;

/**
 * Exponential ceiling of retry `retry` (1 for the first retry):
 * min(capMs, baseMs * multiplier^(retry - 1 + exponentOffset)). The exponent is clamped before
 * the power is computed, so huge retry counts never overflow into NaN.
 * Source: AWS Architecture Blog, "Exponential Backoff And Jitter" (2015); the AWS study's
 * simulator starts the exponent at 1 (exponentOffset 1).
 */
export function exponentialCeilingMs(b: BackoffSpec, retry: number): number {
  if (b.baseMs === 0) return 0;
  if (b.multiplier === 1) return Math.min(b.capMs, b.baseMs);
  const e = Math.min(MAX_EXPONENT, Math.max(0, retry - 1 + b.exponentOffset));
  return Math.min(b.capMs, b.baseMs * Math.pow(b.multiplier, e));
}

/** The `prevSleepMs` a fresh call starts with: decorrelated jitter's s0 = base. */
export function initialPrevSleepMs(b: BackoffSpec): number {
  return b.baseMs;
}

/**
 * Upper end of the range the wait of retry `retry` is drawn from (what `trace` prints as the
 * ceiling): 0 for `none`, base for `constant`, the exponential ceiling for `exponential`,
 * `full-jitter` and `equal-jitter`, and min(cap, 3 * prevSleep) for `decorrelated-jitter`.
 */
export function backoffCeilingMs(b: BackoffSpec, retry: number, prevSleepMs: number): number {
  switch (b.kind) {
    case 'none':
      return 0;
    case 'constant':
      return b.baseMs;
    case 'decorrelated-jitter':
      return Math.min(b.capMs, 3 * prevSleepMs);
    default:
      return exponentialCeilingMs(b, retry);
  }
}

/**
 * The backoff delay before retry `retry` for the uniform draw `u` in [0, 1] (AWS Architecture
 * Blog, "Exponential Backoff And Jitter", 2015; formulas as in aws-samples/aws-arch-backoff-simulator):
 * - none: 0; constant: base; exponential: ceiling(r), no randomness;
 * - full-jitter: uniform(0, ceiling(r)) (a later wait can be shorter than an earlier one);
 * - equal-jitter: ceiling(r)/2 + uniform(0, ceiling(r)/2);
 * - decorrelated-jitter: min(cap, uniform(base, 3 * prevSleep)), s0 = base; the capped value is
 *   the next prevSleep (see {@link nextPrevSleepMs}).
 */
export function backoffDelayMs(b: BackoffSpec, retry: number, prevSleepMs: number, u: number): number {
  switch (b.kind) {
    case 'none':
      return 0;
    case 'constant':
      return b.baseMs;
    case 'exponential':
      return exponentialCeilingMs(b, retry);
    case 'full-jitter':
      return u * exponentialCeilingMs(b, retry);
    case 'equal-jitter': {
      const half = exponentialCeilingMs(b, retry) / 2;
      return half + u * half;
    }
    case 'decorrelated-jitter': {
      const hi = 3 * prevSleepMs;
      return Math.min(b.capMs, b.baseMs + u * (hi - b.baseMs));
    }
  }
}

/** The prevSleep to carry to the next retry after drawing `delayMs` (only decorrelated jitter uses it). */
export function nextPrevSleepMs(b: BackoffSpec, delayMs: number, prevSleepMs: number): number {
  return b.kind === 'decorrelated-jitter' ? delayMs : prevSleepMs;
}

/** True when the kind draws a random number (the caller can skip the draw otherwise). */
export function backoffIsRandom(kind: BackoffKind): boolean {
  return kind === 'full-jitter' || kind === 'equal-jitter' || kind === 'decorrelated-jitter';
}
