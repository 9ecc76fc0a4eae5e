import { MAX_SERIES_BINS } from '../metrics/BinnedSeries.js';
import { formatDuration } from '../policy/formatDuration.js';
import { evaluateAllClaims, type ClaimResult } from './claims.js';
import { findingLine } from './headline.js';
import { renderReportHtml, type ReportAssets } from './renderReport.js';
import { buildReportModel } from './reportModel.js';
import { buildCharts } from './buildCharts.js';
import type { ReportChart, ReportRunInfo, ReportSummary } from './types.js';

/** A built report: the page, its charts (for PNG export), its one-line finding, and any problems. */
export interface BuiltReport {
  html: string;
  charts: ReportChart[];
  finding: string;
  /** The experiment's claims, checked against this run's data (as the page shows them). */
  claims: ClaimResult[];
  warnings: string[];
}

/**
 * Build the report page of a summary: organise it (parts, variants, axes, colours, hints), choose
 * and draw the charts, and write the HTML. Problems with the hints come back as warnings.
 */
export function buildReport(summary: ReportSummary, run: ReportRunInfo, assets: ReportAssets): BuiltReport {
  const model = buildReportModel(summary, run);
  const warnings: string[] = [];
  const charts = buildCharts(model, (m) => warnings.push(m));
  const cut = seriesCutNote(summary);
  if (cut !== null) warnings.push(cut);
  const claims = evaluateAllClaims(model);
  const html = renderReportHtml({ model, charts, assets, warnings, claims });
  return { html, charts, finding: findingLine(model), claims, warnings: [...model.hintErrors.map((e) => `report hint ignored: ${e}`), ...warnings] };
}

/**
 * A note when the time series of some cells stop before their runs ended (`timeSeries.cutAtMs`:
 * a run keeps at most MAX_SERIES_BINS bins), or null.
 */
export function seriesCutNote(summary: ReportSummary): string | null {
  const cut = summary.cells.filter((c) => typeof c.timeSeries?.typical?.cutAtMs === 'number');
  if (cut.length === 0) return null;
  const at = [...new Set(cut.map((c) => c.timeSeries.typical?.cutAtMs as number))].sort((a, b) => a - b);
  const binMs = cut[0]?.timeSeries.typical?.binMs;
  return `the time series of ${cut.length} of ${summary.cells.length} cells stop at ${at.map(formatDuration).join(', ')} (at most ${MAX_SERIES_BINS} bins${binMs !== undefined ? ` of ${formatDuration(binMs)}` : ''} are kept; metrics.timeSeriesBinMs sets their width): the charts over time end there, while the totals cover the whole run`;
}
