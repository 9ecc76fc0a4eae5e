import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expandExperiment, type ExpandOptions } from '../../src/experiment/index.js';
import { resolvePathKey, writtenStacks } from '../../src/experiment/layerSelector.js';

type Json = Record<string, unknown>;

const SHIPPED = new URL('../../experiments/microservice-cascade.json', import.meta.url);
/** The three variants of microservice-cascade as they were written before selectors: every layer's path spelled out. */
const EXPLICIT = new URL('./fixtures/microservice-cascade-explicit-variants.json', import.meta.url);

function shipped(): Json {
  return JSON.parse(readFileSync(SHIPPED, 'utf8')) as Json;
}

function mainPart(root: Json): Json {
  return (root.parts as Json[])[0] as Json;
}

/** Two calls from a gateway, each through `sdk` and `mesh` layers, behind a workload stack of one `browser` layer. */
function graphScenario(): Json {
  const call = (service: string) => ({ service, stack: [{ name: 'sdk', policy: { maxAttempts: 3 } }, { name: 'mesh', policy: { maxAttempts: 2 } }] });
  const server = { kind: 'server', serviceMs: 1 };
  return {
    workload: { kind: 'burst', clients: 4, entry: { service: 'gateway' } },
    stack: [{ name: 'browser' }],
    services: {
      gateway: { fleet: server, endpoints: { get: { steps: [{ kind: 'call', calls: [call('a'), call('b')] }] } } },
      a: { fleet: server, endpoints: { get: {} } },
      b: { fleet: server, endpoints: { get: {} } },
    },
  };
}

function expand(root: Json, options: ExpandOptions = { quick: false }) {
  return expandExperiment({ root }, options);
}

function cellsOf(root: Json, options: ExpandOptions) {
  const r = expand(root, options);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.plan.parts.flatMap((p) => p.cells.map((c) => ({ key: c.key, scenario: c.scenario })));
}

describe('layer selectors resolve to the concrete paths of the layers they name', () => {
  it('finds every written stack: the workload stack, then each call stack in file order', () => {
    expect(writtenStacks(graphScenario()).map((s) => s.path.join('.'))).toEqual([
      'stack',
      'services.gateway.endpoints.get.steps.0.calls.0.stack',
      'services.gateway.endpoints.get.steps.0.calls.1.stack',
    ]);
  });

  it('matches a name in every stack, a list of names, every layer, and a scope', () => {
    const paths = (key: string) => {
      const r = resolvePathKey(graphScenario(), key);
      if (!r.ok) throw new Error(r.problem);
      return r.paths.map((p) => p.join('.'));
    };
    const call = (j: number, i: number) => `services.gateway.endpoints.get.steps.0.calls.${j}.stack.${i}`;
    expect(paths('layers[sdk].policy.budget')).toEqual([`${call(0, 0)}.policy.budget`, `${call(1, 0)}.policy.budget`]);
    expect(paths('layers[mesh,sdk].policy.maxAttempts')).toEqual([0, 1].flatMap((j) => [0, 1].map((i) => `${call(j, i)}.policy.maxAttempts`)));
    expect(paths('scenario.layers[*]')).toEqual(['stack.0', call(0, 0), call(0, 1), call(1, 0), call(1, 1)]);
    expect(paths('services.gateway.endpoints.get.steps.0.calls.1.layers[sdk].policy.maxAttempts')).toEqual([`${call(1, 0)}.policy.maxAttempts`]);
    expect(paths('stack.layers[browser].instances')).toEqual(['stack.0.instances']);
    // A plain path is itself.
    expect(paths('workload.clients')).toEqual(['workload.clients']);
  });

  it('names an unnamed layer layer<i>, as results do', () => {
    const r = resolvePathKey({ stack: [{}, { name: 'proxy' }] }, 'layers[layer0].policy.maxAttempts');
    expect(r).toMatchObject({ ok: true, paths: [['stack', 0, 'policy', 'maxAttempts']] });
  });

  it('refuses a selector that matches nothing, naming the layers that exist', () => {
    const problem = (key: string) => {
      const r = resolvePathKey(graphScenario(), key);
      return r.ok ? 'matched' : r.problem;
    };
    expect(problem('layers[client].policy.budget')).toBe('matches no layer named "client" (layers in the scenario: browser, sdk, mesh)');
    expect(problem('layers[sdk,client].policy.budget')).toBe('matches no layer named "client" (layers in the scenario: browser, sdk, mesh)');
    expect(problem('services.a.layers[sdk].policy')).toBe('matches no layer: services.a has no stack written in it');
    expect(problem('services.nope.layers[sdk].policy')).toBe('there is no service "nope" (services: gateway, a, b; to add one, set services.nope to the whole service)');
    expect(problem('stack.layers[sdk].policy')).toBe('matches no layer named "sdk" (layers in stack: browser)');
  });

  it('refuses a selector that is not well formed, saying what to write', () => {
    const problem = (key: string) => {
      const r = resolvePathKey(graphScenario(), key);
      return r.ok ? 'matched' : r.problem;
    };
    expect(problem('layers[sdk.policy')).toBe('has no closing "]" after layers[ (write layers[<name>], layers[<name>,<name>] or layers[*])');
    expect(problem('layers[].policy')).toBe('has an empty layer name in layers[] (write layers[<name>], layers[<name>,<name>] or layers[*])');
    expect(problem('layers[sdk,sdk].policy')).toBe('names the layer "sdk" twice');
    expect(problem('layers[*,sdk].policy')).toBe('cannot list names beside * (* is every layer)');
    expect(problem('layers[sdk]policy')).toBe('must go on with "." or end after "]" (got "policy")');
    expect(problem('layers[sdk].layers[mesh].policy')).toBe('names layers twice (one layers[...] per path)');
  });
});

