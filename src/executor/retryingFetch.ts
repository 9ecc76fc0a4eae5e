import { isIdempotent } from '../policy/classify.js';
import type { PolicySpec } from '../policy/types.js';
import { classifyError, classifyStatus, type Classification, type Settled } from './classify.js';
import { RetryGiveUpError } from './errors.js';
import { resolveRetryPolicy, type ResolvedRetryPolicy, type RetryPolicyInput } from './resolveRetryPolicy.js';
import { policyMethod, retry, type RetryOptions } from './retry.js';
import { GRPC_PUSHBACK_HEADER, parsePushbackMs, parseRetryAfterMs } from './retryAfter.js';

/** A server hint in ms read from a response (undefined: none). */
export type ResponseHint = (res: Response) => number | undefined;

/** Options of {@link classifyResponse}. */
export interface ClassifyResponseOptions {
  /**
   * Reads another hint than Retry-After (e.g. {@link pushbackHint} for `grpc-retry-pushback-ms`);
   * when it returns undefined, Retry-After is read.
   */
  hint?: ResponseHint;
  /** The local wall clock in epoch ms, to turn a Retry-After HTTP-date into a delay when the response has no `Date` header (default Date.now()). */
  nowEpochMs?: number;
}

/**
 * The outcome of a fetch Response: its status class (see `classifyStatus`: 2xx/3xx success, 408
 * and 504 timeout, 409 conflict, 404/410, 429, other 4xx permanent, 502/503 unavailable, other 5xx
 * server error) and the server's hint: `options.hint` if it gives one, else `Retry-After` as
 * delta-seconds or an HTTP-date (see `parseRetryAfterMs`).
 */
export function classifyResponse(res: Response, options: ClassifyResponseOptions = {}): Classification {
  const outcome = classifyStatus(res.status);
  let ra = options.hint?.(res);
  if (ra === undefined) {
    const raw = res.headers.get('retry-after');
    if (raw !== null) {
      const parsed = parseRetryAfterMs(raw, options.nowEpochMs ?? Date.now(), res.headers.get('date'));
      if (parsed === parsed) ra = parsed;
    }
  }
  return ra === undefined ? { outcome } : { outcome, retryAfterMs: ra };
}

/**
 * A hint reader for gRPC-style pushback headers (grpc/proposal:A6-client-retries.md, "Pushback"):
 * `grpc-retry-pushback-ms: n` means retry in n ms, a negative or unparseable value means do not
 * retry (-1). Use with `retryAfter: 'pushback'` (the `grpc` preset).
 */
export function pushbackHint(header: string = GRPC_PUSHBACK_HEADER): ResponseHint {
  return (res) => {
    const v = res.headers.get(header);
    return v === null ? undefined : parsePushbackMs(v);
  };
}

/** Options of {@link retryingFetch}: those of `retry` (but the method comes from the request), plus: */
export interface RetryingFetchOptions extends Omit<RetryOptions<Response>, 'method' | 'idempotent'> {
  /**
   * Makes a non-idempotent request (POST, PATCH) safe to replay: sent as an `Idempotency-Key`
   * header (unless the request already has one) on every attempt, so the server can tell replays
   * apart (IETF draft "The Idempotency-Key HTTP Header Field").
   */
  idempotencyKey?: string;
  /** Declares the request idempotent (true) or not (false) whatever its method. */
  idempotent?: boolean;
  /** Reads a server hint other than Retry-After (see {@link classifyResponse}). */
  hint?: ResponseHint;
  /** Sends each attempt's time budget (`remainingMs`, whole ms) in this header, when it has one. */
  deadlineHeader?: string;
  /** The fetch to call (default the global fetch). */
  fetch?: typeof globalThis.fetch;
}

/**
 * fetch under a retry policy (see `retry` for the decisions). Each attempt gets an AbortSignal that
 * fires at its timeout (and when `init.signal` or `options.signal` fires).
 *
 * Non-idempotent methods (POST, PATCH) are never replayed after an unknown outcome (a timeout, a
 * dropped connection) or a server error unless the request is declared idempotent
 * (`idempotencyKey`, or `idempotent: true`), whatever the policy's `idempotency` rule says: a
 * fetch helper cannot know that the server deduplicates. A 429 (refused before any processing)
 * and a 409 conflict are retried for every method, as the policy's `retryOn` allows.
 *
 * Resolves with the Response of the successful attempt; when the call gives up after receiving an
 * answer it resolves with that last Response (as fetch does, an HTTP error is not an exception:
 * check `res.ok`; `onGiveUp` says why), the bodies of the answers before it being cancelled; it
 * rejects with a RetryGiveUpError when no answer came (timeouts, network errors, refusals before
 * any call) and with a RetryAbortedError (name `AbortError`) when the caller aborts. The body
 * must be replayable (a string, Buffer, Blob, FormData or URLSearchParams), not a stream.
 */
export async function retryingFetch(
  input: string | URL | Request,
  init: RequestInit = {},
  policy: RetryPolicyInput | PolicySpec | ResolvedRetryPolicy,
  options: RetryingFetchOptions = {},
): Promise<Response> {
  const rp = resolveRetryPolicy(policy);
  const { idempotencyKey, idempotent, hint, deadlineHeader, fetch: fetchOption, ...rest } = options;
  const doFetch = fetchOption ?? globalThis.fetch;
  const method = init.method ?? (input instanceof Request ? input.method : 'GET');
  if (rp.compiled.maxAttempts > 1 && typeof ReadableStream !== 'undefined' && init.body instanceof ReadableStream) {
    throw new TypeError('init.body is a stream, which cannot be sent twice; pass a string, Buffer, Blob, FormData or URLSearchParams');
  }
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  if (idempotencyKey !== undefined && !headers.has('idempotency-key')) headers.set('idempotency-key', idempotencyKey);
  const safeByMethod = isIdempotent(policyMethod(method), 'http');
  const declared = idempotent ?? (idempotencyKey !== undefined ? true : safeByMethod ? undefined : false);
  const signal = options.signal ?? init.signal ?? undefined;
  const classify =
    rest.classify ??
    ((s: Settled<Response>): Classification => (s.kind === 'value' ? classifyResponse(s.value, hint ? { hint } : {}) : classifyError(s.error)));
  try {
    return await retry<Response>(
      ({ signal: attemptSignal, remainingMs }) => {
        let h = headers;
        if (deadlineHeader !== undefined && Number.isFinite(remainingMs)) {
          h = new Headers(headers);
          h.set(deadlineHeader, String(Math.max(0, Math.floor(remainingMs))));
        }
        return doFetch(input instanceof Request ? input.clone() : input, { ...init, method, headers: h, signal: attemptSignal });
      },
      rp,
      {
        ...rest,
        classify,
        method,
        ...(declared !== undefined ? { idempotent: declared } : {}),
        ...(signal ? { signal } : {}),
      },
    );
  } catch (e) {
    if (e instanceof RetryGiveUpError && e.last?.kind === 'value') return e.last.value as Response;
    throw e;
  }
}
