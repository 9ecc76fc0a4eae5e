import { DEFAULT_RISK_METHOD, type RiskSection } from '../experiment/riskSchema.js';
import type { Scenario } from '../model/scenario.js';
import { adaptiveSplitting } from '../risk/adaptiveSplitting.js';
import type { Effort } from '../risk/Brancher.js';
import { fixedLevelSplitting } from '../risk/fixedLevelSplitting.js';
import { plainMonteCarlo } from '../risk/monteCarlo.js';
import { monteCarloRunsFor, type RiskEstimate } from '../risk/riskEstimate.js';
import { countExcursions, withinHorizon } from './excursions.js';
import { ModelSystem } from './modelSystem.js';
import type { ExampleTrajectory } from './RiskMonitor.js';
import { riskProblems } from './riskProblems.js';

/** At most this many of the reasons a run cannot be copied are spelled out in the message. */
export const MAX_COPY_PROBLEMS_SHOWN = 3;

/** One cell's estimate of P(collapse within the horizon), plain JSON (worker threads send it back). */
export interface CellRisk {
  method: 'adaptive' | 'fixed' | 'monte-carlo';
  probability: number;
  ci95: [number, number];
  relativeError: number;
  /** Plain Monte Carlo runs for the same relative error (NaN when p = 0). */
  monteCarloRuns: number;
  /** As measured: trajectories, events, CPU milliseconds (of the clock given), snapshots. */
  effort: { runs: number; events: number; cpuMs: number; snapshots: number };
  /** The level-crossing pyramid ([] for monte-carlo); the last level, Infinity, is the collapse. */
  pyramid: Array<{ level: number; trajectories: number; probability: number; conditional: number }>;
  /** Each repetition's probability (monte-carlo: []). */
  repetitions: number[];
  /**
   * One trajectory that collapsed, as the check grid saw it (null if none did): times in ms from 0,
   * importance and collapse-metric values, the collapse start. At most `EXAMPLE_POINTS` points.
   */
  example: ExampleTrajectory | null;
  /**
   * With `risk.excursions` (null without): the estimate per excursion that `probability` was made
   * from (src/riskModel/excursions.ts): its probability, interval and relative error, and the
   * excursions the counting run saw over how long.
   */
  excursions: PerExcursion | null;
}

/** The per-excursion part of a {@link CellRisk}. */
export interface PerExcursion {
  probability: number;
  ci95: [number, number];
  relativeError: number;
  /** Excursions counted, over `overMs` of simulated time, and per hour. */
  counted: number;
  overMs: number;
  perHour: number;
}

/** The options of {@link estimateCellRisk}. */
export interface CellRiskOptions {
  /** Polled between trajectories: true stops the estimate with a `RiskStopped` error (an interrupt). */
  shouldStop?: () => boolean;
  /**
   * The clock the effort's `cpuMs` is read from, in ms (the command line passes the thread's CPU
   * time; default: `performance.now()`, the elapsed time, which is the CPU time of a busy thread).
   */
  clockMs?: () => number;
}

/** A problem of the risk section or scenario, found before anything runs: every sentence names its field. */
export class RiskInputError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('; '));
    this.name = 'RiskInputError';
  }
}

/** The effort in {@link CellRisk}'s terms. */
function effortOf(e: Effort, cpuMs: number): CellRisk['effort'] {
  return { runs: e.runs, events: e.steps, cpuMs, snapshots: e.snapshots };
}

/** A splitting estimate in {@link CellRisk}'s terms. */
function fromSplitting(method: 'adaptive' | 'fixed', e: RiskEstimate, cpuMs: number, example: ExampleTrajectory | null): CellRisk {
  return {
    method,
    probability: e.probability,
    ci95: e.ci95,
    relativeError: e.relativeError,
    monteCarloRuns: e.monteCarloRuns,
    effort: effortOf(e.effort, cpuMs),
    pyramid: e.pyramid.map((l) => ({ level: l.level, trajectories: l.trajectories, probability: l.probability, conditional: l.conditional })),
    repetitions: e.repetitions.map((r) => r.probability),
    example,
    excursions: null,
  };
}

