import { wilsonInterval } from '../metrics/wilson.js';
import { Brancher, type Effort } from './Brancher.js';
import { integerAtLeast } from './riskOptions.js';
import type { SplittableSystem } from './SplittableSystem.js';

/** The settings of {@link plainMonteCarlo}. */
export interface MonteCarloOptions {
  /** The master seed; run i is the i-th start of repetition 0 (`startSeed(seed, 0, i)`). */
  seed: number;
  /** Independent runs (at least 1). */
  runs: number;
}

/** A plain Monte Carlo estimate of P(collapse within the horizon). */
export interface MonteCarloEstimate {
  method: 'monte-carlo';
  /** Collapses over runs. */
  probability: number;
  /** The Wilson score interval of `collapses` of `runs` (`src/metrics/wilson.ts`). */
  ci95: [number, number];
  /** sqrt((1 - p) / (runs p)), the binomial standard error over p; NaN at p = 0. */
  relativeError: number;
  collapses: number;
  runs: number;
  effort: Effort;
}

/**
 * P(collapse within the horizon) by plain Monte Carlo: `runs` independent trajectories from the
 * initial state, each to its end, for comparison with the splitting estimates where the probability
 * is not too small to see.
 */
export function plainMonteCarlo<S>(system: SplittableSystem<S>, options: MonteCarloOptions): MonteCarloEstimate {
  if (!Number.isFinite(options.seed)) throw new RangeError(`seed must be a finite number (got ${options.seed})`);
  const runs = integerAtLeast('runs', options.runs, 1);
  const b = new Brancher(system, options.seed, 0);
  let collapses = 0;
  for (let i = 0; i < runs; i++) {
    const r = b.advance(b.start(i), Infinity);
    if (r.reason === 'collapse') collapses++;
  }
  const p = collapses / runs;
  return {
    method: 'monte-carlo',
    probability: p,
    ci95: wilsonInterval(collapses, runs),
    relativeError: p > 0 ? Math.sqrt((1 - p) / (runs * p)) : NaN,
    collapses,
    runs,
    effort: b.effort,
  };
}
