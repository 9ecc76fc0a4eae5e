import { branchSeed, startSeed, type Advanced, type Continuation, type SplittableSystem } from './SplittableSystem.js';

/** What an estimate cost: trajectories run, events handled, snapshots taken. */
export interface Effort {
  /** Trajectories run: starts from the initial state plus continuations from snapshots. */
  runs: number;
  /** Events (or steps) the system handled, summed over every trajectory. */
  steps: number;
  /** Snapshots taken. */
  snapshots: number;
}

/** An empty {@link Effort}. */
export function noEffort(): Effort {
  return { runs: 0, steps: 0, snapshots: 0 };
}

/** `into` plus `more`, in place. */
export function addEffort(into: Effort, more: Effort): void {
  into.runs += more.runs;
  into.steps += more.steps;
  into.snapshots += more.snapshots;
}

/**
 * A point of a trajectory an estimator may branch from: its number in the repetition (the
 * `snapshot` of {@link branchSeed}), how many branches it has given so far, and its snapshot when
 * held (an estimator that replays drops it, and takes it again when needed).
 */
export interface KeptSnapshot<S> {
  readonly id: number;
  state: S | undefined;
  branches: number;
}

/** Where a trajectory begins: the initial state (`state` null) or a snapshot, and the seed of its streams. */
export interface Origin<S> {
  readonly state: S | null;
  readonly seed: number;
}

const STOP_REASONS: ReadonlySet<string> = new Set(['collapse', 'level', 'absorbed', 'horizon']);

/**
 * One repetition's access to a {@link SplittableSystem}: it numbers the trajectories it starts and
 * the snapshots it keeps, derives every branch's seed from (snapshot, branch), counts the effort,
 * and checks each answer of the system against the contract of {@link Continuation.advance}.
 */
export class Brancher<S> {
  /** The effort of this repetition so far. */
  readonly effort: Effort = noEffort();
  private nextSnapshot = 0;

  constructor(
    private readonly system: SplittableSystem<S>,
    private readonly seed: number,
    private readonly repetition: number,
  ) {}

  /** Where the `index`-th trajectory of the repetition from the initial state begins. */
  startOrigin(index: number): Origin<S> {
    return { state: null, seed: startSeed(this.seed, this.repetition, index) };
  }

  /** Where the next branch of `k` begins: `k` with fresh streams from (its number, the branch's). */
  branchOrigin(k: KeptSnapshot<S>): Origin<S> {
    if (k.state === undefined) throw new Error(`internal: snapshot ${k.id} was branched from without its state`);
    return { state: k.state, seed: branchSeed(this.seed, this.repetition, k.id, k.branches++) };
  }

  /**
   * A trajectory from `o`: run again from the same origin, it is the same trajectory (the
   * system is deterministic), which is how a snapshot not kept is taken again.
   */
  run(o: Origin<S>): Continuation<S> {
    this.effort.runs++;
    return o.state === null ? this.system.start(o.seed) : this.system.restore(o.state, { kind: 'fresh', seed: o.seed });
  }

  /** The `index`-th trajectory of the repetition from the initial state. */
  start(index: number): Continuation<S> {
    return this.run(this.startOrigin(index));
  }

  /** The next branch of `k`, with fresh streams. */
  branch(k: KeptSnapshot<S>): Continuation<S> {
    return this.run(this.branchOrigin(k));
  }

  /** The next number of a branch point at `c` now, with its snapshot if `take`. */
  mark(c: Continuation<S>, take: boolean): KeptSnapshot<S> {
    const k: KeptSnapshot<S> = { id: this.nextSnapshot++, state: undefined, branches: 0 };
    if (take) this.retake(k, c);
    return k;
  }

  /** `k`'s snapshot taken (again) from `c`, which stands where `k` was marked. */
  retake(k: KeptSnapshot<S>, c: Continuation<S>): void {
    this.effort.snapshots++;
    k.state = c.snapshot();
  }

  /** The snapshot of `c` now, numbered. */
  keep(c: Continuation<S>): KeptSnapshot<S> {
    return this.mark(c, true);
  }

  /** `c.advance(untilImportance)`, counted and checked. */
  advance(c: Continuation<S>, untilImportance: number): Advanced {
    const r = c.advance(untilImportance);
    if (!STOP_REASONS.has(r.reason)) throw new Error(`advance returned an unknown reason ${JSON.stringify(r.reason)}`);
    if (Number.isNaN(r.importance)) throw new Error('advance returned an importance that is not a number');
    if (r.reason === 'level' && !(r.importance >= untilImportance)) {
      throw new Error(`advance stopped at level with importance ${r.importance} below the level asked for, ${untilImportance}`);
    }
    if (!(Number.isInteger(r.steps) && r.steps >= 0)) throw new Error(`advance returned steps ${r.steps}, not an integer >= 0`);
    this.effort.steps += r.steps;
    return r;
  }
}
