/**
 * What the inference found in the telemetry, before it is written as an experiment: services and
 * their endpoints, each endpoint's own work, own errors and steps of calls, and the workloads
 * entering the graph. Span and metric inference both produce it; `experimentFromGraph` writes it.
 */
import type { DurationHistogram } from './servicegraphSeries.js';

/** How the calls of a step are joined (the experiment's `join`). */
export type ObservedJoin = 'all' | 'any' | { quorum: number };

/** One call of a step, as observed. */
export interface ObservedCall {
  service: string;
  /** The callee's endpoint; undefined for a service seen only from its callers (one endpoint). */
  endpoint: string | undefined;
  /** Calls per request of the calling endpoint (retries not counted where they could be told apart). */
  perRequest: number;
  /** Attempts per call: 1 where retries could not be told apart. */
  attemptsPerCall: number;
  /** The most attempts one call made. */
  maxAttempts: number;
  /** Whether attempts could be told from calls (spans with `http.request.resend_count`). */
  retriesSeen: boolean;
  /** Whether a call of it failed while its caller succeeded (an optional call). */
  optional: boolean;
  /** Calls made, for the notes. */
  calls: number;
}

/** A step of calls sent together. */
export interface ObservedStep {
  calls: ObservedCall[];
  join: ObservedJoin;
}

/** One endpoint of a service. */
export interface ObservedEndpoint {
  requests: number;
  /** The mean of the handler's own time: its duration minus the time its calls covered (ms), over the requests that did not fail on their own (spans), or over all (metrics). */
  ownWorkMs: number;
  /** The fraction of requests that failed while none of their calls failed (the service's own errors). */
  ownErrorRate: number;
  steps: ObservedStep[];
}

/** One service. */
export interface ObservedService {
  endpoints: Map<string, ObservedEndpoint>;
  /** Requests served over the window. */
  requests: number;
  /** The most requests seen in flight at once (spans only: a lower bound when spans are sampled). */
  peakInFlight: number | undefined;
  /** Requests in flight on average: the arrival rate times the mean time in the service (Little's law). */
  meanInFlight: number;
  /** Whether its durations were seen (spans, or a server-time histogram); without them its service time is a placeholder. */
  timed: boolean;
  /**
   * From the series alone, for a service that makes no calls (its server time is its own work):
   * the server-time histogram of its requests (the buckets of its inbound edges added up, when they
   * share their bounds), which the experiment writes as its service time.
   */
  serverTime?: DurationHistogram;
}

/** A workload: operations entering the graph from a caller outside it. */
export interface ObservedWorkload {
  name: string;
  entries: Array<{ service: string; endpoint: string | undefined; weight: number }>;
  operationsPerSec: number;
  /** Operations counted (for the notes). */
  operations: number;
  attemptsPerOperation: number;
  maxAttempts: number;
  retriesSeen: boolean;
}

/** The whole inferred graph. */
export interface ObservedGraph {
  services: Map<string, ObservedService>;
  workloads: ObservedWorkload[];
  /** The mean one-way network delay (ms): half of the callers' time minus the servers' time, when both were seen. */
  hopMs: number | undefined;
  windowSec: number;
  /** What the inference assumed or could not tell, in sentences, for the file's description. */
  notes: string[];
}

/** The name servicegraph gives a caller it did not see (a root span's client). */
export const USER_CLIENT = 'user';
