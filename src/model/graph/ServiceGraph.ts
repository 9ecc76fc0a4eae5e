/**
 * The resolved service graph of a scenario (docs/experiments.md, "Service graphs"): named services, each a fleet
 * (what a leaf is in a `stack` + `leaf` scenario) with endpoints whose handlers are steps, the
 * entries the workload's operations arrive at, and the bulkheads between services. Every default is
 * filled in; names are checked (every call names a service and an endpoint that exist, the graph of
 * (service, endpoint) nodes has no cycle). Services and endpoints are referred to by name.
 */

import type { Dist, Layer, Leaf, Method, Workload } from '../scenario.js';

/** The caller of an entry edge (`workload -> <service>`): the workload, whose stack calls the entry service; no service may be named so. */
export const WORKLOAD_CALLER = 'workload';

/** How a service holds its workers (docs/experiments.md, "Service graphs"). */
export type Execution =
  /** Thread-per-request: a worker is held from the handler's start to its end, downstream calls included. */
  | 'threaded'
  /** A worker is held only during `work` steps; `maxInFlight` caps the requests admitted and not yet answered. */
  | 'async';

/** How the calls of one `call` step decide the step. */
export type Join =
  /** Succeeds when every required call has succeeded (optional ones ended); fails at the first failed required call. */
  | { kind: 'all' }
  /** Succeeds at the first success; fails when every call has failed. */
  | { kind: 'any' }
  /** Succeeds at the k-th success; fails once fewer than k calls can still succeed. */
  | { kind: 'quorum'; k: number };

/** A call's `probability` when none is written: the call is made every time its step runs. */
export const DEFAULT_CALL_PROBABILITY = 1;

/** One downstream call of a `call` step. */
export interface GraphCall {
  service: string;
  endpoint: string;
  /** The calling service's retrying layers for this call, from the caller down; one instance per backend of the caller. */
  stack: Layer[];
  /** A failed optional call never decides its step (allowed with `all` only); the operation is then degraded. */
  optional: boolean;
  /**
   * The chance, in (0, 1], that the call is made each time its step runs, drawn from a stream of
   * its own ({@link DEFAULT_CALL_PROBABILITY}: always, and nothing is drawn). Below 1 only with
   * join `all`: a call not made neither succeeds nor fails, and the join waits for the calls made.
   */
  probability: number;
  /** A lookaside cache in front of the call, at the calling service; absent: none. */
  cache?: CallCacheSpec;
}

/**
 * A lookaside cache in front of a call (docs/experiments.md, "Service graphs", "Caches"): one lookup per call of
 * the step with the operation's key; a hit answers the call with success after `hitLatencyMs` and
 * makes no downstream call; a miss calls through and fills the entry when a success reaches the
 * cache while the call still waits for it.
 */
export interface CallCacheSpec {
  /** Its name among the calling service's caches (results: `services.<service>.caches.<name>`); default: the callee's name. */
  name: string;
  /** Entries held at most (per copy), least recently used evicted first. */
  capacity: number;
  /** The key space: ranks 1..keys with popularity proportional to rank^-zipf; the same for every cache of a graph. */
  keys: number;
  zipf: number;
  /** Time to live from the fill (ms); absent: none. */
  ttlMs?: number;
  /** The time a hit takes. */
  hitLatencyMs: Dist;
  /** One copy per backend of the calling service (each of `capacity`) instead of one shared by them. */
  perBackend: boolean;
  /** Later misses for a key in flight wait for the first miss's call and share its outcome. */
  coalesce: boolean;
  /** warm: at the start the LRU state of 20 x capacity requests with zero latency; empty: cold. */
  initial: 'warm' | 'empty';
  /** Times (ms, from t = 0) at which every copy is emptied. */
  flushAtMs: number[];
  /**
   * The call looks up the graph's shared tier `caches.<name>` (then `name` is the tier's, its
   * settings are the tier's and `perBackend` is false); absent: the call's own cache.
   */
  shared?: boolean;
}

/**
 * A cache tier declared once for the graph (`caches.<name>`, docs/experiments.md, "Caches"), looked
 * up by the calls of several services that name it (`cache: { "shared": "<name>" }`): one store of
 * `capacity` entries, one hit ratio, one flush.
 */
export type SharedCacheSpec = Omit<CallCacheSpec, 'perBackend' | 'coalesce' | 'shared'>;

