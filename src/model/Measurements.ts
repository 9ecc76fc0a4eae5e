import { EventQueue } from '../engine/eventQueue.js';
import { BinnedSeries, LogHistogram, MAX_SERIES_BINS, StreamingClustering, TimeWeightedSeries } from '../metrics/index.js';
import { CASCADE_BIN_MS, utilisation } from '../metrics/cascadeTimeline.js';
import { MetricWindows } from '../metrics/MetricWindows.js';
import { GIVE_UP_NAMES } from '../policy/outcome.js';
import * as outcomeModule from '../policy/outcome.js';
import type { LayerGuards } from './layers/LayerGuards.js';
import { NO_SERVER_TOTALS, type Leaf } from './leaves/Leaf.js';
import type { FarmBinCounts } from './leaves/server/FarmBins.js';
import type { ResultInput, Truncation } from './results.js';
import type { Scenario } from './scenario.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { GiveUp } = outcomeModule;

const GIVE_UP_COUNT = GIVE_UP_NAMES.length;

/** What the results snapshot takes from the rest of the run. */
export interface SnapshotInput {
  endMs: number;
  events: number;
  truncated: Truncation;
  /** Operations still in flight. */
  unfinished: number;
  leaf: Leaf;
  /** Requests still queued at a server, and hanging (a scripted hang, a lost request), at the end. */
  queuedAtEnd: number;
  hanging: number;
  /** The layers' budgets, whose series the results carry. */
  guards: LayerGuards;
}

/**
 * What one run measures, streamed (docs/concepts.md, "What is measured"): operations by how they ended,
 * attempts per layer (first tries and retries apart), leaf arrivals (totals, series and
 * clustering), latencies, and operations in flight. Only time t >= 0 counts (not the warm-up).
 * {@link snapshot} turns it into the raw input of `buildResults`.
 */
export class Measurements {
  offered = 0;
  succeeded = 0;
  failed = 0;
  readonly giveUps = new Float64Array(GIVE_UP_COUNT);
  readonly layerFirst: Float64Array;
  readonly layerRetries: Float64Array;
  /** layerGiveUps[layer * GIVE_UP_NAMES.length + reason]. */
  readonly layerGiveUps: Float64Array;
  readonly layerCancelled: Float64Array;
  readonly layerHedges: Float64Array;
  leafCalls = 0;
  /** The leaf arrivals sent while some layer was retrying (`chain` 1), from t = 0 on: the retries among `leafCalls`. */
  leafRetryCalls = 0;
  /** OCC leaf only: reads and conditional writes. */
  reads = 0;
  writes = 0;
  completionTimeMs = 0;
  /** Durations of the operations that succeeded (the latency) and of those that failed (merged into operationMs at the end). */
  readonly latency = new LogHistogram();
  readonly failedMs = new LogHistogram();
  readonly clustering: StreamingClustering[];
  /** The same statistics over retry traffic alone (arrivals sent while some layer was retrying). */
  readonly retryClustering: StreamingClustering[];
  readonly sArrFirst: BinnedSeries;
  readonly sArrRetry: BinnedSeries;
  readonly sSuccess: BinnedSeries;
  /** The named metric windows, or null without any (the hot path then skips them). */
  readonly windows: MetricWindows | null;
  readonly sFailure: BinnedSeries;
  /** OCC leaf only. */
  readonly sWrites: BinnedSeries | null;
  readonly gInFlight: TimeWeightedSeries;
  /**
   * Reads taken ahead of their time (folds.ts, `readAhead`): (time, chain) until the clock passes
   * them, so that the clustering statistics still see arrivals in time order (null: none are).
   */
  private readonly deferred: EventQueue | null;

