import type { MetricStats } from '../sweep/aggregate.js';
import type { CellSummary, SweepSummary } from '../sweep/runPlan.js';

/**
 * Mean, standard deviation and 95% interval of one metric across replications, as summary.json
 * holds them once read back: the sweep's {@link MetricStats}, with null where a number was not
 * finite (JSON has no NaN).
 */
export interface ReportMetricStats extends Omit<MetricStats, 'mean' | 'sd' | 'ci95'> {
  mean: number | null;
  sd: number | null;
  ci95: [number | null, number | null];
}

/**
 * One cell of summary.json, as a report reads it: the sweep's {@link CellSummary} read back from
 * JSON. Numbers that were infinite in the resolved scenario (an open-ended fault window, an
 * uncapped backoff) are missing; the scenario is null when unknown (a results.json without its run.json).
 */
export interface ReportCell extends Omit<CellSummary, 'metrics' | 'scenario' | 'samples'> {
  metrics: Record<string, ReportMetricStats>;
  scenario: CellSummary['scenario'] | null;
  /** Missing in summaries written before replications were kept (their differences have no paired interval). */
  samples?: CellSummary['samples'];
}

/** summary.json, as a report reads it (the sweep's {@link SweepSummary} read back from JSON). */
export interface ReportSummary extends Omit<SweepSummary, 'cells'> {
  cells: ReportCell[];
}

/** How a run was made, for the report header (run.json plus what the command line measured). */
export interface ReportRunInfo {
  /** The experiment file's parsed JSON (run.json `source`); null when unavailable. */
  source: unknown;
  quick: boolean;
  set: Array<[string, unknown]>;
  /** When the results were written (ISO 8601). */
  date: string | null;
  /** Wall-clock time of the run. */
  runTimeMs: number | null;
  /** The retrystorm version that writes the report. */
  reportVersion: string;
}

/** A vega-lite specification (JSON). */
export type VlSpec = Record<string, unknown>;

/** The chart kinds a report draws. */
export const CHART_KINDS = ['metric', 'series', 'clustering', 'amplification', 'pareto', 'giveUps', 'graph', 'services', 'cascade'] as const;
export type ChartKind = (typeof CHART_KINDS)[number];

/** One chart of a report: its spec and the sentence that says what to look at. */
export interface ReportChart {
  /** Unique within a report; also the file name of its PNG. */
  id: string;
  kind: ChartKind;
  part: string;
  title: string;
  caption: string;
  spec: VlSpec;
}
