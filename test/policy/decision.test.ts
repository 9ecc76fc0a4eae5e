import { describe, expect, it } from 'vitest';
import { isIdempotent, isRetryable, retryOnMask, DEFAULT_RETRY_ON } from '../../src/policy/classify.js';
import { compilePolicy } from '../../src/policy/decision.js';
import { attemptTimeoutMs, CONTINUE, judgeOutcome, planRetry, RetryPlan } from '../../src/policy/retrySteps.js';
import { Next, RetryLoop, RetryStep } from '../../src/policy/retryLoop.js';
import { GiveUp, Outcome } from '../../src/policy/outcome.js';
import type { PolicySpec } from '../../src/policy/types.js';

const policy = (over: Partial<PolicySpec> = {}): PolicySpec => ({
  maxAttempts: 3,
  deadlineMode: 'propagate',
  backoff: { kind: 'full-jitter', baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0 },
  tickMs: 0,
  retryOn: [...DEFAULT_RETRY_ON],
  idempotency: 'http',
  retryAfter: 'honor',
  ...over,
});

describe('classification', () => {
  const mask = retryOnMask(DEFAULT_RETRY_ON);
  it('retries timeouts and 5xx only for idempotent operations', () => {
    expect(isRetryable(Outcome.TIMEOUT, true, mask)).toBe(true);
    expect(isRetryable(Outcome.TIMEOUT, false, mask)).toBe(false);
    expect(isRetryable(Outcome.S503, false, mask)).toBe(false);
    expect(isRetryable(Outcome.S500, true, mask)).toBe(true);
  });
  it('retries 429 and write conflicts for every method, never 400/404 by default', () => {
    expect(isRetryable(Outcome.S429, false, mask)).toBe(true);
    expect(isRetryable(Outcome.CONFLICT, false, mask)).toBe(true);
    expect(isRetryable(Outcome.S400, true, mask)).toBe(false);
    expect(isRetryable(Outcome.S404, true, mask)).toBe(false);
  });
  it('never retries "overloaded; don\'t retry", and local refusals only when listed', () => {
    expect(isRetryable(Outcome.OVERLOADED, true, 0xffff)).toBe(false);
    expect(isRetryable(Outcome.LOCAL_THROTTLED, true, mask)).toBe(false);
    expect(isRetryable(Outcome.LOCAL_THROTTLED, true, retryOnMask(['throttled']))).toBe(true);
  });
  it('treats POST as non-idempotent by HTTP semantics, overridable', () => {
    expect(['GET', 'HEAD', 'PUT', 'DELETE', 'POST'].map((m) => isIdempotent(m as 'GET', 'http'))).toEqual([true, true, true, true, false]);
    expect(isIdempotent('POST', 'always')).toBe(true);
    expect(isIdempotent('GET', 'never')).toBe(false);
  });
});

describe('attempt timeout', () => {
  it('propagate: min(per-attempt timeout, remaining deadline)', () => {
    const p = compilePolicy(policy({ perAttemptTimeoutMs: 300 }));
    expect(attemptTimeoutMs(p, 0, 1000)).toBe(300);
    expect(attemptTimeoutMs(p, 800, 1000)).toBe(200);
  });
  it('fresh: the full per-attempt timeout whatever remains', () => {
    const p = compilePolicy(policy({ perAttemptTimeoutMs: 300, deadlineMode: 'fresh' }));
    expect(attemptTimeoutMs(p, 800, 1000)).toBe(300);
  });
  it('no per-attempt timeout: the remaining deadline, unbounded without one', () => {
    const p = compilePolicy(policy());
    expect(attemptTimeoutMs(p, 250, 1000)).toBe(750);
    expect(attemptTimeoutMs(p, 250, Infinity)).toBe(Infinity);
  });
});

