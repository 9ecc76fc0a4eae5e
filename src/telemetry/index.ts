/** Reading telemetry into a graph experiment: the parsers, the inference and the writer (docs/telemetry.md). */
export { importTelemetry, readMetricTexts, SPANS_ONLY_NOTE, type ImportInput, type TelemetryText } from './importTelemetry.js';
export { experimentFromGraph, PLACEHOLDER_PREFIX, DEFAULT_IMPORTED_DURATION_MS, type ImportedExperiment, type Placeholder } from './experimentFromGraph.js';
export { TelemetryInputError } from './TelemetryInputError.js';
export { SPAN_FORMATS, readSpanText, type SpanFormat } from './spanFiles.js';
export { graphFromSpans } from './spanInference.js';
export { graphFromMetrics } from './metricInference.js';
export type { Span } from './span.js';
