import { describe, expect, it } from 'vitest';
import { expandExperiment, type ExpandOptions, type ExperimentPlan } from '../../src/experiment/index.js';

type Json = Record<string, unknown>;

function scenario(): Json {
  return {
    workload: { kind: 'burst', clients: 10 },
    stack: [{ name: 'client', policy: { perAttemptTimeoutMs: 1000, backoff: { kind: 'full-jitter', baseMs: 5 } } }],
    leaf: { kind: 'server', serviceMs: { dist: 'exponential', mean: 10 }, faults: [{ probability: 0.1 }] },
  };
}

function plan(root: Json, options: ExpandOptions = { quick: false }): ExperimentPlan {
  const result = expandExperiment({ root }, options);
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.plan;
}

function errors(root: Json, options: ExpandOptions = { quick: false }): string[] {
  const result = expandExperiment({ root }, options);
  return result.ok ? [] : result.errors;
}

/** `variant params` of every cell of the first part, in order. */
function order(p: ExperimentPlan): string[] {
  return (p.parts[0]?.cells ?? []).map((c) => `${c.variant} ${JSON.stringify(c.params)}`);
}

describe('expandExperiment: cells', () => {
  it('makes one cell named main/default with empty params without parts, variants or sweep', () => {
    const p = plan({ name: 'exp', description: 'd', seed: 7, scenario: scenario() });
    expect(p.name).toBe('exp');
    expect(p.description).toBe('d');
    expect(p.seed).toBe(7);
    expect(p.parts).toHaveLength(1);
    const part = p.parts[0];
    expect(part?.name).toBe('main');
    expect(part?.replications).toBe(1);
    expect(part?.variants).toEqual(['default']);
    expect(part?.axes).toEqual([]);
    expect(part?.cells.map((c) => [c.part, c.variant, c.params, c.key])).toEqual([
      ['main', 'default', {}, '{"params":{},"part":"main","variant":"default"}'],
    ]);
    expect(part?.cells[0]?.scenario.workload).toEqual({
      kind: 'burst',
      clients: 10,
      startMs: { dist: 'constant', value: 0 },
      method: 'GET',
      permanentErrorFraction: 0,
    });
  });

  it('orders grid points first axis slowest, then zip points, then variants fastest', () => {
    const p = plan({
      name: 'exp',
      scenario: scenario(),
      variants: { none: { 'stack.0.policy.backoff.kind': 'none' }, full: { 'stack.0.policy.backoff.kind': 'full-jitter' } },
      sweep: {
        grid: { 'workload.clients': [10, 20], 'stack.0.policy.maxAttempts': [1, 3, 5] },
        zip: { 'leaf.serviceMs': [5, 10], warmupMs: [0, 100] },
      },
    });
    const cells = p.parts[0]?.cells ?? [];
    expect(cells).toHaveLength(2 * 3 * 2 * 2);
    expect(p.parts[0]?.axes).toEqual(['workload.clients', 'stack.0.policy.maxAttempts', 'leaf.serviceMs', 'warmupMs']);
    expect(order(p).slice(0, 6)).toEqual([
      'none {"workload.clients":10,"stack.0.policy.maxAttempts":1,"leaf.serviceMs":5,"warmupMs":0}',
      'full {"workload.clients":10,"stack.0.policy.maxAttempts":1,"leaf.serviceMs":5,"warmupMs":0}',
      'none {"workload.clients":10,"stack.0.policy.maxAttempts":1,"leaf.serviceMs":10,"warmupMs":100}',
      'full {"workload.clients":10,"stack.0.policy.maxAttempts":1,"leaf.serviceMs":10,"warmupMs":100}',
      'none {"workload.clients":10,"stack.0.policy.maxAttempts":3,"leaf.serviceMs":5,"warmupMs":0}',
      'full {"workload.clients":10,"stack.0.policy.maxAttempts":3,"leaf.serviceMs":5,"warmupMs":0}',
    ]);
    expect(order(p)[23]).toBe('full {"workload.clients":20,"stack.0.policy.maxAttempts":5,"leaf.serviceMs":10,"warmupMs":100}');
    const last = cells[23];
    expect(last?.scenario.workload).toMatchObject({ clients: 20 });
    expect(last?.scenario.stack[0]?.policy.maxAttempts).toBe(5);
    expect(last?.scenario.stack[0]?.policy.backoff.kind).toBe('full-jitter');
    expect(last?.scenario.leaf).toMatchObject({ serviceMs: { dist: 'constant', value: 10 } });
    expect(last?.scenario.warmupMs).toBe(100);
    expect(cells[0]?.scenario.stack[0]?.policy.backoff.kind).toBe('none');
    expect(new Set(cells.map((c) => c.key)).size).toBe(24);
  });

  it('keys a cell by canonical JSON of part, variant and params with sorted keys', () => {
    const p = plan({ name: 'exp', scenario: scenario(), variants: { v: {} }, sweep: { grid: { 'workload.clients': [3], 'leaf.serviceMs': [{ mean: 2, dist: 'exponential' }] } } });
    expect(p.parts[0]?.cells[0]?.key).toBe(
      '{"params":{"leaf.serviceMs":{"dist":"exponential","mean":2},"workload.clients":3},"part":"main","variant":"v"}',
    );
  });

  it('expands parts in file order, each inheriting the top-level replications unless it gives its own', () => {
    const p = plan({
      name: 'exp',
      replications: 4,
      parts: [
        { name: 'ramp', scenario: scenario(), sweep: { grid: { 'workload.clients': [1, 2] } } },
        { name: 'spike', description: 'the spike', scenario: scenario(), replications: 9, variants: { a: {}, b: {} } },
      ],
    });
    expect(p.parts.map((part) => [part.name, part.description, part.replications, part.cells.length])).toEqual([
      ['ramp', '', 4, 2],
      ['spike', 'the spike', 9, 2],
    ]);
    expect(p.parts[1]?.cells.map((c) => c.key)).toEqual([
      '{"params":{},"part":"spike","variant":"a"}',
      '{"params":{},"part":"spike","variant":"b"}',
    ]);
  });
});

