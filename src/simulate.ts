import { parseScenario } from './experiment/index.js';
import { Model } from './model/Model.js';
import type { SimulationResults } from './model/results.js';
import type { TraceEvent } from './model/trace.js';

/** Options of {@link simulate}. */
export interface SimulateOptions {
  /** Master seed (default 1): the same seed gives identical results. */
  seed?: number;
  /** Receive the timeline of every call, attempt, outcome, wait and give-up (slow; for small runs). */
  trace?: (e: TraceEvent) => void;
  /** In a service graph, `trace` also receives each handler's start, steps, join decisions and answer, and the layers of every call (their events carry their `site`); without it, the workload's stack only. */
  traceGraph?: boolean;
}

/**
 * Run one scenario and return the same results object as `retrystorm run`. The scenario is the
 * `scenario` object of an experiment file (defaults filled in, validated field by field); an
 * invalid one throws a ValidationError listing every problem with its dotted path.
 */
export function simulate(scenario: unknown, options: SimulateOptions = {}): SimulationResults {
  const resolved = parseScenario(scenario, ['scenario']);
  return new Model(resolved, { seed: options.seed ?? 1, ...(options.trace ? { trace: options.trace } : {}), ...(options.traceGraph === true ? { traceGraph: true } : {}) }).run();
}
