import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import type { Policy } from '../../src/model/scenario.js';
import { initialPrevSleepMs } from '../../src/policy/backoff.js';
import { compilePolicy } from '../../src/policy/decision.js';
import { planRetry, RetryPlan } from '../../src/policy/retrySteps.js';
import { Outcome } from '../../src/policy/outcome.js';
import { metricStats } from '../../src/metrics/metricStats.js';
import { simulate } from '../../src/simulate.js';
import { describePresetPolicy, describePresets } from '../../src/policy/describePresets.js';
import { PRESET_NAMES, PRESETS, type PresetName } from '../../src/policy/presets.js';

/** A preset resolved as an experiment file would resolve `"policy": { "preset": name, ...over }`. */
function resolved(name: string, over: Record<string, unknown> = {}): Policy {
  const result = resolveScenario({ workload: { kind: 'burst', clients: 1 }, stack: [{ policy: { preset: name, ...over } }], leaf: { kind: 'occ' } });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.scenario.stack[0]!.policy;
}

/** The planned waits of retries 1..n (n = the preset's retries unless given) for one fixed draw. */
function firstWaits(name: string, u: number, n?: number, outcome: number = Outcome.S503, hintMs = NaN): number[] {
  const spec = resolved(name);
  const p = compilePolicy(spec);
  const count = n ?? (spec.maxAttempts === 'unlimited' ? 4 : spec.maxAttempts - 1);
  const plan = new RetryPlan();
  let prev = initialPrevSleepMs(spec.backoff);
  const out: number[] = [];
  for (let r = 1; r <= count; r++) {
    planRetry(p, r, prev, hintMs, 0, Infinity, u, plan, { outcome, callStartMs: 0 });
    prev = plan.nextPrevSleepMs;
    out.push(plan.delayMs);
  }
  return out;
}

/** Polly's DecorrelatedJitterBackoffV2 for a 2 s base and one draw, from its published formula. */
function pollyV2(u: number, retries: number): number[] {
  let prev = 0;
  return Array.from({ length: retries }, (_, attempt) => {
    const t = attempt + u;
    const next = Math.pow(2, t) * Math.tanh(Math.sqrt(4 * t));
    const delay = ((next - prev) * 2000) / 1.4;
    prev = next;
    return delay;
  });
}

/** Each preset's first waits for a fixed draw u, by its published formula. */
const EXPECTED: Record<PresetName, Array<[u: number, waits: number[]]>> = {
  // floor(min(20 s, u x 2^retries x 100 ms))
  'aws-sdk-js-standard': [[0.5, [50, 100]], [0.999, [99, 199]]],
  'aws-sdk-js-standard-pre-4.3': [[0.5, [50, 100]], [0.999, [99, 199]]],
  // rand x min(2^(attempt - 1) s, 20 s)
  'botocore-standard': [[0.5, [500, 1000]], [0.25, [250, 500]]],
  // rand x 2^(attempt - 1) s, no cap
  'botocore-legacy': [[0.5, [500, 1000, 2000, 4000]], [0.999, [999, 1998, 3996, 7992]]],
  'aws-sdk-adaptive': [[0.5, [50, 100]]],
  // base 50 ms
  'aws-sdk-js-standard-2026': [[0.5, [25, 50]]],
  'botocore-standard-2026': [[0.5, [25, 50]]],
  // min(0.1 s x 2^(n - 1), 1 s) x U(0.8, 1.2)
  grpc: [[0.5, [100, 200, 400]], [0, [80, 160, 320]], [1, [120, 240, 480]]],
  // random(0, min(0.1 s x 2^(n - 1), 1 s))
  'grpc-js': [[0.5, [50, 100, 200]], [1, [100, 200, 400]]],
  // floor(u x min(25 ms x 2^(N - 1), 250 ms))
  envoy: [[0.5, [12]], [0.999, [24]]],
  finagle: [[0.5, Array.from({ length: 20 }, () => 0)]],
  'polly-v8': [[0.5, [2000, 2000, 2000]]],
  'polly-v8-exponential-jitter': [[0.5, pollyV2(0.5, 3)], [0.1, pollyV2(0.1, 3)]],
  'dotnet-http-resilience': [[0.5, pollyV2(0.5, 3)]],
  resilience4j: [[0.5, [500, 500]]],
  // 500 ms x 1.5^(n - 1) x [0.5, 1.5]
  'cenkalti-backoff': [[0.5, [500, 750, 1125, 1687.5]], [0, [250, 375, 562.5, 843.75]]],
  'google-http-client': [[0.5, [500, 750, 1125, 1687.5, 2531.25, 3796.875, 5695.3125, 8542.96875, 12814.453125, 19221.6796875]]],
  // round(1 s x 2^i)
  'npm-retry': [[0.5, [1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000]]],
  'p-retry': [[0.9, [1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000]]],
  // round((1 + u) x 1 s x 2^i)
  'async-retry': [[0.5, [1500, 3000, 6000, 12_000, 24_000, 48_000, 96_000, 192_000, 384_000, 768_000]]],
  // U(0, 1 s x 2^(n - 1))
  'tenacity-random-exponential': [[0.5, [500, 1000, 2000, 4000]]],
};

