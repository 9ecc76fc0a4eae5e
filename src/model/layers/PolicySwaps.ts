import { idempotencyInto, METHOD_COUNT } from '../../policy/classify.js';
import { compilePolicy } from '../../policy/decision.js';
import { Next, RetryLoop } from '../../policy/retryLoop.js';
import type { Policy } from '../scenario.js';
import type { Layers } from './Layers.js';

/**
 * The timed interventions' changes of a layer's policy during a run (docs/experiments.md, "Timed interventions";
 * docs/architecture.md, "Timed interventions"), on the frames of {@link Layers}. A layer's new
 * policy is compiled into a new retry loop, which governs every decision of its frames from then
 * on; a retry already waiting when the policy changes is marked, and when it wakes the new loop
 * re-checks it ({@link RetryLoop.recheckRetry}), so the decision order stays in src/policy. Made at
 * the first change: a run without interventions has none, and its wake-ups go straight to the
 * attempt.
 */
export class PolicySwaps {
  /**
   * Per frame: 1 when the frame's retry was planned under an earlier policy, 3 when budgets were
   * added or replaced since, for its wake-up armed with generation `recheckGen[f]` (0: nothing to
   * ask). Grown at each change to cover every frame allocated then.
   */
  private recheck = new Uint8Array(0);
  private recheckGen = new Uint32Array(0);

  constructor(private readonly layers: Layers) {}

  /**
   * Layer k takes `policy` at t: its retry loop is recompiled and swapped in, in every instance;
   * its budgets and admission control follow (`LayerGuards.swap`). An attempt in flight
   * keeps the timeout it was sent with. Every frame of the layer waiting for a retry (among the
   * `frames` allocated) is marked for a re-check: the attempt cap, the retryable classes, and the
   * new budgets. The policy's hedging and seeding stay (validation), so a hedging layer marks none.
   */
  swap(k: number, policy: Policy, frames: number, t: number): void {
    const ly = this.layers;
    ly.loops[k] = new RetryLoop(compilePolicy(policy));
    idempotencyInto(ly.idempotent, k * METHOD_COUNT, policy.idempotency);
    const newBudgets = ly.guards.swap(k, policy, t);
    if (ly.hedging[k]) return;
    const n = frames;
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
    ly.rechecks = true;
    const mark = newBudgets ? 3 : 1;
    // Every frame of layer k between attempts, for the event it waits for now: only a wake-up armed
    // with that generation is asked again (a free frame, one not begun or one whose attempt is
    // delayed by its admission control never wakes with it).
    const timers = ly.frameTimers;
    for (let f = 0; f < n; f++) {
      if (ly.fLayer[f] !== k || ly.fInAttempt[f] !== 0 || (ly.fAttempts[f] as number) === 0) continue;
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
    const k = ly.fLayer[f] as number;
    const guards = ly.guards;
    const chain = (mark & 2) !== 0 && guards.hasBudget[k] ? guards.decisionChain(k, ly.fInst[f] as number) : null;
    const step = ly.step;
    const next = (ly.loops[k] as RetryLoop).recheckRetry(
      ly.fAttempts[f] as number,
      ly.fLastOutcome[f] as number,
      ly.fLastRA[f] as number,
      ly.idempotent[k * METHOD_COUNT + (ly.fMethod[f] as number)] === 1,
      t,
      ly.fDeadline[f] as number,
      chain,
      step,
    );
    if (next !== Next.END) return false;
    ly.endFrame(f, step.reason, step.outcome, ly.fLastRA[f] as number, t);
    return true;
  }
}
