import { describe, expect, it } from 'vitest';
import { expandExperiment, type ExpandOptions, type ExperimentPlan } from '../../src/experiment/index.js';

type Json = Record<string, unknown>;

function scenario(layers = 2): Json {
  return {
    workload: { kind: 'burst', clients: 10 },
    stack: Array.from({ length: layers }, (_, i) => ({ name: `layer${i}`, policy: { maxAttempts: 3 } })),
    leaf: { kind: 'server', serviceMs: 10 },
  };
}

function expand(root: Json, options: ExpandOptions = { quick: false }) {
  return expandExperiment({ root }, options);
}

function plan(root: Json, options: ExpandOptions = { quick: false }): ExperimentPlan {
  const r = expand(root, options);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.plan;
}

function errors(root: Json, options: ExpandOptions = { quick: false }): string[] {
  const r = expand(root, options);
  return r.ok ? [] : r.errors;
}

/** The message without the override's own location (`--set x: `, `variants.v: `, `sweep.grid.x: `). */
function rule(message: string, prefix: string): string {
  expect(message.startsWith(prefix)).toBe(true);
  return message.slice(prefix.length);
}

const clientsOf = (p: ExperimentPlan) => p.parts.map((part) => part.cells.map((c) => c.scenario.workload.kind === 'burst' ? c.scenario.workload.clients : null));

describe('--set paths are those of variants and sweeps', () => {
  it('sets a scenario field by its path relative to the scenario, with or without a scenario. prefix, as a variant and a sweep axis do', () => {
    const base = { name: 'exp', scenario: scenario() };
    expect(clientsOf(plan(base, { quick: false, set: [['workload.clients', 7]] }))).toEqual([[7]]);
    expect(clientsOf(plan(base, { quick: false, set: [['scenario.workload.clients', 7]] }))).toEqual([[7]]);
    expect(clientsOf(plan({ ...base, variants: { v: { 'workload.clients': 7 } } }))).toEqual([[7]]);
    expect(clientsOf(plan({ ...base, variants: { v: { 'scenario.workload.clients': 7 } } }))).toEqual([[7]]);
    expect(clientsOf(plan({ ...base, sweep: { grid: { 'workload.clients': [7] } } }))).toEqual([[7]]);
    expect(clientsOf(plan({ ...base, sweep: { grid: { 'scenario.workload.clients': [7] } } }))).toEqual([[7]]);
  });

  it('rejects an index past the end of the stack in all three with the same rule, and never adds a layer', () => {
    const base = { name: 'exp', scenario: scenario(2) };
    const path = 'stack.2.policy.maxAttempts';
    const expected = 'cannot set stack.2.policy.maxAttempts: stack has 2 entries, so the index must be less than 2 (got 2; an index past the end of a list is an error, not a new entry)';
    const viaSet = errors(base, { quick: false, set: [[path, 5]] });
    const viaPrefixedSet = errors(base, { quick: false, set: [[`scenario.${path}`, 5]] });
    const viaVariant = errors({ ...base, variants: { v: { [path]: 5 } } });
    const viaSweep = errors({ ...base, sweep: { grid: { [path]: [5] } } });
    expect(viaSet.map((m) => rule(m, `--set ${path}: `))).toEqual([expected]);
    expect(viaPrefixedSet.map((m) => rule(m, `--set scenario.${path}: `))).toEqual([expected]);
    expect(viaVariant.map((m) => rule(m, 'variants.v: '))).toEqual([expected]);
    expect(viaSweep.map((m) => rule(m, `sweep.grid.${path}: `))).toEqual([expected]);
  });

  it('reports a field that does not exist with the same rule in all three', () => {
    const base = { name: 'exp', scenario: scenario(1) };
    const viaSet = errors(base, { quick: false, set: [['stack.0.policy.maxAttemps', 5]] });
    const viaVariant = errors({ ...base, variants: { v: { 'stack.0.policy.maxAttemps': 5 } } });
    const viaSweep = errors({ ...base, sweep: { grid: { 'stack.0.policy.maxAttemps': [5] } } });
    const expected = 'scenario.stack.0.policy.maxAttemps is not a known field (did you mean "maxAttempts"?)';
    expect(viaSet.map((m) => rule(m, '--set stack.0.policy.maxAttemps: '))).toEqual([expected]);
    expect(viaVariant.map((m) => rule(m, 'variants.v: '))).toEqual([expected]);
    expect(viaSweep.map((m) => rule(m, 'sweep.grid.stack.0.policy.maxAttemps: '))).toEqual([expected]);
  });

  it('keeps the experiment\'s own root fields settable', () => {
    const p = plan({ name: 'exp', scenario: scenario(), replications: 30 }, { quick: false, set: [['replications', 5], ['seed', 3]] });
    expect(p.parts[0]?.replications).toBe(5);
    expect(p.seed).toBe(3);
    const swept = plan({ name: 'exp', scenario: scenario() }, { quick: false, set: [['sweep.grid.workload.clients', [1, 2]]] });
    expect(clientsOf(swept)).toEqual([[1, 2]]);
  });

  it('applies a scenario path to every part, and parts.<name>. to one part, its scenario or its own fields', () => {
    const root = {
      name: 'exp',
      parts: [
        { name: 'small', scenario: scenario(1) },
        { name: 'big', scenario: scenario(1), replications: 4 },
      ],
    };
    expect(clientsOf(plan(root, { quick: false, set: [['workload.clients', 7]] }))).toEqual([[7], [7]]);
    expect(clientsOf(plan(root, { quick: false, set: [['parts.big.workload.clients', 7]] }))).toEqual([[10], [7]]);
    expect(clientsOf(plan(root, { quick: false, set: [['parts.big.scenario.workload.clients', 7]] }))).toEqual([[10], [7]]);
    expect(clientsOf(plan(root, { quick: false, set: [['parts.1.workload.clients', 7]] }))).toEqual([[10], [7]]);
    const reps = plan(root, { quick: false, set: [['parts.big.replications', 2]] });
    expect(reps.parts.map((p) => p.replications)).toEqual([1, 2]);
    expect(errors(root, { quick: false, set: [['parts.huge.workload.clients', 7]] })).toEqual([
      '--set parts.huge.workload.clients: cannot set parts.huge.workload.clients: there is no part "huge" (parts: small, big)',
    ]);
    expect(errors(root, { quick: false, set: [['stack.1.name', 'x']] })).toEqual([
      '--set stack.1.name: part small: cannot set stack.1.name: stack has 1 entry, so the index must be less than 1 (got 1; an index past the end of a list is an error, not a new entry)',
      '--set stack.1.name: part big: cannot set stack.1.name: stack has 1 entry, so the index must be less than 1 (got 1; an index past the end of a list is an error, not a new entry)',
    ]);
  });
});

