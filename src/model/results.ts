import type { CascadeEvent } from '../metrics/cascadeTimeline.js';
import type { AppliedIntervention } from './interventions.js';
import type { MetricWindowResult } from '../metrics/MetricWindows.js';
import type { ClusteringResult, HistogramSummary, LogHistogram } from '../metrics/index.js';
import { runMemoryCeiling, type RunMemory } from '../engine/memoryMeter.js';
import type { TruncatedBy } from '../engine/simulator.js';
import { VERSION } from '../version.js';
import type { CacheResult } from './graph/CallCache.js';
import type { ServiceSeries } from './Measurements.js';
import type { Scenario } from './scenario.js';
import type { BackendStats, ServerTotals } from './leaves/Leaf.js';
import { unknownWorkload } from './workloads/Workload.js';

/**
 * The calls on one edge of a service graph (docs/experiments.md, "Service graphs"), counted from t = 0 on, the
 * drain included: arrivals at the callee from the caller (its own refusals included, hedges included),
 * those sent while any layer on the path from the entry was past its first attempt (`retries`), and
 * while a layer of the edge's own call stack was (`ownRetries`); `amplification`: calls per operation.
 * An edge with a bulkhead also has `bulkheadFull`: the attempts its bulkhead refused (not calls).
 */
export interface EdgeResult {
  /** The calling service, or `workload` for an entry edge. */
  caller: string;
  callee: string;
  calls: number;
  retries: number;
  ownRetries: number;
  amplification: number;
  /** Edges with a bulkhead only: attempts it refused at the caller, never sent. */
  bulkheadFull?: number;
  /** Graphs with several workloads only: the calls of each workload's operations (amplification: per operation of that workload). */
  workloads?: Record<string, EdgeWorkloadCalls>;
}

/** One workload's share of an edge's calls. */
export interface EdgeWorkloadCalls {
  calls: number;
  retries: number;
  ownRetries: number;
  amplification: number;
}

/**
 * One of a graph's several workloads: its operations (`degraded` as in the totals), how they ended,
 * the calls its operations made at the graph's leaf services (`leafCalls`, as the totals', and per
 * operation), its latency and its goodput (over its own demand).
 */
export interface WorkloadResult {
  workload: string;
  operations: { offered: number; succeeded: number; failed: number; unfinished: number; degraded?: number };
  giveUps: Record<string, number>;
  leafCalls: number;
  amplification: number;
  latencyMs: LatencySummary;
  goodputPerSec: number;
}

/**
 * One service of a graph (docs/experiments.md, "Service graphs"): the calls that reached it from every
 * caller, its own refusals included (`first`: first tries, which fan-out can make more than the
 * operations; `retries`: those sent while a layer on the path from the entry was past its first
 * attempt), its fleet's utilisation (mean busy workers over its workers; null without a finite
 * number of them) and totals (served, refusals by reason: `shed`, `dropped`, `refused`, `rejected`,
 * `faulted`, `lost`; `wastedWorkMs`; a fleet without servers: zeros), the requests it refused
 * because `maxInFlight` were in flight, its backends' crashes, and its series.
 */
export type ServiceResult = { service: string; arrivals: number; first: number; retries: number; utilization: number | null } & Omit<ServerTotals, 'concurrency'> & {
    refusedInFlight: number;
    crashes: number;
    timeSeries: ServiceSeries;
    /** Its lookaside caches by name (services with a cache only). */
    caches?: Record<string, CacheResult>;
  };

/** What a service's result is made of (the graph's run gathers it). */
export interface ServiceInput {
  service: string;
  /** Calls that reached it and, of them, retries (summed over the edges into it). */
  arrivals: number;
  retries: number;
  totals: ServerTotals;
  refusedInFlight: number;
  backends: BackendStats[] | undefined;
  timeSeries: ServiceSeries;
}

