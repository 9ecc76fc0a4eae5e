import { backoffCeilingMs, backoffDelayMs, backoffIsRandom, initialPrevSleepMs, nextPrevSleepMs } from '../policy/backoff.js';
import type { PolicySpec } from '../policy/types.js';

/** The range of one retry's wait, before Retry-After and timer ticks. */
export interface WaitRange {
  /** 1 for the first retry. */
  retry: number;
  /** The shortest wait the backoff can draw (every earlier draw also at its shortest). */
  minMs: number;
  /** The longest (every earlier draw also at its longest); the ceiling `trace` prints. */
  maxMs: number;
}

/** How many first waits `check` lists per layer. */
export const FIRST_WAITS = 5;

/**
 * The ranges of a layer's first `count` waits (at most its retries): the backoff drawn at 0 and at
 * 1 for every retry, each carrying its own state (decorrelated jitter's previous sleep, Polly's
 * `next`). The tick rounds each wake-up up by less than `tickMs`; a Retry-After can lengthen a
 * wait. Empty for a layer that does not retry.
 */
export function firstWaits(policy: PolicySpec, count = FIRST_WAITS): WaitRange[] {
  const retries = policy.hedging !== undefined ? 0 : policy.maxAttempts === 'unlimited' ? count : Math.min(count, policy.maxAttempts - 1);
  const b = policy.backoff;
  const out: WaitRange[] = [];
  let lo = initialPrevSleepMs(b);
  let hi = lo;
  const random = backoffIsRandom(b.kind, b);
  for (let r = 1; r <= retries; r++) {
    const minMs = backoffDelayMs(b, r, lo, 0);
    const maxMs = random ? Math.max(minMs, backoffCeilingMs(b, r, hi), backoffDelayMs(b, r, hi, 1)) : backoffDelayMs(b, r, hi, 0);
    lo = nextPrevSleepMs(b, minMs, lo, r, 0);
    hi = nextPrevSleepMs(b, maxMs, hi, r, 1);
    out.push({ retry: r, minMs, maxMs });
  }
  return out;
}
