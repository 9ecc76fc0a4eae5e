/**
 * One span as the importers read it from OTLP, Jaeger or Zipkin JSON: the fields the inference needs,
 * in one form whatever the source (times in microseconds since the epoch, as Jaeger and Zipkin write
 * them; OTLP's nanoseconds are divided by 1000).
 */
export interface Span {
  traceId: string;
  spanId: string;
  /** The parent span's id; undefined for a root span. */
  parentId: string | undefined;
  /** The service that emitted it (OTLP resource `service.name`, Jaeger process, Zipkin localEndpoint). */
  service: string;
  /** The operation name (an endpoint of the service for a server span). */
  name: string;
  kind: SpanKind;
  startUs: number;
  durationUs: number;
  /** OTLP status ERROR, Jaeger tag `error=true`, Zipkin tag `error` (the servicegraph connector's `failed`). */
  error: boolean;
  /** `http.request.resend_count` (OpenTelemetry semantic conventions for HTTP retries); undefined when absent. */
  resendCount: number | undefined;
  /** The peer the span names (`peer.service`, `server.address`, `net.peer.name`, `db.name`; Zipkin remoteEndpoint), for a call to an uninstrumented service. */
  peer: string | undefined;
}

/** The span kinds of OpenTelemetry (Jaeger's `span.kind` tag and Zipkin's `kind` map onto them). */
export type SpanKind = 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer';

/** OTLP's SpanKind enum values, in order (opentelemetry-proto trace/v1/trace.proto). */
export const OTLP_SPAN_KINDS: readonly SpanKind[] = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

/** The span attribute counting an HTTP request's resends (OpenTelemetry semantic conventions, HTTP client spans). */
export const RESEND_COUNT_ATTRIBUTE = 'http.request.resend_count';

/** The attributes that name the peer of a client span, in the order they are tried (the servicegraph connector's default peer attributes, plus the stable `server.address`). */
export const PEER_ATTRIBUTES = ['peer.service', 'server.address', 'db.name', 'net.sock.peer.addr', 'net.peer.name', 'rpc.service', 'net.sock.peer.name', 'http.url', 'http.target'] as const;

/** A span is served work (a request arriving at its service): server and consumer spans. */
export function isServerSide(s: Span): boolean {
  return s.kind === 'server' || s.kind === 'consumer';
}

/** A span is a call out of its service: client and producer spans. */
export function isClientSide(s: Span): boolean {
  return s.kind === 'client' || s.kind === 'producer';
}
