import { describe, expect, it } from 'vitest';
import { ENVOY_MAX_RETRIES_DEFAULTS } from '../../../src/policy/budgets/EnvoyMaxRetries.js';
import { ENVOY_RETRY_BUDGET_DEFAULTS } from '../../../src/policy/budgets/EnvoyRetryBudget.js';
import { makeRetryBudget, type RetryBudget } from '../../../src/policy/budgets/RetryBudget.js';
import { Outcome } from '../../../src/policy/outcome.js';

/** Starts retries (each left in flight) until the budget refuses one; returns how many started. */
function startRetries(b: RetryBudget, t = 0): number {
  let n = 0;
  while (n < 1000) {
    b.onAttempt(t, false);
    b.onOutcome(t, Outcome.S503, false, true);
    if (!b.allowRetry(t, Outcome.S503)) return n;
    b.onRetryScheduled(t, Outcome.S503);
    b.onAttempt(t, true);
    n++;
  }
  return n;
}

describe('Envoy retry budget', () => {
  const budget = () => makeRetryBudget({ kind: 'envoy-retry-budget', ...ENVOY_RETRY_BUDGET_DEFAULTS });

  it('allows min_retry_concurrency = 3 concurrent retries when few requests are active', () => {
    const b = budget();
    expect(startRetries(b)).toBe(3);
    expect(b.gauge(0)).toBe(3);
    expect(b.refusal).toBe('budget-exhausted');
  });

  it('allows 20% of active requests, retries in flight included: with 100 first tries in flight, 24 retries', () => {
    const b = budget();
    for (let i = 0; i < 100; i++) b.onAttempt(0, false);
    // With n retries in flight, 100 + n requests are active: the n-th retry needs n - 1 < trunc(0.2 (99 + n)).
    expect(startRetries(b)).toBe(24);
    expect(b.gauge(0)).toBe(24);
  });

  it('frees a place when a retry in flight ends', () => {
    const b = budget();
    startRetries(b);
    expect(b.allowRetry(0, Outcome.S503)).toBe(false);
    b.onOutcome(0, Outcome.S503, true, true);
    expect(b.allowRetry(0, Outcome.S503)).toBe(true);
  });
});

describe('Envoy max_retries circuit breaker', () => {
  it('allows at most 3 retries in flight whatever the load', () => {
    const b = makeRetryBudget({ kind: 'envoy-max-retries', ...ENVOY_MAX_RETRIES_DEFAULTS });
    for (let i = 0; i < 1000; i++) b.onAttempt(0, false);
    expect(startRetries(b)).toBe(3);
    b.onOutcome(0, Outcome.SUCCESS, true, false);
    expect(b.allowRetry(0, Outcome.S503)).toBe(true);
  });
});
