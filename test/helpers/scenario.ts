import { Model, type ModelOptions } from '../../src/model/Model.js';
import type { SimulationResults } from '../../src/model/results.js';
import type {
  BackoffKind,
  BackoffSpec,
  Dist,
  Layer,
  Policy,
  RateSchedule,
  Scenario,
  ScriptEntry,
  ScriptLeaf,
  ServerLeaf,
  Workload,
} from '../../src/model/scenario.js';
import type { TraceEvent } from '../../src/model/trace.js';

/** A resolved policy with every default spelled out, overridable. */
export function policy(over: Partial<Policy> = {}): Policy {
  return {
    maxAttempts: 3,
    deadlineMode: 'propagate',
    backoff: { kind: 'full-jitter', baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0 },
    tickMs: 0,
    retryOn: ['timeout', '500', '503', '429', 'conflict'],
    idempotency: 'http',
    retryAfter: 'honor',
    ...over,
  };
}

export function layer(name: string, over: Partial<Policy> = {}, layerOver: Partial<Layer> = {}): Layer {
  return { name, instances: 1, policy: policy(over), ...layerOver };
}

export function server(over: Partial<ServerLeaf> = {}): ServerLeaf {
  return {
    kind: 'server',
    concurrency: 1,
    queueLimit: 'unlimited',
    discipline: 'fifo',
    serviceMs: { dist: 'constant', value: 10 },
    dropExpired: false,
    capacity: [],
    faults: [],
    ...over,
  };
}

/** A resolved scenario: one burst client, one layer, a 10 ms server, no network delay. */
export function scenario(over: Partial<Scenario> = {}): Scenario {
  return {
    workload: { kind: 'burst', clients: 1, startMs: { dist: 'constant', value: 0 }, method: 'GET', permanentErrorFraction: 0 },
    stack: [layer('client')],
    leaf: server(),
    network: { hopMs: { dist: 'constant', value: 0 } },
    cancellation: false,
    warmupMs: 0,
    horizonMs: 3_600_000,
    maxEvents: 200_000_000,
    maxInFlight: 10_000_000,
    metrics: { timeSeriesBinMs: 1000, clusteringBinMs: [1, 10] },
    ...over,
  };
}

/** A server that answers every request 503 at once. */
export function alwaysFailing(status: 503 | 500 | 429 = 503): ServerLeaf {
  return server({ faults: [{ fromMs: 0, toMs: Infinity, probability: 1, status }] });
}

/** A constant distribution. */
export function constant(value: number): Dist {
  return { dist: 'constant', value };
}

/** A burst workload: `clients` operations starting at `startMs` (constant 0 by default). */
export function burst(clients: number, over: Partial<Extract<Workload, { kind: 'burst' }>> = {}): Workload {
  return { kind: 'burst', clients, startMs: constant(0), method: 'GET', permanentErrorFraction: 0, ...over };
}

/** An open-loop workload with the given rate schedule (a number: steady) over `durationMs`. */
export function openLoop(
  rate: number | RateSchedule,
  durationMs: number,
  over: Partial<Extract<Workload, { kind: 'open' }>> = {},
): Workload {
  const schedule: RateSchedule = typeof rate === 'number' ? { kind: 'steady', ratePerSec: rate } : rate;
  return { kind: 'open', rate: schedule, durationMs, clients: 1, method: 'GET', permanentErrorFraction: 0, ...over };
}

/** A closed-loop workload of `clients` clients starting at 0 with constant think time. */
export function closedLoop(
  clients: number,
  thinkMs: number,
  durationMs: number,
  over: Partial<Extract<Workload, { kind: 'closed' }>> = {},
): Workload {
  return {
    kind: 'closed',
    clients,
    thinkMs: constant(thinkMs),
    durationMs,
    startMs: constant(0),
    method: 'GET',
    permanentErrorFraction: 0,
    ...over,
  };
}

/** A scripted leaf answering attempt i of an operation with entry i (the last one repeats). */
export function scripted(...script: ScriptEntry[]): ScriptLeaf {
  return { kind: 'script', script };
}

/** A backoff of the given kind with base and cap in ms (multiplier 2, no exponent offset). */
export function backoff(kind: BackoffKind, baseMs = 0, capMs = Math.max(baseMs, 1)): BackoffSpec {
  return { kind, baseMs, capMs, multiplier: 2, exponentOffset: 0 };
}

/** Run a scenario with a seed (and optional model options). */
export function simulate(sc: Scenario, seed = 1, options: Omit<ModelOptions, 'seed'> = {}): SimulationResults {
  return new Model(sc, { seed, ...options }).run();
}

/** Run a scenario and also collect its full timeline (every operation's events, in time order). */
export function simulateTraced(sc: Scenario, seed = 1): { results: SimulationResults; timeline: TraceEvent[] } {
  const timeline: TraceEvent[] = [];
  const results = new Model(sc, { seed, trace: (e) => timeline.push(e) }).run();
  return { results, timeline };
}

/** A timeline as [timeMs, what] pairs, each line prefixed with its layer (`L0`, `L1`...). */
export function eventLog(events: TraceEvent[]): Array<[number, string]> {
  return events.map((e): [number, string] => {
    const l = `L${e.layer}`;
    switch (e.event) {
      case 'call':
        return [e.tMs, `${l} call deadline=${e.deadlineAtMs}`];
      case 'attempt':
        return [e.tMs, `${l} attempt ${e.attempt} timeout=${e.timeoutMs}`];
      case 'outcome':
        return [e.tMs, `${l} outcome ${e.outcome}${e.retryAfterMs !== undefined ? ` ra=${e.retryAfterMs}` : ''}`];
      case 'wait':
        return [e.tMs, `${l} wait ${e.waitMs}${e.fits ? '' : ' does-not-fit'}`];
      case 'give-up':
        return [e.tMs, `${l} give-up ${e.reason} after ${e.attempts}`];
      default:
        return [e.tMs, `${e.service}.${e.endpoint} ${e.event}`];
    }
  });
}

/** Sum of a list of numbers. */
export function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

/** Sum of the values of a record of counts (e.g. give-ups by reason). */
export function total(counts: Record<string, number>): number {
  return sum(Object.values(counts));
}
