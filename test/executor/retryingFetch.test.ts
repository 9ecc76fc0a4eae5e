import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRetryState,
  pushbackHint,
  retryingFetch,
  RetryGiveUpError,
  type AttemptEndInfo,
  type GiveUpInfo,
  type RetryInfo,
  type RetryPolicyInput,
} from '../../src/executor/index.js';
import { TestServer } from './testServer.js';

/**
 * retryingFetch against a real HTTP server on 127.0.0.1. Jitter draws are fixed (`random`), so the
 * waits the policy prescribes are exact numbers (reported by onRetry); the waits observed on the
 * wire are checked against them within a generous timer tolerance (bounds and orderings, not
 * exact milliseconds).
 */
const server = new TestServer();
beforeAll(() => server.start());
afterAll(() => server.stop());

/** Hooks that collect what happened. */
function observe() {
  const ends: AttemptEndInfo[] = [];
  const retries: RetryInfo[] = [];
  const giveUps: GiveUpInfo[] = [];
  return {
    ends,
    retries,
    giveUps,
    hooks: {
      onAttemptEnd: (i: AttemptEndInfo) => ends.push(i),
      onRetry: (i: RetryInfo) => retries.push(i),
      onGiveUp: (i: GiveUpInfo) => giveUps.push(i),
    },
  };
}