describe('presets', () => {
  it('has an expectation for every preset, and every preset resolves through the schema', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...PRESET_NAMES].sort());
    for (const name of PRESET_NAMES) expect(() => resolved(name)).not.toThrow();
  });

  it.each(PRESET_NAMES.flatMap((name) => EXPECTED[name].map(([u, waits]) => [name, u, waits] as const)))(
    '%s: first waits for draw %s match the published formula',
    (name, u, waits) => {
      const got = firstWaits(name, u, waits.length);
      expect(got).toHaveLength(waits.length);
      got.forEach((w, i) => expect(w).toBeCloseTo(waits[i] as number, 9));
    },
  );

  it('AWS SDKs: a throttling error uses the throttling base (500 ms; 1 s with the 2026 values)', () => {
    expect(firstWaits('aws-sdk-js-standard', 0.5, 2, Outcome.S429)).toEqual([250, 500]);
    expect(firstWaits('aws-sdk-js-standard-2026', 0.5, 2, Outcome.S429)).toEqual([500, 1000]);
    expect(firstWaits('botocore-standard-2026', 0.5, 2, Outcome.S429)).toEqual([500, 1000]);
    expect(firstWaits('botocore-standard', 0.5, 2, Outcome.S429)).toEqual([500, 1000]);
  });

  it('Retry-After: JS clamps it to [wait, wait + 5 s] from util-retry 4.3.0 and took it as an unbounded floor before, botocore 2.0 ignores it, the 2026 values clamp it, .NET replaces the delay', () => {
    expect(firstWaits('aws-sdk-js-standard', 0.5, 1, Outcome.S503, 3000)).toEqual([3000]);
    expect(firstWaits('aws-sdk-js-standard', 0.5, 1, Outcome.S503, 60_000)).toEqual([5050]);
    expect(firstWaits('aws-sdk-js-standard', 0.5, 1, Outcome.S503, 10)).toEqual([50]);
    expect(firstWaits('aws-sdk-js-standard-pre-4.3', 0.5, 1, Outcome.S503, 60_000)).toEqual([60_000]);
    expect(firstWaits('aws-sdk-js-standard-pre-4.3', 0.5, 1, Outcome.S503, 10)).toEqual([50]);
    expect(firstWaits('botocore-standard', 0.5, 1, Outcome.S503, 3000)).toEqual([500]);
    expect(firstWaits('botocore-standard-2026', 0.5, 1, Outcome.S503, 60_000)).toEqual([5025]);
    expect(firstWaits('dotnet-http-resilience', 0.5, 1, Outcome.S503, 300)).toEqual([300]);
    expect(firstWaits('grpc', 0.5, 2, Outcome.S503, 700)).toEqual([700, 700]);
  });

  it('carry the budgets and limits of their sources', () => {
    expect(resolved('aws-sdk-js-standard').budget).toEqual([
      { kind: 'token-bucket', capacity: 500, retryCost: 5, timeoutCost: 10, serverErrorCost: 10, throttlingCost: 5, noRetryIncrement: 1 },
    ]);
    expect(resolved('botocore-standard-2026').budget).toEqual([
      { kind: 'token-bucket', capacity: 500, retryCost: 14, timeoutCost: 14, serverErrorCost: 14, throttlingCost: 5, noRetryIncrement: 1 },
    ]);
    expect(resolved('aws-sdk-adaptive').admission).toEqual({
      kind: 'aws-adaptive',
      beta: 0.7,
      scaleConstant: 0.4,
      smooth: 0.8,
      minFillRate: 0.5,
      minCapacity: 1,
      bucketMs: 500,
    });
    expect(resolved('grpc').budget).toEqual([{ kind: 'grpc-throttle', maxTokens: 10, tokenRatio: 0.1 }]);
    expect(resolved('finagle').budget).toEqual([{ kind: 'finagle', ttlMs: 10_000, minRetriesPerSec: 10, percentCanRetry: 0.2 }]);
    expect(resolved('envoy')).toMatchObject({ maxAttempts: 2, totalTimeoutMs: 15_000, budget: [{ kind: 'envoy-max-retries', maxRetries: 3 }] });
    expect(resolved('cenkalti-backoff')).toMatchObject({ maxAttempts: 'unlimited', maxElapsedMs: 900_000 });
    expect(resolved('google-http-client')).toMatchObject({ maxAttempts: 11, maxElapsedMs: 900_000, retryOn: ['500', '503'] });
    expect(resolved('tenacity-random-exponential').maxAttempts).toBe('unlimited');
    expect(resolved('npm-retry').backoff.capMs).toBe(Infinity);
    expect(resolved('polly-v8')).toMatchObject({ maxAttempts: 4, backoff: { kind: 'constant', baseMs: 2000 } });
  });

  it('resolves overrides over the preset: fields deep-merge, then defaults fill the rest', () => {
    const p = resolved('aws-sdk-js-standard', { maxAttempts: 5, backoff: { baseMs: 200 }, tickMs: 10 });
    expect(p).toEqual({
      maxAttempts: 5,
      deadlineMode: 'propagate',
      backoff: { kind: 'aws-sdk-js', baseMs: 200, capMs: 20_000, multiplier: 2, exponentOffset: 0, throttledBaseMs: 500 },
      tickMs: 10,
      retryOn: ['timeout', '500', '503', '429'],
      idempotency: 'always',
      retryAfter: 'clamp',
      budget: [{ kind: 'token-bucket', capacity: 500, retryCost: 5, timeoutCost: 10, serverErrorCost: 10, throttlingCost: 5, noRetryIncrement: 1 }],
    });
    expect(Object.keys(p)).not.toContain('preset');
  });

  it('lets an override replace a list or a budget of another kind, or remove the budgets', () => {
    expect(resolved('grpc', { retryOn: ['503', 'timeout'] }).retryOn).toEqual(['503', 'timeout']);
    expect(resolved('grpc', { budget: { kind: 'sre-ratio' } }).budget).toEqual([{ kind: 'sre-ratio', ratio: 0.1, windowMs: 60_000 }]);
    expect(resolved('grpc', { budget: { maxTokens: 20 } }).budget).toEqual([{ kind: 'grpc-throttle', maxTokens: 20, tokenRatio: 0.1 }]);
    expect(resolved('grpc', { budget: [] }).budget).toEqual([]);
    expect(resolved('grpc', { backoff: { kind: 'exponential' } }).backoff).toEqual({
      kind: 'exponential',
      baseMs: 100,
      capMs: 20_000,
      multiplier: 2,
      exponentOffset: 0,
    });
  });

  it('does not let a resolved policy share objects with the preset table', () => {
    const p = resolved('grpc');
    p.retryOn.push('timeout');
    expect(PRESETS.grpc.policy.retryOn).toEqual(['503']);
    expect(resolved('grpc').retryOn).toEqual(['503']);
  });

  it('describes every preset with its parameters and source for `retrystorm presets`', () => {
    const rows = describePresets();
    expect(rows.map((r) => r.name)).toEqual(PRESET_NAMES);
    for (const row of rows) {
      expect(row.parameters).not.toBe('');
      expect(row.version).not.toBe('');
      expect(row.source).toMatch(/^[\w.-]+\/[\w.-]+:\S+$|^https:\/\//);
    }
    expect(rows.find((r) => r.name === 'grpc')).toEqual({
      name: 'grpc',
      parameters: '4 attempts; randomized 100 ms x 2^(r-1) +/-20%, interval cap 1 s; retry on 503; Retry-After: pushback; retry throttling maxTokens 10, tokenRatio 0.1',
      version: 'gRPC A6 as amended in August 2024 (grpc/proposal#452): grpc-go from #7869, grpc-java from #11858',
      source: 'grpc/proposal:A6-client-retries.md',
    });
  });
});

