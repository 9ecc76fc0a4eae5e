import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRetryState, resolvePolicySpec, resolveRetryPolicy, RetryPolicyError, type RetryPolicyInput } from '../../src/executor/index.js';
import { POLICY_FIELD_NAMES, resolveScenario } from '../../src/experiment/index.js';
import { ADMISSION_KINDS } from '../../src/policy/budgets/AdmissionControl.js';
import { BUDGET_KINDS } from '../../src/policy/budgets/RetryBudget.js';
import { PRESET_NAMES } from '../../src/policy/presets.js';

/** The prefix experiment files put before a problem of a one-layer scenario's policy. */
const FILE_PREFIX = 'scenario.stack.0.policy';

/** How an experiment file reads a policy: the resolved policy, or its problems with the path after `policy`. */
function fileReading(policy: unknown): { ok: true; spec: unknown } | { ok: false; problems: string[] } {
  const r = resolveScenario({ workload: { kind: 'burst', clients: 1 }, stack: [{ policy }], leaf: { kind: 'occ' } });
  if (r.ok) return { ok: true, spec: r.scenario.stack[0]?.policy };
  return { ok: false, problems: r.errors.map((e) => (e.startsWith(FILE_PREFIX) ? `policy${e.slice(FILE_PREFIX.length)}` : `not a policy problem: ${e}`)) };
}

/** How `retry()` reads a policy. */
function codeReading(policy: unknown): { ok: true; spec: unknown } | { ok: false; problems: string[] } {
  try {
    return { ok: true, spec: resolvePolicySpec(policy as RetryPolicyInput) };
  } catch (e) {
    if (!(e instanceof RetryPolicyError)) throw e;
    return { ok: false, problems: [...e.problems] };
  }
}

