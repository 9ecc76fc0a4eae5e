import { Outcome, OUTCOME_NAMES } from './outcome.js';
import type { IdempotencyRule, Method, RetryOnClass } from './types.js';

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
};

/** The retryable classes, in a stable order (for messages and schemas; not Object.keys, which puts numeric keys first). */
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
] as const satisfies readonly RetryOnClass[];

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

/**
 * Step 3 of the retry decision (README.md, "Concepts"): may this outcome be retried at all?
 * - "overloaded; don't retry" (Google SRE book ch. 21) never is;
 * - timeouts (an unknown outcome: the work may have happened) and 5xx need an idempotent operation;
 * - 429 (refused before any processing), write conflicts and local refusals are safe for every
 *   method;
 * - each class must also be listed in the policy's `retryOn` mask (400/404 are not by default).
 */
export function isRetryable(outcome: number, idempotent: boolean, mask: number): boolean {
  switch (outcome) {
    case Outcome.TIMEOUT:
    case Outcome.DEADLINE_EXCEEDED:
      return idempotent && (mask & RetryOnBit.timeout) !== 0;
    case Outcome.S500:
      return idempotent && (mask & RetryOnBit['500']) !== 0;
    case Outcome.S503:
      return idempotent && (mask & RetryOnBit['503']) !== 0;
    case Outcome.S429:
      return (mask & RetryOnBit['429']) !== 0;
    case Outcome.S400:
      return (mask & RetryOnBit['400']) !== 0;
    case Outcome.S404:
      return (mask & RetryOnBit['404']) !== 0;
    case Outcome.CONFLICT:
      return (mask & RetryOnBit.conflict) !== 0;
    case Outcome.LOCAL_THROTTLED:
      return (mask & RetryOnBit.throttled) !== 0;
    case Outcome.LOCAL_CIRCUIT_OPEN:
      return (mask & RetryOnBit['circuit-open']) !== 0;
    case Outcome.LOCAL_BUDGET_EXHAUSTED:
      return (mask & RetryOnBit['budget-exhausted']) !== 0;
    case Outcome.LOCAL_BULKHEAD_FULL:
      return (mask & RetryOnBit['bulkhead-full']) !== 0;
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
 * error (400, 404), a 500 or a write conflict were processed; a 429, a 503, "overloaded", a timeout
 * (no answer in time) and local refusals from below were not.
 */
export function acceptedByBackend(outcome: number): boolean {
  switch (outcome) {
    case Outcome.SUCCESS:
    case Outcome.S400:
    case Outcome.S404:
    case Outcome.S500:
    case Outcome.CONFLICT:
      return true;
    default:
      return false;
  }
}

/** A throttling answer (429), for the AWS SDKs' throttling backoff base and retry cost. */
export function isThrottlingOutcome(outcome: number): boolean {
  return outcome === Outcome.S429;
}