  constructor(
    private readonly sc: Scenario,
    deferReads: boolean,
  ) {
    const L = sc.stack.length;
    this.layerFirst = new Float64Array(L);
    this.layerRetries = new Float64Array(L);
    this.layerGiveUps = new Float64Array(L * GIVE_UP_COUNT);
    this.layerCancelled = new Float64Array(L);
    this.layerHedges = new Float64Array(L);
    const m = sc.metrics;
    this.clustering = m.clusteringBinMs.map((b) => new StreamingClustering(b));
    this.retryClustering = m.clusteringBinMs.map((b) => new StreamingClustering(b));
    this.sArrFirst = new BinnedSeries(m.timeSeriesBinMs);
    this.sArrRetry = new BinnedSeries(m.timeSeriesBinMs);
    this.sSuccess = new BinnedSeries(m.timeSeriesBinMs);
    this.windows = m.windows && m.windows.length > 0 ? new MetricWindows(m.windows) : null;
    this.sFailure = new BinnedSeries(m.timeSeriesBinMs);
    this.sWrites = sc.leaf.kind === 'occ' ? new BinnedSeries(m.timeSeriesBinMs) : null;
    this.gInFlight = new TimeWeightedSeries(m.timeSeriesBinMs, MAX_SERIES_BINS, -sc.warmupMs, 0);
    this.deferred = deferReads ? new EventQueue(Math.min(1024, sc.workload.clients + 1)) : null;
  }

  /** An operation starts at t >= 0. */
  operationStarted(t: number): void {
    this.offered++;
    this.windows?.offered(t);
  }

  /** A request reaches the leaf at t (`chain` 1: sent while some layer was retrying); the warm-up is not counted. */
  leafArrival(chain: number, t: number): void {
    if (t < 0) return;
    if (this.deferred !== null) this.flushReads(t);
    this.countArrival(chain, t);
  }

  /** Count a leaf arrival at t >= 0 in the totals, the series and the clustering statistics (in time order). */
  private countArrival(chain: number, t: number): void {
    this.leafCalls++;
    this.windows?.leafCall(t);
    if (chain === 1) {
      this.leafRetryCalls++;
      this.sArrRetry.add(t);
      const rc = this.retryClustering;
      for (let i = 0; i < rc.length; i++) (rc[i] as StreamingClustering).record(t);
    } else this.sArrFirst.add(t);
    const cl = this.clustering;
    for (let i = 0; i < cl.length; i++) (cl[i] as StreamingClustering).record(t);
  }

  /** A read at tr >= 0, taken ahead: counted as a leaf arrival once the clock passes tr. */
  deferRead(tr: number, chain: number): void {
    (this.deferred as EventQueue).push(tr, chain, 0, 0);
  }

  /** Count the reads taken ahead whose time is at or before t, in time order. */
  flushReads(t: number): void {
    const q = this.deferred;
    if (q === null) return;
    while (q.peekTime() <= t) {
      q.pop();
      const tr = q.lastTimeMs;
      this.reads++;
      this.countArrival(q.lastKind, tr);
    }
  }

  /** An OCC write at t >= 0. */
  write(t: number): void {
    this.writes++;
    (this.sWrites as BinnedSeries).add(t);
  }

  /** An operation that started at `startMs` ended at t for `reason`; operations started in the warm-up are not counted. */
  operationEnded(reason: number, startMs: number, t: number): void {
    if (startMs < 0) return;
    this.giveUps[reason] = (this.giveUps[reason] as number) + 1;
    const dur = t - startMs;
    if (reason === GiveUp.SUCCESS) {
      this.succeeded++;
      this.latency.record(dur);
      this.sSuccess.add(t);
      this.windows?.succeeded(startMs, t);
    } else {
      this.failed++;
      this.failedMs.record(dur);
      this.sFailure.add(t);
    }
    if (t > this.completionTimeMs) this.completionTimeMs = t;
  }

