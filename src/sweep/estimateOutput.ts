import { replicationSeed, type Cell, type ExperimentPlan } from '../experiment/index.js';
import { MAX_SERIES_BINS } from '../metrics/index.js';
import { FARM_BIN_NAMES } from '../model/leaves/server/FarmBins.js';
import { graphFootprint } from '../model/graph/graphFootprint.js';
import { needsGraphRuntime } from '../model/graph/GraphRun.js';
import { Model } from '../model/Model.js';
import { allEntries } from '../model/graph/ServiceGraph.js';
import { scenarioClients, scenarioWorkloads, type Leaf, type Scenario } from '../model/scenario.js';
import { estimateWork } from './estimateWork.js';

/**
 * Bytes per value of the time series (with its comma), measured on the results.jsonl and
 * summary.json of every shipped experiment (quick and full, `node dist/cli/main.js run-all`), each
 * series' average over a run:
 * - a count per bin (arrivals first and retried, successes, failures, goodput, writes) is its digits
 *   and a comma: 2.0 (all zeros) to 5.9 (9,000 operations a second in 1 s bins); estimated as
 *   {@link COUNT_BASE_BYTES} + log10(1 + operations per bin) (about one more than the digits of the
 *   mean, since the bins of a burst or a spike hold more than the mean);
 * - a time-weighted mean (queue, in flight, busy, budgets, fleet) is a long decimal wherever the gauge
 *   moved: 10.5 to 18.8 bytes for a gauge that moves ({@link GAUGE_VALUE_BYTES} = 19: a double's
 *   shortest text has at most 17 significant digits and a point), 2.0 for one that cannot (the queue
 *   of an OCC or scripted leaf or of a server of unlimited concurrency, the busy workers of an OCC
 *   or scripted leaf: {@link IDLE_VALUE_BYTES});
 * - goodput per second is a count times 1000 / binMs: a count when that is an integer, else a long
 *   decimal (a gauge's bytes);
 * - a mean across replications (summary.json's `mean`) is a long decimal where replications differ:
 *   counts 2.0 to 14.3 bytes ({@link MEAN_COUNT_VALUE_BYTES} = 8), gauges up to 18.7 (19);
 * - the bin starts (`tMs`) are computed from their text (a sample of them);
 * - summary.json is indented by 2: a series' values sit 5 levels deep, 10 spaces and a newline more
 *   each ({@link SUMMARY_INDENT_BYTES}); results.json (a single run) 2 levels, 5 bytes more.
 */
const COUNT_BASE_BYTES = 2;
const GAUGE_VALUE_BYTES = 19;
const IDLE_VALUE_BYTES = 2;
const MEAN_COUNT_VALUE_BYTES = 8;
const SUMMARY_INDENT_BYTES = 11;
const SINGLE_INDENT_BYTES = 5;

/**
 * The rest of a replication's line and of a cell's summary, measured on the same files (60 metrics,
 * one layer, 11 bins: lines of 4.8 KB, 3.9 KB of them outside the series; cells of 19 KB outside the
 * series, of which 9.2 KB metrics and 4.7 KB samples): a line holds about {@link LINE_BASE_BYTES} plus
 * {@link LINE_METRIC_BYTES} per metric (its name and value, twice: metrics and results) and
 * {@link LINE_LAYER_BYTES} per layer (its attempts and give-ups); a cell {@link CELL_METRIC_BYTES} per
 * metric (mean, sd, ci95, indented), {@link SAMPLE_BYTES} per metric and replication, and its
 * scenario's indented text. The shipped experiments' lines hold 3.2 to 5.2 KB outside the series
 * (7.7 KB with 10 backends).
 */
const LINE_BASE_BYTES = 1000;
const LINE_METRIC_BYTES = 50;
const LINE_LAYER_BYTES = 300;
const LINE_BACKEND_BYTES = 150;
const CELL_METRIC_BYTES = 150;
const SAMPLE_BYTES = 20;

/** Metrics of a run apart from those per layer, clustering width, window and cluster (src/sweep/flattenMetrics.ts: 58 to 60 measured with one layer and two widths). */
const BASE_METRICS = 46;
/** Metrics of one lookaside cache of a graph: the numbers of its CacheResult (src/model/graph/CallCache.ts, hit ratio included). */
const CACHE_METRICS = 6;
/**
 * Series of one service of a graph (src/model/Measurements.ts, ServiceSeries): counts of arrivals
 * first and retried, answers, failures and maxInFlight refusals, and its fleet's per-bin counts
 * (FarmBins); time-weighted in flight, queue, busy and utilisation.
 */
