/**
 * Spans from Zipkin v2 JSON (`/api/v2/trace/{id}` and `/api/v2/spans`: a list of spans; a list of
 * traces, each a list, is read too), each with `traceId`, `id`, `parentId`, `name`, `kind`
 * (`CLIENT`, `SERVER`, `PRODUCER`, `CONSUMER`), `timestamp` and `duration` in microseconds,
 * `localEndpoint.serviceName`, `remoteEndpoint.serviceName` and string `tags` (`error`,
 * `http.request.resend_count`). A server span that shares its id with the client span that called
 * it (Zipkin's `shared` spans, B3 propagation) is given an id of its own and that client span as
 * its parent. Source: openzipkin/zipkin-api, zipkin2-api.yaml.
 */
import { JsonReader } from './JsonReader.js';
import { peerOf, resendCountOf } from './otlpSpans.js';
import { RESEND_COUNT_ATTRIBUTE, type Span, type SpanKind } from './span.js';
import { ProblemList } from './TelemetryInputError.js';

type Path = (string | number)[];

/** Zipkin v2's span kinds. */
const ZIPKIN_KINDS: Record<string, SpanKind> = { SERVER: 'server', CLIENT: 'client', PRODUCER: 'producer', CONSUMER: 'consumer' };

/** What is appended to the id of a shared server span to give it one of its own. */
const SHARED_SERVER_SUFFIX = ':server';

function endpointName(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const name = (v as Record<string, unknown>).serviceName;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

function readSpan(r: JsonReader, s: unknown, path: Path): Span | undefined {
  const o = r.object(s, path);
  if (o === undefined) return undefined;
  const traceId = r.string(o.traceId, [...path, 'traceId']);
  const spanId = r.string(o.id, [...path, 'id']);
  const startUs = r.micros(o.timestamp, [...path, 'timestamp']);
  const durationUs = o.duration === undefined ? 0 : r.micros(o.duration, [...path, 'duration']);
  const service = endpointName(o.localEndpoint);
  if (service === undefined) r.bad([...path, 'localEndpoint', 'serviceName'], 'must be a non-empty string', (o.localEndpoint as Record<string, unknown> | undefined)?.serviceName);
  const tagsObject = o.tags === undefined ? {} : r.object(o.tags, [...path, 'tags']);
  const tags = new Map(Object.entries(tagsObject ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const resendCount = resendCountOf(r, tags.get(RESEND_COUNT_ATTRIBUTE), [...path, 'tags', RESEND_COUNT_ATTRIBUTE]);
  if (traceId === undefined || spanId === undefined || startUs === undefined || durationUs === undefined || service === undefined) return undefined;
  const kind = typeof o.kind === 'string' ? ZIPKIN_KINDS[o.kind] : undefined;
  if (o.kind !== undefined && kind === undefined) r.bad([...path, 'kind'], `must be one of ${Object.keys(ZIPKIN_KINDS).join(', ')}`, o.kind);
  return {
    traceId,
    spanId,
    parentId: typeof o.parentId === 'string' && o.parentId !== '' ? o.parentId : undefined,
    service,
    name: typeof o.name === 'string' && o.name !== '' ? o.name : '(unnamed)',
    kind: kind ?? 'unspecified',
    startUs,
    durationUs,
    error: tags.has('error'),
    resendCount,
    peer: endpointName(o.remoteEndpoint) ?? peerOf(tags),
  };
}

/** The spans of a Zipkin v2 JSON document (already parsed), or a TelemetryInputError naming each wrong field by path. */
export function zipkinSpans(doc: unknown, file: string): Span[] {
  const problems = new ProblemList(file);
  const r = new JsonReader(problems);
  const out: Span[] = [];
  const list = r.array(doc, []) ?? [];
  list.forEach((item, i) => {
    if (Array.isArray(item)) item.forEach((s, k) => pushSpan(readSpan(r, s, [i, k])));
    else pushSpan(readSpan(r, item, [i]));
  });
  function pushSpan(s: Span | undefined): void {
    if (s !== undefined) out.push(s);
  }
  problems.done();
  // Shared spans: the server half of a call written under the client's id.
  // Its own children (spans of the server's service naming the shared id) then hang from the server half.
  const clientIds = new Set(out.filter((s) => s.kind === 'client').map((s) => `${s.traceId}/${s.spanId}`));
  const sharedServers = new Map(out.filter((s) => s.kind === 'server' && clientIds.has(`${s.traceId}/${s.spanId}`)).map((s) => [`${s.traceId}/${s.spanId}`, s.service]));
  return out.map((s) => {
    const key = `${s.traceId}/${s.spanId}`;
    if (s.kind === 'server' && sharedServers.has(key)) return { ...s, parentId: s.spanId, spanId: s.spanId + SHARED_SERVER_SUFFIX };
    const parentKey = `${s.traceId}/${s.parentId}`;
    if (s.parentId !== undefined && sharedServers.get(parentKey) === s.service) return { ...s, parentId: s.parentId + SHARED_SERVER_SUFFIX };
    return s;
  });
}
