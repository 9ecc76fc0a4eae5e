import { describe, expect, it } from 'vitest';
import { makeRetryBudget } from '../../../src/policy/budgets/RetryBudget.js';
import { TOKEN_BUCKET_2026, TOKEN_BUCKET_DEFAULTS, type TokenBucketQuotaSpec } from '../../../src/policy/budgets/TokenBucketQuota.js';
import { Outcome } from '../../../src/policy/outcome.js';
import { runFailingOperations } from './drive.js';

const standard: TokenBucketQuotaSpec = {
  kind: 'token-bucket',
  ...TOKEN_BUCKET_DEFAULTS,
  serverErrorCost: TOKEN_BUCKET_DEFAULTS.retryCost,
  throttlingCost: TOKEN_BUCKET_DEFAULTS.retryCost,
};

describe('AWS SDK standard retry quota (token bucket)', () => {
  it('starts full at 500 and refuses with budget-exhausted', () => {
    const b = makeRetryBudget(standard);
    expect(b.gauge(0)).toBe(500);
    expect(b.refusal).toBe('budget-exhausted');
  });

  it('at 100% failure allows exactly 100 retries (500 / 5) from a full bucket, then none', () => {
    const b = makeRetryBudget(standard);
    const tally = runFailingOperations(b, { operations: 200, maxAttempts: 3 });
    expect(tally.retries).toBe(100);
    expect(b.gauge(0)).toBe(0);
    // The first 50 operations got both their retries, every later one none.
    expect(tally.refused).toBe(150);
    expect(b.allowRetry(0, Outcome.S503)).toBe(false);
  });

  it('charges 10 for a retry after a timeout: 50 retries', () => {
    const tally = runFailingOperations(makeRetryBudget(standard), { operations: 100, maxAttempts: 3, outcome: Outcome.TIMEOUT });
    expect(tally.retries).toBe(50);
  });

  it('needs the whole cost: 9 tokens allow a 503 retry (5) but not a timeout retry (10)', () => {
    const b = makeRetryBudget({ ...standard, capacity: 9 });
    expect(b.allowRetry(0, Outcome.TIMEOUT)).toBe(false);
    expect(b.allowRetry(0, Outcome.S503)).toBe(true);
  });

  it('a first-try success refunds 1, never above the capacity', () => {
    const b = makeRetryBudget(standard);
    b.onOutcome(0, Outcome.SUCCESS, false, false);
    expect(b.gauge(0)).toBe(500);
    b.onRetryScheduled(0, Outcome.S503);
    expect(b.gauge(0)).toBe(495);
    b.onOutcome(0, Outcome.SUCCESS, false, false);
    expect(b.gauge(0)).toBe(496);
  });

  it('a success after retries refunds what the last retry cost', () => {
    const b = makeRetryBudget(standard);
    b.onRetryScheduled(0, Outcome.S503);
    b.onRetryScheduled(0, Outcome.TIMEOUT);
    expect(b.gauge(0)).toBe(485);
    b.onOutcome(0, Outcome.SUCCESS, true, false);
    expect(b.gauge(0)).toBe(495);
    b.onRetryScheduled(0, Outcome.S503);
    b.onOutcome(0, Outcome.SUCCESS, true, false);
    expect(b.gauge(0)).toBe(495);
  });

  it('failures refund nothing', () => {
    const b = makeRetryBudget(standard);
    b.onRetryScheduled(0, Outcome.S503);
    b.onOutcome(0, Outcome.S503, true, true);
    b.onOutcome(0, Outcome.S400, false, false);
    expect(b.gauge(0)).toBe(495);
  });

  it('the JS SDK costs: 10 after a 500/503 (TRANSIENT), 5 after a 429', () => {
    const b = makeRetryBudget({ ...standard, serverErrorCost: 10, throttlingCost: 5 });
    b.onRetryScheduled(0, Outcome.S500);
    b.onRetryScheduled(0, Outcome.S429);
    expect(b.gauge(0)).toBe(485);
  });

  it('the 2026 values: 14 per retry (35 from a full bucket), 5 after a throttling error', () => {
    const b = makeRetryBudget({ kind: 'token-bucket', ...TOKEN_BUCKET_2026 });
    const tally = runFailingOperations(b, { operations: 100, maxAttempts: 2 });
    expect(tally.retries).toBe(35);
    expect(b.gauge(0)).toBe(10);
    expect(b.allowRetry(0, Outcome.S503)).toBe(false);
    expect(b.allowRetry(0, Outcome.S429)).toBe(true);
  });
});
