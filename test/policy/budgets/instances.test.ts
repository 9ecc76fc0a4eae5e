import { describe, expect, it } from 'vitest';
import { BROOKER_BREAKER_DEFAULTS } from '../../../src/policy/budgets/BrookerBreaker.js';
import { BROOKER_TOKEN_BUCKET_DEFAULTS } from '../../../src/policy/budgets/BrookerTokenBucket.js';
import { makeRetryBudget, type BudgetSpec } from '../../../src/policy/budgets/RetryBudget.js';
import { SRE_RATIO_DEFAULTS } from '../../../src/policy/budgets/SreRatioBudget.js';
import { TOKEN_BUCKET_DEFAULTS } from '../../../src/policy/budgets/TokenBucketQuota.js';
import { runFailingOperations, type Tally } from './drive.js';

/** Retries of 1000 failing operations (3 attempts) spread over `instances` budgets, round robin. */
function retries(spec: BudgetSpec, instances: number): number {
  const budgets = Array.from({ length: instances }, () => makeRetryBudget(spec));
  const tally: Tally = { firstTries: 0, retries: 0, refused: 0 };
  for (let i = 0; i < 1000; i++) runFailingOperations(budgets[i % instances]!, { operations: 1, maxAttempts: 3, startMs: i, tally });
  return tally.retries;
}

describe('one budget for all clients versus one per client (Brooker 2022: many small clients)', () => {
  it('the ratio budget bounds a shared instance to 1.1x, and a lone client with one request to no retry', () => {
    const spec: BudgetSpec = { kind: 'sre-ratio', ...SRE_RATIO_DEFAULTS };
    expect(retries(spec, 1)).toBe(100);
    expect(retries(spec, 1000)).toBe(0);
  });

  it('the token bucket drifts towards N retries with many small clients', () => {
    const spec: BudgetSpec = { kind: 'brooker-token-bucket', ...BROOKER_TOKEN_BUCKET_DEFAULTS };
    expect(retries(spec, 1)).toBeLessThan(110);
    expect(retries(spec, 1000)).toBe(2000);
    const quota: BudgetSpec = { kind: 'token-bucket', ...TOKEN_BUCKET_DEFAULTS, serverErrorCost: 5, throttlingCost: 5 };
    expect(retries(quota, 1)).toBe(100);
    expect(retries(quota, 1000)).toBe(2000);
  });

  it('the cumulative breaker drifts towards no retries either way at 100% failure', () => {
    const spec: BudgetSpec = { kind: 'brooker-breaker', ...BROOKER_BREAKER_DEFAULTS };
    expect(retries(spec, 1)).toBe(0);
    expect(retries(spec, 1000)).toBe(0);
  });
});
