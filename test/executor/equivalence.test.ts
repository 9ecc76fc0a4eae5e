import { describe, expect, it } from 'vitest';
import { traceScenario, type TraceFlags } from '../../src/cli/trace.js';
import {
  createRetryState,
  resolveRetryPolicy,
  retry,
  RetryGiveUpError,
  type Classification,
  type RetryPolicyInput,
} from '../../src/executor/index.js';
import { parseScenario, parseScript } from '../../src/experiment/index.js';
import type { ScriptEntry } from '../../src/model/scenario.js';
import type { TraceEvent } from '../../src/model/trace.js';
import { traceOperation, type TraceResult } from '../../src/model/traceOperation.js';
import type { Method } from '../../src/policy/types.js';
import { callsOf, recordLoopCalls } from '../helpers/loopCalls.js';
import { FakeTime } from './fakeTime.js';
import { recorder, type Decision } from './record.js';

/**
 * One scripted scenario. `flags` rows run through `retrystorm trace`'s own code (traceScenario,
 * the flags as the command line gives them); `policy` rows (what flags cannot say: presets,
 * budgets, library backoffs) build the same scenario through the experiment-file parser.
 */
interface Row {
  name: string;
  script: string;
  draw: number;
  flags?: Omit<TraceFlags, 'script' | 'draw' | 'json'>;
  policy?: RetryPolicyInput;
  deadlineMs?: number;
  method?: Method;
}

