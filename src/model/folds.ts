import { isContinuous } from '../engine/distributions.js';
import type { CompiledPolicy } from '../policy/decision.js';
import type { Scenario } from './scenario.js';

/**
 * The folds a run may take: events it skips because nothing could happen in between that would
 * change what they decide (docs/architecture.md, "Folds"). Each fold changes no result; a traced
 * run takes none, and the randomized differential test (test/model/properties.test.ts) checks that
 * a traced run equals an untraced one.
 */
export interface Folds {
  /**
   * A last-layer retry is decided when the failed answer leaves the leaf (`Layers.retryAhead`)
   * instead of when it arrives across the last hop: one event less per retry.
   */
  foldAnswers: boolean;
  /**
   * Where answers fold and the leaf is not a pool, a retry decided ahead is also sent ahead: the
   * wake-up would only send the attempt, and nothing reaches the frame while it waits, so the
   * attempt is sent (counted, its hop drawn) when the retry is planned, with the wake-up's time
   * (one event less per retry). A pool is left out: its load balancer would see the request early.
   */
  sendAhead: boolean;
  /**
   * Where answers fold and the leaf is optimistic concurrency, a request reads without an event
   * (`OccLeaf.arriveAhead`): one event per write. The reads wait in the measurements until the
   * clock passes them, so that the clustering statistics still see arrivals in time order.
   */
  readAhead: boolean;
}

/**
 * Which folds a run takes. A last-layer frame's answer may be decided ahead only when nothing can
 * reach the frame while that answer crosses the hop. What can reach a frame, and what rules it out:
 * - an attempt timeout or a deadline (its own or one above it): no layer has a per-attempt timeout,
 *   a total timeout or a deadline;
 * - a hedge (another copy's answer, the hedging delay): no layer hedges;
 * - cancellation from above: cancellation is off;
 * - another operation of the same client (an open loop's arrivals share clients): the workload is a
 *   burst or a closed loop (one operation per client at a time);
 * - a budget or admission control whose state another frame changes in between: the last layer has
 *   none;
 * - a retry decision that depends on the wake-up's time (maxElapsedMs, a timer tick): the last
 *   layer has neither;
 * - an event at exactly the same time, whose order against the wake-up would change: the last
 *   hop's delay is continuous (with a constant hop such ties are common);
 * - a trace, which must show every event as it happens: none is taken;
 * - a timed intervention, which may change a policy or a queue limit in between: none is taken.
 */
export function planFolds(sc: Scenario, policies: CompiledPolicy[], tracing: boolean): Folds {
  const last = sc.stack.length - 1;
  const lastLayer = sc.stack[last];
  const lastPolicy = policies[last] as CompiledPolicy;
  const foldAnswers =
    isContinuous(lastLayer?.hopMs ?? sc.network.hopMs) &&
    sc.workload.kind !== 'open' &&
    sc.workload.deadlineMs === undefined &&
    policies.every((q) => q.perAttemptTimeoutMs === Infinity && q.totalTimeoutMs === Infinity) &&
    !sc.stack.some((l) => l.policy.hedging !== undefined) &&
    (lastLayer?.policy.budget?.length ?? 0) === 0 &&
    lastLayer?.policy.admission === undefined &&
    lastPolicy.maxElapsedMs === Infinity &&
    lastPolicy.tickMs === 0 &&
    !sc.cancellation &&
    sc.interventions === undefined &&
    !tracing;
  return {
    foldAnswers,
    sendAhead: foldAnswers && sc.leaf.kind !== 'pool',
    readAhead: foldAnswers && sc.leaf.kind === 'occ',
  };
}