  /** @internal The raw measurements, before `buildResults` shapes them. */
  snapshot(i: SnapshotInput): Omit<ResultInput, 'seed'> {
    const sc = this.sc;
    const endMs = i.endMs;
    const binMs = sc.metrics.timeSeriesBinMs;
    // The bin holding endMs is included (an event exactly at the end belongs to it).
    const wanted = Math.floor(endMs / binMs) + 1;
    const bins = Math.min(MAX_SERIES_BINS, wanted);
    const giveUps = (arr: Float64Array, offset: number) => {
      const o: Record<string, number> = {};
      GIVE_UP_NAMES.forEach((n, k) => (o[n] = arr[offset + k] as number));
      return o;
    };
    const leaf = i.leaf;
    const totals = leaf.totals();
    const leafSeries = leaf.series(bins);
    const zeros = () => new Array<number>(bins).fill(0);
    // Every operation's duration: the same buckets, count, min and max as recording each one here
    // (the sum is added in two parts, so the mean may differ from that in its last bits). When one
    // side is empty the other is the whole.
    const operationMs = this.failedMs.count === 0 ? this.latency : this.latency.count === 0 ? this.failedMs : new LogHistogram();
    if (operationMs !== this.latency && operationMs !== this.failedMs) {
      operationMs.merge(this.latency);
      operationMs.merge(this.failedMs);
    }
    const pool = sc.leaf.kind === 'pool';
    return {
      scenario: sc,
      endMs,
      events: i.events,
      truncated: i.truncated,
      unfinished: i.unfinished,
      offered: this.offered,
      succeeded: this.succeeded,
      failed: this.failed,
      giveUps: giveUps(this.giveUps, 0),
      layers: sc.stack.map((l, k) => ({
        name: l.name,
        first: this.layerFirst[k] as number,
        retries: this.layerRetries[k] as number,
        giveUps: giveUps(this.layerGiveUps, k * GIVE_UP_COUNT),
        cancelled: this.layerCancelled[k] as number,
        hedges: this.layerHedges[k] as number,
      })),
      leafCalls: this.leafCalls,
      reads: this.reads,
      writes: this.writes,
      latency: this.latency,
      operationMs,
      completionTimeMs: this.completionTimeMs,
      windows: this.windows?.results() ?? null,
      server: { kind: sc.leaf.kind, totals: totals ?? NO_SERVER_TOTALS, queuedAtEnd: i.queuedAtEnd, hanging: i.hanging },
      backends: pool ? leaf.backendStats() : undefined,
      clustering: this.clustering.map((c) => c.result(0, endMs)),
      retryClustering: this.retryClustering.map((c) => c.result(0, endMs)),
      series: {
        binMs,
        bins,
        arrivalsFirst: this.sArrFirst.toArray(bins),
        arrivalsRetry: this.sArrRetry.toArray(bins),
        successes: this.sSuccess.toArray(bins),
        failures: this.sFailure.toArray(bins),
        writes: this.sWrites?.toArray(bins),
        queue: leafSeries?.queue ?? zeros(),
        inFlight: this.gInFlight.binMeans(bins),
        busy: leafSeries?.busy ?? zeros(),
        fleet:
          pool && leafSeries
            ? {
                healthyBackends: leafSeries.healthyBackends,
                downBackends: leafSeries.downBackends,
                ejectedBackends: leafSeries.ejectedBackends,
                backendBusy: leafSeries.backendBusy,
                backendQueue: leafSeries.backendQueue,
              }
            : undefined,
        budgets: i.guards.series(sc, bins),
        cutAtMs: wanted > bins ? bins * binMs : undefined,
      },
    };
  }
}

/** The clock a service's measurements read (the run's simulator). */
export interface Clock {
  readonly nowMs: number;
}

/**
 * One service's series (docs/experiments.md, "Service graphs"), per bin of `metrics.timeSeriesBinMs`:
 * counts in the bin, or time-weighted means over it.
 */
export interface ServiceSeries extends FarmBinCounts {
  /** Requests that reached the service, first tries and those sent while a layer on their path from the entry was retrying. */
  arrivalsFirst: number[];
  arrivalsRetry: number[];
  /** Answers the service gave its callers, and of them the failures (its refusals and the requests it lost included). */
  answered: number[];
  failed: number[];
  /** Requests refused on arrival because `maxInFlight` were in flight. */
  refusedInFlight: number[];
  /** Time-weighted means: requests admitted and not yet answered, requests queued at its fleet, busy workers (on a threaded service, those held by handlers). */
  inFlight: number[];
  queue: number[];
  busy: number[];
  /** Fleets with a finite number of workers only: busy workers over the workers available (the capacity schedule applied), time-weighted. */
  utilization?: number[];
}

/** What a service's fleet gives its series: queue and busy workers, and its counts per bin with its workers available (null: none kept, a fleet without servers). */
export interface FleetSeriesInput {
  queue: number[];
  busy: number[];
  counts: FarmBinCounts | null;
  workers: number[] | null;
}

/** The answers a service gave per bin: all, and the failures. */
class AnswerBins {
  readonly answered: BinnedSeries;
  readonly failed: BinnedSeries;
  constructor(binMs: number) {
    this.answered = new BinnedSeries(binMs);
    this.failed = new BinnedSeries(binMs);
  }
}

