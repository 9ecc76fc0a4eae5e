import type { SimulationResults } from '../model/results.js';
import { policyAsJson } from '../policy/schema/policyAsJson.js';
import { parseScenario } from '../experiment/index.js';
import { simulate } from '../simulate.js';
import { CheckInputError } from './CheckInputError.js';
import { expectedMultiple } from './expectedMultiple.js';
import type { CheckStack } from './loadStack.js';
import { goodputCap } from '../metrics/metricBounds.js';
import { boundedMetricStats, type MetricStats } from '../metrics/metricStats.js';
import { ANSWER_CLASSES, classAnswer, worstCase, type FailureClass } from './worstCase.js';

/** The standard storm of `check --simulate`. */
export interface StormOptions {
  failureClass?: FailureClass;
  /** The partial failure rate (default 0.1); a run at 100% failure always comes first. */
  failureRate?: number;
  /** Master seed (default 1); replication i runs with seed + i. */
  seed?: number;
  /** Runs per failure rate (default 5). */
  replications?: number;
  /** Open-loop arrivals per second (default 50). */
  ratePerSec?: number;
  /** How long operations arrive (default 10 s). */
  durationMs?: number;
  /** Clients the operations are spread over (default 100; clients map to layer instances by id). */
  clients?: number;
  /** Run at 100% failure before the partial rate (default true). */
  fullFailure?: boolean;
  /** Events per run at most (default 2 million): a stack that retries without end stops there, `truncated`. */
  maxEvents?: number;
}

/** The storm's numbers at one failure rate, beside the closed form. */
export interface StormRun {
  failureRate: number;
  /** Leaf calls per operation offered. */
  amplification: MetricStats;
  /**
   * Successful operations per second of the time demand was offered: the storm's `durationMs` of
   * arrivals, not the drain after it (the results' `goodputPerSec`, by the one rule of
   * src/model/results.ts `demandMs`), so 100% success reads as the arrival rate.
   */
  goodputPerSec: MetricStats;
  /** Fraction of operations that succeeded. */
  successFraction: MetricStats;
  /** Replications that stopped at a limit (horizon, event cap, in-flight cap) with operations unfinished. */
  truncated: number;
  /** Those replications by the limit that stopped them (src/model/results.ts `truncated`). */
  truncatedBy: Record<StormLimit, number>;
  /** Closed form at the same rate: without budgets, with their steady-state caps, and the worst case at 100%. */
  closedForm: { withoutBudgets: number; withBudgets: number; worstCase: number | null };
}

/** The limits that can stop a storm run before it drains. */
export type StormLimit = 'horizon' | 'event-cap' | 'in-flight-cap';
/** Every {@link StormLimit}, in the order a report names them. */
export const STORM_LIMITS: readonly StormLimit[] = ['horizon', 'event-cap', 'in-flight-cap'];

/** What `check --simulate` ran and measured. */
export interface StormReport {
  failureClass: FailureClass;
  ratePerSec: number;
  durationMs: number;
  clients: number;
  replications: number;
  seed: number;
  /** The limits of each run (src/model/scenario.ts), named when a run stopped at one. */
  limits: { horizonMs: number; maxEvents: number; maxInFlight: number };
  runs: StormRun[];
}

/** The standard storm's defaults: 50 operations per second for 10 s, spread over 100 clients. */
export const STORM_DEFAULTS = { ratePerSec: 50, durationMs: 10_000, clients: 100 } as const;

/** A failing leaf that never answers in time: its answer comes after 50 min (the horizon is 1 h). */
const HANG_MS = 3_000_000;
/** Default bound on the events of one storm run. */
const STORM_MAX_EVENTS = 2_000_000;
/** The classes the storm can fail with: every answer class but the write conflict (the OCC leaf's). */
const SIMULABLE: readonly FailureClass[] = ANSWER_CLASSES.filter((c) => c !== 'conflict');

/** The success fraction of a run (succeeded over offered; 0 without operations). */
function successFraction(r: SimulationResults): number {
  return r.operations.offered > 0 ? r.operations.succeeded / r.operations.offered : 0;
}

/** What the storm's goodput means, as `check --simulate` prints it under its table. */
export function stormGoodputMeaning(durationMs: number): string {
  const s = durationMs / 1000;
  return `goodput: operations that succeeded per second of the ${Number.isInteger(s) ? s : s.toPrecision(3)} s the operations arrived (not of the drain after it; at 100% success it is the arrival rate)`;
}

