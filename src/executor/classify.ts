import { Outcome, OUTCOME_NAMES, type OutcomeName as PolicyOutcomeName } from '../policy/outcome.js';
import { parseRetryAfterMs } from './retryAfter.js';

/**
 * The outcome of one attempt, in the words `retrystorm trace` prints: one of the names of
 * src/policy/outcome.ts (`OUTCOME_NAMES`, where each is explained).
 */
export type OutcomeName = PolicyOutcomeName;

/** How an attempt settled: the value `fn` returned, or what it threw. */
export type Settled<T> = { kind: 'value'; value: T } | { kind: 'error'; error: unknown };

/**
 * What a classifier says about an attempt: its outcome (`success` is accepted for `200`) and the
 * server's hint, if any: `retryAfterMs` >= 0 is a Retry-After (or gRPC pushback) counted from the
 * moment the answer arrived; a negative value under `retryAfter: 'pushback'` means "do not retry".
 */
export interface Classification {
  outcome: OutcomeName | 'success';
  retryAfterMs?: number;
}

/** The Outcome code of a name (src/policy/outcome.ts); `success` is `200`. */
export function outcomeCode(name: OutcomeName | 'success'): number {
  if (name === 'success') return Outcome.SUCCESS;
  const code = OUTCOME_NAMES.indexOf(name);
  if (code < 0) throw new TypeError(`unknown outcome ${JSON.stringify(name)} (expected one of success, ${OUTCOME_NAMES.join(', ')})`);
  return code;
}

/** The name of an Outcome code. */
export function outcomeName(code: number): OutcomeName {
  return (OUTCOME_NAMES[code] ?? '500') as OutcomeName;
}

/**
 * The outcome of an HTTP status (RFC 9110 section 15):
 * - 1xx, 2xx, 3xx: `200` (a redirect that was not followed is an answer, not a failure);
 * - 408 Request Timeout, 504 Gateway Timeout: `timeout` (unknown outcome: the work may have
 *   happened, so only idempotent requests are replayed);
 * - 409 Conflict: `conflict` (the write did not happen; retryable for every method);
 * - 404 and 410 Gone: `404`; 429: `429`; every other 4xx: `400` (permanent);
 * - 502 Bad Gateway and 503: `503` (unavailable); every other 5xx: `500`.
 */
export function classifyStatus(status: number): OutcomeName {
  if (status < 400) return '200';
  switch (status) {
    case 408:
    case 504:
      return 'timeout';
    case 409:
      return 'conflict';
    case 404:
    case 410:
      return '404';
    case 429:
      return '429';
    case 502:
    case 503:
      return '503';
  }
  return status < 500 ? '400' : '500';
}

/** Error codes of sockets and of Node's fetch (undici) where the request may have reached the server. */
const UNKNOWN_OUTCOME_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_ABORTED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Error codes where the request surely never reached a server (no connection was made). */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETDOWN']);

function field(o: unknown, key: string): unknown {
  return o !== null && (typeof o === 'object' || typeof o === 'function') ? (o as Record<string, unknown>)[key] : undefined;
}

/** A header of an error's `headers`: a Headers-like `get`, or a plain object's field (lower-case or canonical name). */
function headerValue(headers: unknown, lower: string, canonical: string): unknown {
  const get = field(headers, 'get');
  if (typeof get === 'function') return (get as (n: string) => unknown).call(headers, lower);
  return field(headers, lower) ?? field(headers, canonical);
}

/** A Response-like value: a numeric `status` and `headers.get` (fetch's Response, or anything shaped like it). */
export function isResponseLike(v: unknown): v is { status: number; headers: { get(name: string): string | null } } {
  const headers = field(v, 'headers');
  return typeof field(v, 'status') === 'number' && typeof field(headers, 'get') === 'function';
}

const OUTCOME_NAME_SET = new Set<string>([...OUTCOME_NAMES, 'success']);

/**
 * The outcome of an error an attempt threw:
 * - an error that carries an `outcome` name (a {@link RetryGiveUpError} of a retrying layer below:
 *   what that layer returned upward, as in the simulator) -> that outcome;
 * - `AbortError` / `TimeoutError` (an aborted or timed-out call) -> `timeout`;
 * - a numeric `status` or `statusCode` (HTTP client errors) -> {@link classifyStatus}, with its
 *   `retryAfterMs`, or a `Retry-After` among its `headers`, as the hint;
 * - socket and fetch codes (`code`, or the `code` of its `cause`, as Node's fetch wraps them):
 *   resets, closed sockets and timeouts (`ECONNRESET`, `UND_ERR_SOCKET`, `ETIMEDOUT`...) -> `timeout`
 *   (a dropped connection is an unknown outcome: the request may have been processed); refused
 *   connections and failed lookups (`ECONNREFUSED`, `ENOTFOUND`...) -> `503`;
 * - anything else -> `500` (a failure of the call, retried only for idempotent operations and
 *   only while the policy lists `500`).
 */
export function classifyError(error: unknown): Classification {
  const named = field(error, 'outcome');
  if (typeof named === 'string' && OUTCOME_NAME_SET.has(named)) return { outcome: named as OutcomeName };
  const name = field(error, 'name');
  if (name === 'AbortError' || name === 'TimeoutError') return { outcome: 'timeout' };
  const status = field(error, 'status') ?? field(error, 'statusCode');
  if (typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599) {
    const hint = field(error, 'retryAfterMs');
    if (typeof hint === 'number') return { outcome: classifyStatus(status), retryAfterMs: hint };
    const headers = field(error, 'headers');
    const raw = headerValue(headers, 'retry-after', 'Retry-After');
    const date = headerValue(headers, 'date', 'Date');
    const ra = typeof raw === 'string' ? parseRetryAfterMs(raw, Date.now(), typeof date === 'string' ? date : null) : NaN;
    return ra === ra ? { outcome: classifyStatus(status), retryAfterMs: ra } : { outcome: classifyStatus(status) };
  }
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; e = field(e, 'cause'), depth++) {
    const code = field(e, 'code');
    if (typeof code !== 'string') continue;
    if (UNKNOWN_OUTCOME_CODES.has(code)) return { outcome: 'timeout' };
    if (NOT_SENT_CODES.has(code)) return { outcome: '503' };
  }
  return { outcome: '500' };
}

/**
 * The default classifier of `retry`: a returned Response-like value is classified by its status
 * and `Retry-After` header (see `classifyResponse`); any other returned value is a success;
 * a thrown error goes to {@link classifyError}.
 */
export function classifySettled(settled: Settled<unknown>): Classification {
  if (settled.kind === 'error') return classifyError(settled.error);
  const v = settled.value;
  if (!isResponseLike(v)) return { outcome: '200' };
  const raw = v.headers.get('retry-after');
  const ra = raw === null ? NaN : parseRetryAfterMs(raw, Date.now(), v.headers.get('date'));
  return ra === ra ? { outcome: classifyStatus(v.status), retryAfterMs: ra } : { outcome: classifyStatus(v.status) };
}
