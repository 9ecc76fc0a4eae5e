import { describe, expect, it } from 'vitest';
import { makeBudgetChain } from '../../../src/policy/budgets/BudgetChain.js';
import { GiveUp, Outcome } from '../../../src/policy/outcome.js';

describe('BudgetChain', () => {
  it('allows everything when empty', () => {
    expect(makeBudgetChain(undefined).refuse(0, Outcome.S503)).toBe(-1);
  });

  it('refuses with the reason of the first budget that refuses, and charges all only when all allow', () => {
    const chain = makeBudgetChain([
      { kind: 'server-wide', retriesPerMinute: 2 },
      { kind: 'circuit-breaker', threshold: 0.1, windowMs: 10_000, minRequests: 1 },
    ]);
    expect(chain.refuse(0, Outcome.S503)).toBe(-1);
    chain.onOutcome(0, Outcome.S503, false, true);
    expect(chain.refuse(0, Outcome.S503)).toBe(GiveUp.CIRCUIT_OPEN);
    chain.onRetryScheduled(0, Outcome.S503);
    chain.onRetryScheduled(0, Outcome.S503);
    expect(chain.refuse(0, Outcome.S503)).toBe(GiveUp.BUDGET_EXHAUSTED);
    expect(chain.budgets.map((b) => b.gauge(0))).toEqual([0, 1]);
  });
});
