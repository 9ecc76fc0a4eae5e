import { Outcome, OUTCOME_NAMES, type OutcomeName } from './outcome.js';
import type { IdempotencyRule, Method } from './types.js';

/** Bit of each retryable class in a policy's `retryOn` mask. */
export const RetryOnBit: Record<RetryOnClass, number> = {
  timeout: 1 << 0,
  '500': 1 << 1,
  '503': 1 << 2,
  '429': 1 << 3,
  '400': 1 << 4,
  '404': 1 << 5,
  conflict: 1 << 6,
  throttled: 1 << 7,
  'circuit-open': 1 << 8,
  'budget-exhausted': 1 << 9,
  'bulkhead-full': 1 << 10,
  '502': 1 << 11,
  '504': 1 << 12,
  reset: 1 << 13,
  'connect-failure': 1 << 14,
  'refused-stream': 1 << 15,
  cancelled: 1 << 16,
  unavailable: 1 << 17,
  'resource-exhausted': 1 << 18,
  'deadline-exceeded': 1 << 19,
  aborted: 1 << 20,
  internal: 1 << 21,
  unknown: 1 << 22,
};

/**
 * The classes beyond the first HTTP statuses and local refusals, in report order: gateway statuses,
 * connection-level failures and the gRPC statuses (docs/concepts.md, "Outcomes"). Written once: the retryable
 * classes list them, and `check` reports on each as a way a leaf can fail.
 */
export const WIDER_CLASSES = [
  '502',
  '504',
  'reset',
  'connect-failure',
  'refused-stream',
  'cancelled',
  'unavailable',
  'resource-exhausted',
  'deadline-exceeded',
  'aborted',
  'internal',
  'unknown',
] as const satisfies readonly OutcomeName[];

/**
 * The retryable classes, in a stable order (for messages and schemas; not Object.keys, which puts
 * numeric keys first): the one list of them, each an outcome name ({@link OUTCOME_NAMES}).
 */
export const RETRY_ON_CLASSES = [
  'timeout',
  '500',
  '503',
  '429',
  '400',
  '404',
  'conflict',
  'throttled',
  'circuit-open',
  'budget-exhausted',
  'bulkhead-full',
  ...WIDER_CLASSES,
] as const satisfies readonly OutcomeName[];

/**
 * Outcome classes a policy can list as retryable (docs/concepts.md, "Outcomes"; each class's outcomes and
 * idempotency rule are {@link RETRY_ON_CLASS_INFO}): the per-attempt `timeout`, HTTP statuses,
 * `conflict` (409), connection-level failures, the gRPC statuses retry policies name, and this
 * model's local refusals.
 */
export type RetryOnClass = (typeof RETRY_ON_CLASSES)[number];

/** The outcomes no policy can list as retryable: a success, and a server's "overloaded; don't retry" (never retried). */
export const NEVER_RETRIED = ['200', 'overloaded'] as const satisfies readonly OutcomeName[];

/** The outcome names that are neither a retryable class nor one of {@link NEVER_RETRIED} (none). */
type Unplaced = Exclude<OutcomeName, RetryOnClass | (typeof NEVER_RETRIED)[number]>;

/**
 * Every outcome name is a retryable class or one of {@link NEVER_RETRIED}: a new outcome that is
 * neither does not compile here (its name is this constant's type), so it is placed on purpose.
 */
export const EVERY_OUTCOME_PLACED: [Unplaced] extends [never] ? true : Unplaced = true;

/**
 * When a class may be retried: `idempotent` only for an operation that may be replayed (the request
 * may have been processed: an unknown outcome or a server error), `any` for every method (the
 * request was refused before any processing, never reached the server, or conflicted).
 */
export type ClassIdempotency = 'idempotent' | 'any';

