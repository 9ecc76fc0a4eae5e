import { describe, expect, it } from 'vitest';
import { makeRetryBudget } from '../../../src/policy/budgets/RetryBudget.js';
import { SERVER_WIDE_DEFAULTS } from '../../../src/policy/budgets/ServerWideBudget.js';
import { runFailingOperations } from './drive.js';

describe('server-wide retry budget (SRE ch. 22)', () => {
  it('allows 60 retries per sliding minute, then fails with budget-exhausted', () => {
    const b = makeRetryBudget({ kind: 'server-wide', ...SERVER_WIDE_DEFAULTS });
    const tally = runFailingOperations(b, { operations: 500, maxAttempts: 3, spacingMs: 100 });
    expect(tally.retries).toBe(60);
    expect(b.refusal).toBe('budget-exhausted');
    expect(b.gauge(49_900)).toBe(0);
  });

  it('allows retries again as the minute slides on', () => {
    const b = makeRetryBudget({ kind: 'server-wide', retriesPerMinute: 2 });
    b.onRetryScheduled(0, 0);
    b.onRetryScheduled(30_000, 0);
    expect(b.allowRetry(59_999, 0)).toBe(false);
    expect(b.allowRetry(60_000, 0)).toBe(true);
    expect(b.gauge(60_000)).toBe(1);
  });
});
