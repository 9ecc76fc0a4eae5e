import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scenario.js';
import { parseExperiment, resolveScenario, validateExperiment } from '../../src/experiment/index.js';

type Json = Record<string, unknown>;

/** A valid scenario as a user would write it (defaults left out). */
function scenario(): Json {
  return {
    workload: { kind: 'burst', clients: 10 },
    stack: [{ name: 'app' }, { name: 'sdk' }],
    leaf: { kind: 'server', serviceMs: 10 },
  };
}

function file(patch: (s: Json) => void = () => {}, top: Json = {}): Json {
  const s = scenario();
  patch(s);
  return { name: 'exp', scenario: s, ...top };
}

describe('validateExperiment', () => {
  it('accepts a minimal file', () => {
    expect(validateExperiment(file())).toEqual([]);
  });

  const invalid: Array<[string, unknown, string[]]> = [
    ['a seed that is not an integer', { ...file(), seed: 'abc' }, ['seed must be an integer (got "abc")']],
    ['an unsupported schemaVersion', { ...file(), schemaVersion: 2 }, ['schemaVersion 2 is not supported (this version reads 1)']],
    ['a name that is not a slug', { ...file(), name: 'My Exp' }, ['name must be a lowercase slug like "aws-jitter-2015" (got "My Exp")']],
    ['a missing name', { scenario: scenario() }, ['name is required']],
    ['neither scenario nor parts', { name: 'exp' }, ['scenario is required (or parts, for several scenarios)']],
    [
      'both scenario and parts',
      { ...file(), parts: [{ name: 'a', scenario: scenario() }] },
      ['parts cannot be combined with scenario (an experiment has one scenario, or parts)'],
    ],
    ['zero replications', { ...file(), replications: 0 }, ['replications must be a positive integer (got 0)']],
    ['zero clients', file((s) => ((s.workload as Json).clients = 0)), ['scenario.workload.clients must be a positive integer (got 0)']],
    [
      'a negative duration',
      file((s) => (s.workload = { kind: 'closed', clients: 5, durationMs: -5 })),
      ['scenario.workload.durationMs must be > 0 (got -5)'],
    ],
    ['a missing leaf', file((s) => delete s.leaf), ['scenario.leaf is required']],
    [
      'a misspelt field',
      file((s) => ((s.stack as Json[])[0] = { polcy: {} })),
      ['scenario.stack.0.polcy is not a known field (did you mean "policy"?)'],
    ],
    ['an unknown field far from any known one', { ...file(), colour: 'red' }, ['colour is not a known field']],
    [
      'an unknown backoff kind',
      file((s) => ((s.stack as Json[])[0] = { policy: { backoff: { kind: 'jitter' } } })),
      [
        'scenario.stack.0.policy.backoff.kind must be one of none, constant, exponential, full-jitter, equal-jitter, decorrelated-jitter, linear, aws-sdk-js, envoy, polly-decorrelated-v2, randomized, node-retry, random-exponential (got "jitter")',
      ],
    ],
    [
      'a cap below the base',
      file((s) => ((s.stack as Json[])[1] = { policy: { backoff: { baseMs: 50, capMs: 10 } } })),
      ['scenario.stack.1.policy.backoff.capMs must be >= baseMs (got 10 < 50)'],
    ],
    [
      'zero attempts',
      file((s) => ((s.stack as Json[])[0] = { policy: { maxAttempts: 0 } })),
      ['scenario.stack.0.policy.maxAttempts must be a positive integer or "unlimited" (got 0)'],
    ],
    [
      'a probability above 1',
      file((s) => ((s.leaf as Json).faults = [{ probability: 1.5 }])),
      ['scenario.leaf.faults.0.probability must be between 0 and 1 (got 1.5)'],
    ],
    [
      'a fault window that ends before it starts',
      file((s) => ((s.leaf as Json).faults = [{ fromMs: 100, toMs: 100, probability: 0.5 }])),
      ['scenario.leaf.faults.0.toMs must be > fromMs (got 100 <= 100)'],
    ],
    [
      'a fault status given as a string',
      file((s) => ((s.leaf as Json).faults = [{ probability: 0.5, status: '503' }])),
      ['scenario.leaf.faults.0.status must be one of 400, 404, 409, 429, 500, 502, 503, 504, "timeout", "reset", "connect-failure", "refused-stream", "cancelled", "unavailable", "resource-exhausted", "deadline-exceeded", "aborted", "internal", "unknown" (got "503")'],
    ],
    [
      'an unknown workload kind',
      file((s) => (s.workload = { kind: 'bursty', clients: 1 })),
      ['scenario.workload.kind must be one of burst, closed, open (got "bursty")'],
    ],
    ['a workload without kind', file((s) => (s.workload = { clients: 1 })), ['scenario.workload.kind is required']],
    ['an empty stack', file((s) => (s.stack = [])), ['scenario.stack must have 1 to 16 layers (got 0)']],
    ['17 layers', file((s) => (s.stack = Array.from({ length: 17 }, () => ({})))), ['scenario.stack must have 1 to 16 layers (got 17)']],
    [
      'an unknown distribution',
      file((s) => ((s.leaf as Json).serviceMs = { dist: 'gamma', mean: 1 })),
      ['scenario.leaf.serviceMs.dist must be one of constant, uniform, exponential, normal, abs-normal, lognormal, histogram, samples (got "gamma")'],
    ],
    ['a negative constant time', file((s) => ((s.leaf as Json).serviceMs = -3)), ['scenario.leaf.serviceMs must be >= 0 (got -3)']],
    [
      'a distribution given as a word',
      file((s) => ((s.leaf as Json).serviceMs = 'fast')),
      ['scenario.leaf.serviceMs must be a number >= 0 or a distribution object (got "fast")'],
    ],
    [
      'a uniform distribution with max below min',
      file((s) => ((s.leaf as Json).serviceMs = { dist: 'uniform', min: 5, max: 1 })),
      ['scenario.leaf.serviceMs.max must be >= min (got 1 < 5)'],
    ],
    [
      'an exponential mean that is not a number',
      file((s) => ((s.leaf as Json).serviceMs = { dist: 'exponential', mean: 'x' })),
      ['scenario.leaf.serviceMs.mean must be a number > 0 (got "x")'],
    ],
    [
      'a zero rate',
      file((s) => (s.workload = { kind: 'open', rate: 0, durationMs: 1000 })),
      ['scenario.workload.rate must be > 0 (got 0)'],
    ],
    [
      'a step schedule that never sends anything',
      file((s) => (s.workload = { kind: 'open', rate: { kind: 'step', ratePerSec: 0, atMs: 5, toRatePerSec: 0 }, durationMs: 1000 })),
      ['scenario.workload.rate must have ratePerSec or toRatePerSec > 0 (got 0 and 0)'],
    ],
    [
      'ramp points out of order',
      file(
        (s) =>
          (s.workload = {
            kind: 'open',
            rate: { kind: 'ramp', points: [{ atMs: 0, ratePerSec: 1 }, { atMs: 500, ratePerSec: 2 }, { atMs: 500, ratePerSec: 3 }] },
            durationMs: 1000,
          }),
      ),
      ['scenario.workload.rate.points.2.atMs must be > points.1.atMs (got 500 <= 500)'],
    ],
    [
      'a ramp with one point',
      file((s) => (s.workload = { kind: 'open', rate: { kind: 'ramp', points: [{ atMs: 0, ratePerSec: 1 }] }, durationMs: 1000 })),
      ['scenario.workload.rate.points must have at least 2 entries (got 1)'],
    ],
    [
      'an unknown method',
      file((s) => ((s.workload as Json).method = 'PATCH')),
      ['scenario.workload.method must be one of GET, HEAD, PUT, DELETE, POST (got "PATCH")'],
    ],
    [
      'an unknown retryable class',
      file((s) => ((s.stack as Json[])[0] = { policy: { retryOn: ['timeout', 502] } })),
      [
        'scenario.stack.0.policy.retryOn.1 must be one of timeout, 500, 503, 429, 400, 404, conflict, throttled, circuit-open, budget-exhausted, bulkhead-full, 502, 504, reset, connect-failure, refused-stream, cancelled, unavailable, resource-exhausted, deadline-exceeded, aborted, internal, unknown, 5xx, gateway-error, retriable-4xx (got 502)',
      ],
    ],
    [
      'queue limit and concurrency out of range',
      file((s) => Object.assign(s.leaf as Json, { queueLimit: -1, concurrency: 'lots' })),
      [
        'scenario.leaf.concurrency must be a positive integer or "unlimited" (got "lots")',
        'scenario.leaf.queueLimit must be an integer >= 0 or "unlimited" (got -1)',
      ],
    ],
    [
      'bad script entries',
      file((s) => (s.leaf = { kind: 'script', script: ['503:abc', 5, ''] })),
      [
        'scenario.leaf.script.0 has an invalid entry "503:abc": durationMs must be a number of ms from 0 to 1,000,000,000,000 (got "abc")',
        'scenario.leaf.script.1 must be a script string like "503:250" or an entry object (got 5)',
        'scenario.leaf.script.2 must not be empty (expected entries like "503:250")',
      ],
    ],
    [
      'a hanging script with nothing to end the wait',
      file((s) => (s.leaf = { kind: 'script', script: ['503:10*2,hang'] })),
      [
        'scenario.leaf.script contains "hang" (or "timeout" without a duration) but no layer sets policy.perAttemptTimeoutMs and the workload has no deadlineMs (the operation would never end)',
      ],
    ],
    [
      'an unknown preset, with the nearest name',
      file((s) => ((s.stack as Json[])[0] = { policy: { preset: 'aws-sdk-js-standrd' } })),
      ['scenario.stack.0.policy.preset must be a known preset (got "aws-sdk-js-standrd"; did you mean "aws-sdk-js-standard"?)'],
    ],
    [
      'a preset that is not a name',
      file((s) => ((s.stack as Json[])[0] = { policy: { preset: 3 } })),
      ['scenario.stack.0.policy.preset must be a preset name (got 3)'],
    ],
    [
      'a misspelt preset key',
      file((s) => ((s.stack as Json[])[0] = { policy: { prest: 'grpc' } })),
      ['scenario.stack.0.policy.prest is not a known field (did you mean "preset"?)'],
    ],
    [
      'an unknown budget kind',
      file((s) => ((s.stack as Json[])[0] = { policy: { budget: { kind: 'leaky-bucket' } } })),
      [
        'scenario.stack.0.policy.budget.kind must be one of sre-ratio, token-bucket, brooker-token-bucket, grpc-throttle, finagle, envoy-retry-budget, envoy-max-retries, circuit-breaker, brooker-breaker, server-wide (got "leaky-bucket")',
      ],
    ],
    [
      'budget fields out of range in a list of budgets',
      file((s) => ((s.stack as Json[])[0] = { policy: { budget: [{ kind: 'sre-ratio', ratio: 2 }, { kind: 'envoy-retry-budget', budgetPercent: 120 }] } })),
      [
        'scenario.stack.0.policy.budget.0.ratio must be between 0 and 1 (got 2)',
        'scenario.stack.0.policy.budget.1.budgetPercent must be between 0 and 100 (got 120)',
      ],
    ],
    [
      'a misspelt budget field',
      file((s) => ((s.stack as Json[])[0] = { policy: { budget: { kind: 'token-bucket', capcity: 10 } } })),
      ['scenario.stack.0.policy.budget.capcity is not a known field (did you mean "capacity"?)'],
    ],
    [
      'a budget that is neither an object nor a list',
      file((s) => ((s.stack as Json[])[0] = { policy: { budget: 'none' } })),
      ['scenario.stack.0.policy.budget must be a budget object or a list of budget objects (got "none")'],
    ],
    [
      'a Finagle ttl outside 1 s to 60 s',
      file((s) => ((s.stack as Json[])[0] = { policy: { budget: { kind: 'finagle', ttlMs: 500 } } })),
      ['scenario.stack.0.policy.budget.ttlMs must be between 1000 and 60000 (got 500)'],
    ],
    [
      'an unknown admission kind',
      file((s) => ((s.stack as Json[])[0] = { policy: { admission: { kind: 'adaptive' } } })),
      ['scenario.stack.0.policy.admission.kind must be one of sre-adaptive, envoy-admission, aws-adaptive (got "adaptive")'],
    ],
    [
      'an admission aggression below 1',
      file((s) => ((s.stack as Json[])[0] = { policy: { admission: { kind: 'envoy-admission', aggression: 0.5 } } })),
      ['scenario.stack.0.policy.admission.aggression must be >= 1 (got 0.5)'],
    ],
    [
      'hedging beside retries',
      file((s) => ((s.stack as Json[])[0] = { policy: { maxAttempts: 3, hedging: { maxAttempts: 3, hedgingDelayMs: 100 } } })),
      [
        'scenario.stack.0.policy.hedging cannot be combined with maxAttempts above 1 (got maxAttempts 3; a call has a retry policy or a hedging policy, not both: gRPC A6)',
      ],
    ],
    [
      'hedging without a delay and with one copy',
      file((s) => ((s.stack as Json[])[0] = { policy: { hedging: { maxAttempts: 1 } } })),
      ['scenario.stack.0.policy.hedging.maxAttempts must be an integer >= 2 (got 1)', 'scenario.stack.0.policy.hedging.hedgingDelayMs is required'],
    ],
    [
      'time-seeded seeding without a resolution',
      file((s) => ((s.stack as Json[])[0] = { policy: { seeding: { kind: 'time-seeded' } } })),
      ['scenario.stack.0.policy.seeding.resolutionMs is required'],
    ],
    [
      'an unknown seeding mode',
      file((s) => ((s.stack as Json[])[0] = { policy: { seeding: { kind: 'random' } } })),
      ['scenario.stack.0.policy.seeding.kind must be one of independent, shared, time-seeded (got "random")'],
    ],
    [
      'a cap that is neither a number nor "none"',
      file((s) => ((s.stack as Json[])[0] = { policy: { backoff: { capMs: 'infinite' } } })),
      ['scenario.stack.0.policy.backoff.capMs must be a number >= 0 or "none" (got "infinite")'],
    ],
    [
      'a randomization factor above 1',
      file((s) => ((s.stack as Json[])[0] = { policy: { backoff: { kind: 'randomized', randomizationFactor: 1.5 } } })),
      ['scenario.stack.0.policy.backoff.randomizationFactor must be between 0 and 1 (got 1.5)'],
    ],
    [
      'an unknown Retry-After mode',
      file((s) => ((s.stack as Json[])[0] = { policy: { retryAfter: 'respect' } })),
      ['scenario.stack.0.policy.retryAfter must be one of ignore, honor, honor-plus-jitter, replace, clamp, pushback (got "respect")'],
    ],
    [
      'a zero total timeout and max elapsed time',
      file((s) => ((s.stack as Json[])[0] = { policy: { totalTimeoutMs: 0, maxElapsedMs: -1 } })),
      ['scenario.stack.0.policy.totalTimeoutMs must be > 0 (got 0)', 'scenario.stack.0.policy.maxElapsedMs must be > 0 (got -1)'],
    ],
    [
      'a server shedding an unknown status',
      file((s) => ((s.leaf as Json).shedStatus = 502)),
      ['scenario.leaf.shedStatus must be one of 503, "overloaded" (got 502)'],
    ],
    [
      'a pushback hint beside a shed Retry-After',
      file((s) => Object.assign(s.leaf as Json, { pushbackMs: 100, shedRetryAfterMs: 1000 })),
      ['scenario.leaf.pushbackMs cannot be combined with shedRetryAfterMs (a shed answer carries one hint: Retry-After or gRPC pushback)'],
    ],
    ['a pushback hint that is not a number', file((s) => ((s.leaf as Json).pushbackMs = 'never')), ['scenario.leaf.pushbackMs must be a number (got "never")']],
    ['a non-finite pushback hint', file((s) => ((s.leaf as Json).pushbackMs = -Infinity)), ['scenario.leaf.pushbackMs must be a finite number (got -Infinity)']],
    ['a non-finite number', file((s) => (s.horizonMs = Infinity)), ['scenario.horizonMs must be a finite number > 0 (got Infinity)']],
    ['NaN', file((s) => (s.warmupMs = NaN)), ['scenario.warmupMs must be a finite number >= 0 (got NaN)']],
    [
      'zip axes of different lengths',
      { ...file(), sweep: { zip: { 'workload.clients': [1, 2], 'leaf.serviceMs': [1] } } },
      ['sweep.zip.leaf.serviceMs has 1 values but zip.workload.clients has 2 (zip axes move together and need the same length)'],
    ],
    ['an empty grid axis', { ...file(), sweep: { grid: { 'workload.clients': [] } } }, ['sweep.grid.workload.clients must have at least 1 entry (got 0)']],
    [
      'two parts with one name',
      { name: 'exp', parts: [{ name: 'a', scenario: scenario() }, { name: 'a', scenario: scenario() }] },
      ['parts.1.name must be unique (got "a", also parts.0.name)'],
    ],
    [
      'top-level variants beside parts',
      { name: 'exp', parts: [{ name: 'a', scenario: scenario() }], variants: { x: {} } },
      ['variants cannot be combined with parts (give each part its own variants)'],
    ],
    ['a root that is not an object', [1, 2], ['the experiment must be a JSON object (got an array)']],
  ];

  it.each(invalid)('rejects %s with exact messages', (_what, input, messages) => {
    expect(validateExperiment(input)).toEqual(messages);
  });

  it('reports every problem at once, structural and in the scenario', () => {
    const input = file(
      (s) => {
        (s.workload as Json).clients = 0;
        delete s.leaf;
        (s.stack as Json[])[1] = { policy: { backoff: { baseMs: 50, capMs: 10 } } };
      },
      { seed: 'abc' },
    );
    expect(validateExperiment(input)).toEqual([
      'seed must be an integer (got "abc")',
      'scenario.workload.clients must be a positive integer (got 0)',
      'scenario.stack.1.policy.backoff.capMs must be >= baseMs (got 10 < 50)',
      'scenario.leaf is required',
    ]);
  });

  it('suggests the nearest known key for typos of any kind', () => {
    const input = file((s) => {
      (s.workload as Json).clinets = 3;
      (s.stack as Json[])[0] = { policy: { MaxAttempts: 2, backof: {} } };
      s.horizonMS = 1000;
    });
    expect(validateExperiment(input)).toEqual([
      'scenario.workload.clinets is not a known field (did you mean "clients"?)',
      'scenario.stack.0.policy.MaxAttempts is not a known field (did you mean "maxAttempts"?)',
      'scenario.stack.0.policy.backof is not a known field (did you mean "backoff"?)',
      'scenario.horizonMS is not a known field (did you mean "horizonMs"?)',
    ]);
  });

  it('checks the quick patch too, and says so', () => {
    const input = { ...file(), quick: { replications: 0, scenario: { horizonMS: 4 } } };
    expect(validateExperiment(input)).toEqual([
      'quick: replications must be a positive integer (got 0)',
      'quick: scenario.horizonMS is not a known field (did you mean "horizonMs"?)',
    ]);
  });

  it('names paths inside parts from the root', () => {
    const bad = scenario();
    (bad.workload as Json).clients = 0;
    const input = { name: 'exp', parts: [{ name: 'a', scenario: scenario() }, { name: 'b', scenario: bad }] };
    expect(validateExperiment(input)).toEqual(['parts.1.scenario.workload.clients must be a positive integer (got 0)']);
  });

  it('returns the experiment with a summary of its parts when valid', () => {
    const result = parseExperiment({ ...file(), variants: { a: {}, b: {} }, sweep: { grid: { 'workload.clients': [1, 2, 3] } }, quick: { replications: 2 } });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.experiment.name).toBe('exp');
    expect(result.experiment.seed).toBe(1);
    expect(result.experiment.hasQuick).toBe(true);
    expect(result.experiment.parts).toEqual([
      { name: 'main', description: '', replications: 1, variants: ['a', 'b'], axes: ['workload.clients'], cells: 6 },
    ]);
  });
});

