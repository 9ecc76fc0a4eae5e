import type { ExperimentPlan } from '../experiment/index.js';
import { MAX_SERIES_BINS } from '../metrics/index.js';
import type { Scenario } from '../model/scenario.js';

/**
 * Bytes per value of the time series, measured on the files a sweep writes (open loop of 200/s over
 * 10 s, 2 cells x 3 replications, bins of 0.1, 1 and 10 ms: 10^5 to 10^3 bins; `summary.json`'s
 * values counted with String(v).length + 1):
 * - a count per bin (arrivals, successes, failures, goodput, writes) is mostly 0 or a few digits:
 *   2.0 to 3.7 bytes with its comma in results.jsonl; {@link COUNT_VALUE_BYTES} = 2.5;
 * - a time-weighted mean (queue, in flight, busy, budgets, fleet) is a long decimal wherever the gauge
 *   moved: 2.4 to 18.1 bytes; {@link GAUGE_VALUE_BYTES} = 9;
 * - a mean across replications (summary.json's `mean`) is a long decimal where replications differ:
 *   counts 2.0 to 13.7 bytes ({@link MEAN_COUNT_VALUE_BYTES} = 8), gauges 12.2 to 18.4 ({@link MEAN_GAUGE_VALUE_BYTES} = 17);
 * - the bin starts (`tMs`) are computed from their text (a sample of them);
 * - summary.json is indented by 2: a series' values sit 5 levels deep, 10 spaces and a newline more
 *   each ({@link SUMMARY_INDENT_BYTES}); results.json (a single run) 2 levels, 5 bytes more.
 * Measured per run of 1,000 to 100,000 bins, the first sizing (4 and 24 bytes a value) was 3.3 to
 * 6.4 bytes a value in results.jsonl and 18 to 22 in summary.json (all series together).
 */
const COUNT_VALUE_BYTES = 2.5;
const GAUGE_VALUE_BYTES = 9;
const MEAN_COUNT_VALUE_BYTES = 8;
const MEAN_GAUGE_VALUE_BYTES = 17;
const SUMMARY_INDENT_BYTES = 11;
const SINGLE_INDENT_BYTES = 5;

/**
 * The rest of a replication's line and of a cell's summary, measured on the same files (60 metrics,
 * one layer, 11 bins: lines of 4.8 KB, 3.9 KB of them outside the series; cells of 19 KB outside the
 * series, of which 9.2 KB metrics and 4.7 KB samples): a line holds about {@link LINE_BASE_BYTES} plus
 * {@link LINE_METRIC_BYTES} per metric (its name and value, twice: metrics and results) and
 * {@link LINE_LAYER_BYTES} per layer (its attempts and give-ups); a cell {@link CELL_METRIC_BYTES} per
 * metric (mean, sd, ci95, indented), {@link SAMPLE_BYTES} per metric and replication, and its
 * scenario's indented text.
 */
const LINE_BASE_BYTES = 1000;
const LINE_METRIC_BYTES = 50;
const LINE_LAYER_BYTES = 300;
const LINE_BACKEND_BYTES = 150;
const CELL_METRIC_BYTES = 150;
const SAMPLE_BYTES = 20;

/** Metrics of a run apart from those per layer, clustering width, window and cluster (src/sweep/flattenMetrics.ts: 58 to 60 measured with one layer and two widths). */
const BASE_METRICS = 46;

/**
 * A burst ends when its last operation does, which is not known before it runs: its series are
 * counted over the operation's deadline, or over this span without one (the shipped bursts end
 * within 0.1 to 101 s of simulated time, most within a few seconds).
 */
const BURST_SPAN_MS = 60_000;

/** Series of a run and their kinds (src/model/results.ts, `timeSeries`). */
interface SeriesShape {
  /** Bins per run: the demand's duration (or, for a burst, the horizon) over the bin width, at most MAX_SERIES_BINS. */
  bins: number;
  /** Counts per bin in a run (arrivals first and retried, successes, failures, goodput, writes). */
  counts: number;
  /** Time-weighted means per bin in a run (queue, in flight, busy, budgets, fleet). */
  gauges: number;
  /** Counts and gauges in summary.json's `mean` (no budgets or fleet). */
  meanCounts: number;
  meanGauges: number;
  /** Average characters of a bin start with its comma. */
  tMsBytes: number;
  /** The time the bins cover (ms) and the fields that set it. */
  spanMs: number;
  spanField: string;
}

function backendCount(sc: Scenario): number {
  return sc.leaf.kind === 'pool' ? sc.leaf.clusters.reduce((n, c) => n + c.backends.length, 0) : 1;
}

