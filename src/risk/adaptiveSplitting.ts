import { stream } from '../engine/random.js';
import { addEffort, Brancher, noEffort, type KeptSnapshot, type Origin } from './Brancher.js';
import { pooledPyramid, summarize, type LevelTally, type Repetition, type RiskEstimate } from './riskEstimate.js';
import {
  commonOptions,
  DEFAULT_IMPORTANCE_STEP,
  DEFAULT_KILL_COUNT,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_SNAPSHOT_KEEPING,
  integerAtLeast,
  type EstimateOptions,
} from './riskOptions.js';
import type { Continuation, SplittableSystem } from './SplittableSystem.js';

/** The settings of {@link adaptiveSplitting}. */
export interface AdaptiveSplittingOptions extends EstimateOptions {
  /**
   * k: each iteration's level is the k-th smallest score, and every particle at or below it is
   * discarded ({@link DEFAULT_KILL_COUNT}; 1 <= k < particles).
   */
  killCount?: number;
  /**
   * The importance grid: a trajectory's score rises, and a snapshot is taken, each time its
   * importance reaches its score plus this ({@link DEFAULT_IMPORTANCE_STEP}; > 0).
   */
  importanceStep?: number;
  /** Iterations of one repetition at most ({@link DEFAULT_MAX_ITERATIONS}); past it the estimate is refused. */
  maxIterations?: number;
  /**
   * `keep` (the default): a snapshot at every rise of a particle's score, kept while the particle
   * may be branched there (memory: up to one snapshot per particle and grid step above the level).
   * `replay`: only the snapshot each particle began from is kept; a branch point is reached again by
   * running the particle anew from its origin with the same streams (the system is deterministic),
   * trading events for memory. Both give the same estimate.
   */
  snapshots?: SnapshotKeeping;
}

/** How {@link adaptiveSplitting} keeps the snapshots of its branch points. */
export type SnapshotKeeping = 'keep' | 'replay';

/**
 * A point of a trajectory where its score rose: the new score, and the branch point there (none at
 * Infinity, the collapse).
 */
interface Mark<S> {
  level: number;
  snap?: KeptSnapshot<S>;
}

/**
 * A particle: where its trajectory began and its score there, the marks of the trajectory above the
 * current level, and its score (Infinity: it collapsed).
 */
interface Particle<S> {
  origin: Origin<S>;
  from: number;
  marks: Mark<S>[];
  score: number;
}

/** The particles' sorted scores at the start of an iteration, its level and the weight before it. */
interface Stage {
  level: number;
  weight: number;
  scores: Float64Array;
}

/** The settings with their defaults, checked. */
function settings(o: AdaptiveSplittingOptions) {
  const common = commonOptions(o);
  const killCount = integerAtLeast('killCount', o.killCount ?? DEFAULT_KILL_COUNT, 1);
  if (killCount >= common.particles) throw new RangeError(`killCount must be below particles (got ${killCount} >= ${common.particles})`);
  const step = o.importanceStep ?? DEFAULT_IMPORTANCE_STEP;
  if (!(step > 0 && Number.isFinite(step))) throw new RangeError(`importanceStep must be a finite number > 0 (got ${step})`);
  const maxIterations = integerAtLeast('maxIterations', o.maxIterations ?? DEFAULT_MAX_ITERATIONS, 1);
  const snapshots = o.snapshots ?? DEFAULT_SNAPSHOT_KEEPING;
  if (snapshots !== 'keep' && snapshots !== 'replay') throw new RangeError(`snapshots must be keep or replay (got ${JSON.stringify(snapshots)})`);
  return { ...common, killCount, step, maxIterations, keep: snapshots === 'keep' };
}

type Settings = ReturnType<typeof settings>;

/**
 * The particle run from `origin` (begun as `c`), where its score is `from`, to its end; `at` is the
 * branch point it was started from (none for a start from the initial state).
 */
function runParticle<S>(b: Brancher<S>, origin: Origin<S>, from: number, o: Settings, at?: KeptSnapshot<S>, c: Continuation<S> = b.run(origin)): Particle<S> {
  const marks: Mark<S>[] = at === undefined ? [] : [{ level: from, snap: at }];
  let level = from;
  for (;;) {
    const r = b.advance(c, level + o.step);
    if (r.reason === 'level') {
      level = r.importance;
      marks.push({ level, snap: b.mark(c, o.keep) });
    } else if (r.reason === 'collapse') {
      marks.push({ level: Infinity });
      return { origin, from, marks, score: Infinity };
    } else {
      return { origin, from, marks, score: level };
    }
  }
}

/**
 * The branch point at mark `m` of `p`, with its snapshot: kept, or taken again by running `p` anew
 * from its origin to `m` (the same trajectory: the system is deterministic).
 */
function snapshotAt<S>(b: Brancher<S>, p: Particle<S>, m: Mark<S>, step: number): KeptSnapshot<S> {
  const k = m.snap as KeptSnapshot<S>;
  if (k.state !== undefined) return k;
  if (m.level === p.from && p.origin.state !== null) {
    k.state = p.origin.state;
    return k;
  }
  const c = b.run(p.origin);
  let level = p.from;
  while (level < m.level) {
    const r = b.advance(c, level + step);
    if (r.reason !== 'level') throw new Error(`a trajectory run again from its origin ended (${r.reason}) below ${m.level}, where it had gone on: the system is not deterministic`);
    level = r.importance;
  }
  if (level !== m.level) throw new Error(`a trajectory run again from its origin rose to ${level} where it had risen to ${m.level}: the system is not deterministic`);
  b.retake(k, c);
  return k;
}