const SERVICE_COUNT_SERIES = 5 + FARM_BIN_NAMES.length;
const SERVICE_GAUGE_SERIES = 4;
/** Metrics of one service of a graph: the numbers of its ServiceResult (utilisation included). */
const SERVICE_METRICS = 19;
/** Metrics of one of several workloads (`workloads.<name>.*`: operations, give-ups, leaf calls, amplification, latency, goodput; 18 measured). */
const WORKLOAD_METRICS = 18;

/**
 * Without a run ahead (see {@link runSpans}), a burst's series are counted over the operation's
 * deadline, or over this span without one (the shipped bursts end within 0.1 to 113 s of simulated
 * time, most within a few seconds).
 */
const BURST_SPAN_MS = 60_000;

/**
 * How long a run lasts is known only by running it: its series cover the time until the last event,
 * a burst's until its last operation ends, an open or closed loop's until the drain after its
 * demand stops (1.0 to 1.4 times `durationMs` in the shipped experiments; a closed loop of 1 ms of
 * demand and 1 s operations ran 1,000 times its duration). So the estimate runs replication 0 of
 * each cell ahead, with its own seed, while {@link RUN_AHEAD_CELL_EVENTS} events per cell and
 * {@link RUN_AHEAD_PLAN_EVENTS} in all last (about half a second), on cells of at most
 * {@link RUN_AHEAD_CLIENTS} clients (their memory) whose estimated operations fit in their share. Replication 0's span is within 0.84 to 1.00 of
 * the mean over replications, summed over a part's cells, in every shipped experiment.
 */
const RUN_AHEAD_CELL_EVENTS = 200_000;
const RUN_AHEAD_PLAN_EVENTS = 1_000_000;
const RUN_AHEAD_CLIENTS = 100_000;
/**
 * A cell whose caches take more than this to build is not run ahead: their tables and key
 * popularity (10^7 entries and keys: about 600 MB) and a warm start's replay (20 requests per entry,
 * counted against the cell's events) would make `validate` take minutes and the memory of a run.
 */
const RUN_AHEAD_CACHE_BYTES = 20e6;
/** Events an operation takes at the least (its start, its arrival at the leaf, the answer): 3. */
const MIN_OPERATION_EVENTS = 3;

/** What a span measured by running replication 0 ahead is called in messages. */
const RUN_AHEAD_FIELD = "replication 0's span (run ahead)";

/** The time a cell's series cover (ms) and what set it. */
export interface SeriesSpan {
  spanMs: number;
  /** The field that set it (`horizonMs`, `workload.durationMs`...), or {@link RUN_AHEAD_FIELD}. */
  spanField: string;
}

/** Series of a run and their kinds (src/model/results.ts, `timeSeries`). */
export interface SeriesShape extends SeriesSpan {
  /** Bins per run: the span over the bin width (the bin holding its end included), at most MAX_SERIES_BINS. */
  bins: number;
  /** Series per run: counts per bin (arrivals first and retried, successes, failures, goodput, writes) and time-weighted means (queue, in flight, busy, budgets, fleet), with the bytes of one value of each. */
  counts: number;
  gauges: number;
  /** Bytes of one bin of a run's series, its start included (commas included, no indentation). */
  runBinBytes: number;
  /** Series in summary.json's `mean` (no budgets or fleet), and the bytes of one bin of them: means over replications, or (one replication) its own values. */
  meanSeries: number;
  meanBinBytes: number;
  meanOneBinBytes: number;
  /**
   * A service graph run by the graph runtime: each service's series in a run's results (arrivals
   * first and retried, in flight, queue, busy; not in summary.json's), and the bytes of one bin of
   * all of them.
   */
  serviceSeries: number;
  serviceBinBytes: number;
}

function backendCount(sc: Scenario): number {
  return sc.leaf.kind === 'pool' ? sc.leaf.clusters.reduce((n, c) => n + c.backends.length, 0) : 1;
}

/** The span without running: a loop's duration, a burst's deadline or first minute, at most the horizon. */
export function nominalSpan(sc: Scenario): SeriesSpan {
  const several = scenarioWorkloads(sc);
  if (several.length > 1) return several.map((w) => nominalSpan({ ...sc, workload: w, graph: undefined })).reduce((a, b) => (b.spanMs > a.spanMs ? b : a));
  const w = sc.workload;
  const burst = w.kind === 'burst';
  const deadlineMs = w.deadlineMs;
  const spanMs = Math.min(sc.horizonMs, burst ? (deadlineMs ?? BURST_SPAN_MS) : w.durationMs);
  const spanField = spanMs === sc.horizonMs ? 'horizonMs' : !burst ? 'workload.durationMs' : deadlineMs !== undefined ? 'operation.deadlineMs' : "a burst's first minute";
  return { spanMs, spanField };
}

