import { Model } from './Model.js';
import type { Scenario } from './scenario.js';
import type { TraceEvent } from './trace.js';

/** What one layer did during a traced operation. */
export interface TraceLayerSummary {
  layer: string;
  /** Calls this layer received (more than one below the top when the layer above retried). */
  calls: number;
  attempts: number;
  /** The timeout each attempt was given, in order (null: none, the attempt waits forever). */
  attemptTimeoutsMs: Array<number | null>;
  /** Each attempt's outcome, in order. */
  outcomes: string[];
  /** The backoff ceiling and the actual wait of each retry taken, in order (a wait that did not fit is only in the timeline). */
  ceilingsMs: number[];
  waitsMs: number[];
  /** The reason each call of this layer ended, in order. */
  giveUps: string[];
}

/** The trace of one operation, as `retrystorm trace --json` prints it (`layers`: the workload's stack; in a service graph the timeline holds the services' handlers and their calls' layers too). */
export interface TraceResult {
  /** How the operation ended (the top layer's give-up reason). */
  outcome: string;
  /** The last status the top layer saw. */
  lastOutcome: string;
  /** Attempts made by the top layer. */
  attempts: number;
  endMs: number;
  attemptTimeoutsMs: Array<number | null>;
  ceilingsMs: number[];
  waitsMs: number[];
  layers: TraceLayerSummary[];
  timeline: TraceEvent[];
}

/**
 * Run a single operation of `scenario` (its workload is replaced by one client starting at 0,
 * keeping the method and deadline) and record its timeline: each attempt's start and timeout,
 * its outcome, the backoff ceiling and the wait chosen, and the final give-up reason; in a service
 * graph, also each handler it reaches (its steps, join decisions and answer) and the layers of
 * every call it makes ({@link TraceEvent}).
 */
export function traceOperation(scenario: Scenario, options: { seed: number; fixedDraw?: number }): TraceResult {
  const w = scenario.workload;
  const single: Scenario = {
    ...scenario,
    warmupMs: 0,
    workload: {
      kind: 'burst',
      clients: 1,
      startMs: { dist: 'constant', value: 0 },
      method: w.method,
      permanentErrorFraction: 0,
      ...(w.deadlineMs !== undefined ? { deadlineMs: w.deadlineMs } : {}),
    },
  };
  const timeline: TraceEvent[] = [];
  new Model(single, {
    seed: options.seed,
    ...(options.fixedDraw !== undefined ? { fixedDraw: options.fixedDraw } : {}),
    trace: (e) => timeline.push(e),
    traceGraph: true,
  }).run();
  const layers: TraceLayerSummary[] = scenario.stack.map((l) => ({
    layer: l.name,
    calls: 0,
    attempts: 0,
    attemptTimeoutsMs: [],
    outcomes: [],
    ceilingsMs: [],
    waitsMs: [],
    giveUps: [],
  }));
  let outcome = 'unfinished';
  let lastOutcome = '';
  let endMs = 0;
  for (const e of timeline) {
    // The summary is the workload's stack's: a graph's services and calls are in the timeline only.
    if ('service' in e || e.site !== undefined) continue;
    const s = layers[e.layer] as TraceLayerSummary;
    switch (e.event) {
      case 'call':
        s.calls++;
        break;
      case 'attempt':
        s.attempts++;
        s.attemptTimeoutsMs.push(Number.isFinite(e.timeoutMs) ? e.timeoutMs : null);
        break;
      case 'outcome':
        s.outcomes.push(e.outcome);
        break;
      case 'wait':
        if (e.fits) {
          s.ceilingsMs.push(e.ceilingMs);
          s.waitsMs.push(e.waitMs);
        }
        break;
      case 'give-up':
        s.giveUps.push(e.reason);
        if (e.layer === 0) {
          outcome = e.reason;
          lastOutcome = e.outcome;
          endMs = e.tMs;
        }
        break;
    }
  }
  const top = layers[0] as TraceLayerSummary;
  return {
    outcome,
    lastOutcome,
    attempts: top.attempts,
    endMs,
    attemptTimeoutsMs: top.attemptTimeoutsMs,
    ceilingsMs: top.ceilingsMs,
    waitsMs: top.waitsMs,
    layers,
    timeline,
  };
}
