import { describe, expect, it } from 'vitest';
import { BROOKER_TOKEN_BUCKET_DEFAULTS } from '../../../src/policy/budgets/BrookerTokenBucket.js';
import { makeRetryBudget } from '../../../src/policy/budgets/RetryBudget.js';
import { Outcome } from '../../../src/policy/outcome.js';
import { runFailingOperations } from './drive.js';

const bucket = () => makeRetryBudget({ kind: 'brooker-token-bucket', ...BROOKER_TOKEN_BUCKET_DEFAULTS });

describe("Brooker's retry token bucket", () => {
  it('starts full at 5 and allows retries only while more than 1 token is left: 4 retries', () => {
    const b = bucket();
    const tally = runFailingOperations(b, { operations: 1, maxAttempts: 100 });
    expect(tally.retries).toBe(4);
    expect(b.gauge(0)).toBeCloseTo(1, 12);
  });

  it('credits 0.1 token at every call start (first tries only), capped at 5', () => {
    const b = bucket();
    b.onAttempt(0, false);
    expect(b.gauge(0)).toBe(5);
    b.onRetryScheduled(0, 0);
    b.onRetryScheduled(0, 0);
    b.onRetryScheduled(0, 0);
    b.onRetryScheduled(0, 0);
    for (let i = 0; i < 15; i++) b.onAttempt(0, false);
    b.onAttempt(0, true);
    expect(b.gauge(0)).toBeCloseTo(2.5, 12);
    expect(b.allowRetry(0, 0)).toBe(true);
    b.onRetryScheduled(0, 0);
    expect(b.allowRetry(0, 0)).toBe(true);
    b.onRetryScheduled(0, 0);
    expect(b.allowRetry(0, 0)).toBe(false);
  });

  it('credits successes instead of call starts with creditOn "success" (the post)', () => {
    const b = makeRetryBudget({ kind: 'brooker-token-bucket', ...BROOKER_TOKEN_BUCKET_DEFAULTS, capacity: 5, creditOn: 'success' });
    for (let i = 0; i < 4; i++) b.onRetryScheduled(0, 0);
    for (let i = 0; i < 15; i++) b.onAttempt(0, false);
    expect(b.gauge(0)).toBe(1);
    for (let i = 0; i < 15; i++) b.onOutcome(0, Outcome.SUCCESS, false, false);
    b.onOutcome(0, Outcome.S503, false, true);
    expect(b.gauge(0)).toBeCloseTo(2.5, 12);
  });

  it('at 100% failure settles near one retry per ten calls: load about 1.1, not 3', () => {
    const tally = runFailingOperations(bucket(), { operations: 10_000, maxAttempts: 3 });
    expect(tally.retries).toBeGreaterThanOrEqual(1000);
    expect(tally.retries).toBeLessThanOrEqual(1005);
  });
});