describe('the parameters text of a preset', () => {
  it('shows a budget field the preset leaves out at its kind\'s default', () => {
    expect(describePresetPolicy({ budget: { kind: 'token-bucket' } })).toBe(
      'retry quota 500 tokens, a retry costs 5 (timeout 10, 5xx 5, 429 5), a first-try success refunds 1',
    );
    expect(describePresetPolicy({ budget: { kind: 'token-bucket', retryCost: 7 } })).toBe(
      'retry quota 500 tokens, a retry costs 7 (timeout 10, 5xx 7, 429 7), a first-try success refunds 1',
    );
    expect(describePresetPolicy({ budget: [{ kind: 'finagle' }, { kind: 'envoy-retry-budget', budgetPercent: 25 }] })).toBe(
      'RetryBudget ttl 10 s, 10 retries/s reserve, 20% of requests; retry_budget 25% of active requests, at least 3',
    );
    expect(describePresetPolicy({ budget: { kind: 'sre-ratio' }, admission: { kind: 'aws-adaptive' } })).toBe(
      'retry ratio 10% over 60 s; CUBIC client-side rate limiter',
    );
  });

  it('shows randomized jitter at its default factor when the preset gives none', () => {
    expect(describePresetPolicy({ backoff: { kind: 'randomized', baseMs: 500, capMs: 60_000, multiplier: 1.5 } })).toBe(
      'randomized 500 ms x 1.5^(r-1) +/-50%, interval cap 60 s',
    );
  });
});

