import type { Simulator } from '../../engine/simulator.js';
import { CONTINUE, isHedgeNonFatal, type CompiledPolicy } from '../../policy/decision.js';
import { GiveUp, Outcome } from '../../policy/outcome.js';
import { K_FRAME_TIMEOUT, K_HEDGE } from '../eventKinds.js';
import type { Layers } from './Layers.js';
import { traceAttempt, traceOutcome } from './traceEvents.js';

/**
 * Hedged calls (gRPC A6 hedging, grpc/proposal A6-client-retries.md): a layer with a hedging
 * policy sends another copy of its call every `hedgingDelayMs` until one answers, up to
 * `maxAttempts` copies; a success or a fatal status ends the call; hedges are asked of and charged
 * to the retry budgets. Works on the frames of {@link Layers}.
 */
export class Hedging {
  constructor(
    private readonly layers: Layers,
    private readonly sim: Simulator,
  ) {}

  /** Every copy of a hedged call answers to the same generation and waits up to the call's deadline (`end`); returns that generation. */
  armAttempt(f: number, k: number, p: CompiledPolicy, n: number, end: number, t: number): number {
    const ly = this.layers;
    let gen: number;
    if (n === 1) {
      gen = ly.frameTimers.arm(f);
      if (end < Infinity) this.sim.at(end, K_FRAME_TIMEOUT, f, gen);
    } else {
      gen = ly.frameTimers.current(f);
    }
    ly.fOutstanding[f] = (ly.fOutstanding[f] as number) + 1;
    const hs = p.spec.hedging;
    if (hs && n < hs.maxAttempts) this.sim.at(t + hs.hedgingDelayMs, K_HEDGE, f, ly.hedgeTimers.arm(f));
    if (ly.trace) traceAttempt(ly.trace, t, ly.fOpSeq[f] as number, k, n, end - t);
    return gen;
  }

  /**
   * A copy of a hedged call answered: a success or a fatal status ends the call; a non-fatal one
   * sends the next copy at once if any are left, and otherwise the call ends when the last copy in
   * flight has answered.
   */
  ended(f: number, outcome: number, retryAfterMs: number, t: number): void {
    const ly = this.layers;
    const k = ly.fLayer[f] as number;
    const p = ly.policies[k] as CompiledPolicy;
    const outstanding = (ly.fOutstanding[f] as number) - 1;
    ly.fOutstanding[f] = outstanding;
    ly.fLastOutcome[f] = outcome;
    ly.fLastRA[f] = retryAfterMs;
    const attempts = ly.fAttempts[f] as number;
    if (ly.trace) traceOutcome(ly.trace, t, ly.fOpSeq[f] as number, k, attempts, outcome, retryAfterMs);
    const guards = ly.guards;
    if (guards.guarded[k]) {
      const retryable = guards.hasBudget[k] ? outcome !== Outcome.SUCCESS && isHedgeNonFatal(p, outcome) : false;
      guards.attemptEnded(k, ly.fInst[f] as number, t, outcome, attempts > 1, retryable);
    }
    if ((ly.fDeadline[f] as number) - t <= 0) {
      ly.endFrame(f, GiveUp.DEADLINE, outcome, retryAfterMs, t);
      return;
    }
    if (outcome === Outcome.SUCCESS) {
      ly.endFrame(f, GiveUp.SUCCESS, outcome, retryAfterMs, t);
      return;
    }
    if (!isHedgeNonFatal(p, outcome)) {
      ly.endFrame(f, GiveUp.NOT_RETRYABLE, outcome, retryAfterMs, t);
      return;
    }
    const max = p.spec.hedging?.maxAttempts ?? 1;
    let refusal: number = GiveUp.BUDGET_EXHAUSTED;
    if (attempts < max) {
      ly.hedgeTimers.cancel(f);
      refusal = this.send(f, t);
      if (refusal === CONTINUE) return;
    }
    if (outstanding <= 0) ly.endFrame(f, attempts < max ? refusal : GiveUp.ATTEMPT_LIMIT, outcome, retryAfterMs, t);
  }

  /** The hedging delay passed with no answer: send another copy if the budgets allow. */
  due(f: number, t: number): void {
    if ((this.layers.fDeadline[f] as number) - t <= 0) return;
    this.send(f, t);
  }

  /**
   * Send the next copy of a hedged call if the budgets and the admission control allow it now.
   * Returns CONTINUE when it was sent, else why not (a budget's refusal, or `throttled`).
   */
  private send(f: number, t: number): number {
    const ly = this.layers;
    const k = ly.fLayer[f] as number;
    const inst = ly.fInst[f] as number;
    const outcome = ly.fLastOutcome[f] as number;
    const guards = ly.guards;
    if (guards.hasBudget[k]) {
      const refusal = guards.refuse(k, inst, t, outcome);
      if (refusal !== CONTINUE) return refusal;
    }
    if (guards.hasAdmission[k] && guards.admit(k, inst, t) !== 0) return GiveUp.THROTTLED;
    if (guards.hasBudget[k]) guards.retryScheduled(k, inst, t, outcome);
    ly.sendAttempt(f, t);
    return CONTINUE;
  }
}
