/**
 * Server hints about when to retry: HTTP `Retry-After` (RFC 9110 section 10.2.3) and gRPC's
 * `grpc-retry-pushback-ms` (grpc/proposal:A6-client-retries.md, "Pushback").
 */

const DELAY_SECONDS = /^\d+$/;

/**
 * A `Retry-After` value in ms, counted from the moment the response arrived, or NaN when the value
 * is neither form of RFC 9110 section 10.2.3:
 * - `delay-seconds` (a non-negative integer): that many seconds;
 * - an `HTTP-date`: the time until that date. It is measured against the response's own `Date`
 *   header when one is given (both from the server's clock, so clock skew between client and
 *   server cancels out), else against `nowEpochMs` (the local wall clock; the only place the
 *   executor reads it, to turn a date into a delay). A date in the past gives 0.
 */
export function parseRetryAfterMs(value: string, nowEpochMs: number = Date.now(), dateHeader?: string | null): number {
  const v = value.trim();
  if (DELAY_SECONDS.test(v)) return Number(v) * 1000;
  if (v === '' || !/[a-z]/i.test(v)) return NaN;
  const at = Date.parse(v);
  if (!Number.isFinite(at)) return NaN;
  const ref = dateHeader !== undefined && dateHeader !== null ? Date.parse(dateHeader) : NaN;
  return Math.max(0, at - (Number.isFinite(ref) ? ref : nowEpochMs));
}

/** The gRPC pushback header (gRPC A6). */
export const GRPC_PUSHBACK_HEADER = 'grpc-retry-pushback-ms';

/**
 * A pushback hint in ms from a header value (gRPC A6, "Pushback"): an integer n >= 0 means "retry
 * in n ms"; a negative or unparseable value means "do not retry" (returned as -1). Use it with
 * `retryAfter: 'pushback'`, under which a negative hint refuses the retry (`not-retryable`).
 */
export function parsePushbackMs(value: string): number {
  const v = value.trim();
  if (!/^-?\d+$/.test(v)) return -1;
  const n = Number(v);
  return n < 0 ? -1 : n;
}
