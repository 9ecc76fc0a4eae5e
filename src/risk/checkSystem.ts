import { branchSeed, startSeed, type Advanced, type Continuation, type SplittableSystem } from './SplittableSystem.js';

/** The settings of {@link systemProblems}. */
export interface SystemCheckOptions {
  /** The master seed of the trajectories checked. */
  seed: number;
  /** The rise of importance at which the trajectories stop and are snapshotted. */
  importanceStep: number;
  /** Trajectories tried, for one that rises by a step (the snapshot checks need one). */
  tries?: number;
}

/** Trajectories {@link systemProblems} tries by default, for one that rises by a step. */
export const DEFAULT_CHECK_TRIES = 20;

/** Where a trajectory ended: its last stop, and the events it took (summed over its pieces). */
interface Ending {
  reason: Advanced['reason'];
  importance: number;
  steps: number;
}

/** Advances `c` to its end, stopping at each rise of `step` (or in one go); with the number of stops. */
function runToEnd<S>(c: Continuation<S>, step: number, inPieces: boolean): { end: Ending; stops: number } {
  let steps = 0;
  let stops = 0;
  for (;;) {
    const r = c.advance(inPieces ? c.importance() + step : Infinity);
    steps += r.steps;
    stops++;
    if (r.reason !== 'level') return { end: { reason: r.reason, importance: r.importance, steps }, stops };
  }
}

const same = (a: Ending, b: Ending) => a.reason === b.reason && Object.is(a.importance, b.importance) && a.steps === b.steps;
const say = (e: Ending) => `${e.reason} at importance ${e.importance} after ${e.steps} steps`;

/**
 * What a {@link SplittableSystem} does that its contract forbids, as sentences (none: no problem
 * found), for a simulator's tests: the same seed runs the same trajectory; advancing in pieces runs
 * the same trajectory as in one go; a snapshot restored with the original streams goes on as the
 * run it was taken from did (so the snapshot holds all state), twice alike (so restoring does not
 * change it); the same fresh streams give the same branch. It compares the stops the interface
 * shows (reason, importance, events), so a simulator's own test compares its results besides.
 */
export function systemProblems<S>(system: SplittableSystem<S>, options: SystemCheckOptions): string[] {
  const step = options.importanceStep;
  const problems: string[] = [];
  const tries = options.tries ?? DEFAULT_CHECK_TRIES;
  let snapshotChecked = false;
  for (let i = 0; i < tries && !snapshotChecked; i++) {
    const seed = startSeed(options.seed, 0, i);
    const whole = runToEnd(system.start(seed), step, false).end;
    const pieces = runToEnd(system.start(seed), step, true);
    if (!same(whole, pieces.end)) problems.push(`seed ${seed}: advancing in pieces ended ${say(pieces.end)}, in one go ${say(whole)}`);
    const again = runToEnd(system.start(seed), step, false).end;
    if (!same(whole, again)) problems.push(`seed ${seed}: the same seed ended ${say(whole)}, then ${say(again)}`);
    if (pieces.stops < 2) continue;
    // A trajectory that rose by a step: snapshot it there, then go on.
    const c = system.start(seed);
    const first = c.advance(c.importance() + step);
    const snap = c.snapshot();
    const tail = runToEnd(c, step, false).end;
    for (const attempt of ['first', 'second']) {
      const restored = runToEnd(system.restore(snap, { kind: 'original' }), step, false).end;
      if (!same(tail, restored)) problems.push(`seed ${seed}: restored (${attempt} time) with the original streams at importance ${first.importance}, it ended ${say(restored)} where the run went on to end ${say(tail)}`);
    }
    const fresh = branchSeed(options.seed, 0, 0, 0);
    const a = runToEnd(system.restore(snap, { kind: 'fresh', seed: fresh }), step, false).end;
    const b = runToEnd(system.restore(snap, { kind: 'fresh', seed: fresh }), step, false).end;
    if (!same(a, b)) problems.push(`seed ${seed}: the same fresh streams ended ${say(a)}, then ${say(b)}`);
    snapshotChecked = true;
  }
  if (!snapshotChecked) problems.push(`no trajectory of ${tries} rose by ${step}: the snapshots were not checked`);
  return problems;
}
