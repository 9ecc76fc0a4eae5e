/**
 * Spans from Jaeger JSON, as the Jaeger UI's "Download JSON" and the query service's
 * `/api/traces` write it: `{ "data": [ { "traceID", "spans": [...], "processes": { "p1":
 * { "serviceName" } } } ] }`, each span with `traceID`, `spanID`, `operationName`, `references`
 * (`CHILD_OF` / `FOLLOWS_FROM` with a `spanID`; an older `parentSpanID` field is read too),
 * `startTime` and `duration` in microseconds, `tags` (`span.kind`, `error`, `otel.status_code`,
 * `http.request.resend_count`, peer tags) and `processID`. A bare list of traces is read as `data`,
 * and one trace on its own (`{ "traceID", "spans", "processes" }`) as a list of one.
 * Source: jaegertracing/jaeger, model/json/model.go.
 */
import { JsonReader } from './JsonReader.js';
import { peerOf, resendCountOf } from './otlpSpans.js';
import { RESEND_COUNT_ATTRIBUTE, type Span, type SpanKind } from './span.js';
import { ProblemList } from './TelemetryInputError.js';

type Path = (string | number)[];

/** Jaeger's `span.kind` tag values (OpenTracing's words) as span kinds. */
const JAEGER_KINDS: Record<string, SpanKind> = { server: 'server', client: 'client', producer: 'producer', consumer: 'consumer', internal: 'internal' };

function tagMap(r: JsonReader, list: unknown, path: Path): Map<string, string | number | boolean> {
  const out = new Map<string, string | number | boolean>();
  r.optionalArray(list, path).forEach((t, i) => {
    const o = r.object(t, [...path, i]);
    if (o === undefined) return;
    const key = r.string(o.key, [...path, i, 'key']);
    const v = o.value;
    if (key !== undefined && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) out.set(key, v);
  });
  return out;
}

/** The parent: the first CHILD_OF reference within the span's trace, else the first reference within it (FOLLOWS_FROM), else the older parentSpanID field. */
function parentOf(o: Record<string, unknown>): string | undefined {
  const refs = (Array.isArray(o.references) ? (o.references as unknown[]) : [])
    .filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null)
    .filter((r) => typeof r.spanID === 'string' && r.spanID !== '' && (r.traceID === undefined || r.traceID === o.traceID));
  const ref = refs.find((r) => r.refType === 'CHILD_OF') ?? refs[0];
  if (ref !== undefined) return ref.spanID as string;
  return typeof o.parentSpanID === 'string' && o.parentSpanID !== '' && !/^0+$/.test(o.parentSpanID) ? o.parentSpanID : undefined;
}

function readSpan(r: JsonReader, s: unknown, path: Path, services: ReadonlyMap<string, string>): Span | undefined {
  const o = r.object(s, path);
  if (o === undefined) return undefined;
  const traceId = r.string(o.traceID, [...path, 'traceID']);
  const spanId = r.string(o.spanID, [...path, 'spanID']);
  const startUs = r.micros(o.startTime, [...path, 'startTime']);
  const durationUs = r.micros(o.duration, [...path, 'duration']);
  const processId = r.string(o.processID, [...path, 'processID']);
  const service = processId === undefined ? undefined : services.get(processId);
  if (processId !== undefined && service === undefined) r.bad([...path, 'processID'], 'must name a process of the trace\'s "processes"', processId);
  const tags = tagMap(r, o.tags, [...path, 'tags']);
  const resendCount = resendCountOf(r, tags.get(RESEND_COUNT_ATTRIBUTE), [...path, 'tags', RESEND_COUNT_ATTRIBUTE]);
  if (traceId === undefined || spanId === undefined || startUs === undefined || durationUs === undefined || service === undefined) return undefined;
  const kindTag = tags.get('span.kind');
  const error = tags.get('error');
  return {
    traceId,
    spanId,
    parentId: parentOf(o),
    service,
    name: typeof o.operationName === 'string' && o.operationName !== '' ? o.operationName : '(unnamed)',
    kind: typeof kindTag === 'string' ? (JAEGER_KINDS[kindTag] ?? 'unspecified') : 'unspecified',
    startUs,
    durationUs,
    error: error === true || error === 'true' || tags.get('otel.status_code') === 'ERROR',
    resendCount,
    peer: peerOf(tags),
  };
}

/** The spans of a Jaeger JSON document (already parsed), or a TelemetryInputError naming each wrong field by path. */
export function jaegerSpans(doc: unknown, file: string): Span[] {
  const problems = new ProblemList(file);
  const r = new JsonReader(problems);
  const out: Span[] = [];
  const bare = Array.isArray(doc);
  const root = bare ? undefined : r.object(doc, []);
  // One trace on its own (the UI's model of a trace: spans and processes) reads as a list of one.
  const single = root !== undefined && root.data === undefined && 'spans' in root;
  const traces = bare ? (doc as unknown[]) : single ? [root] : root === undefined ? [] : (r.array(root.data, ['data']) ?? []);
  const base: Path = bare || single ? [] : ['data'];
  traces.forEach((t, i) => {
    const at: Path = single ? [] : [...base, i];
    const o = r.object(t, at);
    if (o === undefined) return;
    const services = new Map<string, string>();
    const processes = o.processes === undefined ? {} : r.object(o.processes, [...at, 'processes']);
    for (const [id, p] of Object.entries(processes ?? {})) {
      const po = r.object(p, [...at, 'processes', id]);
      const name = po === undefined ? undefined : r.string(po.serviceName, [...at, 'processes', id, 'serviceName']);
      if (name !== undefined) services.set(id, name);
    }
    r.optionalArray(o.spans, [...at, 'spans']).forEach((s, k) => {
      const span = readSpan(r, s, [...at, 'spans', k], services);
      if (span !== undefined) out.push(span);
    });
  });
  problems.done();
  return out;
}
