/**
 * Reports: vega-lite specs of the charts, the choice of charts, and the self-contained HTML page
 * of an experiment's results. Pure functions returning strings and JSON; the command line reads
 * and writes the files.
 */
export { colorScale, PALETTE, REASON_COLORS, variantColors, type VariantColors } from './colors.js';
export { escapeHtml, inlineScript, jsonForScript, stripSourceMap } from './escape.js';
export { findingsCells, findingsMetrics, findingsTable, type FindingsTable } from './findings.js';
export { findingLine } from './headline.js';
export { formatNumber, formatParams, formatValue } from './format.js';
export { isMetricName, METRIC_NAMES_TEXT, metricInfo, metricTitle, paramTitle, paramUnit, type MetricInfo } from './metrics.js';
export { chartSvg, compileSpec, type CompileLog } from './renderSvg.js';
export {
  BUNDLE_FILES,
  flattenForTable,
  renderIndexHtml,
  renderReportHtml,
  type IndexEntry,
  type RenderReportInput,
  type ReportAssets,
} from './renderReport.js';
export { hintsFromSource, parseReportHints, reportHintsSchema, type CellSelector, type ChartHint, type ReportHints } from './reportHints.js';
export { buildReportModel, cellLabel, cellMatches, focusCells, selectCells, type ReportModel, type ReportPart } from './reportModel.js';
export { buildChart, buildCharts } from './buildCharts.js';
export {
  chooseCharts,
  clusteringMetric,
  defaultX,
  isClusteringAxis,
  keyMetrics,
  requestsFromHints,
  workAndTime,
  type ChartRequest,
} from './selectCharts.js';
export { amplificationSpec, layerAttemptsRows, type LabelledCell } from './specs/amplification.js';
export { clusteringSpec } from './specs/clustering.js';
export { giveUpRows, giveUpsSpec } from './specs/giveUps.js';
export { metricPoints, metricVsParamSpec } from './specs/metricVsParam.js';
export { paretoFrontier, paretoPoints, paretoSpec } from './specs/pareto.js';
export { coarsenSeries, defaultPanels, flattenSeries, timeSeriesSpec, type FlatSeries, type SeriesRun } from './specs/timeSeries.js';
export { distinctWindows, scenarioTriggerWindows, type TriggerWindow } from './triggers.js';
export {
  CHART_KINDS,
  type ChartKind,
  type ReportCell,
  type ReportChart,
  type ReportMetricStats,
  type ReportRunInfo,
  type ReportSummary,
  type VlSpec,
} from './types.js';
export { buildReport, type BuiltReport } from './buildReport.js';
