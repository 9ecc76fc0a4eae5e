import { describe, expect, it } from 'vitest';
import {
  createRetryState,
  retry,
  RetryAbortedError,
  RetryGiveUpError,
  RetryPolicyError,
  type AttemptContext,
  type Classification,
  type GiveUpInfo,
  type RetryOptions,
  type RetryPolicyInput,
  type Settled,
} from '../../src/executor/index.js';
import { FakeTime } from './fakeTime.js';

/** An answer of the fake dependency. */
interface Answer {
  status: number;
  retryAfterMs?: number;
}

function classifyAnswer(s: Settled<Answer>): Classification {
  if (s.kind === 'error') throw s.error;
  const outcome = s.value.status === 200 ? '200' : (String(s.value.status) as Classification['outcome']);
  return s.value.retryAfterMs !== undefined ? { outcome, retryAfterMs: s.value.retryAfterMs } : { outcome };
}

/** A dependency answering `statuses` in order (the last repeats), each after `ms`. */
function dependency(time: FakeTime, ms: number, ...statuses: number[]) {
  const calls: number[] = [];
  const fn = ({ attempt }: AttemptContext): Promise<Answer> => {
    calls.push(time.nowMs);
    const status = statuses[Math.min(attempt - 1, statuses.length - 1)] as number;
    return time.sleep(ms, new AbortController().signal).then(() => ({ status }));
  };
  return { fn, calls };
}

function fake(time: FakeTime, over: Partial<RetryOptions<Answer>> = {}): RetryOptions<Answer> {
  return { clock: time.clock, sleep: time.sleep, random: () => 0.5, classify: classifyAnswer, ...over };
}

const never = (): Promise<never> => new Promise<never>(() => undefined);
const constant = (baseMs: number): RetryPolicyInput['backoff'] => ({ kind: 'constant', baseMs });

describe('retry: deadlines are real', () => {
  it('hands each attempt its budget as a number and as a signal that aborts when the budget is spent', async () => {
    const time = new FakeTime();
    const seen: Array<[number, number]> = [];
    const aborts: Array<[number, string]> = [];
    const fn = ({ attempt, signal, remainingMs }: AttemptContext): Promise<Answer> => {
      seen.push([attempt, remainingMs]);
      signal.addEventListener('abort', () => aborts.push([time.nowMs, (signal.reason as Error).name]));
      return never(); // ignores its signal: the attempt still ends at its timeout
    };
    const call = retry(fn, { maxAttempts: 5, perAttemptTimeoutMs: 300, backoff: constant(100) }, fake(time, { deadlineMs: 1000 }));
    await expect(time.run(call)).rejects.toMatchObject({ reason: 'deadline', attempts: 3, outcome: 'timeout', elapsedMs: 1000 });
    expect(seen).toEqual([
      [1, 300],
      [2, 300],
      [3, 200],
    ]);
    expect(aborts).toEqual([
      [300, 'TimeoutError'],
      [700, 'TimeoutError'],
      [1000, 'TimeoutError'],
    ]);
  });

  it('disposes of a value that arrives after its attempt timed out, and never returns it', async () => {
    const time = new FakeTime();
    const disposed: Array<[number, Answer]> = [];
    const { fn } = dependency(time, 500, 200);
    const call = retry(fn, { maxAttempts: 1, perAttemptTimeoutMs: 300 }, fake(time, { dispose: (v) => disposed.push([time.nowMs, v]) }));
    await expect(time.run(call)).rejects.toMatchObject({ reason: 'attempt-limit', outcome: 'timeout' });
    await time.advanceTo(600);
    expect(disposed).toEqual([[500, { status: 200 }]]);
  });

  it("disposes of a failed attempt's value when the next attempt is sent, and hands back the last one", async () => {
    const time = new FakeTime();
    const disposed: Answer[] = [];
    let n = 0;
    const fn = (): Promise<Answer> => time.sleep(10, new AbortController().signal).then(() => ({ status: 503, retryAfterMs: ++n }));
    const call = retry(fn, { backoff: constant(0), retryAfter: 'ignore' }, fake(time, { dispose: (v) => disposed.push(v) }));
    const err = (await time.run(call).catch((e: unknown) => e)) as RetryGiveUpError<Answer>;
    expect(err).toBeInstanceOf(RetryGiveUpError);
    expect(err.last).toEqual({ kind: 'value', value: { status: 503, retryAfterMs: 3 } });
    expect(disposed.map((d) => d.retryAfterMs)).toEqual([1, 2]);
  });

  it('aligns timer ticks to the clock origin, not to the start of the call', async () => {
    const time = new FakeTime(1234);
    const { fn, calls } = dependency(time, 10, 503, 200);
    const waits: number[] = [];
    await time.run(retry(fn, { backoff: constant(10), tickMs: 100 }, fake(time, { onRetry: (r) => waits.push(r.waitMs) })));
    // Fails at 1244; 1244 + 10 = 1254 rounds up to the tick boundary 1300.
    expect(calls).toEqual([1234, 1300]);
    expect(waits).toEqual([56]);
  });

  it('rejects a negative or non-numeric deadline', async () => {
    const time = new FakeTime();
    await expect(retry(never, {}, fake(time, { deadlineMs: -1 }))).rejects.toThrow('options.deadlineMs must be a number >= 0 (got -1)');
  });
});

