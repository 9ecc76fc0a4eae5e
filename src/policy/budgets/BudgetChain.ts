import * as outcomeModule from '../outcome.js';
import { makeRetryBudget, type BudgetSpec, type RetryBudget } from './RetryBudget.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { GiveUp } = outcomeModule;

/** No refusal: the retry decision goes on (the same value as `CONTINUE` in decision.ts). */
const NO_REFUSAL = -1;

/**
 * The budgets of one layer instance asked together (a policy's `budget` list): every event goes to
 * each of them; step 5 refuses as soon as one of them refuses, with that one's reason, so a retry
 * is charged (onRetryScheduled) to all of them only when all allowed it.
 */
export class BudgetChain {
  constructor(readonly budgets: readonly RetryBudget[]) {}

  onAttempt(nowMs: number, isRetry: boolean): void {
    for (const b of this.budgets) b.onAttempt(nowMs, isRetry);
  }

  onOutcome(nowMs: number, outcome: number, wasRetry: boolean, retryable: boolean): void {
    for (const b of this.budgets) b.onOutcome(nowMs, outcome, wasRetry, retryable);
  }

  /** Step 5: -1 when every budget allows the retry, else the give-up code of the first that refuses. */
  refuse(nowMs: number, outcome: number): number {
    for (const b of this.budgets) {
      if (!b.allowRetry(nowMs, outcome)) return b.refusal === 'circuit-open' ? GiveUp.CIRCUIT_OPEN : GiveUp.BUDGET_EXHAUSTED;
    }
    return NO_REFUSAL;
  }

  onRetryScheduled(nowMs: number, outcome: number): void {
    for (const b of this.budgets) b.onRetryScheduled(nowMs, outcome);
  }
}

/** A chain of fresh budgets (their own state) for one layer instance; an empty chain allows everything. */
export function makeBudgetChain(specs: readonly BudgetSpec[] | undefined): BudgetChain {
  return new BudgetChain((specs ?? []).map(makeRetryBudget));
}