describe('expandExperiment: overrides', () => {
  it('deep-merges objects set by a variant and replaces arrays and scalars', () => {
    const p = plan({
      name: 'exp',
      scenario: scenario(),
      variants: {
        v: {
          'stack.0.policy': { maxAttempts: 5, backoff: { capMs: 300 } },
          'leaf.faults': [{ probability: 0.5, status: 500 }],
          'workload.clients': 3,
        },
      },
    });
    const s = p.parts[0]?.cells[0]?.scenario;
    expect(s?.stack[0]?.policy).toMatchObject({
      maxAttempts: 5,
      perAttemptTimeoutMs: 1000,
      backoff: { kind: 'full-jitter', baseMs: 5, capMs: 300, multiplier: 2, exponentOffset: 0 },
    });
    expect(s?.leaf).toMatchObject({ faults: [{ fromMs: 0, toMs: Infinity, probability: 0.5, status: 500 }] });
    expect(s?.workload).toMatchObject({ clients: 3 });
  });

  it('replaces an object of another kind or distribution instead of merging into it', () => {
    const p = plan({
      name: 'exp',
      scenario: scenario(),
      variants: {
        v: { 'leaf.serviceMs': { dist: 'constant', value: 3 }, workload: { kind: 'open', rate: 5, durationMs: 1000 } },
      },
    });
    const s = p.parts[0]?.cells[0]?.scenario;
    expect(s?.leaf).toMatchObject({ serviceMs: { dist: 'constant', value: 3 } });
    expect(s?.workload).toEqual({
      kind: 'open',
      rate: { kind: 'steady', ratePerSec: 5 },
      durationMs: 1000,
      clients: 1,
      method: 'GET',
      permanentErrorFraction: 0,
    });
  });

  it('does not let one cell\'s overrides leak into another', () => {
    const p = plan({ name: 'exp', scenario: scenario(), variants: { a: { 'stack.0.policy.maxAttempts': 7 }, b: {} } });
    expect(p.parts[0]?.cells.map((c) => c.scenario.stack[0]?.policy.maxAttempts)).toEqual([7, 3]);
  });

  it('rejects a path set by both a variant and a sweep axis', () => {
    const root = {
      name: 'exp',
      scenario: scenario(),
      variants: { 'full-jitter': { 'stack.0.policy.backoff.kind': 'full-jitter' }, wide: { 'stack.0.policy.backoff': { capMs: 99 } } },
      sweep: { grid: { 'stack.0.policy.backoff.kind': ['none', 'constant'] } },
    };
    expect(errors(root)).toEqual([
      'variants.full-jitter.stack.0.policy.backoff.kind is also a sweep axis (sweep.grid)',
      'variants.wide.stack.0.policy.backoff overlaps the sweep axis stack.0.policy.backoff.kind (sweep.grid)',
    ]);
  });

  it('blames problems on the override that caused them, once however many cells share them', () => {
    const root = {
      name: 'exp',
      scenario: scenario(),
      variants: { good: {}, bad: { 'stack.0.policy.backoff.kind': 'jitter' }, big: { 'stack.0.policy.backoff.baseMs': 50000 } },
      sweep: { grid: { 'workload.clients': [0, 1, 2], 'leaf.serviceMs': [1, 2] } },
    };
    expect(errors(root)).toEqual([
      'sweep.grid.workload.clients: scenario.workload.clients must be a positive integer (got 0)',
      'variants.bad: scenario.stack.0.policy.backoff.kind must be one of none, constant, exponential, full-jitter, equal-jitter, decorrelated-jitter, linear, aws-sdk-js, envoy, polly-decorrelated-v2, randomized, node-retry, random-exponential (got "jitter")',
      'variants.big: scenario.stack.0.policy.backoff.capMs must be >= baseMs (got 20000 < 50000)',
    ]);
  });

  it('reports a problem of the scenario as written once, with its normal path', () => {
    const s = scenario();
    (s.leaf as Json).discipline = 'random';
    const root = { name: 'exp', scenario: s, variants: { a: {}, b: {} }, sweep: { grid: { 'workload.clients': [1, 2] } } };
    expect(errors(root)).toEqual(['scenario.leaf.discipline must be one of fifo, lifo (got "random")']);
  });

  it('blames a variant that changes a kind for the fields the new kind requires', () => {
    const root = { name: 'exp', scenario: scenario(), variants: { open: { 'workload.kind': 'open' } } };
    expect(errors(root)).toEqual([
      'variants.open: scenario.workload.rate is required',
      'variants.open: scenario.workload.durationMs is required',
    ]);
  });

  it('reports unknown fields and bad paths written in overrides', () => {
    const root = {
      name: 'exp',
      scenario: scenario(),
      variants: { a: { 'stack.0.polcy.maxAttempts': 2, scenario: 3, 'a..b': 1, 'stack.3.policy.maxAttempts': 2 } },
    };
    expect(errors(root)).toEqual([
      'variants.a.scenario names the whole scenario (give a path inside it, e.g. "workload.clients")',
      'variants.a.a..b is not a valid path (empty segment)',
      'variants.a: cannot set stack.3.policy.maxAttempts: stack has 1 entry, so the index must be less than 1 (got 3; an index past the end of a list is an error, not a new entry)',
    ]);
    expect(errors({ name: 'exp', scenario: scenario(), variants: { a: { 'stack.0.polcy.maxAttempts': 2 } } })).toEqual([
      'variants.a: scenario.stack.0.polcy is not a known field (did you mean "policy"?)',
    ]);
  });

  it('rejects a repeated grid value, which would repeat cells', () => {
    expect(errors({ name: 'exp', scenario: scenario(), sweep: { grid: { 'workload.clients': [1, 2, 1] } } })).toEqual([
      'sweep.grid.workload.clients.2 repeats the value 1 of sweep.grid.workload.clients.0',
    ]);
  });
});

