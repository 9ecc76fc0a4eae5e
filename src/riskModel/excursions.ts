import { deriveSeed } from '../engine/random.js';
import type { RiskSection } from '../experiment/riskSchema.js';
import { Model } from '../model/Model.js';
import type { Scenario } from '../model/scenario.js';
import { monteCarloRunsFor } from '../risk/riskEstimate.js';
import { checkMemoryCeiling } from './modelSystem.js';
import { RiskMonitor } from './RiskMonitor.js';

/**
 * The two-sided 95% normal quantile, for the interval of the excursion rate (a Poisson count
 * c has standard deviation sqrt(c)).
 */
const Z95 = 1.959963984540054;
/** With no excursion counted, the upper end of the count's 95% interval: the rule of three (-ln 0.05 = 3.0). */
const NONE_SEEN_UPPER = -Math.log(0.05);

/** What the counting run saw: excursions started (rises of the importance to absorbBelow) over the time it watched. */
export interface ExcursionCount {
  /** Rises of the importance from below absorbBelow to absorbBelow or more, at checks at t >= 0. */
  excursions: number;
  /** The simulated time watched, from 0: countOverMs, or less if the run collapsed or ended first. */
  overMs: number;
  /** Events the counting run handled (part of the estimate's effort). */
  events: number;
}

/**
 * Counts the excursions of a plain run of `scenario` (seed `deriveSeed(seed, 'risk', 'excursions')`):
 * the run is read at the points of the check grid, as a trajectory is, from t = 0 to
 * `risk.excursions.countOverMs`, and each rise of the importance from below `absorbBelow` to
 * `absorbBelow` or more is an excursion. The count stops early where the run collapses (the time
 * after a collapse is not the steady state whose excursions are counted) or ends.
 */
export function countExcursions(scenario: Scenario, risk: RiskSection, seed: number): ExcursionCount {
  const base = risk.absorbBelow;
  const overMs = risk.excursions?.countOverMs;
  if (base === undefined || overMs === undefined) throw new Error('internal: excursions need absorbBelow and excursions.countOverMs');
  const model = new Model(scenario, { seed: deriveSeed(seed, 'risk', 'excursions') });
  model.begin();
  const monitor = new RiskMonitor(model, risk, model.nowMs());
  let excursions = 0;
  let below = true;
  let watchedMs = 0;
  for (;;) {
    const over = monitor.checkEveryMs === 0 ? model.runUntil(Infinity, 1) : model.runUntil(monitor.nextCheckMs);
    if (over) checkMemoryCeiling(model);
    const t = monitor.checkEveryMs === 0 || over ? model.nowMs() : monitor.nextCheckMs;
    monitor.check(t, over);
    if (monitor.checkEveryMs > 0) monitor.nextCheckMs += monitor.checkEveryMs;
    if (t >= 0) {
      const above = monitor.importance >= base;
      if (above && below) excursions++;
      below = !above;
      watchedMs = Math.min(t, overMs);
    }
    if (over || t >= overMs || monitor.verdict(Infinity) === 'collapse') break;
  }
  return { excursions, overMs: watchedMs, events: model.eventsRun() };
}

/** P(collapse within the horizon) from the probability per excursion and the excursions counted. */
export interface WithinHorizon {
  probability: number;
  ci95: [number, number];
  relativeError: number;
  monteCarloRuns: number;
  /** Excursions per hour of simulated time, as counted. */
  excursionsPerHour: number;
}

/** 1 - exp(-x), exact for small x too. */
function oneMinusExp(x: number): number {
  return -Math.expm1(-x);
}

/**
 * P(collapse within `horizonMs`) from p, the probability that one excursion collapses (with its 95%
 * interval and relative error), and the excursions `count` saw: excursions start at rate r = n / T
 * (n counted over T ms), each collapses with probability p independently of the others, so
 * collapses come at rate r p and P = 1 - exp(-r p horizonMs) (the Poisson clumping heuristic:
 * Aldous, "Probability Approximations via the Poisson Clumping Heuristic", Springer 1989, ch. A;
 * it holds when excursions are short against the horizon and far from each other's influence).
 * The interval takes the extremes of p's 95% interval and of r's (n +- 1.96 sqrt(n); the rule of
 * three, 3 / T, above 0 when none was counted) together, so it covers at least 90% and about 95%
 * when r's is the narrower. The relative error is p's and r's (1 / sqrt(n)) in quadrature, carried
 * through 1 - exp(-x).
 */
export function withinHorizon(p: { probability: number; ci95: [number, number]; relativeError: number }, count: ExcursionCount, horizonMs: number): WithinHorizon {
  const n = count.excursions;
  const T = count.overMs;
  const rate = T > 0 ? n / T : 0;
  const rateLow = T > 0 ? Math.max(0, n - Z95 * Math.sqrt(n)) / T : 0;
  const rateHigh = T > 0 ? (n > 0 ? n + Z95 * Math.sqrt(n) : NONE_SEEN_UPPER) / T : Infinity;
  const x = rate * p.probability * horizonMs;
  const probability = oneMinusExp(x);
  const ci95: [number, number] = [oneMinusExp(rateLow * p.ci95[0] * horizonMs), oneMinusExp(rateHigh * p.ci95[1] * horizonMs)];
  const reX = n > 0 ? Math.sqrt(p.relativeError * p.relativeError + 1 / n) : NaN;
  // d(1 - e^-x)/(1 - e^-x) = x e^-x / (1 - e^-x) dx/x.
  const relativeError = probability > 0 ? (reX * x * Math.exp(-x)) / probability : NaN;
  return { probability, ci95, relativeError, monteCarloRuns: monteCarloRunsFor(probability, relativeError), excursionsPerHour: T > 0 ? (n / T) * 3_600_000 : NaN };
}
