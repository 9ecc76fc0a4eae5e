/**
 * `retrystorm import-telemetry` without the files: the texts of metric dumps and span files in, an
 * experiment out. Metrics are the Prometheus text exposition or query-API JSON (told apart by their
 * first character), spans any of the three span formats. With both, the spans give the structure
 * and the series the rates; with spans only, the rates are the sample's; with metrics only, the
 * structure is what the series can say (`metricInference.ts`).
 */
import { combineGraphs } from './combineGraphs.js';
import { experimentFromGraph, type ImportedExperiment } from './experimentFromGraph.js';
import { graphFromMetrics } from './metricInference.js';
import type { ObservedGraph } from './observedGraph.js';
import { parsePrometheusQuery } from './prometheusQuery.js';
import { parsePrometheusText } from './prometheusText.js';
import { servicegraphEdges, type EdgeSeries } from './servicegraphSeries.js';
import { readSpanText, type SpanFormat } from './spanFiles.js';
import { graphFromSpans, spanWindowSec } from './spanInference.js';
import type { Span } from './span.js';
import { TelemetryInputError } from './TelemetryInputError.js';

/** A file's text and the name messages give it. */
export interface TelemetryText {
  file: string;
  text: string;
}

/** What to import. */
export interface ImportInput {
  metrics: readonly TelemetryText[];
  spans: readonly TelemetryText[];
  /** The span format, when not told apart by shape. */
  spanFormat?: SpanFormat;
  /** The window the metric counts were taken over (seconds); a query_range answer gives its own. */
  windowSec?: number;
  name: string;
  durationMs?: number;
  /** Services' utilisation (0 to 1), by the names the telemetry gives them. */
  utilization?: Readonly<Record<string, number>>;
}

/** The note of a graph read from spans alone. */
export const SPANS_ONLY_NOTE = 'Only spans: rates are those of the spans read over their window; a sample of traces has lower rates than the services (give the servicegraph series for the rates).';

/** The servicegraph edges of metric texts, and the window a query_range answer spans. */
export function readMetricTexts(texts: readonly TelemetryText[]): { edges: EdgeSeries[]; windowSec: number | undefined } {
  const edges: EdgeSeries[] = [];
  let windowSec: number | undefined;
  for (const { file, text } of texts) {
    const trimmed = text.trimStart();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      const q = parsePrometheusQuery(text, file);
      if (q.windowSec !== undefined) windowSec = Math.max(windowSec ?? 0, q.windowSec);
      edges.push(...servicegraphEdges(q.samples, file));
    } else edges.push(...servicegraphEdges(parsePrometheusText(text, file), file));
  }
  return { edges, windowSec };
}

/** The experiment inferred from the telemetry texts (a TelemetryInputError for any unreadable file or missing input). */
export function importTelemetry(input: ImportInput): ImportedExperiment {
  const { edges, windowSec: queryWindow } = readMetricTexts(input.metrics);
  const spans: Span[] = input.spans.flatMap(({ file, text }) => readSpanText(text, file, input.spanFormat).spans);
  const metricFiles = input.metrics.map((m) => m.file);
  if (input.metrics.length > 0 && edges.length === 0) throw new TelemetryInputError([`${metricFiles.join(', ')}: no servicegraph series (traces_service_graph_request_total...) found`]);
  if (input.spans.length > 0 && spans.length === 0) throw new TelemetryInputError([`${input.spans.map((s) => s.file).join(', ')}: no spans found`]);
  const window = input.windowSec ?? queryWindow;
  let graph: ObservedGraph;
  if (edges.length > 0) {
    if (window === undefined) throw new TelemetryInputError([`${metricFiles.join(', ')}: the counts are totals without the window they were counted over: give --window (the range of the query, e.g. 5m), or a query_range answer`]);
    const fromMetrics = graphFromMetrics(edges, window);
    graph = spans.length > 0 ? combineGraphs(graphFromSpans(spans, spanWindowSec(spans)), fromMetrics) : fromMetrics;
  } else {
    const g = graphFromSpans(spans, window ?? spanWindowSec(spans));
    graph = { ...g, notes: [SPANS_ONLY_NOTE, ...g.notes] };
  }
  const unknown = Object.keys(input.utilization ?? {}).filter((name) => !graph.services.has(name));
  if (unknown.length > 0) throw new TelemetryInputError([`--utilization names ${unknown.map((n) => JSON.stringify(n)).join(', ')}, not a service of the telemetry (its services: ${[...graph.services.keys()].join(', ')})`]);
  if (graph.services.size === 0) throw new TelemetryInputError([`${[...metricFiles, ...input.spans.map((s) => s.file)].join(', ')}: no service found (no server span, no servicegraph edge)`]);
  return experimentFromGraph(graph, { name: input.name, ...(input.durationMs !== undefined ? { durationMs: input.durationMs } : {}), ...(input.utilization !== undefined ? { utilization: input.utilization } : {}), sources: [...metricFiles, ...input.spans.map((s) => s.file)] });
}
