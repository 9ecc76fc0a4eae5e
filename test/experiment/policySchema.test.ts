import { describe, expect, it } from 'vitest';
import {
  ADMISSION_KIND_NAMES,
  BACKOFF_KINDS,
  BUDGET_KIND_NAMES,
  expandExperiment,
  experimentJsonSchema,
  resolveScenario,
} from '../../src/experiment/index.js';
import type { Policy, Scenario } from '../../src/model/scenario.js';
import { BACKOFF_KINDS as POLICY_BACKOFF_KINDS } from '../../src/policy/backoff.js';
import { ADMISSION_KINDS } from '../../src/policy/budgets/AdmissionControl.js';
import { BUDGET_KINDS } from '../../src/policy/budgets/RetryBudget.js';
import { PRESET_NAMES } from '../../src/policy/presets.js';
import { jsonSchemaCheck } from '../helpers/jsonSchemaCheck.js';

type Json = Record<string, unknown>;

function resolve(policy: Json, leaf: Json = { kind: 'occ' }): Scenario {
  const result = resolveScenario({ workload: { kind: 'burst', clients: 1 }, stack: [{ policy }], leaf });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.scenario;
}

const policyOf = (policy: Json): Policy => resolve(policy).stack[0]!.policy;

describe('policy schema: budgets, admission, seeding, hedging', () => {
  it('offers exactly the kinds the policy module implements', () => {
    expect([...BACKOFF_KINDS]).toEqual(POLICY_BACKOFF_KINDS);
    expect([...BUDGET_KIND_NAMES]).toEqual(BUDGET_KINDS);
    expect([...ADMISSION_KIND_NAMES]).toEqual(ADMISSION_KINDS);
  });

  it('leaves the new fields out of a policy that does not set them', () => {
    expect(Object.keys(policyOf({})).sort()).toEqual(['backoff', 'deadlineMode', 'idempotency', 'maxAttempts', 'retryAfter', 'retryOn', 'tickMs']);
  });

  it('turns one budget into a list and fills each kind with its defaults', () => {
    expect(policyOf({ budget: { kind: 'sre-ratio' } }).budget).toEqual([{ kind: 'sre-ratio', ratio: 0.1, windowMs: 60_000 }]);
    expect(policyOf({ budget: [{ kind: 'token-bucket', retryCost: 7 }, { kind: 'circuit-breaker' }, { kind: 'server-wide' }] }).budget).toEqual([
      { kind: 'token-bucket', capacity: 500, retryCost: 7, timeoutCost: 10, serverErrorCost: 7, throttlingCost: 7, noRetryIncrement: 1 },
      { kind: 'circuit-breaker', threshold: 0.1, windowMs: 10_000, minRequests: 10 },
      { kind: 'server-wide', retriesPerMinute: 60 },
    ]);
    expect(policyOf({ budget: [{ kind: 'brooker-token-bucket' }, { kind: 'brooker-breaker' }, { kind: 'envoy-retry-budget' }] }).budget).toEqual([
      { kind: 'brooker-token-bucket', capacity: 5, creditPerCall: 0.1, retryCost: 1, minToRetry: 1, creditOn: 'call-start' },
      { kind: 'brooker-breaker', threshold: 0.1 },
      { kind: 'envoy-retry-budget', budgetPercent: 20, minRetryConcurrency: 3 },
    ]);
  });

  it('fills admission controls with their defaults', () => {
    expect(policyOf({ admission: { kind: 'sre-adaptive' } }).admission).toEqual({ kind: 'sre-adaptive', k: 2, windowMs: 120_000 });
    expect(policyOf({ admission: { kind: 'envoy-admission', aggression: 2 } }).admission).toEqual({
      kind: 'envoy-admission',
      windowMs: 30_000,
      aggression: 2,
      successRateThreshold: 0.95,
      maxRejectionProbability: 0.8,
      rpsThreshold: 0,
    });
  });

  it('keeps seeding modes as written', () => {
    expect(policyOf({ seeding: { kind: 'time-seeded', resolutionMs: 1000 } }).seeding).toEqual({ kind: 'time-seeded', resolutionMs: 1000 });
    expect(policyOf({ seeding: { kind: 'shared' } }).seeding).toEqual({ kind: 'shared' });
  });

  it('gives a hedging policy one attempt (no retries) and the default non-fatal classes', () => {
    const p = policyOf({ hedging: { maxAttempts: 3, hedgingDelayMs: 500 } });
    expect(p.maxAttempts).toBe(1);
    expect(p.hedging).toEqual({ maxAttempts: 3, hedgingDelayMs: 500, nonFatal: ['timeout', '500', '503'] });
    expect(policyOf({ maxAttempts: 1, hedging: { maxAttempts: 2, hedgingDelayMs: 1, nonFatal: ['503'] } }).hedging?.nonFatal).toEqual(['503']);
  });

  it('reads capMs "none" as no cap, and keeps the library fields of a backoff', () => {
    expect(policyOf({ backoff: { kind: 'node-retry', baseMs: 1000, capMs: 'none', randomize: true } }).backoff).toEqual({
      kind: 'node-retry',
      baseMs: 1000,
      capMs: Infinity,
      multiplier: 2,
      exponentOffset: 0,
      randomize: true,
    });
  });

  it('accepts the new Retry-After modes and layer time limits', () => {
    expect(policyOf({ retryAfter: 'pushback', totalTimeoutMs: 15_000, maxElapsedMs: 900_000 })).toMatchObject({
      retryAfter: 'pushback',
      totalTimeoutMs: 15_000,
      maxElapsedMs: 900_000,
    });
  });
});