/** Shape one service's result (see {@link ServiceResult}); utilisation as the leaf's (`server.utilization`). */
export function serviceResult(i: ServiceInput): ServiceResult {
  const { concurrency, ...totals } = i.totals;
  return {
    service: i.service,
    arrivals: i.arrivals,
    first: i.arrivals - i.retries,
    retries: i.retries,
    utilization: Number.isFinite(concurrency) && concurrency > 0 ? totals.meanBusy / concurrency : null,
    ...totals,
    refusedInFlight: i.refusedInFlight,
    crashes: (i.backends ?? []).reduce((n, b) => n + b.crashes, 0),
    timeSeries: i.timeSeries,
  };
}

/** Latency percentiles of a set of operations (ms); null fields when there were none: a log histogram's summary. */
export type LatencySummary = HistogramSummary;

/** Attempts made by one layer: first tries (original demand) and retries kept apart. */
export interface LayerAttempts {
  layer: string;
  first: number;
  retries: number;
  /** How this layer's calls ended (a call per operation at the top; orphaned calls included below). */
  giveUps: Record<string, number>;
  /** Calls of this layer withdrawn by cancellation from above (they end without a give-up reason). */
  cancelled: number;
  /** Hedged copies sent after the first (gRPC A6 hedging), counted apart from retries. */
  hedges: number;
}

export type { BackendStats };

/**
 * Why a run stopped before the system drained: its horizon, its event cap, its cap on the
 * operations in flight at once (`maxInFlight`), its memory ceiling (its tables would have grown past
 * it: src/engine/memoryMeter.ts, `run --memory-limit`), or an interrupt (Ctrl-C, SIGTERM: a sweep
 * sets it, src/sweep/runPlan.ts); null when it drained.
 */
export type Truncation = null | 'horizon' | 'event-cap' | 'in-flight-cap' | 'memory-cap' | 'interrupted';

/**
 * Where a run's measurements end: at the horizon when it stopped there, otherwise at its last live
 * event (stale, tombstoned timers still pop and move the clock past it).
 */
export function endOfRunMs(stats: { truncated: TruncatedBy; nowMs: number }, lastLiveMs: number): number {
  return Math.max(0, stats.truncated === 'horizon' ? stats.nowMs : lastLiveMs);
}

/**
 * The truncation of a run the engine ended as `stopped`: the memory meter's when the run's tables
 * (`memory`, its simulator's count) passed its ceiling, otherwise the model's cap on operations in
 * flight (an interrupt also stops a run so; the sweep renames it, src/sweep/runPlan.ts).
 */
export function truncationOf(by: TruncatedBy, memory: RunMemory): Truncation {
  if (by !== 'stopped') return by;
  return memory.over ? 'memory-cap' : 'in-flight-cap';
}

