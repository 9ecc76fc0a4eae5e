import { RETRY_ON_GROUPS } from '../policy/classify.js';
import type { RetryOnClass } from '../policy/types.js';

/**
 * One word of a format's retry vocabulary (a condition, a status, an exception) and the outcome
 * classes it retries. Each format's table below is read by its importer (word -> classes) and by
 * its exporter ({@link sayClasses}: classes -> words), so both directions share one mapping.
 */
export interface RetryTerm {
  term: string;
  classes: readonly RetryOnClass[];
  /** What the model leaves out of this word, when it retries more than its classes say. */
  note?: string;
}

/**
 * The HTTP statuses the model answers and their classes, one each (409 is the write conflict); a
 * status outside this table is never answered by a leaf.
 */
export const HTTP_STATUS_TERMS: readonly RetryTerm[] = [
  { term: '400', classes: ['400'] },
  { term: '404', classes: ['404'] },
  { term: '409', classes: ['conflict'] },
  { term: '429', classes: ['429'] },
  { term: '500', classes: ['500'] },
  { term: '502', classes: ['502'] },
  { term: '503', classes: ['503'] },
  { term: '504', classes: ['504'] },
];

/** The class of an HTTP status (null: the model has no leaf answering it). */
export function httpStatusClass(code: number): RetryOnClass | null {
  return HTTP_STATUS_TERMS.find((t) => t.term === String(code))?.classes[0] ?? null;
}

/** The HTTP status a class is written as in a list of status codes (null: the class is no status). */
export function statusOfClass(c: RetryOnClass): number | null {
  const t = HTTP_STATUS_TERMS.find((x) => x.classes[0] === c);
  return t === undefined ? null : Number(t.term);
}

/**
 * Envoy's `retry_on` conditions (also Istio's `retryOn` and Envoy Gateway's triggers) and their
 * classes (envoyproxy/envoy@040783c8c0b423531a51d33f2d4765ca3de0d96e,
 * docs/root/configuration/http/http_filters/router_filter.rst, "x-envoy-retry-on" and
 * "x-envoy-retry-grpc-on"; source/common/router/retry_state_impl.cc@e78906c5cbf579e412a7ca76ecabeee0e11d977f):
 * `5xx`, `gateway-error` and `retriable-4xx` are the groups of RETRY_ON_GROUPS; `reset` retries
 * any reset (`wouldRetryFromReset`: connection failures and refused streams too) but not a per-try
 * timeout, which only 5xx and gateway-error retry; the gRPC conditions are the gRPC statuses.
 * Conditions with no classes retry what the model does not answer.
 */
export const ENVOY_CONDITIONS: readonly RetryTerm[] = [
  { term: '5xx', classes: RETRY_ON_GROUPS['5xx'] },
  { term: 'gateway-error', classes: RETRY_ON_GROUPS['gateway-error'] },
  { term: 'reset', classes: ['reset', 'connect-failure', 'refused-stream'] },
  { term: 'connect-failure', classes: ['connect-failure'] },
  { term: 'refused-stream', classes: ['refused-stream'] },
  { term: 'retriable-4xx', classes: RETRY_ON_GROUPS['retriable-4xx'] },
  { term: 'envoy-ratelimited', classes: ['429'], note: 'only a 429 carrying x-envoy-ratelimited (set by Envoy\'s rate limit filter) is retried; the model retries every 429.' },
  { term: 'unavailable', classes: ['unavailable'] },
  { term: 'resource-exhausted', classes: ['resource-exhausted'] },
  { term: 'deadline-exceeded', classes: ['deadline-exceeded'] },
  { term: 'internal', classes: ['internal'] },
  { term: 'cancelled', classes: ['cancelled'] },
  { term: 'retriable-status-codes', classes: [] },
  { term: 'reset-before-request', classes: [], note: 'a reset before the request was sent is not an outcome of the model.' },
  { term: 'retriable-headers', classes: [], note: 'retries decided by response headers are not modelled.' },
  { term: 'http3-post-connect-failure', classes: [], note: 'HTTP/3 connection failures are not modelled.' },
];

/**
 * Linkerd's `retry.linkerd.io/http` words (linkerd/website: linkerd.io/2-edge/reference/retries.md):
 * `5xx` (500-599) and `gateway-error` (502-504), besides status codes and ranges; the model answers
 * 500, 502, 503 and 504 among them.
 */
export const LINKERD_HTTP_TERMS: readonly RetryTerm[] = [
  { term: '5xx', classes: ['500', '502', '503', '504'] },
  { term: 'gateway-error', classes: ['502', '503', '504'] },
  ...HTTP_STATUS_TERMS,
];

/** Linkerd's `retry.linkerd.io/grpc` words: the gRPC statuses it can retry (linkerd.io/2-edge/reference/retries.md). */
export const LINKERD_GRPC_TERMS: readonly RetryTerm[] = [
  { term: 'cancelled', classes: ['cancelled'] },
  { term: 'deadline-exceeded', classes: ['deadline-exceeded'] },
  { term: 'internal', classes: ['internal'] },
  { term: 'resource-exhausted', classes: ['resource-exhausted'] },
  { term: 'unavailable', classes: ['unavailable'] },
];

/**
 * gRPC status names (grpc/grpc:doc/statuscodes.md) and their classes: the statuses retry policies
 * name are classes of their own; INVALID_ARGUMENT and NOT_FOUND are the permanent 400 and 404; the
 * other statuses are never answered by a leaf of the model.
 */
