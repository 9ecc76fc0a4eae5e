import { describe, expect, it } from 'vitest';
import { loadStacks } from '../../src/check/index.js';
import { PRESETS } from '../../src/policy/presets.js';
import { fixture, fixtureReader, loadProblems, stackOf } from './helpers.js';

describe('stack files', () => {
  it('a three-layer stack: a preset, an AWS profile and an Envoy route, top to bottom', () => {
    const [stack] = loadStacks(fixture('three-layers.yaml'), 'three-layers.yaml', { readImport: fixtureReader });
    expect(stack!.name).toBe('checkout');
    expect(stack!.method).toBe('GET');
    expect(stack!.deadlineMs).toBeUndefined();
    expect(stack!.layers.map((l) => [l.name, l.origin])).toEqual([
      ['app', 'preset p-retry'],
      ['sdk', 'aws-config.ini: [default] retry_mode standard, max_attempts 3 (AWS SDK for JavaScript v3)'],
      ['proxy', 'envoy-route.yaml: route "checkout-api" virtual_hosts.0.routes.0.route.retry_policy'],
    ]);
    const [app, sdk, proxy] = stack!.layers.map((l) => l.policy);
    expect(app).toMatchObject({ maxAttempts: 11, backoff: { kind: 'node-retry', baseMs: 1000, capMs: Infinity, randomize: false }, retryAfter: 'ignore' });
    expect(app!.retryOn).toEqual(PRESETS['p-retry'].policy.retryOn);
    expect(sdk).toMatchObject({ maxAttempts: 3, backoff: { kind: 'aws-sdk-js' }, budget: [{ kind: 'token-bucket', capacity: 500 }] });
    expect(proxy).toMatchObject({ maxAttempts: 3, perAttemptTimeoutMs: 500, totalTimeoutMs: 3000, backoff: { kind: 'envoy', baseMs: 50, capMs: 500 } });
  });

  it('overrides merge over an imported layer, and the stack gives the method and the deadline', () => {
    const stack = stackOf({
      method: 'POST',
      deadlineMs: 3000,
      layers: [{ name: 'sdk', import: { format: 'aws-config', file: 'aws-config.ini', profile: 'batch' }, policy: { idempotency: 'http', perAttemptTimeoutMs: 800 } }],
    });
    expect(stack.method).toBe('POST');
    expect(stack.deadlineMs).toBe(3000);
    expect(stack.layers[0]!.policy).toMatchObject({ maxAttempts: 5, idempotency: 'http', perAttemptTimeoutMs: 800 });
    expect(stack.layers[0]!.origin).toMatch(/, with overrides$/);
  });

  it('an imported layer without a name is named after its format', () => {
    const stack = stackOf({ layers: [{ import: { format: 'grpc-service-config', file: 'grpc-service-config.json' } }, { import: { format: 'envoy-route', file: 'envoy-route.yaml' } }] });
    expect(stack.layers.map((l) => l.name)).toEqual(['grpc', 'envoy']);
  });

  it('a gRPC import may name the implementation whose delay it models', () => {
    const stack = stackOf({
      layers: [
        { name: 'js', import: { format: 'grpc-service-config', file: 'grpc-service-config.json', impl: 'js' } },
        { name: 'go', import: { format: 'grpc-service-config', file: 'grpc-service-config.json', impl: 'go' } },
      ],
    });
    expect(stack.layers.map((l) => [l.policy.backoff.kind, l.policy.backoff.randomizationFactor])).toEqual([
      ['full-jitter', undefined],
      ['randomized', 0.2],
    ]);
    expect(loadProblems(() => stackOf({ layers: [{ import: { format: 'grpc-service-config', file: 'grpc-service-config.json', impl: 'cpp' } }] }))).toEqual([
      'stack.json: layers.0.import.impl must be one of go, java, js (got "cpp")',
    ]);
  });

  it('problems name the stack file and the field, all at once', () => {
    const yaml = [
      'name: x',
      'methd: GET',
      'layers:',
      '  - preset: p-retri',
      '  - policy: { maxAttempts: 0 }',
      '  - import: { format: envoy, file: x.yaml }',
      '  - import: { format: envoy-route, file: missing.yaml }',
      '  - import: { format: envoy-route, file: envoy-route.yaml }',
      '    preset: envoy',
    ].join('\n');
    expect(loadProblems(() => loadStacks(yaml, 'stack.yaml', { readImport: fixtureReader }))).toEqual([
      'stack.yaml: layers.2.import.format must be one of grpc-service-config, envoy-route, aws-config, istio, linkerd, gateway-api, envoy-gateway, ingress-nginx, resilience4j, polly, aws-env (got "envoy")',
      'stack.yaml: methd is not a known field (did you mean "method"?)',
    ]);
    const fixed = yaml.replace('methd', 'method').replace('  - import: { format: envoy, file: x.yaml }\n', '');
    expect(loadProblems(() => loadStacks(fixed, 'stack.yaml', { readImport: fixtureReader }))).toEqual([
      'stack.yaml: layers.2.import.file: missing.yaml: cannot read (no such file)',
      'stack.yaml: layers.3.preset cannot be combined with import (a layer is imported or starts from a preset)',
      'stack.yaml: layers.0.preset must be a known preset (got "p-retri"; did you mean "p-retry"?)',
      'stack.yaml: layers.1.policy.maxAttempts must be a positive integer or "unlimited" (got 0)',
    ]);
  });

  it('an imported file with problems is named in the messages', () => {
    const problems = loadProblems(() => stackOf({ layers: [{ import: { format: 'envoy-route', file: 'envoy-route-bad.yaml' } }] }));
    expect(problems[0]).toBe('envoy-route-bad.yaml: retry_policy.num_retries must be a non-negative integer (got "three")');
  });

  it('a stack file needs layers; invalid JSON is located', () => {
    expect(loadProblems(() => loadStacks('{ "layers": [] }', 's.json'))).toEqual(['s.json: layers must have 1 to 16 layers (got 0)']);
    expect(loadProblems(() => loadStacks('{ "layers": [ }', 's.json'))).toEqual(['s.json: invalid JSON at line 1, column 15: unexpected "}" (expected a value)']);
    expect(loadProblems(() => loadStacks('{ "hello": 1 }', 's.json'))[0]).toMatch(/^s\.json: is in no format check reads \(an object without "layers", "scenario", "parts", "methodConfig", "retry_policy", "apiVersion" or resilience4j keys\); it reads a stack file \(an object with "layers"\), /);
  });
});

