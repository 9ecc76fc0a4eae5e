import { describe, expect, it } from 'vitest';
import { GRPC_THROTTLE_DEFAULTS } from '../../../src/policy/budgets/GrpcRetryThrottle.js';
import { makeRetryBudget } from '../../../src/policy/budgets/RetryBudget.js';
import { Outcome } from '../../../src/policy/outcome.js';

const throttle = () => makeRetryBudget({ kind: 'grpc-throttle', ...GRPC_THROTTLE_DEFAULTS });

/** Failures in a row until the throttle refuses a retry. */
function failuresUntilRefused(b: ReturnType<typeof throttle>): number {
  for (let n = 1; n <= 100; n++) {
    b.onOutcome(0, Outcome.S503, n > 1, true);
    if (!b.allowRetry(0, Outcome.S503)) return n;
  }
  return Infinity;
}

describe('gRPC retry throttling (A6)', () => {
  it('starts at maxTokens and stops retries after maxTokens / 2 = 5 net failures', () => {
    const b = throttle();
    expect(b.gauge(0)).toBe(10);
    expect(failuresUntilRefused(b)).toBe(5);
    expect(b.gauge(0)).toBe(5);
    expect(b.refusal).toBe('budget-exhausted');
  });

  it('each success adds tokenRatio: ten successes buy one more failure', () => {
    const b = throttle();
    failuresUntilRefused(b);
    for (let i = 0; i < 10; i++) b.onOutcome(0, Outcome.SUCCESS, false, false);
    expect(b.gauge(0)).toBe(6);
    expect(b.allowRetry(0, Outcome.S503)).toBe(true);
    expect(failuresUntilRefused(b)).toBe(1);
  });

  it('never goes above maxTokens or below 0', () => {
    const b = throttle();
    for (let i = 0; i < 50; i++) b.onOutcome(0, Outcome.SUCCESS, false, false);
    expect(b.gauge(0)).toBe(10);
    for (let i = 0; i < 50; i++) b.onOutcome(0, Outcome.S503, false, true);
    expect(b.gauge(0)).toBe(0);
  });

  it('counts only failures that qualify (retryable or pushback saying do not retry)', () => {
    const b = throttle();
    for (let i = 0; i < 20; i++) b.onOutcome(0, Outcome.S400, false, false);
    expect(b.gauge(0)).toBe(10);
  });

  it('keeps tokens in exact thousandths: 0.1 added 30 times after 3 failures gives exactly 10', () => {
    const b = throttle();
    for (let i = 0; i < 3; i++) b.onOutcome(0, Outcome.S503, false, true);
    for (let i = 0; i < 30; i++) b.onOutcome(0, Outcome.SUCCESS, false, false);
    expect(b.gauge(0)).toBe(10);
  });
});
