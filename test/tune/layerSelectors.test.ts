import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import { prepareTune } from '../../src/tune/prepareTune.js';
import { applyOverrides, pointOverrides, presetOverrides } from '../../src/tune/tuneProblem.js';

type Json = Record<string, unknown>;

/** A gateway calling two services, each call through an `sdk` layer, behind a workload stack of one `user` layer. */
function root(tune: Json): Json {
  const call = (service: string) => ({ service, stack: [{ name: 'sdk', policy: { maxAttempts: 2 } }] });
  const server = { kind: 'server', serviceMs: 1 };
  return {
    name: 'two-calls',
    scenario: {
      workload: { kind: 'burst', clients: 4, entry: { service: 'gateway' } },
      stack: [{ name: 'user', policy: { maxAttempts: 1 } }],
      services: {
        gateway: { fleet: server, endpoints: { get: { steps: [{ kind: 'call', calls: [call('a'), call('b')] }] } } },
        a: { fleet: server, endpoints: { get: {} } },
        b: { fleet: server, endpoints: { get: {} } },
      },
    },
    tune: { objectives: [{ metric: 'amplification', goal: 'minimize' }], ...tune },
  };
}

/** The policies of the gateway's two calls' first layers in a resolved scenario. */
function callPolicies(scenario: Json) {
  const resolved = resolveScenario(scenario, ['scenario']);
  if (!resolved.ok) throw new Error(resolved.errors.join('\n'));
  const steps = resolved.scenario.graph?.services.find((s) => s.name === 'gateway')?.endpoints[0]?.steps ?? [];
  return steps.flatMap((step) => ('calls' in step ? step.calls.map((c) => c.stack[0]?.policy) : []));
}

describe('tune addresses layers by name across a graph', () => {
  it('takes a selector as a dimension: one value set at every matched layer', () => {
    const prepared = prepareTune(root({ space: { 'layers[sdk].policy.maxAttempts': { kind: 'int', min: 1, max: 4 } } }));
    if (!prepared.ok) throw new Error(prepared.errors.join('\n'));
    const part = prepared.problem.parts[0]!;
    const scenario = applyOverrides(part.scenario, pointOverrides(prepared.problem.space, [3]));
    expect(callPolicies(scenario).map((p) => p?.maxAttempts)).toEqual([3, 3]);
  });

  it('takes a preset on a layer of the graph\'s calls as a contender, replacing every such layer\'s policy', () => {
    const prepared = prepareTune(root({ space: { 'layers[sdk].policy.maxAttempts': { kind: 'int', min: 1, max: 4 } }, presets: [{ layer: 'sdk', names: ['aws-sdk-js-standard'] }] }));
    if (!prepared.ok) throw new Error(prepared.errors.join('\n'));
    const part = prepared.problem.parts[0]!;
    const overrides = presetOverrides(part, prepared.problem.presets[0]!);
    const policies = callPolicies(applyOverrides(part.scenario, overrides));
    const preset = callPolicies(applyOverrides(part.scenario, { 'layers[sdk].policy': { preset: 'aws-sdk-js-standard', maxAttempts: 3 } }));
    expect(policies).toHaveLength(2);
    expect(policies[0]?.backoff.kind).toBe('aws-sdk-js');
    expect(policies[1]).toEqual(policies[0]);
    expect(policies[0]).toEqual(preset[0]);
  });

  it('refuses a preset or a dimension on a layer the scenario does not have, naming those it has', () => {
    const prepared = prepareTune(root({ space: { 'layers[proxy].policy.maxAttempts': { kind: 'int', min: 1, max: 4 } }, presets: [{ layer: 'proxy', names: ['aws-sdk-js-standard'] }] }));
    expect(prepared.ok ? [] : prepared.errors).toEqual([
      'tune.space.layers[proxy].policy.maxAttempts: layers[proxy].policy.maxAttempts matches no layer named "proxy" (layers in the scenario: user, sdk)',
      'tune.presets.0.layer must name a layer of the scenario (got "proxy"; layers: user, sdk)',
    ]);
  });
});
