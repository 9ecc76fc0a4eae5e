/** Independent repetitions of an estimate when none are asked for (its interval is over them). */
export const DEFAULT_REPETITIONS = 10;
/** The fewest repetitions: an interval needs two. */
export const MIN_REPETITIONS = 2;
/** Particles of adaptive splitting, or trajectories per level of fixed-level splitting, when not given. */
export const DEFAULT_PARTICLES = 100;
/** The fewest particles: adaptive splitting must keep one while it discards another. */
export const MIN_PARTICLES = 2;
/** Particles adaptive splitting discards at least per iteration when not given: 1, the last-particle variant. */
export const DEFAULT_KILL_COUNT = 1;
/** The importance grid of adaptive splitting when not given: 1, for counts (requests, queue lengths). */
export const DEFAULT_IMPORTANCE_STEP = 1;
/** How adaptive splitting keeps its branch points when not given: every snapshot, while it may be needed. */
export const DEFAULT_SNAPSHOT_KEEPING = 'keep';
/** Iterations of one repetition of adaptive splitting at most, when not given. */
export const DEFAULT_MAX_ITERATIONS = 100_000;

/** What every estimator is asked. */
export interface EstimateOptions {
  /** The master seed: every trajectory's streams derive from it (`src/risk/SplittableSystem.ts`). */
  seed: number;
  /** Independent repetitions ({@link DEFAULT_REPETITIONS}; at least {@link MIN_REPETITIONS}). */
  repetitions?: number;
  /** Particles, or trajectories per level ({@link DEFAULT_PARTICLES}; at least {@link MIN_PARTICLES}). */
  particles?: number;
}

/** `value` if it is an integer >= `min`, else a RangeError naming `name` and the rule. */
export function integerAtLeast(name: string, value: number, min: number): number {
  if (!(Number.isInteger(value) && value >= min)) throw new RangeError(`${name} must be an integer >= ${min} (got ${value})`);
  return value;
}

/** The seed, repetitions and particles of `o`, defaults filled in and checked. */
export function commonOptions(o: EstimateOptions): { seed: number; repetitions: number; particles: number } {
  if (!Number.isFinite(o.seed)) throw new RangeError(`seed must be a finite number (got ${o.seed})`);
  return {
    seed: o.seed,
    repetitions: integerAtLeast('repetitions', o.repetitions ?? DEFAULT_REPETITIONS, MIN_REPETITIONS),
    particles: integerAtLeast('particles', o.particles ?? DEFAULT_PARTICLES, MIN_PARTICLES),
  };
}