/**
 * Whether each leaf kind has no servers (so its queue and busy series stay at 0): keyed by every
 * kind, so a new leaf kind is a compile error here until it says.
 */
const SERVERLESS_LEAF: Readonly<Record<Leaf['kind'], boolean>> = { server: false, pool: false, occ: true, script: true };

/** Whether a leaf's queue and its busy workers stay at 0 (no server, or one that never queues). */
function idleGauges(sc: Scenario): { queue: boolean; busy: boolean } {
  const leaf = sc.leaf;
  const serverless = SERVERLESS_LEAF[leaf.kind];
  const neverQueues = leaf.kind === 'server' && leaf.concurrency === 'unlimited' && (leaf.capacity ?? []).length === 0;
  return { queue: serverless || neverQueues, busy: serverless };
}

/** The shape of the series of one run of `sc` over `span` (by default its {@link nominalSpan}). */
export function seriesShape(sc: Scenario, span: SeriesSpan = nominalSpan(sc)): SeriesShape {
  const binMs = sc.metrics.timeSeriesBinMs;
  const spanMs = span.spanMs;
  const bins = Math.min(MAX_SERIES_BINS, Math.floor(spanMs / binMs) + 1);
  const occ = sc.leaf.kind === 'occ' ? 1 : 0;
  const backends = backendCount(sc);
  const fleet = sc.leaf.kind === 'pool' ? 3 + (backends > 1 && backends <= 64 ? 2 * backends : 0) : 0;
  const budgets = sc.stack.filter((l) => (l.policy.budget?.length ?? 0) > 0).length;
  let tMsChars = 0;
  const samples = Math.min(bins, 1000);
  for (let i = 0; i < samples; i++) tMsChars += String(Math.floor((i * (bins - 1)) / Math.max(1, samples - 1)) * binMs).length + 1;
  const tMsBytes = tMsChars / samples;
  // Operations per bin over the span (a burst's all at its start count as spread: the bins after are mostly 0).
  const perBin = (estimateWork(sc).operations * binMs) / Math.max(binMs, spanMs);
  const count = COUNT_BASE_BYTES + Math.log10(1 + perBin);
  const goodput = Number.isInteger(1000 / binMs) ? count : GAUGE_VALUE_BYTES;
  const idle = idleGauges(sc);
  const queue = idle.queue ? IDLE_VALUE_BYTES : GAUGE_VALUE_BYTES;
  const busy = idle.busy ? IDLE_VALUE_BYTES : GAUGE_VALUE_BYTES;
  // Counts: arrivals first and retried, successes, failures (and OCC writes), then goodput; gauges: queue, in flight, busy, budgets, fleet.
  const countBytes = (4 + occ) * count + goodput;
  const gaugeBytes = queue + GAUGE_VALUE_BYTES + busy + (budgets + fleet) * GAUGE_VALUE_BYTES;
  const services = needsGraphRuntime(sc) ? (sc.graph?.services.length ?? 0) : 0;
  // Each cache adds two count series (lookups, hits) to its service's.
  const caches = cachesOf(sc);
  const meanCountBytes = (4 + occ) * MEAN_COUNT_VALUE_BYTES + Math.max(goodput, MEAN_COUNT_VALUE_BYTES);
  return {
    bins,
    counts: 5 + occ,
    gauges: 3 + budgets + fleet,
    runBinBytes: tMsBytes + countBytes + gaugeBytes,
    meanSeries: 8 + occ,
    meanBinBytes: meanCountBytes + queue + GAUGE_VALUE_BYTES + busy,
    meanOneBinBytes: countBytes + queue + GAUGE_VALUE_BYTES + busy,
    serviceSeries: (SERVICE_COUNT_SERIES + SERVICE_GAUGE_SERIES) * services + 2 * caches,
    serviceBinBytes: services * (SERVICE_COUNT_SERIES * count + SERVICE_GAUGE_SERIES * GAUGE_VALUE_BYTES) + caches * 2 * count,
    spanMs,
    spanField: span.spanField,
  };
}