/** What each retryable class stands for and its idempotency rule (docs/concepts.md, "Outcomes"). */
export const RETRY_ON_CLASS_INFO: Record<RetryOnClass, { idempotency: ClassIdempotency; label: string }> = {
  timeout: { idempotency: 'idempotent', label: 'no answer before the per-attempt timeout' },
  '500': { idempotency: 'idempotent', label: 'HTTP 500 server error' },
  '502': { idempotency: 'idempotent', label: 'HTTP 502 bad gateway' },
  '503': { idempotency: 'idempotent', label: 'HTTP 503 unavailable / overloaded' },
  '504': { idempotency: 'idempotent', label: 'HTTP 504 gateway timeout' },
  '429': { idempotency: 'any', label: 'HTTP 429 throttled (refused before processing)' },
  '400': { idempotency: 'any', label: 'HTTP 400 bad request (permanent)' },
  '404': { idempotency: 'any', label: 'HTTP 404 not found (permanent)' },
  conflict: { idempotency: 'any', label: 'HTTP 409 write conflict' },
  reset: { idempotency: 'idempotent', label: 'connection or stream reset after the request was sent' },
  'connect-failure': { idempotency: 'any', label: 'connection failure (the request never reached the server)' },
  'refused-stream': { idempotency: 'any', label: 'HTTP/2 REFUSED_STREAM (not processed)' },
  cancelled: { idempotency: 'idempotent', label: 'gRPC CANCELLED' },
  unavailable: { idempotency: 'idempotent', label: 'gRPC UNAVAILABLE' },
  'resource-exhausted': { idempotency: 'any', label: 'gRPC RESOURCE_EXHAUSTED (refused: quota or rate limit)' },
  'deadline-exceeded': { idempotency: 'idempotent', label: 'gRPC DEADLINE_EXCEEDED from below' },
  aborted: { idempotency: 'any', label: 'gRPC ABORTED (concurrency conflict)' },
  internal: { idempotency: 'idempotent', label: 'gRPC INTERNAL' },
  unknown: { idempotency: 'idempotent', label: 'gRPC UNKNOWN' },
  throttled: { idempotency: 'any', label: 'refused by a throttle below, without a call' },
  'circuit-open': { idempotency: 'any', label: 'refused by an open breaker below, without a call' },
  'budget-exhausted': { idempotency: 'any', label: 'refused by a budget below, without a call' },
  'bulkhead-full': { idempotency: 'any', label: 'refused by a full bulkhead, without a call' },
};

/**
 * The classes a group name stands for, in the words of Envoy's `retry_on`
 * (envoyproxy/envoy@040783c8c0b423531a51d33f2d4765ca3de0d96e,
 * docs/root/configuration/http/http_filters/router_filter.rst, "x-envoy-retry-on"; and
 * source/common/router/retry_state_impl.cc@e78906c5cbf579e412a7ca76ecabeee0e11d977f,
 * `wouldRetryFromReset`):
 * - `5xx`: "any 5xx response code, or does not respond at all (disconnect/reset/read timeout).
 *   (Includes connect-failure and refused-stream)"; a per-try timeout is retried under 5xx and
 *   gateway-error only (retry_state_impl.cc);
 * - `gateway-error`: "similar to the 5xx policy but will only retry requests that result in a 502,
 *   503, or 504"; the source counts any reset as a gateway error too ("we count an upstream reset as
 *   a 5xx (since it will result in one)");
 * - `retriable-4xx`: "Currently, the only response code in this category is 409".
 * Istio's `retryOn` and Envoy Gateway's triggers are these conditions.
 */
export const RETRY_ON_GROUPS = {
  '5xx': ['500', '502', '503', '504', 'timeout', 'reset', 'connect-failure', 'refused-stream'],
  'gateway-error': ['502', '503', '504', 'timeout', 'reset', 'connect-failure', 'refused-stream'],
  'retriable-4xx': ['conflict'],
} as const satisfies Record<string, readonly RetryOnClass[]>;

/** A group name of {@link RETRY_ON_GROUPS}. */
export type RetryOnGroup = keyof typeof RETRY_ON_GROUPS;

/** What a policy's `retryOn` may list: a class of {@link RETRY_ON_CLASSES} or a group of {@link RETRY_ON_GROUPS} (read as its classes). */
export const RETRY_ON_NAMES = [...RETRY_ON_CLASSES, '5xx', 'gateway-error', 'retriable-4xx'] as const satisfies ReadonlyArray<RetryOnClass | RetryOnGroup>;

