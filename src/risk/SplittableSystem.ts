import { deriveSeed } from '../engine/random.js';

/**
 * The random streams a continuation runs with:
 * - `original`: the streams as they stood when the snapshot was taken, so the continuation goes on
 *   exactly as the run it was taken from would have (the check that a snapshot holds all state);
 * - `fresh`: every stream derived anew from `seed` combined with its master, under the same names
 *   (each named stream `stream(deriveSeed(seed, master), ...names)`, each per-client generator and
 *   each seed kept as a number likewise, in the same seeding mode: `freshOrigin` in
 *   src/engine/random.ts), so branches of one snapshot are
 *   independent of each other and of the original run, and the same seed gives the same branch.
 *   The estimators derive `seed` from the snapshot and the branch's number ({@link branchSeed}).
 */
export type BranchStreams = { kind: 'original' } | { kind: 'fresh'; seed: number };

/**
 * Why {@link Continuation.advance} returned, checked after every event (or at points of the
 * system's choosing, such as the end of each metric bin, the same however it is advanced) in this
 * order:
 * - `collapse`: the collapse condition holds (the rare event: the trajectory is a success);
 * - `level`: the importance reached the level asked for (importance >= `untilImportance`);
 * - `absorbed`: the trajectory can no longer matter (it fell back below where it started, e.g. an
 *   empty system; a system without such a set never returns it);
 * - `horizon`: the next event lies past the horizon, or none is left.
 * After `collapse`, `absorbed` or `horizon` the trajectory is over and is not advanced again.
 */
export type StopReason = 'collapse' | 'level' | 'absorbed' | 'horizon';

/** What one {@link Continuation.advance} did. */
export interface Advanced {
  reason: StopReason;
  /** The importance when it stopped (at `level`: the value that reached the level, maybe past it). */
  importance: number;
  /** Events (or steps) handled by this call: the effort, summed into the estimate's. */
  steps: number;
}

/**
 * A running trajectory of a {@link SplittableSystem}. Only the continuation returned last by its
 * system is used: starting or restoring another may reuse the same state (a model rebuilt in place).
 */
export interface Continuation<S> {
  /** The importance now: the metric the levels are placed on (larger is nearer the collapse). */
  importance(): number;
  /**
   * The whole state now, as a value the estimators keep and restore any number of times: taking it
   * does not change the run, and restoring it never changes it.
   */
  snapshot(): S;
  /**
   * Runs on until the collapse condition holds, the importance is at least `untilImportance`
   * (`Infinity`: never), the trajectory is absorbed, or the horizon; see {@link StopReason}. The
   * conditions are checked before the first event too: a level already reached returns at once,
   * with 0 steps. Where it stops changes nothing: advancing in pieces (to one level, then the next)
   * runs the same trajectory as advancing in one go, which is what lets a branch point be reached
   * again by running a trajectory anew from its origin.
   */
  advance(untilImportance: number): Advanced;
}

/**
 * What a simulator offers the rare-event estimators (`src/risk`): runs from the initial state and
 * continuations from snapshots. The estimators never see the state itself; the system alone knows
 * what importance, collapse, absorption and horizon mean. Everything must be deterministic: the
 * same seed gives the same run, the same snapshot and streams the same continuation.
 */
export interface SplittableSystem<S> {
  /** A new trajectory from the initial state, every random stream derived from `seed`. */
  start(seed: number): Continuation<S>;
  /** A trajectory continued from `snapshot` (left unchanged) with the streams `streams` says. */
  restore(snapshot: S, streams: BranchStreams): Continuation<S>;
}

/**
 * The seed of the `index`-th trajectory started from the initial state in repetition `repetition`
 * of an estimate under `seed`.
 */
export function startSeed(seed: number, repetition: number, index: number): number {
  return deriveSeed(seed, 'risk', repetition, 'start', index);
}

/**
 * The seed of the fresh streams of branch `branch` of snapshot `snapshot` (the estimator numbers
 * the snapshots it takes in a repetition, and the branches of each) in repetition `repetition` of an
 * estimate under `seed`: a branch's streams depend on (snapshot, branch) only, not on the order in
 * which the estimator happens to run its trajectories.
 */
export function branchSeed(seed: number, repetition: number, snapshot: number, branch: number): number {
  return deriveSeed(seed, 'risk', repetition, 'snapshot', snapshot, 'branch', branch);
}
