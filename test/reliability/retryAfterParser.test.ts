import { describe, expect, it } from 'vitest';
import { classifyError, classifySettled } from '../../src/executor/classify.js';
import { parseHttpDate, parseRetryAfterMs } from '../../src/executor/retryAfter.js';

/**
 * Retry-After and Date are read by RFC 9110's grammar only (sections 10.2.3 and 5.6.7):
 * delay-seconds, or an HTTP-date in one of its three forms. Anything else is no hint at all.
 */

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0); // Tue, 01 Dec 2026 12:00:00 GMT

describe('HTTP-date (RFC 9110 section 5.6.7)', () => {
  it.each([
    ['IMF-fixdate', 'Sun, 06 Nov 1994 08:49:37 GMT', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['rfc850-date', 'Sunday, 06-Nov-94 08:49:37 GMT', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['asctime-date, one-digit day', 'Sun Nov  6 08:49:37 1994', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['asctime-date, two-digit day', 'Thu Nov 26 08:49:37 1994', Date.UTC(1994, 10, 26, 8, 49, 37)],
    ['asctime-date, a zero-padded day (2DIGIT)', 'Sun Nov 06 08:49:37 1994', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['asctime-date is UTC, whatever the local zone', 'Tue Dec  1 12:00:30 2026', NOW + 30_000],
    ['February 29 of a leap year', 'Mon, 29 Feb 2028 00:00:00 GMT', Date.UTC(2028, 1, 29)],
    ['a leap second is the next minute', 'Wed, 31 Dec 2025 23:59:60 GMT', Date.UTC(2026, 0, 1)],
    ['a year before 100 is that year', 'Mon, 01 Jan 0099 00:00:00 GMT', -59042995200000],
    ['optional whitespace around the value', ' \tSun, 06 Nov 1994 08:49:37 GMT\t ', Date.UTC(1994, 10, 6, 8, 49, 37)],
  ])('%s: %j', (_what, text, epochMs) => {
    expect(parseHttpDate(text, NOW)).toBe(epochMs);
  });

  it.each([
    ['rfc850 year 76 (less than 50 years ahead) is 2076', 'Tuesday, 01-Dec-76 11:59:59 GMT', Date.UTC(2076, 11, 1, 11, 59, 59)],
    ['rfc850 year 76, one second past 50 years ahead, is 1976', 'Tuesday, 01-Dec-76 12:00:01 GMT', Date.UTC(1976, 11, 1, 12, 0, 1)],
    ['rfc850 year 99 is 1999', 'Friday, 31-Dec-99 23:59:59 GMT', Date.UTC(1999, 11, 31, 23, 59, 59)],
    ['rfc850 year 26 is 2026', 'Tuesday, 01-Dec-26 12:00:10 GMT', NOW + 10_000],
    ['rfc850 year 00 is 2000', 'Saturday, 01-Jan-00 00:00:00 GMT', Date.UTC(2000, 0, 1)],
  ])('century rule: %s', (_what, text, epochMs) => {
    expect(parseHttpDate(text, NOW)).toBe(epochMs);
  });

  it.each([
    ['lower-case day name', 'sun, 06 Nov 1994 08:49:37 GMT'],
    ['lower-case month', 'Sun, 06 nov 1994 08:49:37 GMT'],
    ['lower-case zone', 'Sun, 06 Nov 1994 08:49:37 gmt'],
    ['another zone', 'Sun, 06 Nov 1994 08:49:37 UTC'],
    ['a numeric zone', 'Sun, 06 Nov 1994 08:49:37 +0000'],
    ['a one-digit day in IMF-fixdate', 'Sun, 6 Nov 1994 08:49:37 GMT'],
    ['a two-digit year in IMF-fixdate', 'Sun, 06 Nov 94 08:49:37 GMT'],
    ['a long day name in IMF-fixdate', 'Sunday, 06 Nov 1994 08:49:37 GMT'],
    ['a short day name in rfc850-date', 'Sun, 06-Nov-94 08:49:37 GMT'],
    ['a four-digit year in rfc850-date', 'Sunday, 06-Nov-1994 08:49:37 GMT'],
    ['asctime with a one-digit day after one space', 'Sun Nov 6 08:49:37 1994'],
    ['asctime with a zone', 'Sun Nov  6 08:49:37 1994 GMT'],
    ['February 29 of a common year', 'Sun, 29 Feb 2026 00:00:00 GMT'],
    ['April 31', 'Thu, 31 Apr 2026 00:00:00 GMT'],
    ['day 00', 'Sun, 00 Nov 1994 08:49:37 GMT'],
    ['hour 24', 'Sun, 06 Nov 1994 24:00:00 GMT'],
    ['minute 60', 'Sun, 06 Nov 1994 08:60:00 GMT'],
    ['second 61', 'Sun, 06 Nov 1994 08:49:61 GMT'],
    ['two spaces', 'Sun,  06 Nov 1994 08:49:37 GMT'],
    ['ISO 8601', '2026-12-01T12:00:00Z'],
    ['a word and a number', 'x 99999'],
    ['a word and a year', 'abc 2099'],
    ['a letter and a digit', 'a 1'],
    ['empty', ''],
  ])('not an HTTP-date: %s (%j)', (_what, text) => {
    expect(parseHttpDate(text, NOW)).toBeNaN();
  });
});

describe('Retry-After (RFC 9110 section 10.2.3)', () => {
  it.each([
    ['0', 0],
    ['120', 120_000],
    ['007', 7_000],
    ['  3\t', 3_000],
    ['1000000000000', 1e15],
    ['Tue, 01 Dec 2026 12:00:30 GMT', 30_000],
    ['Tuesday, 01-Dec-26 12:00:30 GMT', 30_000],
    ['Tue Dec  1 12:00:30 2026', 30_000],
    ['Tue, 01 Dec 2026 11:00:00 GMT', 0],
  ])('%j waits %d ms', (value, ms) => {
    expect(parseRetryAfterMs(value, NOW)).toBe(ms);
  });

  it.each(['', ' ', '-5', '+5', '1.5', '1e3', '12abc', '0x10', 'soon', 'x 99999', 'abc 2099', 'a 1', '١٢', '5 s', 'Tue, 01 Dec 2026 12:00:30 gmt'])(
    '%j is no hint',
    (value) => {
      expect(parseRetryAfterMs(value, NOW)).toBeNaN();
    },
  );

  it('a date is measured against a valid Date header, and against the local clock when the Date header is malformed', () => {
    const at = 'Tue, 01 Dec 2026 12:00:30 GMT';
    expect(parseRetryAfterMs(at, NOW + 3_600_000, 'Tue, 01 Dec 2026 12:00:25 GMT')).toBe(5_000);
    expect(parseRetryAfterMs(at, NOW + 3_600_000, 'Tuesday, 01-Dec-26 12:00:25 GMT')).toBe(5_000);
    expect(parseRetryAfterMs(at, NOW, 'x 99999')).toBe(30_000);
    expect(parseRetryAfterMs(at, NOW, 'Tue, 01 Dec 2026 12:00:25 UTC')).toBe(30_000);
    expect(parseRetryAfterMs(at, NOW, '')).toBe(30_000);
  });

  it('a Response or a thrown HTTP error with a non-RFC Retry-After carries no hint', () => {
    const res = new Response('busy', { status: 503, headers: { 'retry-after': 'x 99999' } });
    expect(classifySettled({ kind: 'value', value: res })).toEqual({ outcome: '503' });
    expect(classifyError({ status: 503, headers: { 'retry-after': 'abc 2099' } })).toEqual({ outcome: '503' });
    expect(classifyError({ status: 429, headers: { 'Retry-After': '2' } })).toEqual({ outcome: '429', retryAfterMs: 2000 });
  });

  it("a thrown HTTP error's date is measured against its own Date header", () => {
    const headers = new Headers({ 'retry-after': 'Sun, 06 Nov 1994 08:49:37 GMT', date: 'Sun, 06 Nov 1994 08:49:30 GMT' });
    expect(classifyError({ status: 503, headers })).toEqual({ outcome: '503', retryAfterMs: 7000 });
    expect(classifyError({ statusCode: 503, headers: { 'Retry-After': 'Sun, 06 Nov 1994 08:49:37 GMT', Date: 'Sun, 06 Nov 1994 08:49:35 GMT' } })).toEqual({
      outcome: '503',
      retryAfterMs: 2000,
    });
  });
});
