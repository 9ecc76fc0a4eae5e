import { Outcome } from '../outcome.js';

/**
 * Whether an attempt's outcome counts as a failure of the dependency for the breakers: anything
 * but a success or a client error (400, 404), which say nothing about the server's health.
 */
export function isDependencyFailure(outcome: number): boolean {
  return outcome !== Outcome.SUCCESS && outcome !== Outcome.S400 && outcome !== Outcome.S404;
}
