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
 * A snapshot an estimator keeps: its number in the repetition (the `snapshot` of
 * {@link branchSeed}) and how many branches it has given so far.
 */
export interface KeptSnapshot<S> {
  readonly id: number;
  readonly state: S;
  branches: number;
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

  /** The `index`-th trajectory of the repetition from the initial state. */
  start(index: number): Continuation<S> {
    this.effort.runs++;
    return this.system.start(startSeed(this.seed, this.repetition, index));
  }

  /** The snapshot of `c` now, numbered. */
  keep(c: Continuation<S>): KeptSnapshot<S> {
    this.effort.snapshots++;
    return { id: this.nextSnapshot++, state: c.snapshot(), branches: 0 };
  }

  /** The next branch of `k`, with fresh streams. */
  branch(k: KeptSnapshot<S>): Continuation<S> {
    this.effort.runs++;
    const seed = branchSeed(this.seed, this.repetition, k.id, k.branches++);
    return this.system.restore(k.state, { kind: 'fresh', seed });
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
