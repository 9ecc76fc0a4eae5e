import type { RetryBudget } from '../../../src/policy/budgets/RetryBudget.js';
import { Outcome } from '../../../src/policy/outcome.js';

/** What a scripted run of operations did. */
export interface Tally {
  firstTries: number;
  retries: number;
  /** Retries the budget refused (step 5). */
  refused: number;
}

/**
 * Drives a budget as a layer would, for `operations` operations started `spacingMs` apart (each
 * completing at its start time), every attempt ending with `outcome` (retryable): onAttempt, then
 * onOutcome, then, while attempts remain, allowRetry and onRetryScheduled before the retry is sent.
 */
export function runFailingOperations(
  budget: RetryBudget,
  opts: { operations: number; maxAttempts: number; outcome?: number; spacingMs?: number; startMs?: number; tally?: Tally },
): Tally {
  const outcome = opts.outcome ?? Outcome.S503;
  const tally = opts.tally ?? { firstTries: 0, retries: 0, refused: 0 };
  for (let i = 0; i < opts.operations; i++) {
    const t = (opts.startMs ?? 0) + i * (opts.spacingMs ?? 0);
    budget.onAttempt(t, false);
    tally.firstTries++;
    budget.onOutcome(t, outcome, false, true);
    for (let attempt = 1; attempt < opts.maxAttempts; attempt++) {
      if (!budget.allowRetry(t, outcome)) {
        tally.refused++;
        break;
      }
      budget.onRetryScheduled(t, outcome);
      budget.onAttempt(t, true);
      tally.retries++;
      budget.onOutcome(t, outcome, true, true);
    }
  }
  return tally;
}