describe('resolveScenario', () => {
  it('fills in every default of a minimal scenario', () => {
    const result = resolveScenario({ workload: { kind: 'burst', clients: 100 }, stack: [{}], leaf: { kind: 'occ' } });
    const expected: Scenario = {
      workload: {
        kind: 'burst',
        clients: 100,
        startMs: { dist: 'constant', value: 0 },
        method: 'GET',
        permanentErrorFraction: 0,
      },
      stack: [
        {
          name: 'layer0',
          instances: 1,
          policy: {
            maxAttempts: 3,
            deadlineMode: 'propagate',
            backoff: { kind: 'full-jitter', baseMs: 100, capMs: 20000, multiplier: 2, exponentOffset: 0 },
            tickMs: 0,
            retryOn: ['timeout', '500', '503', '429', 'conflict'],
            idempotency: 'http',
            retryAfter: 'honor',
          },
        },
      ],
      leaf: { kind: 'occ' },
      network: { hopMs: { dist: 'constant', value: 0 } },
      cancellation: false,
      warmupMs: 0,
      horizonMs: 3600000,
      maxEvents: 200000000,
      maxInFlight: 10000000,
      metrics: { timeSeriesBinMs: 1000, clusteringBinMs: [1, 10] },
    };
    expect(result).toEqual({ ok: true, scenario: expected, warnings: [] });
    if (result.ok) expect(Object.keys(result.scenario.stack[0]?.policy ?? {})).not.toContain('perAttemptTimeoutMs');
  });

  it('fills in the defaults of a server leaf, its faults and an open workload', () => {
    const result = resolveScenario({
      workload: { kind: 'open', rate: 50, durationMs: 1000 },
      stack: [{ hopMs: 2, policy: { backoff: { kind: 'constant' } } }, {}],
      leaf: { kind: 'server', serviceMs: { dist: 'exponential', mean: 10 }, faults: [{ probability: 0.1 }, { fromMs: 5, toMs: 9, probability: 1, status: 'timeout', latencyMs: 3 }] },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const s = result.scenario;
    expect(s.workload).toEqual({
      kind: 'open',
      rate: { kind: 'steady', ratePerSec: 50 },
      durationMs: 1000,
      clients: 1,
      method: 'GET',
      permanentErrorFraction: 0,
    });
    expect(s.stack.map((l) => [l.name, l.hopMs])).toEqual([
      ['layer0', { dist: 'constant', value: 2 }],
      ['layer1', undefined],
    ]);
    expect(s.stack[0]?.policy.backoff).toEqual({ kind: 'constant', baseMs: 100, capMs: 20000, multiplier: 2, exponentOffset: 0 });
    expect(s.leaf).toEqual({
      kind: 'server',
      concurrency: 1,
      queueLimit: 'unlimited',
      discipline: 'fifo',
      serviceMs: { dist: 'exponential', mean: 10 },
      shedStatus: 503,
      dropExpired: false,
      capacity: [],
      faults: [
        { fromMs: 0, toMs: Infinity, probability: 0.1, status: 503 },
        { fromMs: 5, toMs: 9, probability: 1, status: 'timeout', latencyMs: { dist: 'constant', value: 3 } },
      ],
    });
  });

  it('expands script strings and keeps entry objects', () => {
    const result = resolveScenario({
      workload: { kind: 'burst', clients: 1 },
      stack: [{ policy: { perAttemptTimeoutMs: 100 } }],
      leaf: { kind: 'script', script: ['503:250*2', { status: 429, retryAfterMs: 1000 }, 'hang'] },
    });
    expect(result.ok && result.scenario.leaf).toEqual({
      kind: 'script',
      script: [
        { status: 503, durationMs: 250 },
        { status: 503, durationMs: 250 },
        { status: 429, durationMs: 0, retryAfterMs: 1000 },
        { status: 'hang', durationMs: 0 },
      ],
    });
  });

  it('does not share default objects between results', () => {
    const input = { workload: { kind: 'burst', clients: 1 }, stack: [{}], leaf: { kind: 'occ' } };
    const a = resolveScenario(input);
    const b = resolveScenario(input);
    if (!a.ok || !b.ok) throw new Error('expected valid');
    a.scenario.stack[0]?.policy.retryOn.push('400');
    a.scenario.metrics.clusteringBinMs.push(100);
    expect(b.scenario.stack[0]?.policy.retryOn).toEqual(['timeout', '500', '503', '429', 'conflict']);
    expect(b.scenario.metrics.clusteringBinMs).toEqual([1, 10]);
  });
});
