import type { SimulationResults } from '../model/results.js';
import type { Scenario } from '../model/scenario.js';

/** Mean, standard deviation and 95% interval of one metric across replications (as in summary.json). */
export interface ReportMetricStats {
  n: number;
  /** Null when no replication measured it (JSON has no NaN). */
  mean: number | null;
  sd: number | null;
  ci95: [number | null, number | null];
}

/** One cell of summary.json, as a report reads it. */
export interface ReportCell {
  key: string;
  part: string;
  variant: string;
  params: Record<string, unknown>;
  state: 'ok' | 'errored';
  replications: number;
  errors: string[];
  metrics: Record<string, ReportMetricStats>;
  /**
   * The cell's resolved scenario. Read back from JSON, numbers that were infinite (an open-ended
   * fault window, an uncapped backoff) are missing. Null when unknown (a results.json without its run.json).
   */
  scenario: Scenario | null;
  /** The series of replication 0 (a typical run) and the mean across replications. */
  timeSeries: { typical: SimulationResults['timeSeries'] | null; mean: Record<string, number[]> | null };
}

/** summary.json, as a report reads it. */
export interface ReportSummary {
  experiment: string;
  description: string;
  seed: number;
  version: string;
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
export const CHART_KINDS = ['metric', 'series', 'clustering', 'amplification', 'pareto', 'giveUps'] as const;
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