/** Everything one run measured (docs/concepts.md, "What is measured"). Times in ms, rates per second. */
export interface SimulationResults {
  version: string;
  /** The master seed (what `--seed` sets). */
  seed: number;
  /** In a sweep: the replication index and the seed its run actually used (derived from the master seed). */
  replication?: number;
  replicationSeed?: number;
  /** Why the run stopped before the system drained: `horizon`, `event-cap`, `in-flight-cap`, `memory-cap` or `interrupted`; null when it drained. */
  truncated: Truncation;
  /** A sentence explaining the truncation, when there is one. */
  truncatedReason: string | null;
  /** Simulated time measured (after the warm-up). */
  simulatedMs: number;
  events: number;
  /** `degraded` (service graphs only): successes some optional call did not help (counted in `succeeded` too). */
  operations: { offered: number; succeeded: number; failed: number; unfinished: number; degraded?: number };
  /** Service graphs only: the calls on each edge, the entry edges (`workload -> <service>`) first. */
  edges?: EdgeResult[];
  /** Service graphs only: each service's arrivals and its fleet's totals, in declaration order. */
  services?: ServiceResult[];
  /** Service graphs with shared cache tiers only: each tier's result by name (`caches.<name>`, docs/experiments.md, "Caches"). */
  caches?: Record<string, CacheResult>;
  /**
   * Service graphs only: the cascade timeline (src/metrics/cascadeTimeline.ts), from each service's
   * 1 s bins: when it first got in trouble (utilisation >= 0.9 or error rate >= 0.5), first crashed,
   * and recovered (out of trouble for 30 s), in time order.
   */
  cascade?: CascadeEvent[];
  /**
   * Graphs with several workloads only: each workload's own results. The totals (operations,
   * latencies, `leafCalls`) are those of all workloads; `attempts` lists every
   * workload's layers as `<workload>.<layer>`; `goodputPerSec` is the sum of the workloads'.
   */
  workloads?: WorkloadResult[];
  /** Scenarios with timed interventions only: those applied during the run, in order (when, and the paths each set). */
  interventions?: AppliedIntervention[];
  /** Operations by the reason they ended (`success` included). */
  giveUps: Record<string, number>;
  attempts: LayerAttempts[];
  /**
   * Every request the leaf received (for the OCC resource: reads + writes). A service graph's leaves
   * are its services that make no calls: the calls (attempts, hedges and refusals included) arriving
   * at them from every caller (src/model/graph/graphResults.ts, graphLeafCalls).
   */
  leafCalls: number;
  /** OCC resource only: conditional writes (the AWS study's "calls") and reads. */
  writes?: number;
  reads?: number;
  /** Leaf calls per operation offered. */
  amplification: number;
  /** End-to-end time of successful operations. */
  latencyMs: LatencySummary;
  /** Time of every operation until it ended, give-ups included. */
  operationMs: LatencySummary;
  /** When the last operation ended. */
  completionTimeMs: number;
  /** Successful operations per second of the time demand was offered ({@link demandMs}), not of the drain. */
  goodputPerSec: number;
  /** What each named metric window measured (only with `metrics.windows`). */
  windows?: MetricWindowResult[];
  /**
   * The leaf's totals ({@link ServerTotals}, declared there: its `concurrency` gives the
   * utilisation) and what the model counts at the end.
   */
  server: {
    kind: 'server' | 'pool' | 'occ' | 'script';
    /** Mean busy workers / concurrency; null with unlimited concurrency or no server. */
    utilization: number | null;
    /** Requests still queued at a server at the end. */
    queuedAtEnd: number;
  } & Omit<ServerTotals, 'concurrency'>;
  /** A pool's backends, each with its own counters. */
  backends?: BackendStats[];
  /**
   * Clustering of leaf arrivals, one entry per configured bin width, over the measured window
   * (from t = 0 to the end of the run: empty bins count).
   */
  clustering: ClusteringResult[];
  /** The same over retry traffic alone (what synchronised retries do, apart from the first tries). */
  retryClustering: ClusteringResult[];
  timeSeries: {
    binMs: number;
    /** Start of each bin. */
    tMs: number[];
    arrivalsFirst: number[];
    arrivalsRetry: number[];
    successes: number[];
    failures: number[];
    /** Successes per second in each bin. */
    goodputPerSec: number[];
    /** Time-weighted mean queue length, operations in flight and busy workers per bin. */
    queue: number[];
    inFlight: number[];
    busy: number[];
    /** Each layer with a retry budget: its first budget's state per bin (tokens, ratio, open = 1), mean over the layer's instances. */
    budgets?: Array<{ layer: string; kind: string; values: number[] }>;
    /** OCC resource only: writes per bin. */
    writes?: number[];
    /** Pools only: healthy, down ("dead") and ejected backends per bin, and each backend's busy workers and queue (up to 64 backends). */
    fleet?: FleetSeries;
    /**
     * Only when the run outlasted the most bins kept (1,000,000, src/metrics/BinnedSeries.ts): where
     * the series stop. Later events are in the run's totals but in no bin.
     */
    cutAtMs?: number;
  };
}

/** The fleet's state over time (pools only). */
export interface FleetSeries {
  healthyBackends: number[];
  downBackends: number[];
  ejectedBackends: number[];
  backendBusy: number[][];
  backendQueue: number[][];
}

