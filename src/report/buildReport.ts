import { findingLine } from './findings.js';
import { renderReportHtml, type ReportAssets } from './renderReport.js';
import { buildReportModel } from './reportModel.js';
import { buildCharts } from './selectCharts.js';
import type { ReportChart, ReportRunInfo, ReportSummary } from './types.js';

/** A built report: the page, its charts (for PNG export), its one-line finding, and any problems. */
export interface BuiltReport {
  html: string;
  charts: ReportChart[];
  finding: string;
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
  const html = renderReportHtml({ model, charts, assets, warnings });
  return { html, charts, finding: findingLine(model), warnings: [...model.hintErrors.map((e) => `report hint ignored: ${e}`), ...warnings] };
}