/** The classes of a list of class and group names, each once, in the order first named. */
export function expandRetryOn(names: ReadonlyArray<RetryOnClass | RetryOnGroup>): RetryOnClass[] {
  const out: RetryOnClass[] = [];
  for (const n of names) {
    const members: readonly RetryOnClass[] = n in RETRY_ON_GROUPS ? RETRY_ON_GROUPS[n as RetryOnGroup] : [n as RetryOnClass];
    for (const c of members) if (!out.includes(c)) out.push(c);
  }
  return out;
}

/** Default retryable classes: timeouts, 500, 503, 429 and write conflicts; never 400/404. */
export const DEFAULT_RETRY_ON: readonly RetryOnClass[] = ['timeout', '500', '503', '429', 'conflict'];

/** The mask of a list of retryable classes. */
export function retryOnMask(classes: readonly RetryOnClass[]): number {
  let m = 0;
  for (const c of classes) m |= RetryOnBit[c];
  return m;
}

/** The integer code of each request method, for the hot path (a frame's method column). */
export const METHOD_CODES = { GET: 0, HEAD: 1, PUT: 2, DELETE: 3, POST: 4 } as const satisfies Record<Method, number>;

/** The methods in the order of their codes. */
const METHODS_BY_CODE = Object.keys(METHOD_CODES) as Method[];

/** How many method codes there are: the stride of an {@link idempotencyInto} table's rows. */
export const METHOD_COUNT = METHODS_BY_CODE.length;

/**
 * {@link isIdempotent} of every method under `rule`, written into `table` as the row that starts at
 * `offset`: entry `offset + METHOD_CODES[method]` is 1 where the method is idempotent, else 0.
 */
export function idempotencyInto(table: Uint8Array, offset: number, rule: IdempotencyRule): void {
  METHODS_BY_CODE.forEach((method, code) => {
    table[offset + code] = isIdempotent(method, rule) ? 1 : 0;
  });
}

/**
 * Whether an operation may be replayed after an unknown outcome or a server error. By HTTP
 * semantics (RFC 9110 section 9.2.2) GET, HEAD, PUT and DELETE are idempotent and POST is not;
 * `always` and `never` override the method.
 */
export function isIdempotent(method: Method, rule: IdempotencyRule): boolean {
  if (rule === 'always') return true;
  if (rule === 'never') return false;
  return method !== 'POST';
}

/** Whether a class's idempotency rule lets `idempotent` (or not) operations retry it. */
function allowed(cls: RetryOnClass, idempotent: boolean, mask: number): boolean {
  return (mask & RetryOnBit[cls]) !== 0 && (idempotent || RETRY_ON_CLASS_INFO[cls].idempotency === 'any');
}

/**
 * Step 3 of the retry decision (docs/concepts.md, "Concepts"): may this outcome be retried at all?
 * - "overloaded; don't retry" (Google SRE book ch. 21) never is;
 * - each other outcome has one class, and the class must be listed in the policy's `retryOn` mask
 *   (400/404 are not by default);
 * - the class's idempotency rule ({@link RETRY_ON_CLASS_INFO}) decides for non-idempotent operations:
 *   timeouts, resets and server errors (5xx, gRPC UNAVAILABLE, INTERNAL, UNKNOWN, CANCELLED: the
 *   work may have happened) need an idempotent operation; 429, RESOURCE_EXHAUSTED (refused before
 *   any processing), connection failures and REFUSED_STREAM (never processed), write conflicts,
 *   ABORTED and local refusals are safe for every method;
 * - a lower layer's DEADLINE_EXCEEDED is retried under `timeout` (as a per-attempt timeout is) or
 *   `deadline-exceeded`.
 */