/** The shape of the series of one run of `sc`. */
export function seriesShape(sc: Scenario): SeriesShape {
  const w = sc.workload;
  const burst = w.kind === 'burst';
  const deadlineMs = w.deadlineMs;
  const spanMs = Math.min(sc.horizonMs, burst ? (deadlineMs ?? BURST_SPAN_MS) : w.durationMs);
  const binMs = sc.metrics.timeSeriesBinMs;
  const bins = Math.min(MAX_SERIES_BINS, Math.floor(spanMs / binMs) + 1);
  const occ = sc.leaf.kind === 'occ' ? 1 : 0;
  const backends = backendCount(sc);
  const fleet = sc.leaf.kind === 'pool' ? 3 + (backends > 1 && backends <= 64 ? 2 * backends : 0) : 0;
  const budgets = sc.stack.filter((l) => (l.policy.budget?.length ?? 0) > 0).length;
  let tMsChars = 0;
  const samples = Math.min(bins, 1000);
  for (let i = 0; i < samples; i++) tMsChars += String(Math.floor((i * (bins - 1)) / Math.max(1, samples - 1)) * binMs).length + 1;
  return {
    bins,
    counts: 5 + occ,
    gauges: 3 + budgets + fleet,
    meanCounts: 5 + occ,
    meanGauges: 3,
    tMsBytes: tMsChars / samples,
    spanMs,
    spanField: spanMs === sc.horizonMs ? 'horizonMs' : !burst ? 'workload.durationMs' : deadlineMs !== undefined ? 'operation.deadlineMs' : 'a burst\'s first minute',
  };
}

/** Metrics of one run of `sc` (src/sweep/flattenMetrics.ts). */
function metricCount(sc: Scenario): number {
  const clusters = sc.leaf.kind === 'pool' ? 4 + 2 * sc.leaf.clusters.length : 0;
  return BASE_METRICS + 2 * sc.stack.length + 5 * sc.metrics.clusteringBinMs.length + 4 * (sc.metrics.windows?.length ?? 0) + clusters;
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
export function estimateOutput(plan: ExperimentPlan): OutputEstimate {
  let bytes = 0;
  let seriesBytes = 0;
  let runs = 0;
  let largest: OutputEstimate['largest'] = null;
  const single = plan.parts.length === 1 && plan.parts[0]?.cells.length === 1 && plan.parts[0].replications === 1;
  for (const p of plan.parts) {
    for (const c of p.cells) {
      const sc = c.scenario;
      const s = seriesShape(sc);
      const reps = p.replications;
      const runValues = s.tMsBytes + s.counts * COUNT_VALUE_BYTES + s.gauges * GAUGE_VALUE_BYTES;
      const lineSeries = s.bins * runValues;
      const metrics = metricCount(sc);
      const lineRest = LINE_BASE_BYTES + LINE_METRIC_BYTES * metrics + LINE_LAYER_BYTES * sc.stack.length + (sc.leaf.kind === 'pool' ? LINE_BACKEND_BYTES * backendCount(sc) : 0);
      const series = 1 + s.counts + s.gauges;
      const typical = s.bins * (runValues + series * SUMMARY_INDENT_BYTES);
      const meanValues = reps > 1 ? s.meanCounts * MEAN_COUNT_VALUE_BYTES + s.meanGauges * MEAN_GAUGE_VALUE_BYTES : s.meanCounts * COUNT_VALUE_BYTES + s.meanGauges * GAUGE_VALUE_BYTES;
      const mean = s.bins * (meanValues + (s.meanCounts + s.meanGauges) * SUMMARY_INDENT_BYTES);
      const cellRest = metrics * (CELL_METRIC_BYTES + SAMPLE_BYTES * reps) + 2 * JSON.stringify(sc, null, 2).length;
      const csv = metrics * 4 * 20;
      bytes += reps * (lineSeries + lineRest) + typical + mean + cellRest + csv;
      seriesBytes += reps * lineSeries + typical + mean;
      if (single) {
        bytes += s.bins * (runValues + series * SINGLE_INDENT_BYTES) + lineRest;
        seriesBytes += s.bins * (runValues + series * SINGLE_INDENT_BYTES);
      }
      runs += reps;
      if (largest === null || s.bins * series > largest.bins * largest.series) {
        largest = { bins: s.bins, series, binMs: sc.metrics.timeSeriesBinMs, spanMs: s.spanMs, spanField: s.spanField };
      }
    }
  }
  return { bytes: Math.round(bytes), seriesBytes: Math.round(seriesBytes), runs, largest };
}
