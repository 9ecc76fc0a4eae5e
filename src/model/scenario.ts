/**
 * The fully resolved description of one simulation (every default filled in). Experiment files
 * are parsed and validated into this shape by src/experiment; the model only ever sees this.
 * Times are in milliseconds, rates per second. See DESIGN.md sections 1-3 for the semantics.
 */

import type { DistSpec } from '../engine/distributions.js';
import type { Method, PolicySpec } from '../policy/types.js';

export type { DistSpec as Dist } from '../engine/distributions.js';
export type {
  BackoffKind,
  BackoffSpec,
  DeadlineMode,
  IdempotencyRule,
  Method,
  PolicySpec as Policy,
  RetryAfterMode,
  RetryOnClass,
} from '../policy/types.js';
type Dist = DistSpec;
type Policy = PolicySpec;


/** Arrival rate over time of an open-loop workload (t = 0 is the end of the warm-up). */
export type RateSchedule =
  | { kind: 'steady'; ratePerSec: number }
  /** `ratePerSec` until `atMs`, then `toRatePerSec`. */
  | { kind: 'step'; ratePerSec: number; atMs: number; toRatePerSec: number }
  /** `ratePerSec`, except `spikeRatePerSec` during [atMs, atMs + durationMs). */
  | { kind: 'spike'; ratePerSec: number; atMs: number; durationMs: number; spikeRatePerSec: number }
  /** Piecewise linear through the points (sorted by atMs); constant before the first and after the last. */
  | { kind: 'ramp'; points: Array<{ atMs: number; ratePerSec: number }> };

/** What every operation of a workload looks like. */
export interface OperationSpec {
  method: Method;
  /** Total budget of an operation from its start; absent = no deadline. 0 = already spent. */
  deadlineMs?: number;
  /** Fraction of operations that are bad input: the leaf answers them 400 (permanent). */
  permanentErrorFraction: number;
}

export type Workload =
  | ({
      kind: 'open';
      /** Poisson arrivals with this (possibly time-varying) rate. */
      rate: RateSchedule;
      /** Arrivals stop at this time (after the warm-up); the run then drains. */
      durationMs: number;
      /** Number of clients the operations are spread over (uniformly at random). */
      clients: number;
    } & OperationSpec)
  | ({
      kind: 'closed';
      /** Each client runs operations one after another with think time in between. */
      clients: number;
      thinkMs: Dist;
      /** Clients start no new operation at or after this time. */
      durationMs: number;
      /** Time of each client's first operation. */
      startMs: Dist;
    } & OperationSpec)
  | ({
      kind: 'burst';
      /** N clients, one operation each. */
      clients: number;
      /** Start time of each client's operation (constant 0: all at t = 0). */
      startMs: Dist;
    } & OperationSpec);

export interface Layer {
  name: string;
  /** Clients map to instances by client id modulo this count (each instance holds its own state). */
  instances: number;
  /** Delay of the hop from this layer to the next one down (and back); default: network.hopMs. */
  hopMs?: Dist;
  policy: Policy;
}

/** A status a server or script can answer. */
export type Status = 200 | 400 | 404 | 429 | 500 | 503 | 'timeout';

/** Injected faults over [fromMs, toMs): the leaf answers `status` to a fraction of requests on arrival. */
export interface Fault {
  fromMs: number;
  toMs: number;
  probability: number;
  status: Exclude<Status, 200>;
  /** Retry-After hint attached to the answer. */
  retryAfterMs?: number;
  /** How long the failure takes to come back (default 0: answered on arrival). */
  latencyMs?: Dist;
}

/** Concurrency becomes `concurrency` during [atMs, atMs + durationMs) (0 = outage: nothing is served). */
export interface CapacityWindow {
  atMs: number;
  durationMs: number;
  concurrency: number;
}

export type Degradation =
  /** Service time = drawn + perInFlightMs * (requests in service, itself included), fixed at start. */
  | { kind: 'linear'; perInFlightMs: number }
  /** Service time is `factor` times longer when more than `inFlightAbove` requests are in service. */
  | { kind: 'threshold'; inFlightAbove: number; factor: number };

export interface ServerLeaf {
  kind: 'server';
  concurrency: number | 'unlimited';
  queueLimit: number | 'unlimited';
  discipline: 'fifo' | 'lifo';
  serviceMs: Dist;
  /** Retry-After attached to the 503 answered when the queue is full; absent = none. */
  shedRetryAfterMs?: number;
  /** What a full queue answers: 503, or "overloaded; don't retry" (Google SRE book ch. 21). Default 503. */
  shedStatus?: 503 | 'overloaded';
  /** A gRPC pushback hint (`grpc-retry-pushback-ms`, gRPC A6) on shed answers: n >= 0 retry after n ms; negative: do not retry. */
  pushbackMs?: number;
  degradation?: Degradation;
  /** Drop queued requests whose deadline passed instead of serving them. */
  dropExpired: boolean;
  capacity: CapacityWindow[];
  faults: Fault[];
}

/**
 * The optimistic-concurrency resource of the AWS 2015 contention study: one versioned row; an
 * attempt is a read then a conditional write, each crossing the network both ways.
 */
export interface OccLeaf {
  kind: 'occ';
}

/** One scripted answer: the status and how long it takes; `hang` never answers. */
export interface ScriptEntry {
  status: Status | 'hang';
  durationMs: number;
  retryAfterMs?: number;
}

/** A leaf that answers attempt i with entry i (the last entry repeats), for `trace`. */
export interface ScriptLeaf {
  kind: 'script';
  script: ScriptEntry[];
}

export type Leaf = ServerLeaf | OccLeaf | ScriptLeaf;

export interface MetricsSpec {
  /** Width of the time-series bins. */
  timeSeriesBinMs: number;
  /** Bin widths for the clustering statistics of leaf arrivals, one result entry per width. */
  clusteringBinMs: number[];
}

export interface Scenario {
  workload: Workload;
  /** Layers from the caller down to the leaf; at least one. */
  stack: Layer[];
  leaf: Leaf;
  network: { hopMs: Dist };
  /** Propagate cancellation downstream when a caller stops waiting (off: the work goes on). */
  cancellation: boolean;
  /** The system runs this long before t = 0; nothing is measured during it. */
  warmupMs: number;
  /** Safety bound on simulated time (after the warm-up). */
  horizonMs: number;
  /** Safety bound on the number of events. */
  maxEvents: number;
  metrics: MetricsSpec;
}
