/**
 * Server hints about when to retry: HTTP `Retry-After` (RFC 9110 section 10.2.3) and gRPC's
 * `grpc-retry-pushback-ms` (grpc/proposal:A6-client-retries.md, "Pushback").
 */

const DELAY_SECONDS = /^\d+$/;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY_NAME = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const DAY_NAME_L = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = `(${MONTHS.join('|')})`;
const TIME_OF_DAY = '(\\d{2}):(\\d{2}):(\\d{2})';

/** RFC 9110 section 5.6.7 `IMF-fixdate`: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = new RegExp(`^${DAY_NAME}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME_OF_DAY} GMT$`);
/** RFC 9110 section 5.6.7 `rfc850-date` (obsolete): `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC850_DATE = new RegExp(`^${DAY_NAME_L}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME_OF_DAY} GMT$`);
/** RFC 9110 section 5.6.7 `asctime-date` (obsolete, and in UTC): `Sun Nov  6 08:49:37 1994`. */
const ASCTIME_DATE = new RegExp(`^${DAY_NAME} ${MONTH} (\\d{2}| \\d) ${TIME_OF_DAY} (\\d{4})$`);

/** Leading and trailing optional whitespace of a field value (RFC 9110 section 5.5: SP and HTAB only). */
function trimOws(text: string): string {
  return text.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** Days in a month (0-based) of the proleptic Gregorian calendar. */
function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month] as number;
}

/** Epoch ms of a calendar date and time in UTC, or NaN when a field is out of its range. */
function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  if (day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 60) return NaN;
  // Date.UTC maps years 0-99 to 1900-1999: the year is set on its own, on a valid day (a leap
  // second, 60, is added afterwards so that it cannot roll the date over first).
  const d = new Date(Date.UTC(2000, month, day, hour, minute, Math.min(second, 59)));
  d.setUTCFullYear(year, month, day);
  return d.getTime() + (second === 60 ? 1000 : 0);
}

/**
 * An `HTTP-date` (RFC 9110 section 5.6.7) as epoch ms, or NaN when `text` is not one. Recipients
 * must accept all three forms: `IMF-fixdate` (`Sun, 06 Nov 1994 08:49:37 GMT`), and the obsolete
 * `rfc850-date` (`Sunday, 06-Nov-94 08:49:37 GMT`) and `asctime-date` (`Sun Nov  6 08:49:37 1994`,
 * read as UTC). Names are case-sensitive; the day and time must exist (February 29 only in a leap
 * year; second 60, a leap second, is the next minute's first); the day name is not checked against
 * the date. A two-digit rfc850 year is in the current century of `nowEpochMs`, unless that is more
 * than 50 years ahead of it, in which case it is the most recent past year with those two digits
 * (section 5.6.7). Nothing else is read as a date (no `Date.parse`, which reads other formats and
 * an asctime date in local time).
 */
export function parseHttpDate(text: string, nowEpochMs: number = Date.now()): number {
  const v = trimOws(text);
  let m = IMF_FIXDATE.exec(v);
  if (m) return utcMs(Number(m[3]), MONTHS.indexOf(m[2] as string), Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  m = RFC850_DATE.exec(v);
  if (m) {
    const [month, day, yy] = [MONTHS.indexOf(m[2] as string), Number(m[1]), Number(m[3])];
    const now = new Date(nowEpochMs);
    const fiftyYearsAhead = new Date(nowEpochMs);
    fiftyYearsAhead.setUTCFullYear(now.getUTCFullYear() + 50);
    const century = now.getUTCFullYear() - (now.getUTCFullYear() % 100);
    const at = utcMs(century + yy, month, day, Number(m[4]), Number(m[5]), Number(m[6]));
    return at > fiftyYearsAhead.getTime() ? utcMs(century - 100 + yy, month, day, Number(m[4]), Number(m[5]), Number(m[6])) : at;
  }
  m = ASCTIME_DATE.exec(v);
  if (m) return utcMs(Number(m[6]), MONTHS.indexOf(m[1] as string), Number(trimOws(m[2] as string)), Number(m[3]), Number(m[4]), Number(m[5]));
  return NaN;
}

/**
 * A `Retry-After` value in ms, counted from the moment the response arrived, or NaN when the value
 * is neither form of RFC 9110 section 10.2.3 (then the response has no hint):
 * - `delay-seconds` (one or more digits): that many seconds;
 * - an `HTTP-date` (see {@link parseHttpDate}): the time until that date. It is measured against
 *   the response's own `Date` header when that is a valid HTTP-date (both from the server's clock,
 *   so clock skew between client and server cancels out), else against `nowEpochMs` (the local
 *   wall clock; the only place the executor reads it, to turn a date into a delay). A date in the
 *   past gives 0.
 */
export function parseRetryAfterMs(value: string, nowEpochMs: number = Date.now(), dateHeader?: string | null): number {
  const v = trimOws(value);
  if (DELAY_SECONDS.test(v)) return Number(v) * 1000;
  const at = parseHttpDate(v, nowEpochMs);
  if (!Number.isFinite(at)) return NaN;
  const ref = dateHeader !== undefined && dateHeader !== null ? parseHttpDate(dateHeader, nowEpochMs) : NaN;
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
