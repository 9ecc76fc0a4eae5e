import * as outcomeModule from '../outcome.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Outcome } = outcomeModule;

/**
 * Whether an attempt's outcome counts as a failure of the dependency for the breakers: anything
 * but a success or a client error (400, 404), which say nothing about the server's health.
 */
export function isDependencyFailure(outcome: number): boolean {
  return outcome !== Outcome.SUCCESS && outcome !== Outcome.S400 && outcome !== Outcome.S404;
}