/**
 * What one service of a graph measures over time beside its fleet's totals and series: its arrivals
 * (from every caller, its own refusals included), split as the leaf's are (`chain` 1: sent while a
 * layer on the path from the entry was past its first attempt), its answers to its callers and their
 * failures (a request it lost counts as a failed answer when lost), its `maxInFlight` refusals, and
 * its requests in flight (admitted and not yet answered, lost or withdrawn: what `maxInFlight`
 * caps). The answers are binned at the series' width and, when that is another, at the cascade
 * timeline's 1 s too. Only t >= 0 counts.
 */
export class ServiceMeasurements {
  /** Requests that reached the service from t = 0 on, and those among them sent while some layer was retrying. */
  arrivals = 0;
  retryArrivals = 0;
  private readonly sFirst: BinnedSeries;
  private readonly sRetry: BinnedSeries;
  private readonly sRefusedInFlight: BinnedSeries;
  private readonly answers: AnswerBins;
  private readonly timelineAnswers: AnswerBins | null;
  private readonly gInFlight: TimeWeightedSeries;

  constructor(
    binMs: number,
    startMs: number,
    private readonly clock: Clock,
  ) {
    this.sFirst = new BinnedSeries(binMs);
    this.sRetry = new BinnedSeries(binMs);
    this.sRefusedInFlight = new BinnedSeries(binMs);
    this.answers = new AnswerBins(binMs);
    this.timelineAnswers = binMs === CASCADE_BIN_MS ? null : new AnswerBins(CASCADE_BIN_MS);
    this.gInFlight = new TimeWeightedSeries(binMs, MAX_SERIES_BINS, startMs, 0);
  }

  /** A request reaches the service at t. */
  arrival(chain: number, t: number): void {
    if (t < 0) return;
    this.arrivals++;
    if (chain === 1) {
      this.retryArrivals++;
      this.sRetry.add(t);
    } else this.sFirst.add(t);
  }

  /** A request was refused at t because `maxInFlight` were in flight (its answer is counted by {@link answered}). */
  refusedInFlight(t: number): void {
    this.sRefusedInFlight.add(t);
  }

  /** The service answered a caller at t (`failed`: not a success; a lost request counts so when lost). */
  answered(failed: boolean, t: number): void {
    const a = this.answers;
    a.answered.add(t);
    if (failed) a.failed.add(t);
    const b = this.timelineAnswers;
    if (b !== null) {
      b.answered.add(t);
      if (failed) b.failed.add(t);
    }
  }

  /** The service's requests in flight became n (now). */
  inFlight(n: number): void {
    this.gInFlight.set(this.clock.nowMs, n);
  }

  finish(endMs: number): void {
    this.gInFlight.finish(endMs);
  }

  /** The series over `bins` bins, with the fleet's (zeros for a fleet without servers). */
  series(bins: number, fleet: FleetSeriesInput | null): ServiceSeries {
    const zeros = () => new Array<number>(bins).fill(0);
    const counts = fleet?.counts ?? null;
    const workers = fleet?.workers ?? null;
    const busy = fleet?.busy ?? zeros();
    const out: ServiceSeries = {
      arrivalsFirst: this.sFirst.toArray(bins),
      arrivalsRetry: this.sRetry.toArray(bins),
      answered: this.answers.answered.toArray(bins),
      failed: this.answers.failed.toArray(bins),
      refusedInFlight: this.sRefusedInFlight.toArray(bins),
      served: counts?.served ?? zeros(),
      shed: counts?.shed ?? zeros(),
      dropped: counts?.dropped ?? zeros(),
      refused: counts?.refused ?? zeros(),
      faulted: counts?.faulted ?? zeros(),
      rejected: counts?.rejected ?? zeros(),
      lost: counts?.lost ?? zeros(),
      crashes: counts?.crashes ?? zeros(),
      wastedWorkMs: counts?.wastedWorkMs ?? zeros(),
      inFlight: this.gInFlight.binMeans(bins),
      queue: fleet?.queue ?? zeros(),
      busy,
    };
    if (workers !== null && workers.some((w) => Number.isFinite(w))) out.utilization = utilisation(busy, workers);
    return out;
  }

  /** The answers per 1 s bin over `bins` such bins, for the cascade timeline. */
  timelineAnswerBins(bins: number): { answered: number[]; failed: number[] } {
    const a = this.timelineAnswers ?? this.answers;
    return { answered: a.answered.toArray(bins), failed: a.failed.toArray(bins) };
  }
}