describe('server leaf: shedding answer and pushback', () => {
  it('sheds with 503 by default, or "overloaded"; a pushback hint may be negative', () => {
    const leaf = (over: Json) => resolve({}, { kind: 'server', serviceMs: 1, ...over }).leaf;
    expect(leaf({})).toMatchObject({ shedStatus: 503 });
    expect(leaf({})).not.toHaveProperty('pushbackMs');
    expect(leaf({ shedStatus: 'overloaded', pushbackMs: -1 })).toMatchObject({ shedStatus: 'overloaded', pushbackMs: -1 });
  });
});

describe('presets in experiment files', () => {
  it('can be chosen by a variant, and an unknown one is blamed on it', () => {
    const root = {
      name: 'exp',
      scenario: { workload: { kind: 'burst', clients: 1 }, stack: [{ policy: { maxAttempts: 2 } }], leaf: { kind: 'occ' } },
      variants: { grpc: { 'stack.0.policy.preset': 'grpc' }, typo: { 'stack.0.policy.preset': 'envy' } },
    };
    expect(expandExperiment({ root }, { quick: false })).toEqual({
      ok: false,
      errors: ['variants.typo: scenario.stack.0.policy.preset must be a known preset (got "envy"; did you mean "envoy"?)'],
    });
    delete (root.variants as Json).typo;
    const result = expandExperiment({ root }, { quick: false });
    if (!result.ok) throw new Error(result.errors.join('\n'));
    const policy = result.plan.parts[0]!.cells[0]!.scenario.stack[0]!.policy;
    // The file's maxAttempts 2 wins over the preset's 4; the rest is the preset's.
    expect(policy).toMatchObject({ maxAttempts: 2, retryOn: ['503'], retryAfter: 'pushback', backoff: { capMs: 1000 } });
  });

  it('reports a hedging policy added to a preset with retries', () => {
    const result = resolveScenario({
      workload: { kind: 'burst', clients: 1 },
      stack: [{ policy: { preset: 'grpc', hedging: { maxAttempts: 3, hedgingDelayMs: 100 } } }],
      leaf: { kind: 'occ' },
    });
    expect(result.ok ? [] : result.errors).toEqual([
      'scenario.stack.0.policy.hedging cannot be combined with maxAttempts above 1 (got maxAttempts 4; a call has a retry policy or a hedging policy, not both: gRPC A6)',
    ]);
  });
});

describe('JSON Schema of the new policy fields', () => {
  const schema = experimentJsonSchema() as Record<string, any>;

  it('lists the presets, the Retry-After modes and the budget kinds', () => {
    const defs = schema.$defs;
    expect(defs.Policy.properties.preset.enum).toEqual(PRESET_NAMES);
    expect(defs.Policy.properties.retryAfter.enum).toEqual(['ignore', 'honor', 'honor-plus-jitter', 'replace', 'clamp', 'pushback']);
    expect(Object.keys(defs.Policy.properties)).toEqual(
      expect.arrayContaining(['preset', 'seeding', 'budget', 'admission', 'hedging', 'totalTimeoutMs', 'maxElapsedMs']),
    );
  });

  it('accepts a file using presets, budgets, admission, hedging and the server fields', () => {
    const file = {
      name: 'exp',
      scenario: {
        workload: { kind: 'burst', clients: 1 },
        stack: [
          { policy: { preset: 'aws-sdk-js-standard', budget: [{ kind: 'sre-ratio' }], admission: { kind: 'sre-adaptive' } } },
          { policy: { maxAttempts: 1, hedging: { maxAttempts: 2, hedgingDelayMs: 50 }, seeding: { kind: 'shared' } } },
          { policy: { backoff: { kind: 'node-retry', capMs: 'none' }, retryAfter: 'clamp' } },
        ],
        leaf: { kind: 'server', serviceMs: 1, shedStatus: 'overloaded', pushbackMs: -1 },
      },
    };
    expect(jsonSchemaCheck(schema, file)).toEqual([]);
    expect(resolveScenario(file.scenario).ok).toBe(true);
  });
});
