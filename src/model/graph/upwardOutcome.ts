import type { OutcomeCode } from '../../policy/outcome.js';
import * as outcomeModule from '../../policy/outcome.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Outcome } = outcomeModule;

/**
 * What a failed handler answers its caller, by the outcome of the call that decided it (docs/experiments.md,
 * "Service graphs"): a downstream timeout or 504 (a deadline exceeded below) -> timeout; 503, 502,
 * 429, resets, connection failures, refused streams, UNAVAILABLE and RESOURCE_EXHAUSTED -> 503; 500,
 * 400 and 404 (and a write conflict), CANCELLED, ABORTED, INTERNAL and UNKNOWN -> 500; local
 * refusals (throttled, circuit-open, budget-exhausted, bulkhead-full) -> 503; "overloaded; don't retry" is passed on. A record over every outcome's
 * name: an outcome added to {@link Outcome} without its entry here does not compile.
 */
const UPWARD_BY_NAME: Record<keyof typeof Outcome, OutcomeCode> = {
  SUCCESS: Outcome.SUCCESS,
  TIMEOUT: Outcome.TIMEOUT,
  DEADLINE_EXCEEDED: Outcome.TIMEOUT,
  S503: Outcome.S503,
  S429: Outcome.S503,
  S500: Outcome.S500,
  S400: Outcome.S500,
  S404: Outcome.S500,
  CONFLICT: Outcome.S500,
  OVERLOADED: Outcome.OVERLOADED,
  LOCAL_THROTTLED: Outcome.S503,
  LOCAL_CIRCUIT_OPEN: Outcome.S503,
  LOCAL_BUDGET_EXHAUSTED: Outcome.S503,
  LOCAL_BULKHEAD_FULL: Outcome.S503,
  S502: Outcome.S503,
  S504: Outcome.TIMEOUT,
  RESET: Outcome.S503,
  CONNECT_FAILURE: Outcome.S503,
  REFUSED_STREAM: Outcome.S503,
  CANCELLED: Outcome.S500,
  UNAVAILABLE: Outcome.S503,
  RESOURCE_EXHAUSTED: Outcome.S503,
  ABORTED: Outcome.S500,
  INTERNAL: Outcome.S500,
  UNKNOWN: Outcome.S500,
};

/** {@link UPWARD_BY_NAME} indexed by outcome code, for the run's hot path. */
const UPWARD: readonly OutcomeCode[] = (() => {
  const up: OutcomeCode[] = [];
  for (const name of Object.keys(Outcome) as Array<keyof typeof Outcome>) up[Outcome[name]] = UPWARD_BY_NAME[name];
  return up;
})();

/** The outcome a handler answers upward when the call that decided it ended with `outcome`. */
export function upwardOutcome(outcome: number): OutcomeCode {
  return UPWARD[outcome]!;
}