function problemsOf(r: ReturnType<typeof codeReading>): string[] {
  return r.ok ? [] : r.problems;
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

/**
 * For every field of the policy schema (the compiler asks for a row when a field is added): a value
 * both entry points accept and one both reject.
 */
const FIELD_CASES: Record<(typeof POLICY_FIELD_NAMES)[number], { valid: unknown; invalid: unknown }> = {
  preset: { valid: 'envoy', invalid: 'envy' },
  maxAttempts: { valid: 'unlimited', invalid: 1.5 },
  perAttemptTimeoutMs: { valid: 250, invalid: 0 },
  deadlineMode: { valid: 'fresh', invalid: 'stale' },
  backoff: { valid: { kind: 'equal-jitter', baseMs: 20, capMs: 'none' }, invalid: { baseMs: 50, capMs: 10 } },
  tickMs: { valid: 15.6, invalid: -1 },
  retryOn: { valid: ['503', 'conflict'], invalid: ['503', 'teapot'] },
  idempotency: { valid: 'always', invalid: 'sometimes' },
  retryAfter: { valid: 'clamp', invalid: 'obey' },
  totalTimeoutMs: { valid: 1000, invalid: Infinity },
  maxElapsedMs: { valid: 5000, invalid: '5s' },
  maxRetryAfterMs: { valid: 60_000, invalid: -5 },
  seeding: { valid: { kind: 'shared' }, invalid: { kind: 'time-seeded' } },
  budget: { valid: { kind: 'finagle', ttlMs: 2000 }, invalid: [{ kind: 'finagle', ttlMs: 10 }, { kind: 'quota' }] },
  admission: { valid: { kind: 'envoy-admission', aggression: 2 }, invalid: { kind: 'envoy-admission', aggression: 0.5 } },
  hedging: { valid: { maxAttempts: 3, hedgingDelayMs: 50 }, invalid: { maxAttempts: 1, hedgingDelayMs: 50 } },
  retryHostPredicate: { valid: 'previous-hosts', invalid: 'other-hosts' },
};

describe('one validator of a policy: experiment files and retry() read it with the same schema', () => {
  it.each(INPUTS.map((i) => [JSON.stringify(i), i] as const))('resolves %s as an experiment file does', (_name, input) => {
    const file = fileReading(input);
    expect(file.ok).toBe(true);
    const spec = resolvePolicySpec(input);
    expect(file.ok && file.spec).toEqual(spec);
    // A resolved policy (capMs +Infinity included) resolves to itself.
    expect(resolvePolicySpec(spec)).toEqual(spec);
  });

  it('has a row for every field of the schema, and the schema knows no other field', () => {
    expect(Object.keys(FIELD_CASES).sort()).toEqual([...POLICY_FIELD_NAMES].sort());
    expect(problemsOf(codeReading({ retries: 3 }))).toEqual(['policy.retries is not a known field']);
    expect(fileReading({ retries: 3 })).toEqual({ ok: false, problems: ['policy.retries is not a known field'] });
  });

  it.each(Object.entries(FIELD_CASES))('%s: accepted by one is accepted by the other, rejected the same way', (field, { valid, invalid }) => {
    const file = fileReading({ [field]: valid });
    const code = codeReading({ [field]: valid });
    expect(file.ok).toBe(true);
    if (field === 'retryHostPredicate') {
      // The one field retry() refuses (see the test below); the schema's own check of its value is shared.
      expect(code.ok).toBe(false);
    } else {
      expect(code).toEqual(file);
    }
    const badFile = fileReading({ [field]: invalid });
    const badCode = codeReading({ [field]: invalid });
    expect(badFile.ok).toBe(false);
    expect(problemsOf(badCode).filter((p) => !p.startsWith('policy.retryHostPredicate is not supported'))).toEqual(problemsOf(badFile));
    expect(problemsOf(badFile).every((p) => p.startsWith(`policy.${field}`))).toBe(true);
  });

  it('rejects what experiment files reject, naming every field and its rule', () => {
    const bad = {
      maxAttempts: 0,
      backoff: { kind: 'fibonacci', baseMs: 50, capMs: 10 },
      retryOn: ['503', 'teapot'],
      budget: { kind: 'finagle', ttlMs: 10 },
      tickMs: -1,
      retries: 3,
    };
    const expected = [
      'policy.maxAttempts must be a positive integer or "unlimited" (got 0)',
      'policy.backoff.kind must be one of none, constant, exponential, full-jitter, equal-jitter, decorrelated-jitter, linear, aws-sdk-js, envoy, polly-decorrelated-v2, randomized, node-retry, random-exponential (got "fibonacci")',
      'policy.tickMs must be >= 0 (got -1)',
      'policy.retryOn.1 must be one of timeout, 500, 503, 429, 400, 404, conflict, throttled, circuit-open, budget-exhausted, bulkhead-full, 502, 504, reset, connect-failure, refused-stream, cancelled, unavailable, resource-exhausted, deadline-exceeded, aborted, internal, unknown, 5xx, gateway-error, retriable-4xx (got "teapot")',
      'policy.budget.ttlMs must be between 1000 and 60000 (got 10)',
      'policy.retries is not a known field',
    ];
    expect(fileReading(bad)).toEqual({ ok: false, problems: expected });
    let thrown: unknown;
    try {
      resolvePolicySpec(bad as unknown as RetryPolicyInput);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(RetryPolicyError);
    expect((thrown as RetryPolicyError).problems).toEqual(expected);
    expect((thrown as RetryPolicyError).message).toBe(expected.join('\n'));
  });

  it.each([
    [{ preset: 'aws-sdk' }, 'policy.preset must be a known preset (got "aws-sdk"; known presets: aws-sdk-js-standard,'],
    [{ preset: 'envy' }, 'policy.preset must be a known preset (got "envy"; did you mean "envoy"?)'],
    [{ hedging: { maxAttempts: 3, hedgingDelayMs: 5 }, maxAttempts: 3 }, 'policy.hedging cannot be combined with maxAttempts above 1'],
    [{ backoff: { baseMs: 50, capMs: 10 } }, 'policy.backoff.capMs must be >= baseMs (got 10 < 50)'],
    [{ perAttemptTimeoutMs: 0 }, 'policy.perAttemptTimeoutMs must be > 0 (got 0)'],
    [{ maxRetryAfterMs: '5m' }, 'policy.maxRetryAfterMs must be a number > 0 (got "5m")'],
    [{ budget: { kind: 'quota' } }, 'policy.budget.kind must be one of sre-ratio'],
    [{ seeding: { kind: 'time-seeded' } }, 'policy.seeding.resolutionMs is required'],
    [null, 'policy must be an object (got null)'],
  ])('rejects %j naming the field', (input, message) => {
    expect(() => resolvePolicySpec(input as RetryPolicyInput)).toThrow(message);
  });

  it('names fields from the path it is given', () => {
    expect(() => resolvePolicySpec({ tickMs: -1 }, 'options.policy')).toThrow(/^options\.policy\.tickMs must be >= 0 \(got -1\)$/);
  });

  it("maps code's spelling explicitly: undefined is absent, capMs Infinity is \"none\"", () => {
    const spelled = { perAttemptTimeoutMs: undefined, backoff: { capMs: Infinity, baseMs: undefined }, budget: [{ kind: 'sre-ratio', ratio: undefined }] };
    expect(resolvePolicySpec(spelled as unknown as RetryPolicyInput)).toEqual(
      resolvePolicySpec({ backoff: { capMs: 'none' }, budget: [{ kind: 'sre-ratio' }] }),
    );
    expect(resolvePolicySpec({ backoff: { capMs: Infinity } }).backoff.capMs).toBe(Infinity);
    // An undefined field does not override a preset's value.
    expect(resolvePolicySpec({ preset: 'grpc', maxAttempts: undefined }).maxAttempts).toBe(resolvePolicySpec({ preset: 'grpc' }).maxAttempts);
    // An experiment file (JSON) has neither spelling: Infinity is not a number there.
    expect(fileReading({ backoff: { capMs: Infinity } })).toEqual({ ok: false, problems: ['policy.backoff.capMs must be a number >= 0 or "none" (got Infinity)'] });
  });

  it('refuses retryHostPredicate, which needs a pool of backends, naming the field and the rule', () => {
    expect(problemsOf(codeReading({ retryHostPredicate: 'previous-hosts' }))).toEqual([
      'policy.retryHostPredicate is not supported by retry() and retryingFetch (it chooses among the backends of a pool; they call one target)',
    ]);
    expect(problemsOf(codeReading({ retryHostPredicate: 'previous-hosts', tickMs: -1 }))).toEqual([
      'policy.retryHostPredicate is not supported by retry() and retryingFetch (it chooses among the backends of a pool; they call one target)',
      'policy.tickMs must be >= 0 (got -1)',
    ]);
  });

  it('has no validator of its own: the executor reads policies through src/policy/schema and never imports zod', () => {
    const source = readFileSync('src/executor/resolveRetryPolicy.ts', 'utf8');
    expect(source).toMatch(/from '\.\.\/policy\/schema\/policySchema\.js'/);
    expect(source).not.toMatch(/from 'zod'/);
    expect(readFileSync('src/experiment/scenarioSchema.ts', 'utf8')).toMatch(/policy: policySchema\.prefault\(\{\}\)/);
  });

  it('a state made for one policy is accepted by another with the same budgets, in any key order', () => {
    const a = resolveRetryPolicy({ maxAttempts: 5, budget: { kind: 'token-bucket', capacity: 50, retryCost: 5 } });
    const b = resolveRetryPolicy({ maxAttempts: 2, budget: [{ retryCost: 5, capacity: 50, kind: 'token-bucket' }] });
    expect(createRetryState(a).stateKey).toBe(b.stateKey);
    expect(resolveRetryPolicy(a)).toBe(a);
  });
});