describe("retry: the caller's signal", () => {
  it('aborts an attempt in flight with the caller\'s reason and ends the call at once', async () => {
    const time = new FakeTime();
    const controller = new AbortController();
    const reasons: unknown[] = [];
    const giveUps: GiveUpInfo[] = [];
    const fn = ({ signal }: AttemptContext): Promise<Answer> => {
      signal.addEventListener('abort', () => reasons.push(signal.reason));
      return never();
    };
    const call = retry(fn, {}, fake(time, { signal: controller.signal, onGiveUp: (g) => giveUps.push(g) }));
    await time.advanceTo(40);
    controller.abort('user navigated away');
    const err = (await call.catch((e: unknown) => e)) as RetryAbortedError;
    expect(err).toBeInstanceOf(RetryAbortedError);
    expect([err.name, err.reason, err.attempts, err.cause]).toEqual(['AbortError', 'aborted', 1, 'user navigated away']);
    expect(reasons).toEqual(['user navigated away']);
    expect(giveUps.map((g) => [g.reason, g.atMs])).toEqual([['aborted', 40]]);
  });

  it('cuts a wait short: no attempt after the abort', async () => {
    const time = new FakeTime();
    const controller = new AbortController();
    const { fn, calls } = dependency(time, 10, 503);
    const call = retry(fn, { backoff: constant(1000) }, fake(time, { signal: controller.signal }));
    await time.advanceTo(50);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError', attempts: 1, lastOutcome: '503' });
    await time.advanceTo(5000);
    expect(calls).toEqual([0]);
  });

  it('makes no call when the signal has already aborted', async () => {
    const time = new FakeTime();
    const { fn, calls } = dependency(time, 10, 200);
    await expect(retry(fn, {}, fake(time, { signal: AbortSignal.abort() }))).rejects.toMatchObject({ name: 'AbortError', attempts: 0 });
    expect(calls).toEqual([]);
  });

  it('ends an aborted attempt for the budgets too (concurrency budgets release it)', async () => {
    const time = new FakeTime();
    const policy: RetryPolicyInput = { backoff: constant(100), budget: { kind: 'envoy-max-retries', maxRetries: 3 } };
    const state = createRetryState(policy);
    const controller = new AbortController();
    let n = 0;
    const fn = (): Promise<Answer> => (++n === 1 ? time.sleep(10, new AbortController().signal).then(() => ({ status: 503 })) : never());
    const call = retry(fn, policy, fake(time, { state, signal: controller.signal }));
    await time.advanceTo(150);
    expect(state.gauges(time.nowMs)).toEqual([1]); // the retry sent at 110 is in flight
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(RetryAbortedError);
    expect(state.gauges(time.nowMs)).toEqual([0]);
  });
});