/** One step of a handler; the steps run in order and a failed step ends the handler. */
export type GraphStep =
  /** Service time on the service's workers; absent `serviceMs`: the serving backend's own `serviceMs`. */
  | { kind: 'work'; serviceMs?: Dist }
  /** Calls sent together, joined by `join`; `cancellation`: cancel the calls left outstanding when the join decides. */
  | { kind: 'call'; calls: GraphCall[]; join: Join; cancellation: boolean };

export interface GraphEndpoint {
  name: string;
  /** The method of calls to this endpoint; absent: the operation's. */
  method?: Method;
  /** The handler; absent: the fleet answers as a leaf does (its servers serve with their `serviceMs`). */
  steps?: GraphStep[];
}

export interface GraphService {
  name: string;
  /** The servers of the service (a server, a pool with its load balancer, an OCC row or a script). */
  fleet: Leaf;
  execution: Execution;
  /** Requests admitted and not yet answered, at most (async services). */
  maxInFlight: number | 'unlimited';
  endpoints: GraphEndpoint[];
}

/** Where operations arrive: a service's endpoint, with a weight among the entries of a mix. */
export interface GraphEntry {
  service: string;
  endpoint: string;
  weight: number;
}

/** A cap on the concurrent calls from one calling backend to a callee service (Hystrix, resilience4j `Bulkhead`). */
export interface Bulkhead {
  caller: string;
  callee: string;
  maxConcurrent: number;
}

/** One of a graph's several workloads (`workloads.<name>`): its operations, its own client-side stack and its entries. */
export interface GraphWorkload {
  name: string;
  workload: Workload;
  stack: Layer[];
  /** At least one; this workload's stack calls these. */
  entries: GraphEntry[];
}

export interface ServiceGraph {
  services: GraphService[];
  /** At least one; the workload's stack calls these (with several workloads: the first one's). */
  entries: GraphEntry[];
  bulkheads: Bulkhead[];
  /** The shared cache tiers (`caches`), in declaration order; absent: none. */
  caches?: SharedCacheSpec[];
  /**
   * Several workloads, each entering through its own stack (the scenario's `workload` and `stack`
   * are then the first one's); absent: the scenario's one workload and stack, entering at `entries`.
   */
  workloads?: GraphWorkload[];
}

/** The entries of every workload of a graph. */
export function allEntries(graph: ServiceGraph): GraphEntry[] {
  return graph.workloads === undefined ? graph.entries : graph.workloads.flatMap((w) => w.entries);
}

/** The service named `name` (the graph was validated: every name used in it exists). */
export function serviceNamed(graph: ServiceGraph, name: string): GraphService {
  const service = graph.services.find((s) => s.name === name);
  if (service === undefined) throw new Error(`internal: no service ${name}`);
  return service;
}

/** The endpoint named `name` of `service`. */
export function endpointNamed(service: GraphService, name: string): GraphEndpoint {
  const endpoint = service.endpoints.find((e) => e.name === name);
  if (endpoint === undefined) throw new Error(`internal: no endpoint ${service.name}.${name}`);
  return endpoint;
}

/** Every call made by the handler of an endpoint, in step order. */
export function callsOf(endpoint: GraphEndpoint): GraphCall[] {
  return (endpoint.steps ?? []).flatMap((step) => (step.kind === 'call' ? step.calls : []));
}

/** The services no entry reaches, directly or through calls, in declaration order. */
export function unreachableServices(graph: ServiceGraph): string[] {
  const reached = new Set<string>();
  const seen = new Set<string>();
  const visit = (service: string, endpoint: string): void => {
    const node = `${service}\u0000${endpoint}`;
    if (seen.has(node)) return;
    seen.add(node);
    reached.add(service);
    for (const call of callsOf(endpointNamed(serviceNamed(graph, service), endpoint))) visit(call.service, call.endpoint);
  };
  for (const entry of allEntries(graph)) visit(entry.service, entry.endpoint);
  return graph.services.filter((s) => !reached.has(s.name)).map((s) => s.name);
}

/**
 * The graph's leaf services, in declaration order: those that make no calls (no endpoint has a call
 * step), its deepest tier. A graph run's `leafCalls` are the calls arriving at them (docs/experiments.md, "Service
 * graphs").
 */
export function leafServices(graph: ServiceGraph): string[] {
  return graph.services.filter((s) => s.endpoints.every((e) => callsOf(e).length === 0)).map((s) => s.name);
}
