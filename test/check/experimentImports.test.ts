import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasStackImports, loadStacks, resolveExperimentImports, type CheckLayer } from '../../src/check/index.js';
import { parseExperiment, resolveScenario } from '../../src/experiment/index.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';
import { FIXTURES, fixtureReader, loadProblems, stackOf } from './helpers.js';

/** One import entry of each format, on the project's fixtures (every field the entry can give). */
const IMPORTS: Array<Record<string, string>> = [
  { format: 'grpc-service-config', file: 'grpc-service-config.json', impl: 'js' },
  { format: 'envoy-route', file: 'envoy-route.yaml' },
  { format: 'aws-config', file: 'aws-config.ini', profile: 'batch', sdk: 'python' },
  { format: 'istio', file: 'mesh/istio-virtualservice.yaml', route: 'reviews-v2' },
  { format: 'linkerd', file: 'mesh/linkerd-annotations.yaml' },
  { format: 'gateway-api', file: 'mesh/gateway-api-httproute.yaml', route: 'read' },
  { format: 'envoy-gateway', file: 'mesh/envoy-gateway-btp.yaml' },
  { format: 'ingress-nginx', file: 'mesh/ingress-nginx.yaml', route: 'shop' },
  { format: 'resilience4j', file: 'mesh/resilience4j.yml', instance: 'inventory' },
  { format: 'polly', file: 'mesh/polly-appsettings.json', instance: 'HttpClients:Catalog:Resilience' },
  { format: 'aws-env', file: 'mesh/aws.env', config: 'aws-config.ini', profile: 'batch', sdk: 'python' },
];

/** A small experiment whose stack is `layers` (in experiment-file form). */
function experiment(layers: unknown[]): Record<string, unknown> {
  return {
    name: 'imported',
    scenario: { workload: { kind: 'burst', clients: 10, deadlineMs: 5000 }, stack: layers, leaf: { kind: 'server', concurrency: 4, serviceMs: 5 } },
  };
}

function experimentStack(doc: object): CheckLayer[] {
  const stacks = loadStacks(JSON.stringify(doc), 'exp.json', { readImport: fixtureReader });
  expect(stacks).toHaveLength(1);
  return (stacks[0] as { layers: CheckLayer[] }).layers;
}

describe('import in experiment files (scenario.stack)', () => {
  for (const spec of IMPORTS) {
    it(`a layer importing ${spec.format} resolves as the stack file's layer does`, () => {
      const overrides = { idempotency: 'http' };
      const fromStackFile = stackOf({ layers: [{ name: 'app', policy: { maxAttempts: 2 } }, { import: spec, policy: overrides }] }).layers;
      const layers = [{ name: 'app', policy: { maxAttempts: 2 } }, { import: spec, policy: overrides }];
      // check reads the experiment file: the same layers, origins and notes.
      expect(experimentStack(experiment(layers))).toEqual(fromStackFile);
      // The simulator's resolution: the same policies, every default filled in.
      const resolved = resolveExperimentImports(experiment(layers), 'exp.json', fixtureReader);
      expect(hasStackImports(resolved.root)).toBe(false);
      expect(parseExperiment(resolved.root).ok).toBe(true);
      const scenario = resolveScenario(resolved.root.scenario, ['scenario']);
      if (!scenario.ok) throw new Error(scenario.errors.join('\n'));
      expect(scenario.scenario.stack.map((l) => ({ name: l.name, policy: l.policy }))).toEqual(fromStackFile.map((l) => ({ name: l.name, policy: l.policy })));
      expect(fromStackFile[1]?.policy.idempotency).toBe('http');
      expect([...resolved.layers.keys()]).toEqual(['scenario.stack.1']);
    });
  }

  it('resolves the imports of every part, and keeps the layers that import nothing as written', () => {
    const doc = {
      name: 'parts',
      parts: [
        { name: 'a', scenario: (experiment([{ name: 'sdk', policy: { maxAttempts: 4 } }]) as { scenario: unknown }).scenario },
        { name: 'b', scenario: (experiment([{ name: 'mesh', import: IMPORTS[3] }]) as { scenario: unknown }).scenario },
      ],
    };
    const resolved = resolveExperimentImports(doc, 'exp.json', fixtureReader);
    expect([...resolved.layers.keys()]).toEqual(['parts.1.scenario.stack.0']);
    const parts = resolved.root.parts as Array<{ scenario: { stack: Array<Record<string, unknown>> } }>;
    expect(parts[0]?.scenario.stack).toEqual([{ name: 'sdk', policy: { maxAttempts: 4 } }]);
    expect(parts[1]?.scenario.stack[0]?.name).toBe('mesh');
    expect(parts[1]?.scenario.stack[0]?.import).toBeUndefined();
    expect(stackOf({ layers: [{ name: 'mesh', import: IMPORTS[3] }] }).layers[0]?.policy).toEqual(
      (loadStacks(JSON.stringify(doc), 'exp.json', { readImport: fixtureReader, part: 'b' })[0] as { layers: CheckLayer[] }).layers[0]?.policy,
    );
  });

  it('bad imports: one message per problem, naming the file and the dotted path', () => {
    const problems = loadProblems(() =>
      resolveExperimentImports(
        experiment([
          { import: { format: 'istoi', file: 'x.yaml' } },
          { import: { format: 'istio', file: 'missing.yaml' } },
          { import: { format: 'istio', file: 'mesh/istio-virtualservice.yaml', route: 'reviews-v2' }, policy: { preset: 'grpc' } },
          { import: { format: 'envoy-route' } },
          { import: { format: 'envoy-route', file: 'envoy-route.yaml', rout: 'x' } },
          { import: { format: 'envoy-route', file: 'envoy-route.yaml' }, policy: 3 },
        ]),
        'exp.json',
        fixtureReader,
      ),
    );
    expect(problems).toEqual([
      'exp.json: scenario.stack.0.import.format must be one of grpc-service-config, envoy-route, aws-config, istio, linkerd, gateway-api, envoy-gateway, ingress-nginx, resilience4j, polly, aws-env (got "istoi")',
      'exp.json: scenario.stack.1.import.file: missing.yaml: cannot read (no such file)',
      'exp.json: scenario.stack.2.policy.preset cannot be combined with import',
      'exp.json: scenario.stack.3.import.file is required',
      'exp.json: scenario.stack.4.import.rout is not a known field (did you mean "route"?)',
      'exp.json: scenario.stack.5.policy must be an object (a policy as in experiment files)',
    ]);
  });

  it("an importer's problems name the imported file and its field", () => {
    const problems = loadProblems(() => resolveExperimentImports(experiment([{ import: { format: 'istio', file: 'mesh/istio-bad.yaml' } }]), 'exp.json', fixtureReader));
    const direct = loadProblems(() => stackOf({ layers: [{ import: { format: 'istio', file: 'mesh/istio-bad.yaml' } }] }));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems).toEqual(direct);
    expect(problems.every((p) => p.startsWith('mesh/istio-bad.yaml: '))).toBe(true);
  });

  it('without a reader an import cannot be resolved', () => {
    expect(loadProblems(() => resolveExperimentImports(experiment([{ import: IMPORTS[1] }]), 'exp.json', undefined))).toEqual([
      'exp.json: scenario.stack.0.import cannot be read here (no file access)',
    ]);
  });
});