const ROWS: Row[] = [
  {
    name: 'a shared deadline shrinks the last attempt (the README example)',
    script: 'hang',
    draw: 0.5,
    flags: { attempts: '5', timeoutMs: '300', deadlineMs: '1000', backoff: 'constant', baseMs: '100' },
  },
  {
    name: 'fresh timeouts overrun the deadline',
    script: 'hang',
    draw: 0.5,
    flags: { attempts: '5', timeoutMs: '300', deadlineMs: '1000', backoff: 'constant', baseMs: '100', deadlineMode: 'fresh' },
  },
  {
    name: 'deadline mode none ignores the deadline',
    script: 'hang',
    draw: 0.5,
    flags: { attempts: '4', timeoutMs: '300', deadlineMs: '1000', backoff: 'constant', baseMs: '100', deadlineMode: 'none' },
  },
  { name: 'two 503s then a success, default policy', script: '503:250,503:250,200:250', draw: 0.5, flags: {} },
  { name: 'a Retry-After that does not fit gives up at once', script: '503:100:ra=2000', draw: 0.5, flags: { attempts: '5', deadlineMs: '1000' } },
  ...(['honor', 'honor-plus-jitter', 'ignore', 'replace', 'clamp'] as const).map(
    (mode): Row => ({
      name: `Retry-After mode ${mode}`,
      script: '503:100:ra=300,503:100:ra=300,503:100:ra=3000,200:10',
      draw: 0.5,
      flags: { attempts: '5', backoff: 'full-jitter', baseMs: '1000', capMs: '8000', retryAfter: mode },
    }),
  ),
  {
    name: 'gRPC pushback waits exactly the hint and restarts the backoff',
    script: '503:10:ra=400,503:10,503:10,200',
    draw: 0.5,
    flags: { attempts: '5', backoff: 'exponential', baseMs: '100', retryAfter: 'pushback', retryOn: '503' },
  },
  { name: '400 is not retried', script: '400:10', draw: 0.5, flags: {} },
  { name: '404 is retried when listed', script: '404:10,404:10,200:10', draw: 0.5, flags: { retryOn: '404,503', backoff: 'constant', baseMs: '50' } },
  { name: 'a POST is not replayed after a timeout', script: 'timeout:50', draw: 0.5, flags: { method: 'POST' } },
  { name: 'a POST is not replayed after a 503', script: '503:20', draw: 0.5, flags: { method: 'POST' } },
  { name: 'a POST is retried after 429', script: '429:10*2,200:10', draw: 0.5, flags: { method: 'POST' } },
  { name: 'idempotency always replays a POST', script: 'hang', draw: 0.5, flags: { method: 'POST', idempotency: 'always', timeoutMs: '100' } },
  { name: 'idempotency never refuses a GET', script: '503:10', draw: 0.5, flags: { idempotency: 'never' } },
  {
    name: 'exponential backoff reaches its cap, then the attempt cap',
    script: '500:10',
    draw: 0.5,
    flags: { attempts: '4', backoff: 'exponential', baseMs: '100', capMs: '250' },
  },
  {
    name: 'wake-ups rounded up to a 50 ms tick',
    script: 'hang',
    draw: 0.3,
    flags: { attempts: '4', timeoutMs: '33', tickMs: '50', backoff: 'full-jitter', baseMs: '40', deadlineMs: '400' },
  },
  {
    name: 'a coarse tick pushes a wait past the deadline',
    script: '503:10',
    draw: 0.9,
    flags: { attempts: '9', tickMs: '100', backoff: 'full-jitter', baseMs: '30', deadlineMs: '250' },
  },
  { name: 'decorrelated jitter', script: '503:5', draw: 0.7, flags: { attempts: '6', backoff: 'decorrelated-jitter', baseMs: '100', capMs: '1000' } },
  { name: 'equal jitter with exponent offset 1', script: '503:5', draw: 0.25, flags: { attempts: '5', backoff: 'equal-jitter', baseMs: '5', capMs: '2000', exponentOffset: '1' } },
  { name: 'unlimited attempts until a wait does not fit', script: '503:30', draw: 0.5, flags: { attempts: 'unlimited', backoff: 'constant', baseMs: '100', deadlineMs: '1000' } },
  { name: 'a deadline of 0 is already spent', script: '200', draw: 0.5, flags: { deadlineMs: '0' } },
  { name: 'an answer due when the timeout fires is a timeout', script: '503:300,200:10', draw: 0.5, flags: { timeoutMs: '300', backoff: 'constant', baseMs: '10' } },
  { name: 'an attempt cut by the deadline ends in deadline', script: '503:500', draw: 0.5, flags: { deadlineMs: '500' } },
  { name: 'cenkalti-style randomized interval', script: '503:5', draw: 0.9, flags: { attempts: '5', backoff: 'randomized', baseMs: '500', capMs: '60000', multiplier: '1.5' } },
  // Rows the flags cannot express.
  { name: 'preset aws-sdk-js-standard: throttled base and quota', script: '429:10*3', draw: 0.6, policy: { preset: 'aws-sdk-js-standard' } },
  { name: 'preset grpc: pushback and retry throttling', script: '503:10:ra=200,503:10', draw: 0.5, policy: { preset: 'grpc' } },
  { name: 'preset envoy: route timeout over all attempts', script: 'hang', draw: 0.5, policy: { preset: 'envoy', perAttemptTimeoutMs: 6000 } },
  { name: 'preset polly-v8-exponential-jitter', script: '500:10', draw: 0.35, policy: { preset: 'polly-v8-exponential-jitter' } },
  { name: 'preset npm-retry', script: '503:10*3,200', draw: 0.2, policy: { preset: 'npm-retry', maxAttempts: 4 } },
  { name: 'preset tenacity-random-exponential', script: '503:10', draw: 0.8, policy: { preset: 'tenacity-random-exponential', maxAttempts: 5 } },
  { name: 'linear backoff', script: '503:10', draw: 0.5, policy: { maxAttempts: 4, backoff: { kind: 'linear', baseMs: 70, capMs: 150 } } },
  {
    name: 'a token bucket refuses the retry it cannot pay for',
    script: 'hang',
    draw: 0.5,
    policy: { perAttemptTimeoutMs: 100, maxAttempts: 5, budget: { kind: 'token-bucket', capacity: 10, retryCost: 5, timeoutCost: 10 } },
  },
  {
    name: 'a circuit breaker opens after failures',
    script: '503:10',
    draw: 0.5,
    policy: { maxAttempts: 5, budget: { kind: 'circuit-breaker', minRequests: 2, threshold: 0.5 } },
  },
  {
    name: 'the SRE ratio budget allows no retry for a single first try',
    script: '503:10',
    draw: 0.5,
    policy: { budget: { kind: 'sre-ratio' } },
  },
  { name: 'preset aws-sdk-adaptive: the rate limiter delays attempts after a throttle', script: '429:10*2,200:10', draw: 0.5, policy: { preset: 'aws-sdk-adaptive' } },
  {
    name: 'an admission delay that does not fit in the deadline ends in deadline',
    script: '429:10',
    draw: 0.5,
    deadlineMs: 1500,
    policy: { preset: 'aws-sdk-adaptive' },
  },
  { name: 'maxElapsedMs refuses a late wake-up', script: '503:100', draw: 0.5, policy: { maxAttempts: 9, maxElapsedMs: 500, backoff: { kind: 'constant', baseMs: 200 } } },
  {
    name: 'a Retry-After longer than the default 5 minutes gives up at once, without a draw or a wait',
    script: '503:100:ra=300001',
    draw: 0.5,
    flags: { attempts: '5' },
  },
  { name: 'a Retry-After of exactly 5 minutes is waited out', script: '503:100:ra=300000,200:10', draw: 0.5, flags: { attempts: '5' } },
  {
    name: 'a Retry-After longer than maxRetryAfterMs gives up before the deadline is considered',
    script: '503:100:ra=300,503:100:ra=2000',
    draw: 0.5,
    deadlineMs: 1000,
    policy: { maxAttempts: 5, maxRetryAfterMs: 1500, backoff: { kind: 'constant', baseMs: 50 } },
  },
  {
    name: 'a gRPC pushback longer than maxRetryAfterMs gives up',
    script: '503:10:ra=200,503:10:ra=5000',
    draw: 0.5,
    policy: { preset: 'grpc', maxRetryAfterMs: 1000 },
  },
  {
    name: 'clamp bounds the hint itself: maxRetryAfterMs does not apply',
    script: '503:10:ra=9000000,200:10',
    draw: 0.5,
    policy: { maxAttempts: 3, retryAfter: 'clamp', maxRetryAfterMs: 1000, backoff: { kind: 'constant', baseMs: 100 } },
  },
  {
    name: 'a total timeout bounds every attempt',
    script: 'hang',
    draw: 0.5,
    policy: { perAttemptTimeoutMs: 300, totalTimeoutMs: 700, backoff: { kind: 'constant', baseMs: 50 }, maxAttempts: 5 },
  },
];