/**
 * The presets whose delay follows a library's current code, simulated: 200 operations start
 * together against a leaf that answers 503 to the first attempt and 200 to the second, with no
 * network delay, so an operation's latency is its first wait. Budgets are removed so that every
 * operation retries. Ten runs (seeds 1..10); the 95% interval of their mean latencies must hold
 * the formula's mean first wait.
 */
describe('simulated, the mean first wait of a preset is its formula\'s mean', () => {
  const cases: Array<[PresetName, number, string]> = [
    ['grpc', 100, '0.1 s x U(0.8, 1.2)'],
    ['grpc-js', 50, 'U(0, 0.1 s)'],
    ['envoy', 12, 'an integer uniform on [0, 25) ms'],
    ['aws-sdk-js-standard', 49.5, 'floor(U x 100 ms)'],
    ['aws-sdk-js-standard-pre-4.3', 49.5, 'floor(U x 100 ms)'],
    ['botocore-legacy', 500, 'U x 1 s'],
    ['botocore-standard', 500, 'U x min(1 s, 20 s)'],
  ];
  it.each(cases)('%s: %s ms (%s)', (name, meanMs) => {
    const scenario = {
      workload: { kind: 'burst', clients: 200 },
      stack: [{ policy: { preset: name, budget: [] } }],
      leaf: { kind: 'script', script: [{ status: 503, durationMs: 0 }, { status: 200, durationMs: 0 }] },
    };
    const means = Array.from({ length: 10 }, (_, i) => {
      const r = simulate(scenario, { seed: i + 1 });
      expect(r.operations.succeeded).toBe(200);
      return r.latencyMs.mean as number;
    });
    const m = metricStats(means);
    expect(m.ci95[0] <= meanMs && meanMs <= m.ci95[1], `${meanMs} in [${m.ci95.join(', ')}]`).toBe(true);
  });
});