/**
 * The span of each cell's series (see {@link RUN_AHEAD_CELL_EVENTS}): replication 0 run ahead when it
 * ends within its share of events (or stops where the real run will: its horizon, its own event or
 * in-flight cap); otherwise the nominal span, times the largest ratio of run-ahead to nominal span
 * among the cells of its part that ran ahead (at least 1 when none did).
 */
export function runSpans(plan: ExperimentPlan): Map<Cell, SeriesSpan> {
  const spans = new Map<Cell, SeriesSpan>();
  let budget = RUN_AHEAD_PLAN_EVENTS;
  for (const p of plan.parts) {
    let ratio = 0;
    const pending: Cell[] = [];
    for (const c of p.cells) {
      const sc = c.scenario;
      const cap = Math.min(RUN_AHEAD_CELL_EVENTS, budget);
      const measured = scenarioClients(sc) <= RUN_AHEAD_CLIENTS && mayEndWithin(sc, cap) && cachesFit(sc, cap) ? runAhead(sc, replicationSeed(plan.seed, c.part, c.params, 0), cap) : null;
      if (measured === null) {
        pending.push(c);
        continue;
      }
      budget -= measured.events;
      spans.set(c, { spanMs: measured.spanMs, spanField: RUN_AHEAD_FIELD });
      const nominal = nominalSpan(sc).spanMs;
      if (nominal > 0) ratio = Math.max(ratio, measured.spanMs / nominal);
    }
    for (const c of pending) {
      const n = nominalSpan(c.scenario);
      spans.set(c, ratio > 1 ? { spanMs: Math.min(c.scenario.horizonMs, n.spanMs * ratio), spanField: `${n.spanField} x ${ratio.toFixed(2)} (the largest ratio of a span run ahead to its nominal one in its part)` } : n);
    }
  }
  return spans;
}

/** Whether the caches of `sc` are small enough to build for a run ahead of `cap` events (see {@link RUN_AHEAD_CACHE_BYTES}). */
function cachesFit(sc: Scenario, cap: number): boolean {
  if (sc.graph === undefined) return true;
  const f = graphFootprint(sc);
  return f.cacheBytes <= RUN_AHEAD_CACHE_BYTES && f.warmRequests <= cap;
}

/**
 * Whether a run of `sc` may end within `cap` events: each operation takes at least
 * {@link MIN_OPERATION_EVENTS} (its start, its arrival at the leaf, the answer), and a closed loop's
 * client makes at least one. A run that cannot is not run ahead (it would spend its share for nothing).
 */
function mayEndWithin(sc: Scenario, cap: number): boolean {
  const clients = scenarioWorkloads(sc).reduce((n, w) => n + (w.kind === 'open' ? 0 : w.clients), 0);
  const operations = Math.max(estimateWork(sc).operations, clients);
  return cap > 0 && operations * MIN_OPERATION_EVENTS <= cap;
}

/** Run `sc` with `seed` for at most `cap` events: the span its series cover and the events it took, or null when it did not end (or could not run). */
function runAhead(sc: Scenario, seed: number, cap: number): { spanMs: number; events: number } | null {
  const own = sc.maxEvents <= cap;
  try {
    const r = new Model(own ? sc : { ...sc, maxEvents: cap }, { seed }).run();
    if (r.truncated === 'event-cap' && !own) return null;
    return { spanMs: r.simulatedMs, events: r.events };
  } catch {
    return null;
  }
}

/** Metrics of one run of `sc` (src/sweep/flattenMetrics.ts). */
function metricCount(sc: Scenario): number {
  const clusters = sc.leaf.kind === 'pool' ? 4 + 2 * sc.leaf.clusters.length : 0;
  // A graph: 4 metrics per edge (at most one per call, and one per entry) and 19 per service (src/model/results.ts, ServiceResult);
  // with several workloads, 4 more per edge and workload, and each workload's own.
  const g = needsGraphRuntime(sc) ? sc.graph : undefined;
  const edges = g === undefined ? 0 : allEntries(g).length + g.services.reduce((n, sv) => n + sv.endpoints.reduce((m, e) => m + (e.steps ?? []).reduce((k, st) => k + (st.kind === 'call' ? st.calls.length : 0), 0), 0), 0);
  const named = g?.workloads?.length ?? 0;
  const graph = g === undefined ? 0 : 4 * edges * (1 + named) + SERVICE_METRICS * g.services.length + WORKLOAD_METRICS * named + CACHE_METRICS * cachesOf(sc);
  const layers = g?.workloads?.reduce((n, w) => n + w.stack.length, 0) ?? sc.stack.length;
  // Each window: 4 metrics (recoveryMs aside), and a graph's 3 per edge (calls, retries, amplification).
  const windows = (sc.metrics.windows?.length ?? 0) * (4 + 3 * edges);
  return BASE_METRICS + 2 * layers + 5 * sc.metrics.clusteringBinMs.length + windows + clusters + graph;
}