describe('retrystorm run, check and trace with an imported layer', () => {
  function setup(): { dir: string; file: string } {
    const dir = tempDir();
    mkdirSync(join(dir, 'conf'));
    copyFileSync(join(FIXTURES, 'envoy-route.yaml'), join(dir, 'conf', 'envoy-route.yaml'));
    const file = writeExperiment(dir, 'exp.json', {
      ...experiment([{ name: 'proxy', import: { format: 'envoy-route', file: 'conf/envoy-route.yaml' }, policy: { perAttemptTimeoutMs: 300 } }]),
      replications: 2,
    });
    return { dir, file };
  }

  it('run resolves the import relative to the experiment file and records the resolved file', async () => {
    const { dir, file } = setup();
    const r = await cli(['run', file, '--out', join(dir, 'out'), '--workers', '1'], '/');
    expect(r.err).not.toContain('error');
    expect(r.code).toBe(0);
    const run = JSON.parse(readFileSync(join(dir, 'out', 'imported', 'run.json'), 'utf8')) as { source: string };
    const source = JSON.parse(run.source) as { scenario: { stack: Array<Record<string, unknown>> } };
    const expected = stackOf({ layers: [{ name: 'proxy', import: { format: 'envoy-route', file: 'envoy-route.yaml' }, policy: { perAttemptTimeoutMs: 300 } }] }).layers[0];
    expect(source.scenario.stack[0]?.import).toBeUndefined();
    const resolved = resolveScenario(source.scenario, ['scenario']);
    if (!resolved.ok) throw new Error(resolved.errors.join('\n'));
    expect(resolved.scenario.stack[0]?.policy).toEqual(expected?.policy);
  });

  it('check names the imported origin; a missing import is exit 2 with the dotted path', async () => {
    const { dir, file } = setup();
    const ok = await cli(['check', 'exp.json', '--json'], dir);
    expect(ok.err).toBe('');
    const json = JSON.parse(ok.out) as { stacks: Array<{ layers: Array<{ origin: string }> }> };
    expect(json.stacks[0]?.layers[0]?.origin).toMatch(/conf\/envoy-route\.yaml: route "checkout-api" .*retry_policy, with overrides$/);
    writeExperiment(dir, 'bad.json', experiment([{ import: { format: 'envoy-route', file: 'conf/nope.yaml' } }]));
    const bad = await cli(['run', join(dir, 'bad.json'), '--out', join(dir, 'out2')], '/');
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(`error: ${join(dir, 'bad.json')}: scenario.stack.0.import.file: ${join(dir, 'conf', 'nope.yaml')}: cannot read (no such file)\n`);
    const trace = await cli(['trace', join(dir, 'bad.json'), '--script', '200:1'], '/');
    expect(trace.code).toBe(2);
    expect(trace.err).toBe(bad.err);
    expect(file).toBe(join(dir, 'exp.json'));
  });
});