/** Raw measurements handed over by the model. */
export interface ResultInput {
  scenario: Scenario;
  seed: number;
  endMs: number;
  events: number;
  truncated: Truncation;
  /** The most the run's tables held, in bytes (src/engine/memoryMeter.ts): what a `memory-cap` truncation's reason says. */
  memoryPeakBytes?: number;
  unfinished: number;
  offered: number;
  succeeded: number;
  failed: number;
  giveUps: Record<string, number>;
  layers: Array<{ name: string; first: number; retries: number; giveUps: Record<string, number>; cancelled: number; hedges: number }>;
  leafCalls: number;
  reads: number;
  writes: number;
  latency: LogHistogram;
  operationMs: LogHistogram;
  completionTimeMs: number;
  /** The named metric windows' measures (null without any). */
  windows: MetricWindowResult[] | null;
  server: { kind: SimulationResults['server']['kind']; totals: ServerTotals; queuedAtEnd: number; hanging: number };
  backends: BackendStats[] | undefined;
  clustering: ClusteringResult[];
  retryClustering: ClusteringResult[];
  series: {
    binMs: number;
    bins: number;
    arrivalsFirst: number[];
    arrivalsRetry: number[];
    successes: number[];
    failures: number[];
    writes: number[] | undefined;
    queue: number[];
    inFlight: number[];
    busy: number[];
    budgets: Array<{ layer: string; kind: string; values: number[] }>;
    fleet: FleetSeries | undefined;
    cutAtMs: number | undefined;
  };
}

/** Start of each of `bins` bins of `binMs`. */
function binStarts(bins: number, binMs: number): number[] {
  const t: number[] = [];
  for (let b = 0; b < bins; b++) t.push(b * binMs);
  return t;
}

/** Counts per bin of `secPerBin` seconds as rates per second. */
function perSecond(counts: number[], secPerBin: number): number[] {
  const out: number[] = [];
  for (let b = 0; b < counts.length; b++) out.push((counts[b] as number) / secPerBin);
  return out;
}

/**
 * How a run stopped by the memory meter is said (src/engine/memoryMeter.ts): its tables' bytes
 * against the thread's ceiling, what the ceiling holds (`holder`: a run, or a copy of one) and the
 * option that sets it. `run`'s truncation reason and `risk`'s errored cell both say it so.
 */
export function memoryCeilingWords(tableBytes: number, holder: string, option: string): string {
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
  return `stopped at the memory ceiling (its tables grew to ${mb(tableBytes)}, over the ${mb(runMemoryCeiling())} ${holder} may hold: ${option})`;
}

function truncationReason(i: ResultInput): string | null {
  const sc = i.scenario;
  if (i.truncated === 'horizon') {
    return `stopped at the horizon (horizonMs ${sc.horizonMs}) with ${i.unfinished} operations unfinished`;
  }
  if (i.truncated === 'event-cap') {
    return `stopped at the event cap (maxEvents ${sc.maxEvents}) at ${i.endMs.toFixed(1)} ms with ${i.unfinished} operations unfinished`;
  }
  if (i.truncated === 'memory-cap') {
    return `${memoryCeilingWords(i.memoryPeakBytes ?? 0, 'a run', 'run --memory-limit')} at ${i.endMs.toFixed(1)} ms with ${i.unfinished} operations unfinished`;
  }
  if (i.truncated === 'in-flight-cap') {
    return `stopped at the in-flight cap (maxInFlight ${sc.maxInFlight}) at ${i.endMs.toFixed(1)} ms with ${i.unfinished} operations unfinished`;
  }
  return null;
}

