import { METHOD_COUNT } from '../../policy/classify.js';
import { Next, type RetryLoop } from '../../policy/retryLoop.js';
import type { FrameTable } from './FrameTable.js';
import type { Layers } from './Layers.js';

/**
 * The retries a timed intervention's change of a layer's policy re-checks (docs/experiments.md, "Timed
 * interventions"; docs/architecture.md, "Timed interventions"). `Layers.swapPolicy` compiles the
 * layer's new policy into a new retry loop, which governs every decision of its frames from then
 * on; a retry already waiting when the policy changes is marked here ({@link markWaiting}), and
 * when it wakes the new loop re-checks it ({@link RetryLoop.recheckRetry}), so the decision order
 * stays in src/policy. Made at the first change that marks: a run without interventions has none,
 * and its wake-ups go straight to the attempt.
 */
export class PolicySwaps {
  /**
   * Per frame: 1 when the frame's retry was planned under an earlier policy, 3 when budgets were
   * added or replaced since, for its wake-up armed with generation `recheckGen[f]` (0: nothing to
   * ask). Grown at each change to cover every frame allocated then.
   */
  private recheck = new Uint8Array(0);
  private recheckGen = new Uint32Array(0);

  /** The re-checks of `layers`' retries, on its `frames`. */
  constructor(
    private readonly layers: Layers,
    private readonly frames: FrameTable,
  ) {}

  /**
   * Layer k's policy changed (`newBudgets`: its budgets were added or replaced): every frame of the
   * layer waiting for a retry is marked for a re-check: the attempt cap, the retryable classes,
   * and the new budgets. An attempt in flight keeps the timeout it was sent with.
   */
  markWaiting(k: number, newBudgets: boolean): void {
    const fr = this.frames;
    const n = fr.count;
    let marks = this.recheck;
    let gens = this.recheckGen;
    if (marks.length < n) {
      const size = Math.max(n, 64);
      const m = new Uint8Array(size);
      const g = new Uint32Array(size);
      m.set(marks);
      g.set(gens);
      this.recheck = marks = m;
      this.recheckGen = gens = g;
    }
    const mark = newBudgets ? 3 : 1;
    // Every frame of layer k between attempts, for the event it waits for now: only a wake-up armed
    // with that generation is asked again (a free frame, one not begun or one whose attempt is
    // delayed by its admission control never wakes with it).
    const timers = fr.frameTimers;
    for (let f = 0; f < n; f++) {
      if (fr.fLayer[f] !== k || fr.fInAttempt[f] !== 0 || (fr.fAttempts[f] as number) === 0) continue;
      const gen = timers.current(f);
      marks[f] = gens[f] === gen ? (marks[f] as number) | mark : mark;
      gens[f] = gen;
    }
  }

  /** Frame f's retry, planned before its layer's policy changed, wakes at t (its wake-up armed with `gen`): the loop re-checks it; true when the call ends there. */
  recheckEnds(f: number, gen: number, t: number): boolean {
    const marks = this.recheck;
    const mark = f < marks.length && this.recheckGen[f] === gen ? (marks[f] as number) : 0;
    if (mark === 0) return false;
    marks[f] = 0;
    const ly = this.layers;
    const fr = this.frames;
    const k = fr.fLayer[f] as number;
    const guards = ly.guards;
    const chain = (mark & 2) !== 0 && guards.hasBudget[k] ? guards.decisionChain(k, fr.fInst[f] as number) : null;
    const step = ly.step;
    const next = (ly.loops[k] as RetryLoop).recheckRetry(
      fr.fAttempts[f] as number,
      fr.fLastOutcome[f] as number,
      fr.fLastRA[f] as number,
      ly.idempotent[k * METHOD_COUNT + (fr.fMethod[f] as number)] === 1,
      t,
      fr.fDeadline[f] as number,
      chain,
      step,
    );
    if (next !== Next.END) return false;
    ly.endFrame(f, step.reason, step.outcome, fr.fLastRA[f] as number, t);
    return true;
  }
}