describe('layer selectors in variants, sweeps and --set', () => {
  it('gives the budget on every sdk layer the same cells as the explicit paths it replaces', () => {
    const call = (j: number) => `services.gateway.endpoints.get.steps.0.calls.${j}.stack.0.policy.budget`;
    const budget = { kind: 'sre-ratio' };
    const withSelector = { name: 'x', scenario: graphScenario(), variants: { none: {}, budgets: { 'layers[sdk].policy.budget': budget } } };
    const explicit = { name: 'x', scenario: graphScenario(), variants: { none: {}, budgets: { [call(0)]: budget, [call(1)]: budget } } };
    expect(cellsOf(withSelector, { quick: false })).toEqual(cellsOf(explicit, { quick: false }));
    // --set and a sweep axis address them the same way.
    const set = cellsOf({ name: 'x', scenario: graphScenario() }, { quick: false, set: [['layers[sdk].policy.budget', budget]] });
    expect(set[0]?.scenario).toEqual(cellsOf(explicit, { quick: false })[1]?.scenario);
    const swept = cellsOf({ name: 'x', scenario: graphScenario(), sweep: { grid: { 'layers[sdk].policy.maxAttempts': [1, 4] } } }, { quick: false });
    const attempts = (s: (typeof swept)[number]) => s.scenario.graph?.services.find((x) => x.name === 'gateway')?.endpoints[0]?.steps;
    expect(JSON.stringify(attempts(swept[1]!))).toContain('"maxAttempts":4');
    expect(swept.map((c) => c.key)).toEqual([1, 4].map((v) => JSON.stringify({ params: { 'layers[sdk].policy.maxAttempts': v }, part: 'main', variant: 'default' })));
  });

  it('applies a preset by layer name: the preset under every sdk layer\'s own fields, as a preset written in each', () => {
    const preset = 'aws-sdk-js-standard';
    const bySelector = cellsOf({ name: 'x', scenario: graphScenario(), variants: { aws: { 'layers[sdk].policy.preset': preset } } }, { quick: false });
    const written = graphScenario();
    const calls = (((written.services as Json).gateway as Json).endpoints as Json).get as Json;
    for (const call of ((calls.steps as Json[])[0] as Json).calls as Json[]) ((call.stack as Json[])[0] as Json).policy = { preset, maxAttempts: 3 };
    expect(bySelector.map((c) => c.scenario)).toEqual(cellsOf({ name: 'x', scenario: written }, { quick: false }).map((c) => c.scenario));
  });

  it('rewrites microservice-cascade with selectors and expands to the same cells as its 51 explicit paths, full and quick', () => {
    const root = shipped();
    const variants = mainPart(root).variants as Json;
    // The shipped file does use selectors for these three variants.
    for (const name of ['one-tier', 'no-retries', 'budgets']) expect(Object.keys(variants[name] as Json).every((k) => k.includes('layers['))).toBe(true);
    const explicit = structuredClone(root);
    Object.assign(mainPart(explicit).variants as Json, JSON.parse(readFileSync(EXPLICIT, 'utf8')) as Json);
    for (const quick of [false, true]) {
      const a = cellsOf(root, { quick });
      expect(a).toHaveLength(7);
      expect(a).toEqual(cellsOf(explicit, { quick }));
    }
  });

  it('reports how many layers each selector matched', () => {
    const r = expand(shipped());
    expect(r.ok && r.selectors.map((s) => [s.where, s.key, s.layers.length])).toEqual([
      ['parts.0.variants.one-tier', 'layers[app,client].policy.maxAttempts', 12],
      ['parts.0.variants.one-tier', 'services.frontend.layers[sidecar].policy.maxAttempts', 3],
      ['parts.0.variants.no-retries', 'layers[app,client,sidecar].policy.maxAttempts', 18],
      ['parts.0.variants.budgets', 'layers[app,client,sidecar].policy.budget', 18],
    ]);
  });

  it('refuses a selector matching nothing wherever it is written, naming where and the layers', () => {
    const root = { name: 'x', scenario: graphScenario(), variants: { v: { 'layers[sdk2].policy.budget': { kind: 'sre-ratio' } } }, sweep: { grid: { 'layers[nope].policy.maxAttempts': [1, 2] } } };
    const r = expand(root, { quick: false, set: [['layers[db].policy.maxAttempts', 1]] });
    expect(r.ok ? [] : r.errors).toEqual([
      '--set layers[db].policy.maxAttempts: layers[db].policy.maxAttempts matches no layer named "db" (layers in the scenario: browser, sdk, mesh)',
      'variants.v.layers[sdk2].policy.budget matches no layer named "sdk2" (layers in the scenario: browser, sdk, mesh)',
      'sweep.grid.layers[nope].policy.maxAttempts matches no layer named "nope" (layers in the scenario: browser, sdk, mesh)',
    ]);
  });

  it('checks a selector against the paths of other overrides: a variant and an axis on one layer collide', () => {
    const root = {
      name: 'x',
      scenario: graphScenario(),
      variants: { v: { 'layers[sdk].policy.maxAttempts': 1 } },
      sweep: { grid: { 'services.gateway.endpoints.get.steps.0.calls.1.stack.0.policy.maxAttempts': [2, 3] } },
    };
    const r = expand(root);
    expect(r.ok ? [] : r.errors).toEqual([
      'variants.v.layers[sdk].policy.maxAttempts overlaps the sweep axis services.gateway.endpoints.get.steps.0.calls.1.stack.0.policy.maxAttempts (sweep.grid)',
    ]);
  });
});