/**
 * How long demand was offered, the denominator of goodput: an open loop's `durationMs` (its
 * arrivals stop then); a closed loop's and a burst's time until its clients stop, which is when
 * the last operation ended (`completionTimeMs`: a closed-loop client stops when its last operation
 * ends, a burst's client after its one operation). A run that stopped with operations unfinished
 * (horizon, caps) offered demand up to its end, and no denominator runs past the end of the run.
 * Like every measure it starts at t = 0, after the warm-up, and its numerator counts the operations
 * started after it that succeeded, whenever they ended, so that goodput is the offered rate times the
 * success rate when the system keeps up; the time the system takes to drain (orphaned work, queues
 * emptied after the arrivals stopped) is not demand and does not dilute it. Each run's scenario has
 * one workload, so every part of an experiment gets its own workload's denominator.
 *
 * Goodput in the sense of Bronson et al., "Metastable Failures in Distributed Systems" (HotOS 2021,
 * section 2): the useful work done per second for the load offered, as opposed to the raw
 * throughput that retries inflate; docs/concepts.md ("What is measured") gives the same definition.
 */
export function demandMs(workload: Scenario['workload'], completionTimeMs: number, endMs: number, unfinished: number): number {
  switch (workload.kind) {
    case 'open':
      return Math.min(workload.durationMs, endMs);
    case 'closed':
    case 'burst':
      return unfinished > 0 ? endMs : Math.min(completionTimeMs, endMs);
    default:
      return unknownWorkload(workload);
  }
}

/** Shape the model's raw measurements into the results object of `run` and `simulate`. */
export function buildResults(i: ResultInput): SimulationResults {
  const s = i.series;
  const secPerBin = s.binMs / 1000;
  const demandSec = demandMs(i.scenario.workload, i.completionTimeMs, i.endMs, i.unfinished) / 1000;
  const sv = i.server;
  const { concurrency, inServiceAtEnd, ...counters } = sv.totals;
  const kind = i.scenario.leaf.kind;
  const occ = kind === 'occ';
  return {
    version: VERSION,
    seed: i.seed,
    truncated: i.truncated,
    truncatedReason: truncationReason(i),
    simulatedMs: i.endMs,
    events: i.events,
    operations: { offered: i.offered, succeeded: i.succeeded, failed: i.failed, unfinished: i.unfinished },
    giveUps: i.giveUps,
    attempts: i.layers.map((l) => ({
      layer: l.name,
      first: l.first,
      retries: l.retries,
      hedges: l.hedges,
      giveUps: l.giveUps,
      cancelled: l.cancelled,
    })),
    leafCalls: i.leafCalls,
    ...(occ ? { writes: i.writes, reads: i.reads } : {}),
    amplification: i.offered > 0 ? i.leafCalls / i.offered : 0,
    latencyMs: i.latency.summary(),
    operationMs: i.operationMs.summary(),
    completionTimeMs: i.completionTimeMs,
    goodputPerSec: demandSec > 0 ? i.succeeded / demandSec : 0,
    ...(i.windows ? { windows: i.windows } : {}),
    // The totals in their order, less `concurrency`, `queuedAtEnd` before `inServiceAtEnd`, then the utilisation.
    server: {
      kind: sv.kind,
      ...counters,
      queuedAtEnd: sv.queuedAtEnd,
      inServiceAtEnd,
      utilization: (kind === 'server' || kind === 'pool') && Number.isFinite(concurrency) && concurrency > 0 ? counters.meanBusy / concurrency : null,
    },
    ...(i.backends ? { backends: i.backends } : {}),
    clustering: i.clustering,
    retryClustering: i.retryClustering,
    timeSeries: {
      binMs: s.binMs,
      tMs: binStarts(s.bins, s.binMs),
      arrivalsFirst: s.arrivalsFirst,
      arrivalsRetry: s.arrivalsRetry,
      successes: s.successes,
      failures: s.failures,
      goodputPerSec: perSecond(s.successes, secPerBin),
      queue: s.queue,
      inFlight: s.inFlight,
      busy: s.busy,
      budgets: s.budgets,
      ...(s.fleet ? { fleet: s.fleet } : {}),
      ...(s.writes ? { writes: s.writes } : {}),
      ...(s.cutAtMs !== undefined ? { cutAtMs: s.cutAtMs } : {}),
    },
  };
}
