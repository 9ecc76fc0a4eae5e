import { CONTINUE, type RetryPlan } from '../../policy/retrySteps.js';
import { GIVE_UP_NAMES, GiveUp, Outcome, OUTCOME_NAMES } from '../../policy/outcome.js';
import type { TraceEvent } from '../trace.js';

/**
 * The trace events of the layers, built out of line so that the hot methods stay small enough for
 * V8 to inline (a traced run calls these; an untraced one never does).
 */
export type TraceSink = (e: TraceEvent) => void;

/** A call reaches layer k as frame f (called by frame `parent`, -1 at the top), working to `deadlineAtMs`. */
export function traceCall(trace: TraceSink, t: number, op: number, k: number, deadlineAtMs: number, f: number, parent: number): void {
  trace({ tMs: t, op, layer: k, frame: f, event: 'call', deadlineAtMs, parent });
}

/** Attempt `attempt` of frame f starts with `timeoutMs`. */
export function traceAttempt(trace: TraceSink, t: number, op: number, k: number, attempt: number, timeoutMs: number, f: number): void {
  trace({ tMs: t, op, layer: k, frame: f, event: 'attempt', attempt, timeoutMs });
}

/** Attempt `attempt` of frame f ended with `outcome` (and a Retry-After, unless NaN). */
export function traceOutcome(trace: TraceSink, t: number, op: number, k: number, attempt: number, outcome: number, retryAfterMs: number, f: number): void {
  trace({
    tMs: t,
    op,
    layer: k,
    frame: f,
    event: 'outcome',
    attempt,
    outcome: OUTCOME_NAMES[outcome] as string,
    ...(retryAfterMs === retryAfterMs ? { retryAfterMs } : {}),
  });
}

/** The wait frame f planned before retry `retry`. */
export function traceWait(trace: TraceSink, t: number, op: number, k: number, retry: number, plan: RetryPlan, f: number): void {
  trace({
    tMs: t,
    op,
    layer: k,
    frame: f,
    event: 'wait',
    retry,
    ceilingMs: plan.ceilingMs,
    backoffMs: plan.backoffMs,
    waitMs: plan.waitMs,
    wakeAtMs: plan.wakeAtMs,
    fits: plan.giveUp === CONTINUE,
  });
}

/** Layer k's call (frame f) ends for `reason` after `attempts` attempts, returning `outcome` upward. */
export function traceGiveUp(trace: TraceSink, t: number, op: number, k: number, reason: number, attempts: number, outcome: number, f: number): void {
  trace({
    tMs: t,
    op,
    layer: k,
    frame: f,
    event: 'give-up',
    reason: GIVE_UP_NAMES[reason] as string,
    attempts,
    outcome: OUTCOME_NAMES[reason === GiveUp.SUCCESS ? Outcome.SUCCESS : outcome] as string,
  });
}