/** A new particle: `p`'s trajectory up to the first point its score passed `z`, continued with fresh streams. */
function branchAbove<S>(b: Brancher<S>, p: Particle<S>, z: number, o: Settings): Particle<S> {
  const m = p.marks.find((x) => x.level > z) as Mark<S>;
  if (m.level === Infinity) return { ...p, marks: [m], score: Infinity };
  const at = snapshotAt(b, p, m, o.step);
  return runParticle(b, b.branchOrigin(at), m.level, o, at);
}

/** Scores in `sorted` (ascending) above `x`; at x = Infinity, the collapsed ones. */
function countAbove(sorted: Float64Array, x: number): number {
  if (x === Infinity) return sorted.filter((s) => s === Infinity).length;
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return sorted.length - lo;
}

/**
 * One repetition's estimate of P(score > x) (x = Infinity: of the collapse) and the trajectories
 * above x, at the first iteration whose level is at least x: its weight times the share of its
 * particles above x (Brehier et al. 2016 show this is unbiased for every x).
 */
function tallyAt(stages: readonly Stage[], x: number): LevelTally {
  const s = stages.find((st) => x <= st.level) as Stage;
  const trajectories = countAbove(s.scores, x);
  return { probability: (s.weight * trajectories) / s.scores.length, trajectories };
}

/** The iterations of one repetition, ending with a stage at level Infinity (the final particles). */
function repetitionStages<S>(b: Brancher<S>, u: () => number, o: Settings): Stage[] {
  const n = o.particles;
  let particles: Particle<S>[] = [];
  for (let i = 0; i < n; i++) {
    const origin = b.startOrigin(i);
    const c = b.run(origin);
    const from = c.importance();
    if (!Number.isFinite(from)) throw new Error(`the importance at the start must be a finite number (got ${from})`);
    particles.push(runParticle(b, origin, from, o, undefined, c));
  }
  const stages: Stage[] = [];
  let weight = 1;
  for (let q = 0; ; q++) {
    const scores = Float64Array.from(particles, (p) => p.score).sort();
    const z = scores[o.killCount - 1] as number;
    if (z === Infinity) break;
    if (q >= o.maxIterations) throw new RangeError(`adaptive splitting needed more than maxIterations = ${o.maxIterations} iterations in one repetition`);
    stages.push({ level: z, weight, scores });
    const survivors = particles.filter((p) => p.score > z);
    if (survivors.length === 0) {
      weight = 0;
      break;
    }
    weight *= survivors.length / n;
    particles = particles.map((p) => (p.score > z ? p : branchAbove(b, survivors[Math.floor(u() * survivors.length)] as Particle<S>, z, o)));
    for (const p of particles) {
      p.marks = p.marks.filter((m) => m.level > z);
      // Replaying, a snapshot taken again serves this iteration's branches only (an origin keeps its own).
      if (!o.keep) for (const m of p.marks) if (m.snap) m.snap.state = undefined;
    }
  }
  stages.push({ level: Infinity, weight, scores: Float64Array.from(particles, (p) => p.score).sort() });
  return stages;
}

/**
 * P(collapse within the horizon) by adaptive multilevel splitting: Cerou and Guyader, "Adaptive
 * multilevel splitting for rare event analysis", Stochastic Analysis and Applications 25(2):417-443
 * (2007), in the generalized form of Brehier, Gazeau, Goudenege, Lelievre and Rousset, "Unbiasedness of
 * some generalized adaptive multilevel splitting algorithms", Annals of Applied Probability
 * 26(6):3559-3601 (2016), whose estimator is unbiased also when scores tie, as integer importances do.
 *
 * Each of N particles is a trajectory from the initial state; its score is the highest importance it
 * reached (on the grid of `importanceStep`; Infinity if it collapsed). Each iteration takes the level
 * Z, the k-th smallest score, discards every particle whose score is at most Z (K of them, K >= k,
 * ties included), multiplies the weight by 1 - K/N, and replaces each discarded particle by a branch
 * of a survivor chosen uniformly (independently for each): the survivor's trajectory up to the first
 * time its score passed Z, continued with fresh streams. It stops when Z is the collapse (then the
 * estimate is the weight times the share of collapsed particles) or when every particle was
 * discarded (estimate 0). With k = 1 it is the last-particle algorithm of Cerou, Del Moral, Furon and
 * Guyader, "Sequential Monte Carlo for rare event estimation", Statistics and Computing 22(3):795-808
 * (2012). The interval is over independent repetitions ({@link summarize}).
 */
export function adaptiveSplitting<S>(system: SplittableSystem<S>, options: AdaptiveSplittingOptions): RiskEstimate {
  const o = settings(options);
  const effort = noEffort();
  const all: Stage[][] = [];
  const repetitions: Repetition[] = [];
  for (let r = 0; r < o.repetitions; r++) {
    const b = new Brancher(system, o.seed, r);
    const stages = repetitionStages(b, stream(o.seed, 'risk', r, 'choose'), o);
    all.push(stages);
    addEffort(effort, b.effort);
    const levels = stages.map((s) => s.level);
    const pyramid = pooledPyramid(levels, 1, (_, x) => tallyAt(stages, x));
    repetitions.push({ probability: tallyAt(stages, Infinity).probability, pyramid, effort: b.effort });
  }
  const levels = [...new Set(all.flatMap((stages) => stages.map((s) => s.level)))].sort((a, b) => a - b);
  return summarize('adaptive-splitting', repetitions, effort, pooledPyramid(levels, o.repetitions, (r, x) => tallyAt(all[r] as Stage[], x)));
}