/** The estimated output of a plan, and what dominates it. */
export interface OutputEstimate {
  /** results.jsonl, summary.json, summary.csv and (a single run) results.json, in bytes. */
  bytes: number;
  /** The part of `bytes` in time series. */
  seriesBytes: number;
  /** Runs (cells x replications). */
  runs: number;
  /** The cell with the most bins per run: its bins, series per run, bin width and the span they cover. */
  largest: { bins: number; series: number; binMs: number; spanMs: number; spanField: string } | null;
}

/**
 * Estimate the size of the files a plan writes (the HTML report is left out: its charts are thinned,
 * about a megabyte whatever the run). Per run, results.jsonl holds one line: its series (bins x series,
 * at the bytes per value above) and the rest (metrics, layers, backends). summary.json holds per cell
 * replication 0's series, the mean series, the metrics, a sample per metric and replication and the
 * scenario; summary.csv a row per cell (a metric's four statistics).
 */
export function estimateOutput(plan: ExperimentPlan, spans: Map<Cell, SeriesSpan> = runSpans(plan)): OutputEstimate {
  let bytes = 0;
  let seriesBytes = 0;
  let runs = 0;
  let largest: OutputEstimate['largest'] = null;
  const single = plan.parts.length === 1 && plan.parts[0]?.cells.length === 1 && plan.parts[0].replications === 1;
  for (const p of plan.parts) {
    for (const c of p.cells) {
      const sc = c.scenario;
      const s = seriesShape(sc, spans.get(c));
      const reps = p.replications;
      const lineSeries = s.bins * (s.runBinBytes + s.serviceBinBytes);
      const metrics = metricCount(sc);
      const lineRest = LINE_BASE_BYTES + LINE_METRIC_BYTES * metrics + LINE_LAYER_BYTES * sc.stack.length + (sc.leaf.kind === 'pool' ? LINE_BACKEND_BYTES * backendCount(sc) : 0);
      const series = 1 + s.counts + s.gauges;
      // summary.json keeps one run's series per cell, a graph's services' included (src/sweep/runPlan.ts).
      const typical = s.bins * (s.runBinBytes + s.serviceBinBytes + (series + s.serviceSeries) * SUMMARY_INDENT_BYTES);
      const mean = s.bins * ((reps > 1 ? s.meanBinBytes : s.meanOneBinBytes) + s.meanSeries * SUMMARY_INDENT_BYTES);
      const cellRest = metrics * (CELL_METRIC_BYTES + SAMPLE_BYTES * reps) + 2 * JSON.stringify(sc, null, 2).length;
      const csv = metrics * 4 * 20;
      bytes += reps * (lineSeries + lineRest) + typical + mean + cellRest + csv;
      seriesBytes += reps * lineSeries + typical + mean;
      if (single) {
        // results.json: the services' series sit 4 levels deeper than the run's.
        const one = s.bins * (s.runBinBytes + series * SINGLE_INDENT_BYTES + s.serviceBinBytes + s.serviceSeries * (SINGLE_INDENT_BYTES + 8));
        bytes += one + lineRest;
        seriesBytes += one;
      }
      runs += reps;
      if (largest === null || s.bins * series > largest.bins * largest.series) {
        largest = { bins: s.bins, series, binMs: sc.metrics.timeSeriesBinMs, spanMs: s.spanMs, spanField: s.spanField };
      }
    }
  }
  return { bytes: Math.round(bytes), seriesBytes: Math.round(seriesBytes), runs, largest };
}

/** The lookaside caches of a scenario's graph (one per call that declares its own, and one per shared tier), when it runs as a graph. */
function cachesOf(sc: Scenario): number {
  const g = needsGraphRuntime(sc) ? sc.graph : undefined;
  if (g === undefined) return 0;
  const own = g.services.reduce((n, sv) => n + sv.endpoints.reduce((m, e) => m + (e.steps ?? []).reduce((k, st) => k + (st.kind === 'call' ? st.calls.filter((c) => c.cache !== undefined && c.cache.shared !== true).length : 0), 0), 0), 0);
  return own + (g.caches?.length ?? 0);
}