const fixed = { random: () => 0.5 };
const quick: RetryPolicyInput = { maxAttempts: 3, backoff: { kind: 'constant', baseMs: 20 } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits computed on real clock readings carry float noise (1000.0000000000002): round it off. */
const round = (ms: number | undefined) => (ms === undefined ? undefined : Math.round(ms * 1e6) / 1e6);

describe('retryingFetch against a real server', () => {
  it('waits out a 503 Retry-After (delta-seconds) before the retry, and never less', async () => {
    const url = server.script('/ra', { status: 503, headers: { 'retry-after': '1' } }, { status: 200, body: 'ok' });
    const o = observe();
    const res = await retryingFetch(url, {}, { maxAttempts: 3, backoff: { kind: 'full-jitter', baseMs: 100 } }, { ...fixed, ...o.hooks });
    expect([res.status, await res.text()]).toEqual([200, 'ok']);
    expect(o.ends.map((e) => [e.outcome, e.retryAfterMs])).toEqual([
      ['503', 1000],
      ['200', undefined],
    ]);
    // honor: max(Retry-After 1000, backoff 0.5 x 100).
    expect(o.retries.map((r) => [r.ceilingMs, r.backoffMs, round(r.waitMs)])).toEqual([[100, 50, 1000]]);
    const [a, b] = server.at('/ra');
    const gap = (b?.atMs ?? 0) - (a?.atMs ?? 0);
    expect(gap).toBeGreaterThanOrEqual(1000 - 2);
    expect(gap).toBeLessThan(1000 + 400);
  });

  it('gives up at once when a Retry-After does not fit in the deadline, rather than waiting less', async () => {
    const url = server.script('/ra-long', { status: 503, headers: { 'retry-after': '5' } }, { status: 200 });
    const o = observe();
    const started = performance.now();
    const res = await retryingFetch(url, {}, quick, { ...fixed, ...o.hooks, deadlineMs: 2000 });
    const took = performance.now() - started;
    expect(res.status).toBe(503);
    expect(server.at('/ra-long')).toHaveLength(1);
    expect(o.retries).toEqual([]);
    expect(o.giveUps.map((g) => [g.reason, g.attempts, g.outcome, round(g.wait?.waitMs)])).toEqual([['wait-exceeds-deadline', 1, '503', 5000]]);
    expect(took).toBeLessThan(1000);
  });

  it('gives up with retry-after-too-long, at once and without a deadline, when Retry-After is longer than 5 minutes', async () => {
    const url = server.script('/ra-huge', { status: 503, headers: { 'retry-after': '1000000000000' } }, { status: 200 });
    const o = observe();
    const started = performance.now();
    const res = await retryingFetch(url, {}, quick, { ...fixed, ...o.hooks });
    const took = performance.now() - started;
    expect(res.status).toBe(503);
    expect(server.at('/ra-huge')).toHaveLength(1);
    expect(o.retries).toEqual([]);
    expect(o.giveUps.map((g) => [g.reason, g.attempts, g.outcome, g.wait])).toEqual([['retry-after-too-long', 1, '503', undefined]]);
    expect(took).toBeLessThan(1000);
  });

  it('retries a 429 even for a POST (refused before any processing)', async () => {
    const url = server.script('/throttle', { status: 429 }, { status: 429 }, { status: 201 });
    const o = observe();
    const res = await retryingFetch(url, { method: 'POST', body: 'x' }, quick, { ...fixed, ...o.hooks });
    expect(res.status).toBe(201);
    expect(o.ends.map((e) => e.outcome)).toEqual(['429', '429', '200']);
    expect(server.at('/throttle').map((a) => a.method)).toEqual(['POST', 'POST', 'POST']);
  });

  it('does not retry a 400 and hands back its response', async () => {
    const url = server.script('/bad', { status: 400, body: 'bad input' });
    const o = observe();
    const res = await retryingFetch(url, {}, quick, { ...fixed, ...o.hooks });
    expect([res.status, await res.text()]).toEqual([400, 'bad input']);
    expect(server.at('/bad')).toHaveLength(1);
    expect(o.giveUps.map((g) => [g.reason, g.attempts, g.outcome])).toEqual([['not-retryable', 1, '400']]);
  });

  it('times out slow answers at the per-attempt timeout and retries a GET up to the cap', async () => {
    const url = server.script('/slow', { status: 200, delayMs: 400 });
    const o = observe();
    const started = performance.now();
    const call = retryingFetch(url, {}, { ...quick, perAttemptTimeoutMs: 80 }, { ...fixed, ...o.hooks });
    await expect(call).rejects.toMatchObject({ name: 'RetryGiveUpError', reason: 'attempt-limit', attempts: 3, outcome: 'timeout' });
    const took = performance.now() - started;
    expect(o.ends.map((e) => e.outcome)).toEqual(['timeout', 'timeout', 'timeout']);
    // Each attempt ends exactly when its 80 ms are up, even if the timer fires a little late.
    for (const e of o.ends) expect(e.endMs - e.atMs).toBeCloseTo(80, 6);
    expect(o.retries.map((r) => round(r.waitMs))).toEqual([20, 20]);
    // 3 x 80 ms + 2 x 20 ms at the least.
    expect(took).toBeGreaterThanOrEqual(280 - 2);
    expect(took).toBeLessThan(280 + 600);
    expect(server.at('/slow')).toHaveLength(3);
  });

  it('does not replay a POST after a timeout (the outcome is unknown)', async () => {
    const url = server.script('/slow-post', { status: 200, delayMs: 300 });
    const o = observe();
    const call = retryingFetch(url, { method: 'POST', body: 'pay 10' }, { ...quick, perAttemptTimeoutMs: 60 }, { ...fixed, ...o.hooks });
    await expect(call).rejects.toMatchObject({ reason: 'not-retryable', attempts: 1, outcome: 'timeout' });
    await sleep(150);
    expect(server.at('/slow-post')).toHaveLength(1);
  });

  it('does not replay a POST even under a policy that calls every method idempotent', async () => {
    const url = server.script('/slow-post-always', { status: 200, delayMs: 300 });
    const call = retryingFetch(url, { method: 'POST', body: 'x' }, { ...quick, perAttemptTimeoutMs: 60, idempotency: 'always' }, fixed);
    await expect(call).rejects.toMatchObject({ reason: 'not-retryable', attempts: 1 });
    await sleep(100);
    expect(server.at('/slow-post-always')).toHaveLength(1);
  });

  it('replays a POST with an idempotency key, sending the same Idempotency-Key every time', async () => {
    const url = server.script('/keyed', { status: 200, delayMs: 300 }, { status: 200, delayMs: 300 }, { status: 201 });
    const res = await retryingFetch(url, { method: 'POST', body: 'pay 10' }, { ...quick, perAttemptTimeoutMs: 60 }, { ...fixed, idempotencyKey: 'op-42' });
    expect(res.status).toBe(201);
    expect(server.at('/keyed').map((a) => a.headers['idempotency-key'])).toEqual(['op-42', 'op-42', 'op-42']);
  });

  it('treats a dropped connection as an unknown outcome: a GET is retried, a POST is not', async () => {
    const get = server.script('/drop', { drop: true }, { drop: true }, { status: 200 });
    const o = observe();
    const res = await retryingFetch(get, {}, quick, { ...fixed, ...o.hooks });
    expect(res.status).toBe(200);
    expect(o.ends.map((e) => e.outcome)).toEqual(['timeout', 'timeout', '200']);

    const post = server.script('/drop-post', { drop: true }, { status: 200 });
    const p = observe();
    await expect(retryingFetch(post, { method: 'POST', body: 'x' }, quick, { ...fixed, ...p.hooks })).rejects.toBeInstanceOf(RetryGiveUpError);
    expect(p.giveUps.map((g) => [g.reason, g.outcome])).toEqual([['not-retryable', 'timeout']]);
    expect(server.at('/drop-post')).toHaveLength(1);
  });

  it('hands each attempt its remaining budget in a header, shrinking towards the deadline', async () => {
    const url = server.script('/budget', { status: 503 }, { status: 503 }, { status: 200 });
    await retryingFetch(url, {}, { ...quick, backoff: { kind: 'constant', baseMs: 100 } }, { ...fixed, deadlineMs: 1000, deadlineHeader: 'x-timeout-ms' });
    const budgets = server.at('/budget').map((a) => Number(a.headers['x-timeout-ms']));
    expect(budgets).toHaveLength(3);
    expect(budgets[0]).toBeLessThanOrEqual(1000);
    expect(budgets[0]).toBeGreaterThan(800);
    // Each retry comes at least 100 ms later, so its budget is at least 100 ms smaller.
    expect((budgets[0] as number) - (budgets[1] as number)).toBeGreaterThanOrEqual(100);
    expect((budgets[1] as number) - (budgets[2] as number)).toBeGreaterThanOrEqual(100);
  });

  it('reads a gRPC-style pushback hint through the hook: n ms means wait exactly n, negative means stop', async () => {
    const url = server.script('/pushback', { status: 503, headers: { 'grpc-retry-pushback-ms': '30' } }, { status: 503, headers: { 'grpc-retry-pushback-ms': '-1' } });
    const o = observe();
    const res = await retryingFetch(url, {}, { maxAttempts: 5, retryAfter: 'pushback', backoff: { kind: 'exponential', baseMs: 500 } }, { ...fixed, ...o.hooks, hint: pushbackHint() });
    expect(res.status).toBe(503);
    expect(o.retries.map((r) => round(r.waitMs))).toEqual([30]);
    expect(o.giveUps.map((g) => [g.reason, g.attempts])).toEqual([['not-retryable', 2]]);
  });

  it("stops at once when the caller aborts during a wait, with an AbortError", async () => {
    const url = server.script('/abort', { status: 503, headers: { 'retry-after': '10' } });
    const controller = new AbortController();
    const o = observe();
    const started = performance.now();
    const call = retryingFetch(url, { signal: controller.signal }, quick, { ...fixed, ...o.hooks });
    setTimeout(() => controller.abort(), 100);
    await expect(call).rejects.toMatchObject({ name: 'AbortError', reason: 'aborted', attempts: 1, lastOutcome: '503' });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(o.giveUps.map((g) => g.reason)).toEqual(['aborted']);
    expect(server.at('/abort')).toHaveLength(1);
  });

  it('a shared budget state stops retries across many concurrent calls when the dependency is down', async () => {
    const policy: RetryPolicyInput = {
      maxAttempts: 3,
      backoff: { kind: 'constant', baseMs: 10 },
      budget: { kind: 'token-bucket', capacity: 50, retryCost: 5, serverErrorCost: 5 },
    };
    const calls = 50;
    const run = async (path: string, stateFor: () => ReturnType<typeof createRetryState>) => {
      const url = server.script(path, { status: 503 });
      const reasons: string[] = [];
      let retries = 0;
      const results = await Promise.all(
        Array.from({ length: calls }, () =>
          retryingFetch(url, {}, policy, { ...fixed, state: stateFor(), onRetry: () => retries++, onGiveUp: (g) => reasons.push(g.reason) }),
        ),
      );
      expect(results.every((r) => r.status === 503)).toBe(true);
      return { requests: server.at(path).length, retries, reasons };
    };
    const shared = createRetryState(policy);
    const together = await run('/down-shared', () => shared);
    // 500 tokens / 5 per retry... here 50 / 5 = exactly 10 retries, whatever the interleaving.
    expect(together.retries).toBe(10);
    expect(together.requests).toBe(calls + 10);
    expect(together.reasons.filter((r) => r === 'budget-exhausted').length).toBeGreaterThanOrEqual(calls - 10);
    expect(shared.gauges()).toEqual([0]);

    // One state per call is one budget per call: every call retries to its cap.
    const apart = await run('/down-apart', () => createRetryState(policy));
    expect(apart.requests).toBe(calls * 3);
    expect(apart.reasons.every((r) => r === 'attempt-limit')).toBe(true);
  });
});