describe('retry: state, hooks and classification', () => {
  it('requires an explicit state for a policy with budgets, and one made for the same budgets', async () => {
    const policy: RetryPolicyInput = { budget: { kind: 'sre-ratio' } };
    await expect(retry(never, policy)).rejects.toThrow(/options.state is required.*createRetryState\(policy\)/);
    await expect(retry(never, policy, { state: createRetryState({ budget: { kind: 'token-bucket' } }) })).rejects.toThrow(
      'options.state holds other budgets than the policy',
    );
    await expect(retry(never, { preset: 'aws-sdk-js-standard' })).rejects.toThrow('(token-bucket)');
  });

  it('refuses hedging policies and bad policies with every problem named', async () => {
    await expect(retry(never, { hedging: { maxAttempts: 2, hedgingDelayMs: 10 } })).rejects.toThrow('policy.hedging is not supported by retry()');
    await expect(retry(never, { maxAttempts: 0, tickMs: -1 })).rejects.toBeInstanceOf(RetryPolicyError);
  });

  it('tells first tries apart from retries, and gives each retry its wait and ceiling', async () => {
    const time = new FakeTime();
    const { fn } = dependency(time, 10, 503, 503, 200);
    const log: string[] = [];
    const value = await time.run(
      retry(fn, { backoff: { kind: 'full-jitter', baseMs: 100 } }, fake(time, {
        onAttempt: (a) => log.push(`${a.atMs} ${a.isRetry ? 'retry' : 'first try'} ${a.attempt}`),
        onAttemptEnd: (e) => log.push(`${e.endMs} ${e.outcome}`),
        onRetry: (r) => log.push(`${r.atMs} retry ${r.retry}: ceiling ${r.ceilingMs}, wait ${r.waitMs} until ${r.wakeAtMs}`),
      })),
    );
    expect(value).toEqual({ status: 200 });
    expect(log).toEqual([
      '0 first try 1',
      '10 503',
      '10 retry 1: ceiling 100, wait 50 until 60',
      '60 retry 2',
      '70 503',
      '70 retry 2: ceiling 200, wait 100 until 170',
      '170 retry 3',
      '180 200',
    ]);
  });

  it('a hook that throws ends the call with its error', async () => {
    const time = new FakeTime();
    const { fn } = dependency(time, 10, 503);
    const call = retry(fn, {}, fake(time, { onRetry: () => { throw new Error('metrics down'); } }));
    await expect(time.run(call)).rejects.toThrow('metrics down');
  });

  it('an admission control refuses a first try without a call (throttled), and the layer above does not retry that', async () => {
    const time = new FakeTime();
    const policy: RetryPolicyInput = { maxAttempts: 1, admission: { kind: 'sre-adaptive' } };
    const state = createRetryState(policy);
    const { fn, calls } = dependency(time, 10, 503);
    const opts = fake(time, { state, random: () => 0 });
    // 1 request, 0 accepted: the next is rejected with probability (1 - 0) / (1 + 1) = 0.5 > u = 0.
    await expect(time.run(retry(fn, policy, opts))).rejects.toMatchObject({ reason: 'attempt-limit', outcome: '503' });
    const giveUps: GiveUpInfo[] = [];
    const outer = retry(() => retry(fn, policy, opts), {}, { clock: time.clock, sleep: time.sleep, onGiveUp: (g) => giveUps.push(g) });
    await expect(time.run(outer)).rejects.toMatchObject({ reason: 'not-retryable', attempts: 1, outcome: 'throttled' });
    expect(calls).toEqual([0]);
  });

  it('nested calls are nested layers: 3 layers of 3 attempts make 27 calls to a dependency that is down', async () => {
    const time = new FakeTime();
    const { fn, calls } = dependency(time, 1, 503);
    const policy: RetryPolicyInput = { backoff: { kind: 'none', baseMs: 0, capMs: 0 } };
    /** Each layer passes its attempt's budget and signal to the layer below. */
    const below = (ctx: AttemptContext) => ({
      clock: time.clock,
      sleep: time.sleep,
      signal: ctx.signal,
      ...(Number.isFinite(ctx.remainingMs) ? { deadlineMs: ctx.remainingMs } : {}),
    });
    const sdk = (ctx: AttemptContext) => retry(fn, policy, { ...below(ctx), classify: classifyAnswer });
    const proxy = (ctx: AttemptContext) => retry(sdk, policy, below(ctx));
    const app = retry(proxy, policy, { clock: time.clock, sleep: time.sleep });
    await expect(time.run(app)).rejects.toMatchObject({ reason: 'attempt-limit', outcome: '503' });
    expect(calls).toHaveLength(27);
  });

  it('reads the method for idempotency: lowercase, PATCH as POST, and an explicit override', async () => {
    const time = new FakeTime();
    const attempts = async (over: Partial<RetryOptions<Answer>>) => {
      const { fn, calls } = dependency(time, 10, 503);
      await time.run(retry(fn, { backoff: constant(1) }, fake(time, over))).catch(() => undefined);
      return calls.length;
    };
    expect(await attempts({ method: 'post' })).toBe(1);
    expect(await attempts({ method: 'PATCH' })).toBe(1);
    expect(await attempts({ method: 'options' })).toBe(3);
    expect(await attempts({ method: 'POST', idempotent: true })).toBe(3);
    expect(await attempts({ method: 'GET', idempotent: false })).toBe(1);
  });

  it('a classifier may call a thrown error a success (e.g. a DELETE answered 404)', async () => {
    const time = new FakeTime();
    const fn = (): Promise<string> => Promise.reject(Object.assign(new Error('gone'), { status: 404 }));
    const value = await time.run(
      retry(fn, {}, { clock: time.clock, sleep: time.sleep, method: 'DELETE', classify: () => ({ outcome: 'success' }) }),
    );
    expect(value).toBeUndefined();
  });

  it('by default retries thrown errors by their status, socket codes and names', async () => {
    const time = new FakeTime();
    const outcomes = async (error: unknown) => {
      const seen: string[] = [];
      await time
        .run(retry(() => Promise.reject(error), { maxAttempts: 2, backoff: constant(1) }, { clock: time.clock, sleep: time.sleep, onAttemptEnd: (e) => seen.push(e.outcome) }))
        .catch(() => undefined);
      return seen;
    };
    expect(await outcomes(Object.assign(new Error('x'), { status: 503 }))).toEqual(['503', '503']);
    expect(await outcomes(Object.assign(new Error('x'), { statusCode: 400 }))).toEqual(['400']);
    expect(await outcomes(new TypeError('fetch failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }))).toEqual(['timeout', 'timeout']);
    expect(await outcomes(new DOMException('x', 'AbortError'))).toEqual(['timeout', 'timeout']);
    expect(await outcomes(new Error('a bug'))).toEqual(['500', '500']);
  });
});

describe('retry: a Retry-After longer than maxRetryAfterMs', () => {
  /** A dependency answering 503 after 25 ms with the hint `retryAfterMs`, then 200. */
  const hinting = (time: FakeTime, retryAfterMs: number) => {
    const calls: number[] = [];
    const fn = ({ attempt }: AttemptContext): Promise<Answer> => {
      calls.push(time.nowMs);
      return time.sleep(25, new AbortController().signal).then(() => (attempt === 1 ? { status: 503, retryAfterMs } : { status: 200 }));
    };
    return { fn, calls };
  };

  it('gives up with retry-after-too-long when the answer arrives, without waiting and without a draw', async () => {
    const time = new FakeTime();
    const dep = hinting(time, 300_001);
    const draws: number[] = [];
    const giveUps: GiveUpInfo[] = [];
    const call = retry(dep.fn, { maxAttempts: 3 }, fake(time, { random: () => (draws.push(0.5), 0.5), onGiveUp: (g) => giveUps.push(g) }));
    await expect(time.run(call)).rejects.toMatchObject({ reason: 'retry-after-too-long', attempts: 1, outcome: '503', elapsedMs: 25 });
    expect(dep.calls).toEqual([0]);
    expect(draws).toEqual([]);
    expect(giveUps.map((g) => [g.reason, g.atMs, g.wait])).toEqual([['retry-after-too-long', 25, undefined]]);
  });

  it('waits out a hint up to the policy limit, and gives up above it', async () => {
    const time = new FakeTime();
    const dep = hinting(time, 400_000);
    const value = await time.run(retry(dep.fn, { maxAttempts: 3, maxRetryAfterMs: 400_000 }, fake(time)));
    expect(value).toEqual({ status: 200 });
    expect(dep.calls).toEqual([0, 400_025]);
    const short = new FakeTime();
    const call = retry(hinting(short, 400_000).fn, { maxAttempts: 3, maxRetryAfterMs: 399_999 }, fake(short));
    await expect(short.run(call)).rejects.toMatchObject({ reason: 'retry-after-too-long', attempts: 1, elapsedMs: 25 });
  });
});