describe('the retry decision, in order', () => {
  const p = compilePolicy(policy());
  it('1. a deadline passed wins over everything, success included', () => {
    expect(judgeOutcome(p, 1, Outcome.SUCCESS, true, 1000, 1000)).toBe(GiveUp.DEADLINE);
  });
  it('2. success', () => {
    expect(judgeOutcome(p, 1, Outcome.SUCCESS, true, 999, 1000)).toBe(GiveUp.SUCCESS);
  });
  it('3. not retryable before the attempt cap', () => {
    expect(judgeOutcome(p, 3, Outcome.S400, true, 0, Infinity)).toBe(GiveUp.NOT_RETRYABLE);
  });
  it('4. the attempt cap', () => {
    expect(judgeOutcome(p, 3, Outcome.S503, true, 0, Infinity)).toBe(GiveUp.ATTEMPT_LIMIT);
    expect(judgeOutcome(p, 2, Outcome.S503, true, 0, Infinity)).toBe(CONTINUE);
  });
  it('"unlimited" never hits the cap', () => {
    expect(judgeOutcome(compilePolicy(policy({ maxAttempts: 'unlimited' })), 1e9, Outcome.S503, true, 0, Infinity)).toBe(CONTINUE);
  });
  it('a spent deadline stops before the first call', () => {
    const loop = new RetryLoop(compilePolicy(policy()));
    const step = new RetryStep();
    const draw = { uniform: (): number => 0.5 };
    expect(loop.beforeAttempt(0, Outcome.DEADLINE_EXCEEDED, 0, 0, null, draw, step)).toBe(Next.END);
    expect([step.reason, step.outcome]).toEqual([GiveUp.DEADLINE, Outcome.DEADLINE_EXCEEDED]);
    expect(loop.beforeAttempt(0, Outcome.DEADLINE_EXCEEDED, 0, 1, null, draw, step)).toBe(Next.SEND);
  });
});

describe('planning the wait', () => {
  it('honor: never earlier than Retry-After, max(hint, sample)', () => {
    const p = compilePolicy(policy());
    const out = planRetry(p, 1, 100, 2000, 0, Infinity, 0.5, new RetryPlan());
    expect([out.backoffMs, out.delayMs, out.waitMs]).toEqual([50, 2000, 2000]);
  });
  it('honor-plus-jitter: hint + sample', () => {
    const p = compilePolicy(policy({ retryAfter: 'honor-plus-jitter' }));
    expect(planRetry(p, 1, 100, 2000, 0, Infinity, 0.5, new RetryPlan()).waitMs).toBe(2050);
  });
  it('ignore: the sample alone', () => {
    const p = compilePolicy(policy({ retryAfter: 'ignore' }));
    expect(planRetry(p, 1, 100, 2000, 0, Infinity, 0.5, new RetryPlan()).waitMs).toBe(50);
  });
  it('rounds the wake-up up to the tick, counting from absolute time', () => {
    const p = compilePolicy(policy({ tickMs: 1000, backoff: { kind: 'constant', baseMs: 100, capMs: 100, multiplier: 2, exponentOffset: 0 } }));
    const out = planRetry(p, 1, 100, NaN, 1250, Infinity, 0, new RetryPlan());
    expect([out.wakeAtMs, out.waitMs]).toEqual([2000, 750]);
  });
  it('gives up rather than shorten a wait that does not fit in the deadline', () => {
    const p = compilePolicy(policy());
    const out = planRetry(p, 1, 100, 2000, 0, 1500, 0.5, new RetryPlan());
    expect(out.giveUp).toBe(GiveUp.WAIT_EXCEEDS_DEADLINE);
    expect(out.waitMs).toBe(2000);
    expect(planRetry(p, 1, 100, NaN, 0, 51, 0.5, new RetryPlan()).giveUp).toBe(CONTINUE);
    expect(planRetry(p, 1, 100, NaN, 0, 50, 0.5, new RetryPlan()).giveUp).toBe(GiveUp.WAIT_EXCEEDS_DEADLINE);
  });
});
