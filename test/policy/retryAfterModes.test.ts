import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../../src/policy/backoff.js';
import { DEFAULT_RETRY_ON } from '../../src/policy/classify.js';
import { compilePolicy } from '../../src/policy/decision.js';
import {
  CONTINUE,
  effectiveDeadlineAtMs,
  isHedgeNonFatal,
  judgeOutcome,
  planRetry,
  retryableForBudgets,
  RetryPlan,
  type PlanContext,
} from '../../src/policy/retrySteps.js';
import { GiveUp, Outcome } from '../../src/policy/outcome.js';
import type { PolicySpec } from '../../src/policy/types.js';

const policy = (over: Partial<PolicySpec> = {}): PolicySpec => ({
  maxAttempts: 5,
  deadlineMode: 'propagate',
  backoff: { kind: 'constant', baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0 },
  tickMs: 0,
  retryOn: [...DEFAULT_RETRY_ON],
  idempotency: 'http',
  retryAfter: 'honor',
  ...over,
});

/** The delay planned for retry 1 at t = 0 without a deadline, for a server hint. */
function delayFor(retryAfter: PolicySpec['retryAfter'], hintMs: number): number {
  return planRetry(compilePolicy(policy({ retryAfter })), 1, 100, hintMs, 0, Infinity, 0, new RetryPlan()).delayMs;
}

describe('Retry-After modes', () => {
  it('ignore: the backoff alone', () => {
    expect(delayFor('ignore', 3000)).toBe(100);
  });
  it('honor: never earlier than the hint, max(hint, backoff)', () => {
    expect(delayFor('honor', 3000)).toBe(3000);
    expect(delayFor('honor', 50)).toBe(100);
  });
  it('honor-plus-jitter: hint + backoff', () => {
    expect(delayFor('honor-plus-jitter', 3000)).toBe(3100);
  });
  it('replace: the hint instead of the backoff, even when shorter', () => {
    expect(delayFor('replace', 3000)).toBe(3000);
    expect(delayFor('replace', 20)).toBe(20);
    expect(delayFor('replace', NaN)).toBe(100);
  });
  it('clamp (botocore 2.1): the hint within [backoff, backoff + 5 s]', () => {
    expect(delayFor('clamp', 3000)).toBe(3000);
    expect(delayFor('clamp', 50)).toBe(100);
    expect(delayFor('clamp', 60_000)).toBe(5100);
  });
  it('treats a negative hint as absent outside pushback mode', () => {
    expect(delayFor('honor', -1)).toBe(100);
    expect(judgeOutcome(compilePolicy(policy()), 1, Outcome.S503, true, 0, Infinity, -1)).toBe(CONTINUE);
  });
});

describe('gRPC pushback', () => {
  const p = compilePolicy(policy({ retryAfter: 'pushback', backoff: { kind: 'exponential', baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0 } }));

  it('a hint n >= 0 waits exactly n, shorter or longer than the backoff, and resets the backoff', () => {
    const plan = planRetry(p, 3, 100, 50, 0, Infinity, 0, new RetryPlan());
    expect(plan.backoffMs).toBe(400);
    expect(plan.delayMs).toBe(50);
    expect(plan.resetBackoff).toBe(true);
    expect(planRetry(p, 1, 100, 700, 0, Infinity, 0, new RetryPlan()).delayMs).toBe(700);
  });

  it('after the reset the next backoff is that of retry 1 again (the caller counts retries from the reset)', () => {
    // Retries 1 and 2 back off 100 and 200 ms; retry 3 is pushed back; retry 4 counts as retry 1.
    const plan = new RetryPlan();
    let retriesBeforeReset = 0;
    const hints = [NaN, NaN, 1000, NaN];
    const delays = hints.map((hint, i) => {
      const retry = i + 1;
      planRetry(p, retry - retriesBeforeReset, 100, hint, 0, Infinity, 0, plan);
      if (plan.resetBackoff) retriesBeforeReset = retry;
      return plan.delayMs;
    });
    expect(delays).toEqual([100, 200, 1000, 100]);
  });

  it('a negative hint means do not retry: not-retryable, and it counts as a failure for throttling', () => {
    expect(judgeOutcome(p, 1, Outcome.S503, true, 0, Infinity, -1)).toBe(GiveUp.NOT_RETRYABLE);
    expect(judgeOutcome(p, 1, Outcome.S503, true, 0, Infinity, 0)).toBe(CONTINUE);
    expect(retryableForBudgets(p, Outcome.S400, true, -1)).toBe(true);
    expect(retryableForBudgets(p, Outcome.S400, true, NaN)).toBe(false);
    expect(retryableForBudgets(p, Outcome.S503, true, NaN)).toBe(true);
    expect(retryableForBudgets(p, Outcome.SUCCESS, true, -1)).toBe(false);
  });

  it('resets the decorrelated state too', () => {
    const d = compilePolicy(policy({ retryAfter: 'pushback', backoff: { kind: 'decorrelated-jitter', baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0 } }));
    expect(planRetry(d, 2, 900, 10, 0, Infinity, 0.5, new RetryPlan()).nextPrevSleepMs).toBe(100);
    expect(planRetry(d, 2, 900, NaN, 0, Infinity, 0.5, new RetryPlan()).nextPrevSleepMs).toBe(1400);
  });
});