export const GRPC_STATUS_TERMS: readonly RetryTerm[] = [
  { term: 'CANCELLED', classes: ['cancelled'] },
  { term: 'UNKNOWN', classes: ['unknown'] },
  { term: 'INVALID_ARGUMENT', classes: ['400'] },
  { term: 'DEADLINE_EXCEEDED', classes: ['deadline-exceeded'] },
  { term: 'NOT_FOUND', classes: ['404'] },
  { term: 'RESOURCE_EXHAUSTED', classes: ['resource-exhausted'] },
  { term: 'ABORTED', classes: ['aborted'] },
  { term: 'INTERNAL', classes: ['internal'] },
  { term: 'UNAVAILABLE', classes: ['unavailable'] },
];

/** Spring's HTTP exceptions' package, as resilience4j's `retryExceptions` name them. */
const SPRING = 'org.springframework.web.client';

/**
 * resilience4j `retryExceptions` names (fully qualified, as exported) and their classes, matched on
 * the simple name: Spring's RestTemplate exceptions name the HTTP status
 * (spring-framework: HttpServerErrorException.java, HttpClientErrorException.java; the generic
 * HttpServerErrorException covers every 5xx); java.io.IOException covers connection failures,
 * resets (SocketException) and read timeouts (SocketTimeoutException); TimeoutException is the
 * per-attempt timeout.
 */
export const RESILIENCE4J_EXCEPTIONS: readonly RetryTerm[] = [
  { term: `${SPRING}.HttpServerErrorException`, classes: ['500', '502', '503', '504'] },
  { term: 'java.io.IOException', classes: ['connect-failure', 'reset', 'timeout'] },
  { term: `${SPRING}.HttpClientErrorException`, classes: ['400', '404', '429', 'conflict'] },
  { term: `${SPRING}.HttpServerErrorException$InternalServerError`, classes: ['500'] },
  { term: `${SPRING}.HttpServerErrorException$BadGateway`, classes: ['502'] },
  { term: `${SPRING}.HttpServerErrorException$ServiceUnavailable`, classes: ['503'] },
  { term: `${SPRING}.HttpServerErrorException$GatewayTimeout`, classes: ['504'] },
  { term: `${SPRING}.HttpClientErrorException$TooManyRequests`, classes: ['429'] },
  { term: `${SPRING}.HttpClientErrorException$NotFound`, classes: ['404'] },
  { term: `${SPRING}.HttpClientErrorException$BadRequest`, classes: ['400'] },
  { term: `${SPRING}.HttpClientErrorException$Conflict`, classes: ['conflict'] },
  { term: 'java.net.ConnectException', classes: ['connect-failure'] },
  { term: 'java.net.SocketException', classes: ['reset', 'connect-failure'] },
  { term: 'java.net.SocketTimeoutException', classes: ['timeout'] },
  { term: 'java.util.concurrent.TimeoutException', classes: ['timeout'] },
];

/** The simple name of an exception (after the last `.`; a nested class keeps its `Outer$`). */
function simpleName(name: string): string {
  return name.split('.').pop() ?? name;
}

/**
 * The classes of an exception name: the entry of {@link RESILIENCE4J_EXCEPTIONS} with the same
 * simple name (`InternalServerError` alone matches `HttpServerErrorException$InternalServerError`;
 * WebClient's `WebClientResponseException` and `ResourceAccessException` read as their RestTemplate
 * counterparts); undefined when the name says no failure the model knows.
 */
export function exceptionClasses(name: string): readonly RetryOnClass[] | undefined {
  const simple = simpleName(name.trim());
  const alias: Record<string, string> = {
    WebClientResponseException: 'HttpServerErrorException',
    ServerErrorException: 'HttpServerErrorException',
    ResourceAccessException: 'IOException',
    WebClientRequestException: 'IOException',
    UncheckedIOException: 'IOException',
  };
  const wanted = alias[simple] ?? simple;
  const found = RESILIENCE4J_EXCEPTIONS.find((e) => {
    const s = simpleName(e.term);
    return s === wanted || s.split('$').pop() === wanted;
  });
  return found?.classes;
}

/**
 * How to say a set of classes with a format's words: the fewest words whose classes are all in the
 * set (a word never adds a class the set lacks), the widest first, in table order among equals;
 * `unsaid` lists the classes no word could say (the export's warning names them).
 */
export function sayClasses(classes: readonly RetryOnClass[], terms: readonly RetryTerm[]): { terms: string[]; unsaid: RetryOnClass[] } {
  const wanted = new Set(classes);
  const covered = new Set<RetryOnClass>();
  const chosen: string[] = [];
  const usable = terms.filter((t) => t.classes.length > 0 && t.note === undefined && t.classes.every((c) => wanted.has(c)));
  const order = [...usable].sort((a, b) => b.classes.length - a.classes.length);
  for (const t of order) {
    if (t.classes.every((c) => covered.has(c))) continue;
    chosen.push(t.term);
    t.classes.forEach((c) => covered.add(c));
  }
  return { terms: chosen, unsaid: classes.filter((c) => !covered.has(c)) };
}

/** The classes of a list of words of a table, each once; words not in the table go to `unknown`. */
export function classesOfTerms(words: readonly string[], terms: readonly RetryTerm[], unknown: string[] = [], notes: string[] = []): RetryOnClass[] {
  const out: RetryOnClass[] = [];
  for (const w of words) {
    const t = terms.find((x) => x.term === w);
    if (t === undefined) {
      unknown.push(w);
      continue;
    }
    if (t.note !== undefined) notes.push(`${w}: ${t.note}`);
    for (const c of t.classes) if (!out.includes(c)) out.push(c);
  }
  return out;
}
