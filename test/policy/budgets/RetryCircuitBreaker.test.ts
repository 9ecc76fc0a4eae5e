import { describe, expect, it } from 'vitest';
import { BROOKER_BREAKER_DEFAULTS } from '../../../src/policy/budgets/BrookerBreaker.js';
import { makeRetryBudget, type RetryBudget } from '../../../src/policy/budgets/RetryBudget.js';
import { CIRCUIT_BREAKER_DEFAULTS } from '../../../src/policy/budgets/RetryCircuitBreaker.js';
import { Outcome } from '../../../src/policy/outcome.js';

function ended(b: RetryBudget, t: number, successes: number, failures: number, failure: number = Outcome.S503): void {
  for (let i = 0; i < successes; i++) {
    b.onAttempt(t, false);
    b.onOutcome(t, Outcome.SUCCESS, false, false);
  }
  for (let i = 0; i < failures; i++) {
    b.onAttempt(t, false);
    b.onOutcome(t, failure, false, true);
  }
}

describe('retry circuit breaker (sliding window)', () => {
  const breaker = () => makeRetryBudget({ kind: 'circuit-breaker', ...CIRCUIT_BREAKER_DEFAULTS });

  it('refuses with circuit-open', () => {
    expect(breaker().refusal).toBe('circuit-open');
  });

  it('stays closed below minRequests even at 100% failure, opens at 10', () => {
    const b = breaker();
    ended(b, 0, 0, 9);
    expect(b.allowRetry(0, Outcome.S503)).toBe(true);
    ended(b, 0, 0, 1);
    expect(b.allowRetry(0, Outcome.S503)).toBe(false);
    expect(b.gauge(0)).toBe(1);
  });

  it('opens only above the threshold: 10 failures in 100 keep it closed, 11 open it', () => {
    const b = breaker();
    ended(b, 0, 90, 10);
    expect(b.gauge(0)).toBe(0);
    ended(b, 0, 0, 1);
    expect(b.gauge(0)).toBe(1);
  });

  it('closes when the failures leave the window (10 s)', () => {
    const b = breaker();
    ended(b, 0, 0, 20);
    expect(b.allowRetry(9999, Outcome.S503)).toBe(false);
    expect(b.allowRetry(10_000, Outcome.S503)).toBe(true);
    expect(b.gauge(10_000)).toBe(0);
  });

  it('does not count client errors as failures', () => {
    const b = breaker();
    ended(b, 0, 0, 20, Outcome.S400);
    expect(b.gauge(0)).toBe(0);
  });
});

describe("Brooker's retry breaker (cumulative)", () => {
  const breaker = () => makeRetryBudget({ kind: 'brooker-breaker', ...BROOKER_BREAKER_DEFAULTS });

  it('opens when failed attempts / calls exceeds 10%, and never forgets', () => {
    const b = breaker();
    ended(b, 0, 90, 10);
    expect(b.allowRetry(0, Outcome.S503)).toBe(true);
    ended(b, 0, 0, 1);
    expect(b.allowRetry(0, Outcome.S503)).toBe(false);
    expect(b.allowRetry(1e9, Outcome.S503)).toBe(false);
    expect(b.refusal).toBe('circuit-open');
  });

  it('counts failed retries as failures but only first tries as calls', () => {
    const b = breaker();
    ended(b, 0, 100, 0);
    for (let i = 0; i < 11; i++) {
      b.onAttempt(0, true);
      b.onOutcome(0, Outcome.S503, true, true);
    }
    expect(b.gauge(0)).toBe(1);
  });

  it('closes again as successful calls dilute the failures', () => {
    const b = breaker();
    ended(b, 0, 0, 5);
    expect(b.gauge(0)).toBe(1);
    ended(b, 5000, 45, 0);
    expect(b.gauge(5000)).toBe(0);
  });
});