describe('expandExperiment: quick mode and --set', () => {
  const root = (): Json => ({
    name: 'exp',
    scenario: scenario(),
    replications: 100,
    sweep: { grid: { 'workload.clients': [10, 20, 30], 'leaf.serviceMs': [1, 2] } },
    quick: { replications: 10, sweep: { grid: { 'workload.clients': [10, 50] } } },
  });

  it('ignores the quick patch in normal mode', () => {
    const p = plan(root());
    expect(p.parts[0]?.replications).toBe(100);
    expect(p.parts[0]?.cells).toHaveLength(6);
  });

  it('deep-merges the quick patch into the root: objects merge, arrays replace', () => {
    const p = plan(root(), { quick: true });
    expect(p.parts[0]?.replications).toBe(10);
    expect(order(p)).toEqual([
      'default {"workload.clients":10,"leaf.serviceMs":1}',
      'default {"workload.clients":10,"leaf.serviceMs":2}',
      'default {"workload.clients":50,"leaf.serviceMs":1}',
      'default {"workload.clients":50,"leaf.serviceMs":2}',
    ]);
  });

  it('applies a part\'s own quick patch after the file\'s', () => {
    const p = plan(
      {
        name: 'exp',
        replications: 50,
        quick: { replications: 5 },
        parts: [
          { name: 'a', scenario: scenario(), replications: 20, quick: { replications: 2, scenario: { workload: { clients: 3 } } } },
          { name: 'b', scenario: scenario() },
        ],
      },
      { quick: true },
    );
    expect(p.parts.map((part) => [part.name, part.replications, part.cells[0]?.scenario.workload])).toEqual([
      ['a', 2, expect.objectContaining({ clients: 3 })],
      ['b', 5, expect.objectContaining({ clients: 10 })],
    ]);
  });

  it('applies --set after quick, with paths from the root and whole sweep keys', () => {
    const p = plan(root(), {
      quick: true,
      set: [
        ['replications', 5],
        ['seed', 99],
        ['scenario.stack.0.policy.maxAttempts', 'unlimited'],
        ['sweep.grid.leaf.serviceMs', [7]],
      ],
    });
    expect(p.seed).toBe(99);
    expect(p.parts[0]?.replications).toBe(5);
    expect(order(p)).toEqual(['default {"workload.clients":10,"leaf.serviceMs":7}', 'default {"workload.clients":50,"leaf.serviceMs":7}']);
    expect(p.parts[0]?.cells[0]?.scenario.stack[0]?.policy.maxAttempts).toBe('unlimited');
  });

  it('lets --set win over a sweep value on the same scenario path (--set comes last), and warns that the cells then repeat', () => {
    const result = expandExperiment({ root: root() }, { quick: false, set: [['scenario.workload.clients', 1]] });
    if (!result.ok) throw new Error(result.errors.join('\n'));
    expect(result.plan.parts[0]?.cells.map((c) => (c.scenario.workload as { clients: number }).clients)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(result.warnings).toContain('--set scenario.workload.clients overrides the sweep axis sweep.grid.workload.clients in every cell (--set comes last), so its cells differ only in their names');
  });

  it('blames problems on the --set or quick patch that caused them', () => {
    expect(
      errors(root(), {
        quick: true,
        set: [
          ['seed', 'abc'],
          ['sweep.grid.workload.clients', [1, 0]],
          ['scenario.stack.0.x.y', 1],
          ['scenario.stack.0.name.first', 'a'],
        ],
      }),
    ).toEqual([
      '--set scenario.stack.0.name.first: cannot set stack.0.name.first: stack.0.name is a string, not an object or an array',
      '--set seed: seed must be an integer (got "abc")',
      '--set scenario.stack.0.x.y: scenario.stack.0.x is not a known field',
      '--set sweep.grid.workload.clients: scenario.workload.clients must be a positive integer (got 0)',
    ]);
  });
});
