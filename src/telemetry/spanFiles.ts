/**
 * A span file of any of the three formats, told apart by its shape: OTLP JSON (an object with
 * `resourceSpans`), Jaeger JSON (an object with `data`, one trace with `spans` and `processes`, or a
 * list of traces) and
 * Zipkin v2 JSON (a list of spans with `traceId` and `id`, or a list of such lists). OTLP JSON lines
 * (one document a line, as the Collector's file exporter writes them) are read line by line.
 */
import { jaegerSpans } from './jaegerSpans.js';
import { parseTelemetryJson } from './JsonReader.js';
import { otlpSpans } from './otlpSpans.js';
import type { Span } from './span.js';
import { TelemetryInputError } from './TelemetryInputError.js';
import { zipkinSpans } from './zipkinSpans.js';

/** The span formats read, as `--spans-format` names them. */
export const SPAN_FORMATS = ['otlp', 'jaeger', 'zipkin'] as const;
/** A span format. */
export type SpanFormat = (typeof SPAN_FORMATS)[number];

/** The format a parsed span document is in, or undefined when it has none of their shapes. */
export function spanFormatOf(doc: unknown): SpanFormat | undefined {
  if (Array.isArray(doc)) {
    const first: unknown = doc[0];
    const item: unknown = Array.isArray(first) ? first[0] : first;
    if (typeof item !== 'object' || item === null) return doc.length === 0 ? 'zipkin' : undefined;
    if ('spans' in item || 'traceID' in item) return 'jaeger';
    if ('traceId' in item) return 'zipkin';
    return undefined;
  }
  if (typeof doc !== 'object' || doc === null) return undefined;
  if ('resourceSpans' in doc || 'batches' in doc) return 'otlp';
  if ('data' in doc || ('spans' in doc && 'processes' in doc)) return 'jaeger';
  return undefined;
}

/** The spans of one span file's text (`file` names it in messages), its format told apart by shape unless given. */
export function readSpanText(text: string, file: string, format?: SpanFormat): { format: SpanFormat; spans: Span[] } {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length > 1 && lines.every((l) => l.trimStart().startsWith('{"resourceSpans"'))) {
    // JSON lines, one OTLP document a line, as the Collector's file exporter writes them.
    return { format: 'otlp', spans: lines.flatMap((line, i) => otlpSpans(parseTelemetryJson(line, `${file}:${i + 1}`), `${file}:${i + 1}`)) };
  }
  const doc = parseTelemetryJson(text, file);
  const found = format ?? spanFormatOf(doc);
  if (found === undefined) {
    throw new TelemetryInputError([`${file}: is not a span file: expected OTLP JSON (an object with "resourceSpans"), Jaeger JSON (an object with "data": traces with "spans") or Zipkin v2 JSON (a list of spans with "traceId" and "id")`]);
  }
  const spans = found === 'otlp' ? otlpSpans(doc, file) : found === 'jaeger' ? jaegerSpans(doc, file) : zipkinSpans(doc, file);
  return { format: found, spans };
}