/** The flags of a row as a policy, the way `retrystorm trace` sets them on layer 0. */
function flagsPolicy(flags: NonNullable<Row['flags']>): RetryPolicyInput {
  const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));
  const backoff = {
    ...(flags.backoff !== undefined ? { kind: flags.backoff } : {}),
    ...(flags.baseMs !== undefined ? { baseMs: num(flags.baseMs) } : {}),
    ...(flags.capMs !== undefined ? { capMs: num(flags.capMs) } : {}),
    ...(flags.multiplier !== undefined ? { multiplier: num(flags.multiplier) } : {}),
    ...(flags.exponentOffset !== undefined ? { exponentOffset: num(flags.exponentOffset) } : {}),
  } as RetryPolicyInput['backoff'];
  return {
    ...(flags.attempts !== undefined ? { maxAttempts: flags.attempts === 'unlimited' ? 'unlimited' : Number(flags.attempts) } : {}),
    ...(flags.timeoutMs !== undefined ? { perAttemptTimeoutMs: Number(flags.timeoutMs) } : {}),
    backoff,
    ...(flags.tickMs !== undefined ? { tickMs: Number(flags.tickMs) } : {}),
    ...(flags.retryAfter !== undefined ? { retryAfter: flags.retryAfter as RetryPolicyInput['retryAfter'] } : {}),
    ...(flags.deadlineMode !== undefined ? { deadlineMode: flags.deadlineMode as RetryPolicyInput['deadlineMode'] } : {}),
    ...(flags.retryOn !== undefined ? { retryOn: flags.retryOn.split(',') as RetryPolicyInput['retryOn'] } : {}),
    ...(flags.idempotency !== undefined ? { idempotency: flags.idempotency as RetryPolicyInput['idempotency'] } : {}),
  };
}

function simulated(row: Row): TraceResult {
  if (row.flags) return traceScenario(undefined, { ...row.flags, script: row.script, draw: String(row.draw) });
  const scenario = parseScenario({
    workload: { kind: 'burst', clients: 1, method: row.method ?? 'GET', ...(row.deadlineMs !== undefined ? { deadlineMs: row.deadlineMs } : {}) },
    stack: [{ name: 'client', policy: row.policy }],
    leaf: { kind: 'script', script: parseScript(row.script) },
  });
  return traceOperation(scenario, { seed: 1, fixedDraw: row.draw });
}

/**
 * The scripted leaf as an attempt function: call i of the operation (whichever layer's attempt it
 * serves) gets entry i after its duration (the last repeats); `hang` never answers.
 */