/**
 * The scenario of the standard storm: open-loop arrivals (`ratePerSec` for `durationMs`) through
 * the stack against a leaf with unlimited capacity (1 ms of service) that fails a fraction
 * `failureRate` of the calls with `failureClass` (a timeout is a leaf that does not answer). The
 * leaf never overloads: the storm measures the retry arithmetic and the budgets, not a collapse.
 */
export function stormScenario(stack: CheckStack, failureClass: FailureClass, failureRate: number, options: StormOptions = {}): Record<string, unknown> {
  const status = classAnswer(failureClass);
  return {
    workload: {
      kind: 'open',
      rate: options.ratePerSec ?? STORM_DEFAULTS.ratePerSec,
      durationMs: options.durationMs ?? STORM_DEFAULTS.durationMs,
      clients: options.clients ?? STORM_DEFAULTS.clients,
      method: stack.method,
      ...(stack.deadlineMs !== undefined ? { deadlineMs: stack.deadlineMs } : {}),
    },
    stack: stack.layers.map((l) => ({
      name: l.name,
      instances: l.instances,
      ...(l.hopMs !== undefined ? { hopMs: l.hopMs } : {}),
      policy: policyAsJson(l.policy),
    })),
    leaf: {
      kind: 'server',
      concurrency: 'unlimited',
      serviceMs: 1,
      faults: failureRate > 0 ? [{ probability: failureRate, status, ...(failureClass === 'timeout' ? { latencyMs: HANG_MS } : {}) }] : [],
    },
    maxEvents: options.maxEvents ?? STORM_MAX_EVENTS,
  };
}

/**
 * `check --simulate`: the standard storm at 100% failure, then at `failureRate`, `replications`
 * runs each (src/simulate.ts), with the mean and 95% interval of amplification, goodput and
 * success beside the closed-form numbers. A run that reaches the event cap (a stack that retries
 * without end) is counted in `truncated`: its amplification is then only a lower bound.
 */
export function simulateStorm(stack: CheckStack, options: StormOptions = {}): StormReport {
  const failureClass = options.failureClass ?? '503';
  if (!SIMULABLE.includes(failureClass)) {
    throw new CheckInputError([`--simulate cannot inject ${failureClass} failures (it can inject ${SIMULABLE.join(', ')})`]);
  }
  const rate = options.failureRate ?? 0.1;
  const replications = options.replications ?? 5;
  const seed = options.seed ?? 1;
  const rates = rate === 1 ? [1] : options.fullFailure === false ? [rate] : [1, rate];
  const worst = worstCase(stack.layers.map((l) => l.policy), failureClass, stack.method, stack.deadlineMs);
  let limits: StormReport['limits'] | null = null;
  const runs = rates.map((p): StormRun => {
    const scenario = stormScenario(stack, failureClass, p, options);
    limits ??= resolvedLimits(scenario);
    const results: SimulationResults[] = [];
    for (let i = 0; i < replications; i++) results.push(simulate(scenario, { seed: seed + i }));
    return {
      failureRate: p,
      amplification: boundedMetricStats('amplification', results.map((r) => r.amplification)),
      goodputPerSec: boundedMetricStats('goodputPerSec', results.map((r) => r.goodputPerSec), goodputCap(results.map((r) => r.goodputPerSec), results.map(successFraction))),
      successFraction: boundedMetricStats('successRate', results.map(successFraction)),
      truncated: results.filter((r) => r.truncated !== null).length,
      truncatedBy: Object.fromEntries(STORM_LIMITS.map((k) => [k, results.filter((r) => r.truncated === k).length])) as Record<StormLimit, number>,
      closedForm: {
        withoutBudgets: expectedMultiple(stack.layers, failureClass, p, stack.method, false).multiple,
        withBudgets: expectedMultiple(stack.layers, failureClass, p, stack.method, true).multiple,
        worstCase: p === 1 ? worst.leafCalls : null,
      },
    };
  });
  return {
    failureClass,
    ratePerSec: options.ratePerSec ?? STORM_DEFAULTS.ratePerSec,
    durationMs: options.durationMs ?? STORM_DEFAULTS.durationMs,
    clients: options.clients ?? STORM_DEFAULTS.clients,
    replications,
    seed,
    limits: limits ?? resolvedLimits(stormScenario(stack, failureClass, rate, options)),
    runs,
  };
}

/** The horizon, event cap and in-flight cap a storm scenario runs with (its defaults filled in). */
function resolvedLimits(scenario: Record<string, unknown>): StormReport['limits'] {
  const sc = parseScenario(scenario, ['scenario']);
  return { horizonMs: sc.horizonMs, maxEvents: sc.maxEvents, maxInFlight: sc.maxInFlight };
}
