import { stream, type Uniform } from '../engine/random.js';
import { addEffort, Brancher, noEffort, type KeptSnapshot } from './Brancher.js';
import { pooledPyramid, summarize, type LevelTally, type Repetition, type RiskEstimate } from './riskEstimate.js';
import { commonOptions, type EstimateOptions } from './riskOptions.js';
import type { Continuation, SplittableSystem } from './SplittableSystem.js';

/** The settings of {@link fixedLevelSplitting}. */
export interface FixedLevelSplittingOptions extends EstimateOptions {
  /** The importance levels between the start and the collapse, finite and strictly ascending. */
  levels: readonly number[];
}

/** Where a trajectory entered a level: its importance and snapshot there (null: it collapsed). */
interface Entry<S> {
  level: number;
  snap: KeptSnapshot<S> | null;
}

/** The levels of `o`, checked. */
function checkedLevels(levels: readonly number[]): number[] {
  if (!Array.isArray(levels)) throw new RangeError('levels must be an array of numbers');
  levels.forEach((l, i) => {
    if (!Number.isFinite(l)) throw new RangeError(`levels.${i} must be a finite number (got ${l})`);
    if (i > 0 && !(l > (levels[i - 1] as number))) throw new RangeError(`levels.${i} must be above levels.${i - 1} (got ${l} <= ${levels[i - 1]})`);
  });
  return [...levels];
}

/** Runs `c` until it reaches `target` (its entry) or fails (null). */
function runTo<S>(b: Brancher<S>, c: Continuation<S>, target: number): Entry<S> | null {
  const r = b.advance(c, target);
  if (r.reason === 'collapse') return { level: Infinity, snap: null };
  if (r.reason === 'level') return { level: r.importance, snap: b.keep(c) };
  return null;
}

/**
 * How many of `n` trajectories start from each of `m` entries: floor(n / m) each, and one more for
 * n mod m of them drawn uniformly without replacement (residual allocation: every entry expects
 * n / m, which keeps the estimate unbiased, with less variance than drawing all n at random).
 */
function allocate(n: number, m: number, u: Uniform): number[] {
  const counts = new Array<number>(m).fill(Math.floor(n / m));
  const order = Array.from({ length: m }, (_, i) => i);
  for (let i = 0; i < n % m; i++) {
    const j = i + Math.floor(u() * (m - i));
    const pick = order[j] as number;
    order[j] = order[i] as number;
    order[i] = pick;
    counts[pick] = (counts[pick] as number) + 1;
  }
  return counts;
}

/** One repetition: the trajectories that reached each level (the last, Infinity, is the collapse). */
function repetitionCounts<S>(b: Brancher<S>, u: Uniform, targets: readonly number[], n: number): number[] {
  const reached: number[] = [];
  let entries: Entry<S>[] = [];
  for (let i = 0; i < n; i++) {
    const e = runTo(b, b.start(i), targets[0] as number);
    if (e) entries.push(e);
  }
  reached.push(entries.length);
  for (let j = 1; j < targets.length; j++) {
    const target = targets[j] as number;
    const next: Entry<S>[] = [];
    if (entries.length > 0) {
      const counts = allocate(n, entries.length, u);
      entries.forEach((e, i) => {
        for (let c = 0; c < (counts[i] as number); c++) {
          // An entry already at or past this level (it jumped over it, or collapsed) reaches it as it is.
          const reachedAlready = e.level >= target || e.snap === null;
          const got = reachedAlready ? e : runTo(b, b.branch(e.snap as KeptSnapshot<S>), target);
          if (got) next.push(got);
        }
      });
    }
    reached.push(next.length);
    entries = next;
  }
  return reached;
}

/**
 * P(collapse within the horizon) by fixed-level multilevel splitting with fixed effort (Garvels,
 * "The splitting method in rare event simulation", PhD thesis, University of Twente, 2000, ch. 2; the
 * Feynman-Kac view of Cerou, Del Moral, LeGland and Lezaud, "Genetic genealogical models in rare event
 * analysis", ALEA 1:181-203, 2006). Stage 1 runs N trajectories from the initial state until each
 * reaches the first level (importance >= it) or ends; stage j starts N trajectories, with fresh
 * streams, from the states in which the previous stage's trajectories entered their level (spread
 * over them by residual allocation) and runs each until the next level; the last stage's target is
 * the collapse. A trajectory that collapses reaches every level. The estimate is the product of the
 * stages' shares (0 once a stage has none), unbiased; the interval is over independent repetitions
 * ({@link summarize}).
 */
export function fixedLevelSplitting<S>(system: SplittableSystem<S>, options: FixedLevelSplittingOptions): RiskEstimate {
  const o = commonOptions(options);
  const targets = [...checkedLevels(options.levels), Infinity];
  const effort = noEffort();
  const tallies: LevelTally[][] = [];
  const repetitions: Repetition[] = [];
  for (let r = 0; r < o.repetitions; r++) {
    const b = new Brancher(system, o.seed, r);
    const reached = repetitionCounts(b, stream(o.seed, 'risk', r, 'allocate'), targets, o.particles);
    addEffort(effort, b.effort);
    let probability = 1;
    const tally = reached.map((k) => ({ probability: (probability *= k / o.particles), trajectories: k }));
    tallies.push(tally);
    const pyramid = pooledPyramid(targets, 1, (_, x) => tally[targets.indexOf(x)] as LevelTally);
    repetitions.push({ probability, pyramid, effort: b.effort });
  }
  return summarize('fixed-level-splitting', repetitions, effort, pooledPyramid(targets, o.repetitions, (r, x) => tallies[r]?.[targets.indexOf(x)] as LevelTally));
}
