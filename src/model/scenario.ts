import type { MetricWindowSpec } from '../metrics/MetricWindows.js';
/**
 * The fully resolved description of one simulation (every default filled in). Experiment files
 * are parsed and validated into this shape by src/experiment; the model only ever sees this.
 * Times are in milliseconds, rates per second. docs/concepts.md ("Concepts", "The model", "What is measured") gives the semantics.
 */

import type { DistSpec } from '../engine/distributions.js';
import type { AnswerStatus } from '../policy/outcome.js';
import type { Method, PolicySpec } from '../policy/types.js';
import type { ServiceGraph } from './graph/ServiceGraph.js';
import type { Intervention } from './interventions.js';

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

/** A status a server, a fault or a script can answer (policy/outcome.ts, `ANSWER_STATUSES`). */
export type Status = AnswerStatus;

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
  /**
   * Windows in which the backend is down: it refuses every request at once (a connection failure,
   * answered 503) and the work it held is lost (its callers time out).
   */
  outages?: Array<{ atMs: number; durationMs: number }>;
  /** The backend crashes when its queue grows beyond `queueAbove` (out of memory): it loses its work and is down for `restartMs`. */
  crash?: { queueAbove: number; restartMs: number };
  /** CPU-like load shedding: refuse new requests while the busy fraction (an EWMA over `windowMs`) is above `above`. */
  shedUtilization?: { above: number; windowMs: number };
  /** An adaptive concurrency limit in front of the backend: requests beyond it are refused at once. */
  adaptiveConcurrency?: AdaptiveConcurrencySpec;
  /**
   * Controlled delay for the queue (Nichols & Jacobson, "Controlling Queue Delay", ACM Queue 2012, as
   * adapted to RPC servers by Maurer, "Fail at Scale", ACM Queue 2015): a queued request that waited
   * longer than `intervalMs` is failed; once the queue has not drained below `targetMs` for a whole
   * interval, longer than `targetMs`.
   */
  codel?: { targetMs: number; intervalMs: number };
}

/**
 * Adaptive concurrency limits.
 * - `aimd` (Netflix concurrency-limits `AIMDLimit`): a drop (a request refused or slower than
 *   `timeoutMs`) multiplies the limit by `backoffRatio`; a success while at least half the limit is in
 *   use adds 1.
 * - `gradient` (Envoy adaptive_concurrency filter's gradient controller; Netflix `GradientLimit`):
 *   limit = limit x min(2, max(0.5, minRtt / sampleRtt)) + sqrt(limit) headroom, smoothed; minRtt is
 *   the lowest latency seen in the last `minRttWindowMs`, sampleRtt the mean over each `sampleMs`.
 */
export type AdaptiveConcurrencySpec =
  | { kind: 'aimd'; initialLimit: number; minLimit: number; maxLimit: number; backoffRatio: number; timeoutMs: number }
  | { kind: 'gradient'; initialLimit: number; minLimit: number; maxLimit: number; sampleMs: number; minRttWindowMs: number; smoothing: number };

/** Outlier detection of a load balancer's backends (Envoy `outlier_detection`). */
export interface OutlierDetectionSpec {
  /** Eject a backend after this many consecutive failures (5xx, connection failures, timeouts); Envoy's consecutive_5xx, default 5. */
  consecutiveFailures: number;
  /** Also eject, at each interval, a backend whose failure percentage is at least this (with minRequests); absent = off. */
  failurePercentThreshold?: number;
  minRequests: number;
  intervalMs: number;
  /** Ejection lasts baseEjectionMs x the number of times the backend was ejected, at most maxEjectionMs. */
  baseEjectionMs: number;
  maxEjectionMs: number;
  /** Never eject more than this share of the cluster (at least one backend can always be ejected). */
  maxEjectionPercent: number;
}

/** Backends in clusters behind a load balancer (docs/concepts.md, "The model"; `leaves/server/`). */
export interface PoolLeaf {
  kind: 'pool';
  /** Clusters in priority order; each backend is a server of its own. */
  clusters: Array<{ name: string; backends: ServerLeaf[] }>;
  loadBalancer: 'round-robin' | 'random' | 'least-outstanding' | 'p2c';
  outlierDetection?: OutlierDetectionSpec;
  /** Active health checks: every intervalMs a backend's health becomes whether it is up. Absent: only outlier ejection. */
  healthCheck?: { intervalMs: number };
  /** Envoy priority failover: a cluster takes min(100%, healthy share x factor) of the remaining traffic; 1.4 in Envoy. */
  overprovisioningFactor: number;
  /** Below this healthy share a cluster balances over all its backends, healthy or not (Envoy's panic threshold, 50%). */
  panicThresholdPercent: number;
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

export type Leaf = ServerLeaf | PoolLeaf | OccLeaf | ScriptLeaf;

export interface MetricsSpec {
  /** Width of the time-series bins. */
  timeSeriesBinMs: number;
  /** Bin widths for the clustering statistics of leaf arrivals, one result entry per width. */
  clusteringBinMs: number[];
  /** Named intervals measured on their own (docs/concepts.md, "What is measured"); none when missing. */
  windows?: MetricWindowSpec[];
}

export interface Scenario {
  workload: Workload;
  /** Layers from the caller down to the leaf; at least one. */
  stack: Layer[];
  /** What the stack calls: the leaf, or in a service graph the fleet of the (first) entry service. */
  leaf: Leaf;
  /** The service graph (docs/experiments.md, "Service graphs"); absent for a `stack` + `leaf` scenario, a graph of one service. */
  graph?: ServiceGraph;
  network: { hopMs: Dist };
  /** Propagate cancellation downstream when a caller stops waiting (off: the work goes on). */
  cancellation: boolean;
  /** The system runs this long before t = 0; nothing is measured during it. */
  warmupMs: number;
  /** Safety bound on simulated time (after the warm-up). */
  horizonMs: number;
  /** Safety bound on the number of events. */
  maxEvents: number;
  /** Safety bound on the operations in flight at once in an open loop (each holds memory until it ends). */
  maxInFlight: number;
  metrics: MetricsSpec;
  /** Timed interventions in the order they apply (by atMs; equal times in the order written); absent: none (src/model/interventions.ts). */
  interventions?: Intervention[];
}

/** Every workload of a scenario: a graph's several `workloads`, or its one `workload`. */
export function scenarioWorkloads(sc: Scenario): Workload[] {
  return sc.graph?.workloads?.map((w) => w.workload) ?? [sc.workload];
}

/** The clients of all of a scenario's workloads together. */
export function scenarioClients(sc: Scenario): number {
  return scenarioWorkloads(sc).reduce((n, w) => n + w.clients, 0);
}