export function isRetryable(outcome: number, idempotent: boolean, mask: number): boolean {
  switch (outcome) {
    case Outcome.TIMEOUT:
      return allowed('timeout', idempotent, mask);
    case Outcome.DEADLINE_EXCEEDED:
      return allowed('timeout', idempotent, mask) || allowed('deadline-exceeded', idempotent, mask);
    case Outcome.S500:
      return allowed('500', idempotent, mask);
    case Outcome.S503:
      return allowed('503', idempotent, mask);
    case Outcome.S429:
      return allowed('429', idempotent, mask);
    case Outcome.S400:
      return allowed('400', idempotent, mask);
    case Outcome.S404:
      return allowed('404', idempotent, mask);
    case Outcome.CONFLICT:
      return allowed('conflict', idempotent, mask);
    case Outcome.LOCAL_THROTTLED:
      return allowed('throttled', idempotent, mask);
    case Outcome.LOCAL_CIRCUIT_OPEN:
      return allowed('circuit-open', idempotent, mask);
    case Outcome.LOCAL_BUDGET_EXHAUSTED:
      return allowed('budget-exhausted', idempotent, mask);
    case Outcome.LOCAL_BULKHEAD_FULL:
      return allowed('bulkhead-full', idempotent, mask);
    case Outcome.S502:
      return allowed('502', idempotent, mask);
    case Outcome.S504:
      return allowed('504', idempotent, mask);
    case Outcome.RESET:
      return allowed('reset', idempotent, mask);
    case Outcome.CONNECT_FAILURE:
      return allowed('connect-failure', idempotent, mask);
    case Outcome.REFUSED_STREAM:
      return allowed('refused-stream', idempotent, mask);
    case Outcome.CANCELLED:
      return allowed('cancelled', idempotent, mask);
    case Outcome.UNAVAILABLE:
      return allowed('unavailable', idempotent, mask);
    case Outcome.RESOURCE_EXHAUSTED:
      return allowed('resource-exhausted', idempotent, mask);
    case Outcome.ABORTED:
      return allowed('aborted', idempotent, mask);
    case Outcome.INTERNAL:
      return allowed('internal', idempotent, mask);
    case Outcome.UNKNOWN:
      return allowed('unknown', idempotent, mask);
    default:
      return false;
  }
}

/** Outcome codes a retryability table covers (every code of `Outcome`). */
const OUTCOME_COUNT = OUTCOME_NAMES.length;

/**
 * {@link isRetryable} for every outcome code and idempotency under `mask`, as a table for the hot
 * path: entry `outcome * 2 + (idempotent ? 1 : 0)` is 1 where `isRetryable` is true, else 0 (read it
 * with {@link retryableIn}). Built by calling `isRetryable` itself, so the two always agree.
 */
export function retryableTable(mask: number): Uint8Array {
  const table = new Uint8Array(OUTCOME_COUNT * 2);
  for (let outcome = 0; outcome < OUTCOME_COUNT; outcome++) {
    table[outcome * 2] = isRetryable(outcome, false, mask) ? 1 : 0;
    table[outcome * 2 + 1] = isRetryable(outcome, true, mask) ? 1 : 0;
  }
  return table;
}

/**
 * `isRetryable(outcome, idempotent, mask)` read from `retryableTable(mask)`: false for a code
 * outside the table (negative, fractional or unknown), as `isRetryable` answers.
 */
export function retryableIn(table: Uint8Array, outcome: number, idempotent: boolean): boolean {
  return table[outcome * 2 + (idempotent ? 1 : 0)] === 1 && (outcome | 0) === outcome;
}

/**
 * Whether the backend accepted (processed) an attempt, for client-side adaptive throttling (Google
 * SRE book ch. 21: "accepts: the number of requests accepted by the backend"): a success, a client
 * error (400, 404), a 500 or a write conflict were processed, and so were gRPC INTERNAL, UNKNOWN and
 * ABORTED; a 429, a 502, a 503, a 504, "overloaded", a timeout (no answer in time), a reset, a
 * connection failure, a refused stream, CANCELLED, UNAVAILABLE, RESOURCE_EXHAUSTED and local
 * refusals from below were not.
 */
export function acceptedByBackend(outcome: number): boolean {
  switch (outcome) {
    case Outcome.SUCCESS:
    case Outcome.S400:
    case Outcome.S404:
    case Outcome.S500:
    case Outcome.CONFLICT:
    case Outcome.INTERNAL:
    case Outcome.UNKNOWN:
    case Outcome.ABORTED:
      return true;
    default:
      return false;
  }
}

/** A throttling answer (429), for the AWS SDKs' throttling backoff base and retry cost. */
export function isThrottlingOutcome(outcome: number): boolean {
  return outcome === Outcome.S429;
}
