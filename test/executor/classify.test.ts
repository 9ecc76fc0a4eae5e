import { describe, expect, it } from 'vitest';
import {
  classifyResponse,
  classifySettled,
  classifyStatus,
  parsePushbackMs,
  parseRetryAfterMs,
  pushbackHint,
  retryingFetch,
} from '../../src/executor/index.js';
import { FakeTime } from './fakeTime.js';

describe('classifyStatus', () => {
  it.each([
    [200, '200'],
    [204, '200'],
    [304, '200'],
    [400, '400'],
    [401, '400'],
    [403, '400'],
    [404, '404'],
    [410, '404'],
    [408, 'timeout'],
    [409, 'conflict'],
    [422, '400'],
    [429, '429'],
    [500, '500'],
    [501, '500'],
    [502, '503'],
    [503, '503'],
    [504, 'timeout'],
  ])('%i -> %s', (status, outcome) => {
    expect(classifyStatus(status)).toBe(outcome);
  });
});

describe('Retry-After and pushback hints', () => {
  const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');

  it('reads delta-seconds', () => {
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date against the local clock, or against the response Date header when there is one', () => {
    expect(parseRetryAfterMs('Wed, 21 Oct 2015 07:28:30 GMT', now)).toBe(30_000);
    // The server's clock says 07:28:25: 5 s to wait, whatever the local clock says.
    expect(parseRetryAfterMs('Wed, 21 Oct 2015 07:28:30 GMT', now + 3_600_000, 'Wed, 21 Oct 2015 07:28:25 GMT')).toBe(5_000);
    expect(parseRetryAfterMs('Wed, 21 Oct 2015 07:27:00 GMT', now)).toBe(0);
  });

  it('ignores values of neither form', () => {
    for (const v of ['', 'soon', '-5', '1.5', '12abc']) expect(parseRetryAfterMs(v, now)).toBeNaN();
  });

  it('reads gRPC pushback: n >= 0 waits n ms; negative or unparseable means do not retry', () => {
    expect([parsePushbackMs('250'), parsePushbackMs('0'), parsePushbackMs('-3'), parsePushbackMs('x')]).toEqual([250, 0, -1, -1]);
  });

  it('classifies a Response with its Retry-After, or with the hook when it gives a hint', () => {
    const res = new Response('busy', { status: 503, headers: { 'retry-after': '2', 'grpc-retry-pushback-ms': '40' } });
    expect(classifyResponse(res)).toEqual({ outcome: '503', retryAfterMs: 2000 });
    expect(classifyResponse(res, { hint: pushbackHint() })).toEqual({ outcome: '503', retryAfterMs: 40 });
    expect(classifyResponse(new Response('x', { status: 429 }), { hint: pushbackHint() })).toEqual({ outcome: '429' });
    expect(classifySettled({ kind: 'value', value: res })).toEqual({ outcome: '503', retryAfterMs: 2000 });
    expect(classifySettled({ kind: 'value', value: 'plain value' })).toEqual({ outcome: '200' });
  });
});

describe('retryingFetch with an injected fetch and virtual time', () => {
  it('sends the idempotency key and each attempt\'s budget, and releases the bodies of answers it does not return', async () => {
    const time = new FakeTime();
    const cancelled: number[] = [];
    const requests: Array<{ method: string; key: string | null; budget: string | null }> = [];
    const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const headers = new Headers(init?.headers);
      requests.push({ method: init?.method ?? 'GET', key: headers.get('idempotency-key'), budget: headers.get('x-budget-ms') });
      const n = requests.length;
      await time.sleep(100, new AbortController().signal);
      const body = new ReadableStream({ cancel: () => void cancelled.push(n) });
      return new Response(body, { status: 503 });
    };
    const res = await time.run(
      retryingFetch('http://example.test/pay', { method: 'POST', body: 'x' }, { maxAttempts: 3, backoff: { kind: 'constant', baseMs: 50 } }, {
        clock: time.clock,
        sleep: time.sleep,
        fetch,
        idempotencyKey: 'k-1',
        deadlineHeader: 'x-budget-ms',
        deadlineMs: 1000,
      }),
    );
    expect(res.status).toBe(503);
    expect(requests).toEqual([
      { method: 'POST', key: 'k-1', budget: '1000' },
      { method: 'POST', key: 'k-1', budget: '850' },
      { method: 'POST', key: 'k-1', budget: '700' },
    ]);
    // The first two answers were superseded; the last is handed back unread.
    expect(cancelled).toEqual([1, 2]);
    expect(res.bodyUsed).toBe(false);
  });

  it('refuses a stream body that a retry could not send again', async () => {
    const body = new ReadableStream();
    await expect(retryingFetch('http://example.test/', { method: 'PUT', body }, {})).rejects.toThrow('init.body is a stream');
  });
});