describe('throttling base, max elapsed time, total timeout, hedging', () => {
  it("uses the backoff's throttledBaseMs when the retry follows a 429", () => {
    const p = compilePolicy(policy({ backoff: { kind: 'aws-sdk-js', baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0, throttledBaseMs: 500 } }));
    const ctx: PlanContext = { outcome: Outcome.S429, callStartMs: NaN };
    expect(planRetry(p, 1, 100, NaN, 0, Infinity, 0.5, new RetryPlan(), ctx).backoffMs).toBe(250);
    ctx.outcome = Outcome.S503;
    expect(planRetry(p, 1, 100, NaN, 0, Infinity, 0.5, new RetryPlan(), ctx).backoffMs).toBe(50);
  });

  it('maxElapsedMs: no retry whose wake-up falls after the call start + maxElapsedMs', () => {
    const p = compilePolicy(policy({ maxElapsedMs: 1000 }));
    const ctx: PlanContext = { outcome: Outcome.S503, callStartMs: 0 };
    expect(planRetry(p, 1, 100, NaN, 900, Infinity, 0, new RetryPlan(), ctx).giveUp).toBe(CONTINUE);
    expect(planRetry(p, 1, 100, NaN, 901, Infinity, 0, new RetryPlan(), ctx).giveUp).toBe(GiveUp.WAIT_EXCEEDS_DEADLINE);
    // Without the call start it is not enforced.
    expect(planRetry(p, 1, 100, NaN, 901, Infinity, 0, new RetryPlan()).giveUp).toBe(CONTINUE);
  });

  it('totalTimeoutMs: the layer works to min(incoming deadline, arrival + totalTimeoutMs)', () => {
    const p = compilePolicy(policy({ totalTimeoutMs: 15_000 }));
    expect(effectiveDeadlineAtMs(p, Infinity, 100)).toBe(15_100);
    expect(effectiveDeadlineAtMs(p, 5000, 100)).toBe(5000);
    expect(effectiveDeadlineAtMs(p, Infinity)).toBe(Infinity);
    const none = compilePolicy(policy({ totalTimeoutMs: 15_000, deadlineMode: 'none' }));
    expect(effectiveDeadlineAtMs(none, 5000, 100)).toBe(15_100);
  });

  it('hedging: the non-fatal classes send the next hedge, others end the call', () => {
    const p = compilePolicy(policy({ maxAttempts: 1, hedging: { maxAttempts: 3, hedgingDelayMs: 100, nonFatal: ['timeout', '500', '503'] } }));
    expect(isHedgeNonFatal(p, Outcome.S503)).toBe(true);
    expect(isHedgeNonFatal(p, Outcome.TIMEOUT)).toBe(true);
    expect(isHedgeNonFatal(p, Outcome.S400)).toBe(false);
    expect(isHedgeNonFatal(p, Outcome.SUCCESS)).toBe(false);
    expect(isHedgeNonFatal(compilePolicy(policy()), Outcome.S503)).toBe(false);
  });

  it('keeps the existing kinds exactly: planRetry matches backoffDelayMs for them', () => {
    const b = { kind: 'equal-jitter', baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0 } as const;
    expect(planRetry(compilePolicy(policy({ backoff: b })), 3, 100, NaN, 0, Infinity, 0.5, new RetryPlan()).backoffMs).toBe(
      backoffDelayMs(b, 3, 100, 0.5),
    );
    expect(backoffDelayMs(b, 3, 100, 0.5)).toBe(300);
  });
});