/**
 * One cell's estimate of P(collapse within the horizon): the model of `scenario` as a splittable
 * system watched as `risk` says (`ModelSystem`), the estimator `risk.method` names (adaptive
 * multilevel splitting by default, fixed-level splitting at `risk.levels`, or `risk.runs` runs of
 * plain Monte Carlo) with the defaults of src/risk/riskOptions.ts, under master seed `seed`.
 * Deterministic: the same arguments give the same estimate (all but `effort.cpuMs`). Throws
 * {@link RiskInputError} when {@link riskProblems} finds any, or when splitting is asked of a run
 * whose state cannot be copied yet (`ModelSystem.copyProblems`), and `RiskStopped` when
 * `shouldStop` says so between trajectories. With `risk.excursions`, the estimator's trajectories
 * are excursions, its estimate is per excursion (`excursions` of the result), and the probability
 * within the horizon is made from it and the excursions a plain run counts (src/riskModel/excursions.ts).
 */
export function estimateCellRisk(scenario: Scenario, risk: RiskSection, seed: number, options: CellRiskOptions = {}): CellRisk {
  const clock = options.clockMs ?? (() => performance.now());
  const t0 = clock();
  const r = estimatePerTrajectory(scenario, risk, seed, options);
  if (risk.excursions === undefined) return r;
  const count = countExcursions(scenario, risk, seed);
  const w = withinHorizon(r, count, scenario.horizonMs);
  return {
    ...r,
    probability: w.probability,
    ci95: w.ci95,
    relativeError: w.relativeError,
    monteCarloRuns: w.monteCarloRuns,
    effort: { ...r.effort, runs: r.effort.runs + 1, events: r.effort.events + count.events, cpuMs: clock() - t0 },
    excursions: { probability: r.probability, ci95: r.ci95, relativeError: r.relativeError, counted: count.excursions, overMs: count.overMs, perHour: w.excursionsPerHour },
  };
}

/** The estimate of P(a trajectory collapses): within the horizon, or per excursion with `risk.excursions`. */
function estimatePerTrajectory(scenario: Scenario, risk: RiskSection, seed: number, options: CellRiskOptions): CellRisk {
  const problems = riskProblems(scenario, risk);
  if (problems.length > 0) throw new RiskInputError(problems);
  const clock = options.clockMs ?? (() => performance.now());
  const system = new ModelSystem(scenario, risk, { shouldStop: options.shouldStop });
  const t0 = clock();
  const method = risk.method ?? DEFAULT_RISK_METHOD;
  if (method !== 'monte-carlo') {
    const uncopyable = system.copyProblems();
    if (uncopyable.length > 0) {
      const shown = uncopyable.slice(0, MAX_COPY_PROBLEMS_SHOWN).join('; ');
      const more = uncopyable.length > MAX_COPY_PROBLEMS_SHOWN ? ` (and ${uncopyable.length - MAX_COPY_PROBLEMS_SHOWN} more)` : '';
      throw new RiskInputError([`risk.method: ${method} splitting needs snapshots of the run, and this scenario's run cannot be copied yet (${shown}${more}); monte-carlo needs none`]);
    }
  }
  switch (method) {
    case 'adaptive': {
      const e = adaptiveSplitting(system, { seed, repetitions: risk.repetitions, particles: risk.particles, killCount: risk.killCount, importanceStep: risk.importanceStep });
      return fromSplitting(method, e, clock() - t0, system.example);
    }
    case 'fixed': {
      if (risk.levels === undefined) throw new RiskInputError(['risk.levels: fixed-level splitting needs its levels']);
      const e = fixedLevelSplitting(system, { seed, repetitions: risk.repetitions, particles: risk.particles, levels: risk.levels });
      return fromSplitting(method, e, clock() - t0, system.example);
    }
    case 'monte-carlo': {
      if (risk.runs === undefined) throw new RiskInputError(['risk.runs: monte-carlo needs its number of runs']);
      const e = plainMonteCarlo(system, { seed, runs: risk.runs });
      return {
        method,
        probability: e.probability,
        ci95: e.ci95,
        relativeError: e.relativeError,
        monteCarloRuns: monteCarloRunsFor(e.probability, e.relativeError),
        effort: effortOf(e.effort, clock() - t0),
        pyramid: [],
        repetitions: [],
        example: system.example,
        excursions: null,
      };
    }
  }
}
