import type { Simulator } from '../../engine/simulator.js';
import type { RetryLoop } from '../../policy/retryLoop.js';
import * as retryLoopModule from '../../policy/retryLoop.js';
import * as eventKindsModule from '../eventKinds.js';
import type { FrameTable } from './FrameTable.js';
import type { Layers } from './Layers.js';
import { traceAttempt, traceOutcome } from './traceEvents.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Next } = retryLoopModule;
const { K_FRAME_TIMEOUT, K_HEDGE } = eventKindsModule;

/**
 * Hedged calls (gRPC A6 hedging, grpc/proposal A6-client-retries.md): a layer with a hedging
 * policy sends another copy of its call every `hedgingDelayMs` until one answers, up to
 * `maxAttempts` copies; a success or a fatal status ends the call; hedges are asked of and charged
 * to the retry budgets. The decisions are the layer's {@link RetryLoop}'s (`hedgeAnswered`,
 * `hedgeDue`, `nextHedgeAtMs`); this class arms the timers and sends what it says, through the
 * retry loop of {@link Layers}. A frame's copies in flight are counted by the {@link FrameTable}.
 */
export class Hedging {
  /** The hedges of `layers`' hedging layers, on its `frames`. */
  constructor(
    private readonly layers: Layers,
    private readonly frames: FrameTable,
    private readonly sim: Simulator,
  ) {}

  /**
   * Copy n of a hedged call is sent at t: every copy answers to the same generation and waits up
   * to the call's deadline (`end`); the next copy is due after the hedging delay. Returns the
   * generation.
   */
  armAttempt(f: number, k: number, loop: RetryLoop, n: number, end: number, t: number): number {
    const ly = this.layers;
    const fr = this.frames;
    let gen: number;
    if (n === 1) {
      gen = fr.frameTimers.arm(f);
      if (end < Infinity) this.sim.at(end, ly.kb + K_FRAME_TIMEOUT, f, gen);
    } else {
      gen = fr.frameTimers.current(f);
    }
    fr.hedgeSent(f);
    const dueAt = loop.nextHedgeAtMs(n, t);
    if (dueAt < Infinity) this.sim.at(dueAt, ly.kb + K_HEDGE, f, fr.hedgeTimers.arm(f));
    if (ly.trace) traceAttempt(ly.trace, t, fr.fOpSeq[f] as number, k, n, end - t, f);
    return gen;
  }

  /** A copy of a hedged call answered: the loop ends the call, sends the next copy now, or waits for the copies in flight. */
  ended(f: number, outcome: number, retryAfterMs: number, t: number): void {
    const ly = this.layers;
    const fr = this.frames;
    const k = fr.fLayer[f] as number;
    const outstanding = fr.hedgeAnswered(f, outcome, retryAfterMs);
    const attempts = fr.fAttempts[f] as number;
    if (ly.trace) traceOutcome(ly.trace, t, fr.fOpSeq[f] as number, k, attempts, outcome, retryAfterMs, f);
    const guards = ly.guards;
    const inst = fr.fInst[f] as number;
    const step = ly.step;
    const next = (ly.loops[k] as RetryLoop).hedgeAnswered(
      attempts,
      outstanding,
      outcome,
      t,
      fr.fDeadline[f] as number,
      guards.decisionChain(k, inst),
      guards.admission(k, inst),
      guards,
      step,
    );
    if (step.cancelHedgeTimer) fr.hedgeTimers.cancel(f);
    if (next === Next.HEDGE) ly.sendAttempt(f, t);
    else if (next === Next.END) ly.endFrame(f, step.reason, outcome, retryAfterMs, t);
  }

  /** The hedging delay passed with no answer: the next copy, if the loop sends one. */
  due(f: number, t: number): void {
    const ly = this.layers;
    const fr = this.frames;
    const k = fr.fLayer[f] as number;
    const inst = fr.fInst[f] as number;
    const guards = ly.guards;
    const next = (ly.loops[k] as RetryLoop).hedgeDue(
      fr.fAttempts[f] as number,
      fr.fLastOutcome[f] as number,
      t,
      fr.fDeadline[f] as number,
      guards.decisionChain(k, inst),
      guards.admission(k, inst),
      guards,
      ly.step,
    );
    if (next === Next.HEDGE) ly.sendAttempt(f, t);
  }
}
