import { Outcome } from '../../policy/outcome.js';

/**
 * What a failed handler answers its caller, by the outcome of the call that decided it (README,
 * "Service graphs"): a downstream timeout or 504 (a deadline exceeded below) -> timeout; 503 and 429
 * -> 503; 500, 400 and 404 (and a write conflict) -> 500; local refusals (throttled, circuit-open,
 * budget-exhausted, bulkhead-full) -> 503; "overloaded; don't retry" is passed on. Indexed by outcome code; written once.
 */
const UPWARD: readonly number[] = (() => {
  const up: number[] = [];
  up[Outcome.SUCCESS] = Outcome.SUCCESS;
  up[Outcome.TIMEOUT] = Outcome.TIMEOUT;
  up[Outcome.DEADLINE_EXCEEDED] = Outcome.TIMEOUT;
  up[Outcome.S503] = Outcome.S503;
  up[Outcome.S429] = Outcome.S503;
  up[Outcome.S500] = Outcome.S500;
  up[Outcome.S400] = Outcome.S500;
  up[Outcome.S404] = Outcome.S500;
  up[Outcome.CONFLICT] = Outcome.S500;
  up[Outcome.OVERLOADED] = Outcome.OVERLOADED;
  up[Outcome.LOCAL_THROTTLED] = Outcome.S503;
  up[Outcome.LOCAL_CIRCUIT_OPEN] = Outcome.S503;
  up[Outcome.LOCAL_BUDGET_EXHAUSTED] = Outcome.S503;
  up[Outcome.LOCAL_BULKHEAD_FULL] = Outcome.S503;
  return up;
})();

/** The outcome a handler answers upward when the call that decided it ended with `outcome`. */
export function upwardOutcome(outcome: number): number {
  const up = UPWARD[outcome];
  if (up === undefined) throw new Error(`internal: no upward mapping of outcome ${outcome}`);
  return up;
}