function scriptedAttempt(time: FakeTime, entries: ScriptEntry[]) {
  let calls = 0;
  return (): Promise<ScriptEntry> => {
    const e = entries[Math.min(calls++, entries.length - 1)] as ScriptEntry;
    if (e.status === 'hang') return new Promise<ScriptEntry>(() => undefined);
    // The script's work is not cancelled when the caller stops waiting (as in the simulator).
    return time.sleep(e.durationMs, new AbortController().signal).then(() => e);
  };
}

function classifyEntry(s: { kind: 'value'; value: ScriptEntry } | { kind: 'error'; error: unknown }): Classification {
  if (s.kind === 'error') throw s.error;
  const e = s.value;
  const outcome = e.status === 200 ? '200' : e.status === 'hang' ? 'timeout' : (String(e.status) as Classification['outcome']);
  return e.retryAfterMs !== undefined ? { outcome, retryAfterMs: e.retryAfterMs } : { outcome };
}

async function executed(row: Row): Promise<{ log: Decision[]; result: 'success' | RetryGiveUpError }> {
  const policy = resolveRetryPolicy(row.flags ? flagsPolicy(row.flags) : (row.policy as RetryPolicyInput));
  const deadline = row.flags?.deadlineMs !== undefined ? Number(row.flags.deadlineMs) : row.deadlineMs;
  const method = (row.flags?.method as Method | undefined) ?? row.method;
  const time = new FakeTime();
  const rec = recorder<ScriptEntry>();
  const needsState = (policy.spec.budget?.length ?? 0) > 0 || policy.spec.admission !== undefined;
  const call = retry(scriptedAttempt(time, parseScript(row.script)), policy, {
    clock: time.clock,
    sleep: time.sleep,
    random: () => row.draw,
    classify: classifyEntry,
    ...(deadline !== undefined ? { deadlineMs: deadline } : {}),
    ...(method !== undefined ? { method } : {}),
    ...(needsState ? { state: createRetryState(policy) } : {}),
    ...rec.hooks,
  });
  try {
    await time.run(call);
    rec.succeeded();
    return { log: rec.log, result: 'success' };
  } catch (e) {
    if (e instanceof RetryGiveUpError) return { log: rec.log, result: e };
    throw e;
  }
}

/** The trace timeline without the call line and the op/layer fields. */
function decisions(timeline: TraceEvent[]): Decision[] {
  return timeline
    .filter((e) => e.event !== 'call')
    .map((e) => {
      // `frame` is the call's row in the simulator's frame table, which the executor has no use for.
      const { op: _op, layer: _layer, frame: _frame, ...rest } = e as TraceEvent & { frame?: number };
      return rest as Decision;
    });
}

describe('retry makes the decisions retrystorm trace shows', () => {
  it.each(ROWS.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const { value: trace, calls: simulatorCalls } = await recordLoopCalls(() => simulated(row));
    const { value: executedRun, calls: executorCalls } = await recordLoopCalls(() => executed(row));
    const { log, result } = executedRun;
    expect(log).toEqual(decisions(trace.timeline));
    // Both run through the one RetryLoop: the same calls, with the same inputs and answers, and
    // every attempt's end decided by afterAttempt.
    expect(simulatorCalls).toEqual(executorCalls);
    expect(callsOf(simulatorCalls, 'afterAttempt')).toHaveLength(log.filter((d) => d.event === 'outcome').length);
    // The summary `retrystorm trace --json` prints.
    const attemptEvents = log.filter((d): d is Extract<Decision, { event: 'attempt' }> => d.event === 'attempt');
    // Every attempt after the first is asked of the loop (the first too where a deadline or an admission control can refuse it: firstAttemptAsks).
    expect(callsOf(simulatorCalls, 'beforeAttempt').length).toBeGreaterThanOrEqual(attemptEvents.length - 1);
    const waits = log.filter((d): d is Extract<Decision, { event: 'wait' }> => d.event === 'wait' && d.fits);
    expect(attemptEvents.map((a) => (Number.isFinite(a.timeoutMs) ? a.timeoutMs : null))).toEqual(trace.attemptTimeoutsMs);
    expect(waits.map((w) => w.waitMs)).toEqual(trace.waitsMs);
    expect(waits.map((w) => w.ceilingMs)).toEqual(trace.ceilingsMs);
    if (result === 'success') {
      expect(trace.outcome).toBe('success');
    } else {
      expect([result.reason, result.attempts, result.outcome]).toEqual([trace.outcome, trace.attempts, trace.lastOutcome]);
      expect(result.elapsedMs).toBe(trace.endMs);
    }
  });

  it('covers every give-up reason the table can reach', async () => {
    const reasons = new Set(ROWS.map((r) => simulated(r).outcome));
    expect([...reasons].sort()).toEqual(
      ['attempt-limit', 'budget-exhausted', 'circuit-open', 'deadline', 'not-retryable', 'retry-after-too-long', 'success', 'wait-exceeds-deadline'].sort(),
    );
  });
});

