import { describe, expect, it } from 'vitest';
import { FINAGLE_DEFAULTS, type FinagleRetryBudgetSpec } from '../../../src/policy/budgets/FinagleRetryBudget.js';
import { makeRetryBudget } from '../../../src/policy/budgets/RetryBudget.js';
import { runFailingOperations } from './drive.js';

const finagle = (over: Partial<FinagleRetryBudgetSpec> = {}) => makeRetryBudget({ kind: 'finagle', ...FINAGLE_DEFAULTS, ...over });

/** Retries granted in a row at `t` until the budget refuses one. */
function drain(b: ReturnType<typeof finagle>, t: number): number {
  let n = 0;
  while (b.allowRetry(t, 0) && n < 100_000) {
    b.onRetryScheduled(t, 0);
    n++;
  }
  return n;
}

describe('Finagle RetryBudget()', () => {
  it('has a reserve of minRetriesPerSec x ttl = 100 retries before any request', () => {
    const b = finagle();
    expect(b.gauge(0)).toBe(100);
    expect(drain(b, 0)).toBe(100);
    expect(b.gauge(0)).toBe(0);
  });

  it('keeps retries within 0.2 x requests + the reserve: 1000 requests at 100% failure get exactly 300 retries', () => {
    const b = finagle();
    const tally = runFailingOperations(b, { operations: 1000, maxAttempts: 3, spacingMs: 5 });
    expect(tally.retries).toBe(0.2 * 1000 + 100);
  });

  it('each request deposits 1000 and each retry withdraws 5000: five requests buy one retry', () => {
    const b = finagle();
    drain(b, 0);
    for (let i = 0; i < 4; i++) b.onAttempt(0, false);
    expect(b.allowRetry(0, 0)).toBe(false);
    b.onAttempt(0, false);
    expect(drain(b, 0)).toBe(1);
  });

  it('retries do not deposit', () => {
    const b = finagle();
    drain(b, 0);
    for (let i = 0; i < 10; i++) b.onAttempt(0, true);
    expect(b.allowRetry(0, 0)).toBe(false);
  });

  it('deposits and withdrawals expire after the ttl (10 slices of 1 s)', () => {
    const b = finagle();
    for (let i = 0; i < 1000; i++) b.onAttempt(0, false);
    expect(b.gauge(0)).toBe(300);
    expect(drain(b, 0)).toBe(300);
    // 9 s later the slice written at t = 0 is still in the window.
    expect(b.gauge(9000)).toBe(0);
    // After the ttl both the deposits and the withdrawals are gone: the reserve is back.
    expect(b.gauge(20_000)).toBe(100);
  });

  it('with percentCanRetry 0 and no reserve it never allows a retry', () => {
    const b = finagle({ minRetriesPerSec: 0, percentCanRetry: 0 });
    for (let i = 0; i < 100; i++) b.onAttempt(0, false);
    expect(b.allowRetry(0, 0)).toBe(false);
  });
});