const EXPERIMENT = {
  name: 'three-layers',
  scenario: {
    workload: { kind: 'burst', clients: 100, method: 'PUT', deadlineMs: 2000 },
    stack: [
      { name: 'app', policy: { maxAttempts: 3 } },
      { name: 'sdk', policy: { preset: 'aws-sdk-js-standard' } },
      { name: 'proxy', policy: { maxAttempts: 3, perAttemptTimeoutMs: 250 } },
    ],
    leaf: { kind: 'server', concurrency: 4, serviceMs: 20 },
  },
};

describe('experiment files', () => {
  it("checks the scenario's stack with its workload's method and deadline", () => {
    const [stack] = loadStacks(JSON.stringify(EXPERIMENT), 'exp.json');
    expect(stack!.name).toBe('three-layers');
    expect(stack!.method).toBe('PUT');
    expect(stack!.deadlineMs).toBe(2000);
    expect(stack!.layers.map((l) => [l.name, l.origin, l.policy.maxAttempts])).toEqual([
      ['app', 'inline', 3],
      ['sdk', 'preset aws-sdk-js-standard', 3],
      ['proxy', 'inline', 3],
    ]);
  });

  it('one stack per part, or the part asked for', () => {
    const parts = {
      name: 'two',
      parts: [
        { name: 'short', scenario: { ...EXPERIMENT.scenario, stack: [{ name: 'a' }] } },
        { name: 'deep', scenario: EXPERIMENT.scenario },
      ],
    };
    expect(loadStacks(JSON.stringify(parts), 'e.json').map((s) => [s.name, s.layers.length])).toEqual([
      ['two/short', 1],
      ['two/deep', 3],
    ]);
    expect(loadStacks(JSON.stringify(parts), 'e.json', { part: 'deep' }).map((s) => s.name)).toEqual(['two/deep']);
    expect(loadProblems(() => loadStacks(JSON.stringify(parts), 'e.json', { part: 'wide' }))).toEqual(['e.json: has no part "wide" (parts: short, deep)']);
  });

  it('an invalid experiment gives its validation messages', () => {
    const bad = { ...EXPERIMENT, scenario: { ...EXPERIMENT.scenario, stack: [{ policy: { maxAttempts: -1 } }] } };
    expect(loadProblems(() => loadStacks(JSON.stringify(bad), 'exp.json'))).toEqual([
      'exp.json: scenario.stack.0.policy.maxAttempts must be a positive integer or "unlimited" (got -1)',
    ]);
  });
});

describe('a configuration on its own is a one-layer stack', () => {
  it('gRPC service config, Envoy route, AWS profile', () => {
    expect(loadStacks(fixture('grpc-service-config.json'), 'sc.json')[0]!.layers[0]!.name).toBe('grpc');
    expect(loadStacks(fixture('envoy-route.yaml'), 'route.yaml')[0]!.layers[0]!.name).toBe('envoy');
    const aws = loadStacks(fixture('aws-config.ini'), 'config', { profile: 'batch', method: 'POST', deadlineMs: 1000 })[0]!;
    expect(aws.layers[0]!.policy.maxAttempts).toBe(5);
    expect(aws.method).toBe('POST');
    expect(aws.deadlineMs).toBe(1000);
    expect(loadStacks(fixture('grpc-service-config.json'), 'sc.json', { service: 'shop.v1.Orders/PlaceOrder' })[0]!.layers[0]!.policy.maxAttempts).toBe(1);
  });
});