describe('nested retry calls make the decisions of a two-layer trace', () => {
  const CASES: Array<{ name: string; script: string; outer: RetryPolicyInput; inner: RetryPolicyInput; deadlineMs?: number }> = [
    {
      name: 'the inner layer gives up, the outer retries it',
      script: '503:100',
      outer: { maxAttempts: 2, backoff: { kind: 'constant', baseMs: 100 } },
      inner: { maxAttempts: 3, backoff: { kind: 'constant', baseMs: 50 } },
    },
    {
      name: 'the outer times out while the inner goes on (a timeout is not a cancellation)',
      script: '503:100,503:100,200:100',
      outer: { maxAttempts: 2, perAttemptTimeoutMs: 250, backoff: { kind: 'constant', baseMs: 100 } },
      inner: { maxAttempts: 3, backoff: { kind: 'constant', baseMs: 50 } },
    },
    {
      name: 'the deadline propagates down and shrinks the inner attempts',
      script: 'hang',
      outer: { maxAttempts: 3, perAttemptTimeoutMs: 400, backoff: { kind: 'full-jitter', baseMs: 100 } },
      inner: { maxAttempts: 3, perAttemptTimeoutMs: 150, backoff: { kind: 'equal-jitter', baseMs: 20 }, tickMs: 10 },
      deadlineMs: 1000,
    },
  ];

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const draw = 0.5;
    const { value: trace, calls: simulatorCalls } = await recordLoopCalls(() =>
      traceOperation(
      parseScenario({
        workload: { kind: 'burst', clients: 1, ...(c.deadlineMs !== undefined ? { deadlineMs: c.deadlineMs } : {}) },
        stack: [
          { name: 'app', policy: c.outer },
          { name: 'sdk', policy: c.inner },
        ],
        leaf: { kind: 'script', script: parseScript(c.script) },
      }),
      { seed: 1, fixedDraw: draw },
      ),
    );
    const time = new FakeTime();
    const log: Array<Decision & Record<string, unknown>> = [];
    const leaf = scriptedAttempt(time, parseScript(c.script));
    const common = { clock: time.clock, sleep: time.sleep, random: () => draw };
    const top = recorder<ScriptEntry>(log, { layer: 0 });
    // The layer below works to the end of the attempt it serves; no signal: the work is not cancelled.
    const sdk = ({ remainingMs }: { remainingMs: number }): Promise<ScriptEntry> => {
      const rec = recorder<ScriptEntry>(log, { layer: 1 });
      return retry(leaf, c.inner, {
        ...common,
        classify: classifyEntry,
        ...(Number.isFinite(remainingMs) ? { deadlineMs: remainingMs } : {}),
        ...rec.hooks,
      }).then((v) => {
        rec.succeeded();
        return v;
      });
    };
    const { calls: executorCalls } = await recordLoopCalls(async () => {
      const call = retry(sdk, c.outer, { ...common, ...(c.deadlineMs !== undefined ? { deadlineMs: c.deadlineMs } : {}), ...top.hooks });
      await time.run(call).then(top.succeeded, () => undefined);
      await time.advanceTo(trace.timeline[trace.timeline.length - 1]?.tMs ?? 0);
    });
    expect(log).toEqual(trace.timeline.filter((e) => e.event !== 'call').map((e) => {
        const { op: _op, frame: _frame, ...rest } = e as TraceEvent & { frame?: number };
        return rest;
      }));
    // Both layers of both run through the one RetryLoop, call for call.
    expect(simulatorCalls).toEqual(executorCalls);
    expect(new Set(callsOf(simulatorCalls, 'afterAttempt').map((a) => a.loop))).toEqual(new Set([0, 1]));
  });
});