describe('--set through a service, endpoint or workload that does not exist', () => {
  const server = { kind: 'server', serviceMs: 1 };
  /** A graph of `n` services: the entry `fe` calls `s0`, the others are leaves nothing calls. */
  function graphScenario(n: number): Json {
    const services: Json = { fe: { fleet: server, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 's0' }] }] } } } };
    for (let i = 0; i < n - 1; i++) services[`s${i}`] = { fleet: server, endpoints: { get: {} } };
    return { workload: { kind: 'burst', clients: 1, entry: { service: 'fe', endpoint: 'get' } }, stack: [{ name: 'app' }], services };
  }

  it('says the service does not exist and lists those that do (the first 10 and how many more)', () => {
    expect(errors({ name: 'g', scenario: graphScenario(3) }, { quick: false, set: [['services.nope.fleet.concurrency', 2]] })).toEqual([
      '--set services.nope.fleet.concurrency: cannot set services.nope.fleet.concurrency: there is no service "nope" (services: fe, s0, s1; to add one, set services.nope to the whole service)',
    ]);
    // 20 services: as many as a graph's event kinds allow here (a larger graph is refused for that too).
    expect(errors({ name: 'g', scenario: graphScenario(20) }, { quick: false, set: [['services.nope.x', 1]] })).toEqual([
      '--set services.nope.x: cannot set services.nope.x: there is no service "nope" (services: fe, s0, s1, s2, s3, s4, s5, s6, s7, s8 and 10 more; to add one, set services.nope to the whole service)',
    ]);
  });

  it('names a missing endpoint of a service, and a scenario without services or workloads', () => {
    expect(errors({ name: 'g', scenario: graphScenario(2) }, { quick: false, set: [['services.s0.endpoints.put.method', 'PUT']] })).toEqual([
      '--set services.s0.endpoints.put.method: cannot set services.s0.endpoints.put.method: there is no endpoint "put" in service "s0" (endpoints: get; to add one, set services.s0.endpoints.put to the whole endpoint)',
    ]);
    expect(errors({ name: 'x', scenario: scenario() }, { quick: false, set: [['services.nope.x', 1], ['workloads.w.clients', 3]] })).toEqual([
      '--set services.nope.x: cannot set services.nope.x: there is no service "nope" (the scenario has no services)',
      '--set workloads.w.clients: cannot set workloads.w.clients: there is no workload "w" (the scenario has no workloads)',
    ]);
  });

  it('still sets a field of a service that exists, and adds a whole new service', () => {
    const set: Array<[string, unknown]> = [
      ['services.s0.fleet.concurrency', 3],
      ['services.extra', { fleet: server, endpoints: { get: {} } }],
    ];
    const cell = plan({ name: 'g', scenario: graphScenario(2) }, { quick: false, set }).parts[0]?.cells[0];
    const services = cell?.scenario.graph?.services ?? [];
    expect(services.map((s) => s.name)).toEqual(['fe', 's0', 'extra']);
    expect(services[1]?.fleet).toMatchObject({ kind: 'server', concurrency: 3 });
  });
});
