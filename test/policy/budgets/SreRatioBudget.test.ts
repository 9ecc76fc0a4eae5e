import { describe, expect, it } from 'vitest';
import { makeRetryBudget } from '../../../src/policy/budgets/RetryBudget.js';
import { SRE_RATIO_DEFAULTS } from '../../../src/policy/budgets/SreRatioBudget.js';
import { runFailingOperations } from './drive.js';

const budget = (over: { ratio?: number; windowMs?: number } = {}) => makeRetryBudget({ kind: 'sre-ratio', ...SRE_RATIO_DEFAULTS, ...over });

describe('SRE ratio budget (retries / first tries < 10%)', () => {
  it('refuses with budget-exhausted', () => {
    expect(budget().refusal).toBe('budget-exhausted');
  });

  it('at 100% failure with 3 attempts allows exactly one retry per ten first tries: amplification 1.1, not 3', () => {
    const b = budget();
    const tally = runFailingOperations(b, { operations: 1000, maxAttempts: 3, spacingMs: 10 });
    expect(tally.retries).toBe(100);
    expect((tally.firstTries + tally.retries) / tally.firstTries).toBe(1.1);
    expect(b.gauge(9990)).toBe(0.1);
  });

  it('a 20% ratio allows twice as many retries', () => {
    const tally = runFailingOperations(budget({ ratio: 0.2 }), { operations: 1000, maxAttempts: 3, spacingMs: 10 });
    expect(tally.retries).toBe(200);
  });

  it('allows no retry without a first try in its window, and forgets first tries that left it', () => {
    const b = budget();
    expect(b.allowRetry(0, 0)).toBe(false);
    for (let i = 0; i < 50; i++) b.onAttempt(0, false);
    expect(b.allowRetry(0, 0)).toBe(true);
    expect(b.allowRetry(59_999, 0)).toBe(true);
    expect(b.allowRetry(60_000, 0)).toBe(false);
  });

  it('counts retries when scheduled, and asking does not charge', () => {
    const b = budget();
    for (let i = 0; i < 10; i++) b.onAttempt(0, false);
    expect(b.allowRetry(0, 0)).toBe(true);
    expect(b.allowRetry(0, 0)).toBe(true);
    b.onRetryScheduled(0, 0);
    expect(b.gauge(0)).toBe(0.1);
    expect(b.allowRetry(0, 0)).toBe(false);
  });
});
