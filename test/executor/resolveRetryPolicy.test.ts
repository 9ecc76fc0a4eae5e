import { describe, expect, it } from 'vitest';
import { createRetryState, resolvePolicySpec, resolveRetryPolicy, RetryPolicyError, type RetryPolicyInput } from '../../src/executor/index.js';
import { policySchema } from '../../src/experiment/index.js';
import { BUDGET_KINDS } from '../../src/policy/budgets/RetryBudget.js';
import { ADMISSION_KINDS } from '../../src/policy/budgets/AdmissionControl.js';
import { PRESET_NAMES } from '../../src/policy/presets.js';

/** What an experiment file's policy resolves to (the simulator's reading of the same input). */
function simulatorReading(input: unknown): unknown {
  const r = policySchema.safeParse(input);
  if (!r.success) throw new Error(`the experiment schema rejects ${JSON.stringify(input)}: ${r.error.message}`);
  return r.data;
}

const INPUTS: RetryPolicyInput[] = [
  {},
  { maxAttempts: 'unlimited', perAttemptTimeoutMs: 250, deadlineMode: 'fresh', tickMs: 15.6 },
  { backoff: { kind: 'decorrelated-jitter', baseMs: 5, capMs: 'none' } },
  { backoff: { kind: 'randomized', randomizationFactor: 0.25, throttledBaseMs: 500 }, retryOn: ['503', '400'], idempotency: 'never' },
  { backoff: { kind: 'node-retry', randomize: true }, retryAfter: 'pushback', totalTimeoutMs: 1000, maxElapsedMs: 5000 },
  { backoff: { kind: 'random-exponential', minMs: 10 }, seeding: { kind: 'time-seeded', resolutionMs: 1000 } },
  { budget: [{ kind: 'token-bucket', retryCost: 7 }, { kind: 'circuit-breaker', minRequests: 3 }] },
  { admission: { kind: 'sre-adaptive', k: 1.1 } },
  { hedging: { maxAttempts: 3, hedgingDelayMs: 50 } },
  ...BUDGET_KINDS.map((kind): RetryPolicyInput => ({ budget: { kind } as RetryPolicyInput['budget'] })),
  ...ADMISSION_KINDS.map((kind): RetryPolicyInput => ({ admission: { kind } as RetryPolicyInput['admission'] })),
  ...PRESET_NAMES.map((preset): RetryPolicyInput => ({ preset })),
  { preset: 'grpc', maxAttempts: 5, backoff: { capMs: 2000 } },
  { preset: 'aws-sdk-js-standard', budget: { kind: 'token-bucket', capacity: 50 } },
  { preset: 'aws-sdk-js-standard', budget: { kind: 'sre-ratio' } },
  { preset: 'polly-v8', backoff: { kind: 'exponential' } },
];

describe('resolvePolicySpec reads a policy exactly as experiment files do', () => {
  it.each(INPUTS.map((i) => [JSON.stringify(i), i] as const))('%s', (_name, input) => {
    const spec = resolvePolicySpec(input);
    expect(spec).toEqual(simulatorReading(input));
    // A resolved policy resolves to itself.
    expect(resolvePolicySpec(spec)).toEqual(spec);
  });

  it('rejects what the experiment schema rejects, naming every field', () => {
    const bad = {
      maxAttempts: 0,
      backoff: { kind: 'fibonacci', baseMs: 50, capMs: 10 },
      retryOn: ['503', 'teapot'],
      budget: { kind: 'finagle', ttlMs: 10 },
      tickMs: -1,
      retries: 3,
    } as unknown as RetryPolicyInput;
    expect(policySchema.safeParse(bad).success).toBe(false);
    let problems: readonly string[] = [];
    try {
      resolvePolicySpec(bad);
    } catch (e) {
      expect(e).toBeInstanceOf(RetryPolicyError);
      problems = (e as RetryPolicyError).problems;
    }
    expect(problems).toEqual([
      'policy.retries is not a policy field (known: preset, maxAttempts, perAttemptTimeoutMs, deadlineMode, backoff, tickMs, retryOn, idempotency, retryAfter, totalTimeoutMs, maxElapsedMs, maxRetryAfterMs, seeding, budget, admission, hedging)',
      'policy.maxAttempts must be a positive integer or "unlimited" (got 0)',
      'policy.backoff.kind must be one of none, constant, exponential, full-jitter, equal-jitter, decorrelated-jitter, linear, aws-sdk-js, envoy, polly-decorrelated-v2, randomized, node-retry, random-exponential (got "fibonacci")',
      'policy.backoff.capMs must be >= baseMs (got 10 < 50)',
      'policy.tickMs must be >= 0 (got -1)',
      'policy.retryOn.1 must be one of timeout, 500, 503, 429, 400, 404, conflict, throttled, circuit-open, budget-exhausted (got "teapot")',
      'policy.budget.ttlMs must be between 1000 and 60000 (got 10)',
    ]);
  });

  it.each([
    [{ preset: 'aws-sdk' }, 'policy.preset must be a known preset'],
    [{ hedging: { maxAttempts: 3, hedgingDelayMs: 5 }, maxAttempts: 3 }, 'policy.hedging cannot be combined with maxAttempts above 1'],
    [{ perAttemptTimeoutMs: 0 }, 'policy.perAttemptTimeoutMs must be > 0 (got 0)'],
    [{ maxRetryAfterMs: 0 }, 'policy.maxRetryAfterMs must be > 0 (got 0)'],
    [{ maxRetryAfterMs: '5m' }, 'policy.maxRetryAfterMs must be a finite number > 0 (got "5m")'],
    [{ budget: { kind: 'quota' } }, 'policy.budget.kind must be one of sre-ratio'],
    [{ seeding: { kind: 'time-seeded' } }, 'policy.seeding.resolutionMs is required'],
  ])('rejects %j', (input, message) => {
    expect(policySchema.safeParse(input).success).toBe(false);
    expect(() => resolvePolicySpec(input as RetryPolicyInput)).toThrow(message);
  });

  it('a state made for one policy is accepted by another with the same budgets, in any key order', () => {
    const a = resolveRetryPolicy({ maxAttempts: 5, budget: { kind: 'token-bucket', capacity: 50, retryCost: 5 } });
    const b = resolveRetryPolicy({ maxAttempts: 2, budget: [{ retryCost: 5, capacity: 50, kind: 'token-bucket' }] });
    expect(createRetryState(a).stateKey).toBe(b.stateKey);
    expect(resolveRetryPolicy(a)).toBe(a);
  });
});
