/**
 * Spans from OTLP JSON (the protobuf JSON mapping of `ExportTraceServiceRequest`, as the Collector's
 * file exporter and `otlp/json` write it; Grafana Tempo's trace API names the list `batches`):
 * `resourceSpans[].resource.attributes` (`service.name`),
 * `scopeSpans[].spans[]` (older files: `instrumentationLibrarySpans`) with `traceId`, `spanId`,
 * `parentSpanId`, `name`, `kind`, `startTimeUnixNano`, `endTimeUnixNano`, `status.code`, `attributes`.
 * Source: opentelemetry-proto, opentelemetry/proto/trace/v1/trace.proto.
 */
import { JsonReader } from './JsonReader.js';
import { OTLP_SPAN_KINDS, PEER_ATTRIBUTES, RESEND_COUNT_ATTRIBUTE, type Span, type SpanKind } from './span.js';
import { ProblemList } from './TelemetryInputError.js';

/** OTLP's status code ERROR (trace.proto `Status.StatusCode`), as a number or its enum name. */
const STATUS_ERROR = [2, 'STATUS_CODE_ERROR'];

type Path = (string | number)[];

/** An OTLP `AnyValue` as a plain value (string, number, boolean), or undefined for arrays, maps and bytes. */
function anyValue(v: unknown): string | number | boolean | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.stringValue === 'string') return o.stringValue;
  if (typeof o.boolValue === 'boolean') return o.boolValue;
  if (typeof o.intValue === 'number') return o.intValue;
  if (typeof o.intValue === 'string' && /^-?\d+$/.test(o.intValue)) return Number(o.intValue);
  if (typeof o.doubleValue === 'number') return o.doubleValue;
  return undefined;
}

/** The `key -> value` map of an OTLP attribute list (wrong entries are problems). */
function attributes(r: JsonReader, list: unknown, path: Path): Map<string, string | number | boolean> {
  const out = new Map<string, string | number | boolean>();
  r.optionalArray(list, path).forEach((a, i) => {
    const o = r.object(a, [...path, i]);
    if (o === undefined) return;
    const key = r.string(o.key, [...path, i, 'key']);
    const value = anyValue(o.value);
    if (key !== undefined && value !== undefined) out.set(key, value);
  });
  return out;
}

function kindOf(r: JsonReader, v: unknown, path: Path): SpanKind {
  if (v === undefined) return 'unspecified';
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < OTLP_SPAN_KINDS.length) return OTLP_SPAN_KINDS[v] as SpanKind;
  if (typeof v === 'string') {
    const k = OTLP_SPAN_KINDS.find((name) => `SPAN_KIND_${name.toUpperCase()}` === v);
    if (k !== undefined) return k;
  }
  r.bad(path, `must be a span kind (0 to ${OTLP_SPAN_KINDS.length - 1}, or SPAN_KIND_SERVER...)`, v);
  return 'unspecified';
}

/** A resend count attribute as a non-negative integer, or a problem. */
export function resendCountOf(r: JsonReader, v: string | number | boolean | undefined, path: Path): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0) return n;
  return r.bad(path, `(${RESEND_COUNT_ATTRIBUTE}) must be a non-negative integer`, v);
}

/** The first peer attribute present, as a name. */
export function peerOf(attrs: ReadonlyMap<string, unknown>): string | undefined {
  for (const k of PEER_ATTRIBUTES) {
    const v = attrs.get(k);
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

function readSpan(r: JsonReader, s: unknown, path: Path, service: string): Span | undefined {
  const o = r.object(s, path);
  if (o === undefined) return undefined;
  const traceId = r.string(o.traceId, [...path, 'traceId']);
  const spanId = r.string(o.spanId, [...path, 'spanId']);
  const start = r.bigCount(o.startTimeUnixNano, [...path, 'startTimeUnixNano']);
  const end = r.bigCount(o.endTimeUnixNano, [...path, 'endTimeUnixNano']);
  const kind = kindOf(r, o.kind, [...path, 'kind']);
  const attrs = attributes(r, o.attributes, [...path, 'attributes']);
  const resendAt = [...path, 'attributes', RESEND_COUNT_ATTRIBUTE];
  const resendCount = resendCountOf(r, attrs.get(RESEND_COUNT_ATTRIBUTE), resendAt);
  if (start !== undefined && end !== undefined && end < start) r.bad([...path, 'endTimeUnixNano'], 'must not be before startTimeUnixNano', String(end));
  if (traceId === undefined || spanId === undefined || start === undefined || end === undefined || end < start) return undefined;
  const status = typeof o.status === 'object' && o.status !== null ? (o.status as Record<string, unknown>).code : undefined;
  const parent = typeof o.parentSpanId === 'string' && o.parentSpanId !== '' ? o.parentSpanId : undefined;
  return {
    traceId,
    spanId,
    parentId: parent,
    service,
    name: typeof o.name === 'string' && o.name !== '' ? o.name : '(unnamed)',
    kind,
    startUs: Number(start / 1000n),
    durationUs: Number(end - start) / 1000,
    error: STATUS_ERROR.includes(status as number | string),
    resendCount,
    peer: peerOf(attrs),
  };
}

/** The spans of an OTLP JSON document (already parsed), or a TelemetryInputError naming each wrong field by path. */
export function otlpSpans(doc: unknown, file: string): Span[] {
  const problems = new ProblemList(file);
  const r = new JsonReader(problems);
  const out: Span[] = [];
  const root = r.object(doc, []);
  // Grafana Tempo's trace API names the list `batches`.
  const listKey = root !== undefined && root.resourceSpans === undefined && root.batches !== undefined ? 'batches' : 'resourceSpans';
  const resources = root === undefined ? [] : (r.array(root[listKey], [listKey]) ?? []);
  resources.forEach((rs, i) => {
    const o = r.object(rs, [listKey, i]);
    if (o === undefined) return;
    const resource = o.resource === undefined ? {} : r.object(o.resource, [listKey, i, 'resource']);
    const attrs = attributes(r, resource?.attributes, [listKey, i, 'resource', 'attributes']);
    const serviceValue = attrs.get('service.name');
    const service = typeof serviceValue === 'string' && serviceValue !== '' ? serviceValue : undefined;
    const scopesKey = o.scopeSpans !== undefined ? 'scopeSpans' : 'instrumentationLibrarySpans';
    r.optionalArray(o[scopesKey], [listKey, i, scopesKey]).forEach((ss, j) => {
      const so = r.object(ss, [listKey, i, scopesKey, j]);
      if (so === undefined) return;
      const spans = r.optionalArray(so.spans, [listKey, i, scopesKey, j, 'spans']);
      // A resource without service.name is skipped, as the servicegraph connector skips it.
      if (service === undefined) return;
      spans.forEach((s, k) => {
        const span = readSpan(r, s, [listKey, i, scopesKey, j, 'spans', k], service);
        if (span !== undefined) out.push(span);
      });
    });
  });
  problems.done();
  return out;
}
