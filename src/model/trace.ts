/**
 * Where a layer's event of a service graph happened: the stack of a call (its caller, callee and
 * endpoint, the names of its layers) and its `level`, the indentation of its top layer in the
 * timeline (below the entry stack and each handler that calls through it). Absent: the workload's
 * own stack, whose layer k is at level k.
 */
export interface TraceSite {
  caller: string;
  callee: string;
  endpoint: string;
  layers: string[];
  level: number;
}

/**
 * One line of an operation's timeline, as `retrystorm trace` prints it. Times in ms from the start;
 * `op` numbers the operations of a run from 0 (every event of a call chain carries its operation's,
 * in a service graph the handlers' and their calls' too). In a graph with several workloads traced
 * through the graph, `op` is the operation's key in the graph (the workload's own number times the
 * number of workloads, plus the workload's index) and `workload` names its workload.
 */
export type TraceEvent = LayerTraceEvent | ServiceTraceEvent;

/**
 * What a service of a graph did for a request (docs/experiments.md, "Service graphs"), at `level` in the
 * timeline: a handler started for a request of `endpoint`; one of its steps started (`work`, or a
 * `call` step sending its calls); a call step's join decided (`success` or `failure`, and whether a
 * failed optional call left it degraded); the handler answered upward with `outcome`, or its request
 * was lost (a crash, an outage, an expired request dropped) and nobody answers. For an endpoint
 * without steps, which its fleet answers as a leaf does: a `request` reached the fleet, held in
 * fleet `slot` (-1: answered on arrival, without a slot), and its `response`: the outcome answered,
 * or {@link LOST_RESPONSE} or {@link CANCELLED_RESPONSE} (its caller withdrew it). A request refused
 * because the service's `maxInFlight` were in flight, at any endpoint, is a `request` without a slot
 * and its 503 `response`, at once. Its `layer` is {@link NO_LAYER}.
 */
export type ServiceTraceEvent = { tMs: number; op: number; layer: typeof NO_LAYER; service: string; endpoint: string; level: number; workload?: string } & (
  | { event: 'handler' }
  | { event: 'step'; step: number; kind: 'work' | 'call'; calls: string[]; join: string }
  | { event: 'join'; step: number; join: string; decision: 'success' | 'failure'; degraded: boolean }
  | { event: 'answer'; outcome: string }
  | { event: 'lost' }
  | { event: 'cache'; cache: string; key: number; what: CacheTraceWhat }
  | { event: 'request'; slot: number }
  | { event: 'response'; slot: number; outcome: string }
);

/**
 * What a call's lookaside cache did for a handler (docs/experiments.md, "Caches"): the lookup of the operation's
 * key (a hit, a miss that calls, a miss that waits for the key's call in flight), and at the end of a
 * miss's call, whether its success filled the entry or came too late.
 */
export type CacheTraceWhat = 'hit' | 'miss' | 'waits' | 'filled' | 'late';

/** The `outcome` of a `response` event whose request the fleet lost (a crash, an outage, an expired request dropped): nobody answers. */
export const LOST_RESPONSE = 'lost';

/** The `outcome` of a `response` event whose request its caller withdrew (cancellation). */
export const CANCELLED_RESPONSE = 'cancelled';

/** The `slot` of a `request` (and its `response`) that the fleet answered on arrival, without a slot. */
export const NO_SLOT = -1;

/** The `layer` of a service's event: none. */
export const NO_LAYER = -1;

/**
 * An event of a layer (in a graph, of a call's stack when `site` says so). In a graph with several
 * workloads, every event (a service's too) names its operation's `workload`, and `op` is the
 * operation's key in the whole graph (src/model/traceGraph.ts, workloadSink).
 */
export type LayerTraceEvent = LayerEvent & { site?: TraceSite; workload?: string };

/**
 * What every event of a layer carries besides its own fields: `frame`, the row of the layer's call in
 * its stack's frame table, the same for every event of one call from its `call` to its `give-up`
 * (a row is reused only after its call ended), so that a reader can tell apart the calls of one
 * operation that overlap at one layer (a retry sent while the abandoned call still runs below).
 */
type LayerEventBase = { tMs: number; op: number; layer: number; frame: number };

type LayerEvent =
  /** A call reaches a layer; `deadlineAtMs` is the deadline it works to (+Infinity: none); `parent` the calling frame of the layer above (-1 at the top of a stack). */
  | (LayerEventBase & { event: 'call'; deadlineAtMs: number; parent: number })
  /** An attempt starts with the given timeout (+Infinity: it waits forever). */
  | (LayerEventBase & { event: 'attempt'; attempt: number; timeoutMs: number })
  /** An attempt ended with this outcome (and the server's Retry-After hint, if any). */
  | (LayerEventBase & { event: 'outcome'; attempt: number; outcome: string; retryAfterMs?: number })
  /**
   * The backoff before retry `retry`: its ceiling, the sample drawn, the actual wait after
   * Retry-After and tick rounding, and whether it fits in the deadline.
   */
  | (LayerEventBase & {
      event: 'wait';
      retry: number;
      ceilingMs: number;
      backoffMs: number;
      waitMs: number;
      wakeAtMs: number;
      fits: boolean;
    })
  /** The layer's call ends with this reason after `attempts` attempts, returning `outcome` upward. */
  | (LayerEventBase & { event: 'give-up'; reason: string; attempts: number; outcome: string });
