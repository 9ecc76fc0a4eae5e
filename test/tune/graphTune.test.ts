import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportPolicy, type ExportFormat } from '../../src/check/index.js';
import { recommendedConfiguration } from '../../src/cli/tuneConfiguration.js';
import { resolveScenario } from '../../src/experiment/index.js';
import { prepareTune } from '../../src/tune/prepareTune.js';
import { runTune } from '../../src/tune/runTune.js';
import { tuneAnswer, type TuneAnswer } from '../../src/tune/tuneAnswer.js';
import { applyOverrides } from '../../src/tune/tuneProblem.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';
import { inThread, problemOf } from './helpers.js';

type Json = Record<string, unknown>;

/** The gateway's two calls' stacks, by full path. */
const CALL_A = 'services.gateway.endpoints.get.steps.0.calls.0.stack.0';
const CALL_B = 'services.gateway.endpoints.get.steps.0.calls.1.stack.0';

/**
 * A gateway calling two services, each through a stack of one `sdk` layer; each service fails an
 * attempt with probability 0.5, so an operation succeeds with probability (1 - 0.5^A)^2 for A
 * attempts at both calls: 0.77 for 3, 0.88 for 4. The fewest calls with success >= 0.8 is A = 4.
 */
function root(tune: Json): Json {
  const call = (service: string) => ({ service, stack: [{ name: 'sdk', policy: { maxAttempts: 2, backoff: { kind: 'none' } } }] });
  const failing = { kind: 'server', concurrency: 'unlimited', serviceMs: 0, faults: [{ fromMs: 0, probability: 0.5, status: 503 }] };
  return {
    name: 'two-calls',
    seed: 1,
    scenario: {
      workload: { kind: 'burst', clients: 1000, entry: { service: 'gateway' } },
      stack: [{ name: 'user', policy: { maxAttempts: 1 } }],
      services: {
        gateway: { fleet: { kind: 'server', concurrency: 'unlimited', serviceMs: 0 }, endpoints: { get: { steps: [{ kind: 'call', calls: [call('a'), call('b')] }] } } },
        a: { fleet: failing, endpoints: { get: {} } },
        b: { fleet: failing, endpoints: { get: {} } },
      },
    },
    tune: {
      objectives: [{ metric: 'amplification', goal: 'minimize' }],
      constraints: [{ metric: 'successRate', min: 0.8 }],
      ...tune,
    },
  };
}

/** The resolved policy of a call's `sdk` layer with overrides applied. */
function sdkPolicy(scenario: Json, path: string) {
  const resolved = resolveScenario(scenario, ['scenario']);
  if (!resolved.ok) throw new Error(resolved.errors.join('\n'));
  const j = path === CALL_A ? 0 : 1;
  const step = resolved.scenario.graph?.services.find((s) => s.name === 'gateway')?.endpoints[0]?.steps?.[0];
  if (step?.kind !== 'call') throw new Error('no call step');
  return step.calls[j]?.stack[0]?.policy;
}

describe('tune on a service graph', () => {
  it('ties a selector dimension across both calls: one dimension, one recommended value, one configuration entry for both layers', async () => {
    const problem = problemOf(root({ space: { 'layers[sdk].policy.maxAttempts': { kind: 'int', min: 1, max: 4 } } }));
    const answer = tuneAnswer(problem, await runTune(problem, inThread().evaluate));
    expect(answer.space).toEqual([{ path: 'layers[sdk].policy.maxAttempts', dimension: { kind: 'int', min: 1, max: 4 }, layers: [CALL_A, CALL_B] }]);
    expect(answer.recommendation?.overrides).toEqual({ main: { 'layers[sdk].policy.maxAttempts': 4 } });
    const config = recommendedConfiguration(problem, answer);
    expect(config.map((c) => ({ layer: c.layer, layers: c.layers }))).toEqual([{ layer: 'sdk', layers: [CALL_A, CALL_B] }]);
    // Each format's text is export's own, of the recommended policy of both layers.
    const scenario = applyOverrides(problem.parts[0]!.scenario, { 'layers[sdk].policy.maxAttempts': 4 });
    const policy = sdkPolicy(scenario, CALL_A);
    expect(sdkPolicy(scenario, CALL_B)).toEqual(policy);
    for (const e of config[0]!.exports) {
      const r = exportPolicy(policy!, e.format as ExportFormat, { name: 'sdk' });
      expect({ text: e.text, warnings: e.warnings }).toEqual({ text: r.text, warnings: r.warnings });
    }
    const grpc = config[0]!.exports.find((e) => e.format === 'grpc-service-config');
    expect(JSON.parse(grpc!.text).methodConfig[0].retryPolicy.maxAttempts).toBe(4);
    expect(config[0]!.exports.find((e) => e.format === 'envoy-route')?.text).toContain('num_retries: 3');
  });

  it('with free: true, one dimension per matched layer named by its full path, each in the recommendation', async () => {
    const problem = problemOf(root({ space: { 'layers[sdk].policy.maxAttempts': { kind: 'int', min: 3, max: 4, free: true } } }));
    expect(problem.space).toEqual([
      { path: `${CALL_A}.policy.maxAttempts`, dimension: { kind: 'int', min: 3, max: 4 }, layers: [CALL_A] },
      { path: `${CALL_B}.policy.maxAttempts`, dimension: { kind: 'int', min: 3, max: 4 }, layers: [CALL_B] },
    ]);
    const answer = tuneAnswer(problem, await runTune(problem, inThread().evaluate));
    // The four points of the grid: (3, 3), (3, 4), (4, 3), (4, 4), each layer's value its own.
    expect(answer.ranking.map((r) => r.values).filter((v) => v !== null)).toHaveLength(4);
    const overrides = answer.recommendation?.overrides.main ?? {};
    expect(Object.keys(overrides)).toEqual([`${CALL_A}.policy.maxAttempts`, `${CALL_B}.policy.maxAttempts`]);
    const config = recommendedConfiguration(problem, answer);
    expect(config.flatMap((c) => c.layers).sort()).toEqual([CALL_A, CALL_B]);
  });

  it('refuses free on a path that is no selector, and a free selector beside a dimension of one of its paths', () => {
    const prepared = prepareTune(
      root({
        space: {
          'stack.0.policy.maxAttempts': { kind: 'int', min: 1, max: 2, free: true },
          'layers[sdk].policy.maxAttempts': { kind: 'int', min: 1, max: 4, free: true },
          [`${CALL_B}.policy.maxAttempts`]: { kind: 'int', min: 1, max: 4 },
        },
      }),
    );
    expect(prepared.ok ? [] : prepared.errors).toEqual([
      'tune.space.stack.0.policy.maxAttempts.free needs a layer selector as the key (layers[<name>]...): "stack.0.policy.maxAttempts" sets one place',
      `tune.space.${CALL_B}.policy.maxAttempts sets ${CALL_B}.policy.maxAttempts, which tune.space.layers[sdk].policy.maxAttempts sets too (one dimension per path)`,
    ]);
    // Parts whose scenarios have different layers of that name: no one list of dimensions fits both.
    const written = root({ space: { 'layers[sdk].policy.maxAttempts': { kind: 'int', min: 1, max: 4, free: true } } });
    const oneCall = applyOverrides(written.scenario as Json, { 'services.gateway.endpoints.get.steps.0.calls': [{ service: 'a', stack: [{ name: 'sdk' }] }] });
    const { scenario: both, ...rest } = written;
    const parts = prepareTune({ ...rest, parts: [{ name: 'both', scenario: both }, { name: 'one', scenario: oneCall }] });
    expect(parts.ok ? [] : parts.errors).toEqual([
      `tune.space.layers[sdk].policy.maxAttempts.free needs the same layers in every part (part "both": ${CALL_A}.policy.maxAttempts, ${CALL_B}.policy.maxAttempts; part "one": ${CALL_A}.policy.maxAttempts)`,
    ]);
    const notBoolean = prepareTune(root({ space: { 'layers[sdk].policy.maxAttempts': { kind: 'int', min: 1, max: 4, free: 'yes' } } }));
    expect(notBoolean.ok ? [] : notBoolean.errors).toEqual(['tune.space.layers[sdk].policy.maxAttempts.free must be true or false (got "yes")']);
  });

  it('takes presets as contenders on the calls\' layers and gives their layers a configuration; a name matching no layer is refused with the layers that exist', async () => {
    // Without constraints, so that there is a recommendation whichever contender wins.
    const problem = problemOf(root({ space: { 'services.a.fleet.concurrency': { kind: 'choice', values: ['unlimited'] } }, presets: [{ layer: 'sdk', names: ['grpc'] }], constraints: [] }));
    const answer = tuneAnswer(problem, await runTune(problem, inThread().evaluate));
    expect(answer.presets.map((p) => p.layer)).toEqual(['sdk']);
    const config = recommendedConfiguration(problem, answer);
    expect(config.flatMap((c) => c.layers)).toEqual([CALL_A, CALL_B]);
    const refused = prepareTune(root({ space: { 'layers[sdk].policy.maxAttempts': { kind: 'int', min: 1, max: 4 } }, presets: [{ layer: 'proxy', names: ['grpc'] }] }));
    expect(refused.ok ? [] : refused.errors).toEqual(['tune.presets.0.layer must name a layer of the scenario (got "proxy"; layers: user, sdk)']);
  });

  it('retrystorm tune writes the tied layers\' one configuration to tune.json and names both layers on the terminal', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'two-calls.json', root({ space: { 'layers[sdk].policy.maxAttempts': { kind: 'int', min: 1, max: 4 } } }));
    const r = await cli(['tune', file, '--out', join(dir, 'out'), '--workers', '1']);
    expect(r.err).not.toMatch(/error|warning/);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`as configuration of sdk at ${CALL_A}, ${CALL_B} (in tune.json and the report)`);
    const answer = JSON.parse(readFileSync(join(dir, 'out', 'two-calls', 'tune.json'), 'utf8'));
    expect(answer.recommendation.setFlags).toEqual(['--set layers[sdk].policy.maxAttempts=4']);
    const config = answer.recommendation.configuration as Array<{ layer: string; layers: string[]; exports: Array<{ format: string; text: string }> }>;
    expect(config.map((c) => c.layers)).toEqual([[CALL_A, CALL_B]]);
    const grpc = config[0]!.exports.find((e) => e.format === 'grpc-service-config');
    expect(JSON.parse(grpc!.text).methodConfig[0].retryPolicy.maxAttempts).toBe(4);
    const html = readFileSync(join(dir, 'out', 'two-calls', 'index.html'), 'utf8');
    expect(html).toContain(`sdk at <code>${CALL_A}</code>, <code>${CALL_B}</code>:`);
    expect(html).toContain(`one value at 2 layers: <code>${CALL_A}</code>, <code>${CALL_B}</code>`);
    // The file with the recommendation applied exports the same text: both sdk layers are one configuration.
    const written = root({ space: { 'layers[sdk].policy.maxAttempts': { kind: 'int', min: 1, max: 4 } } });
    const applied = { ...written, scenario: applyOverrides(written.scenario as Json, answer.recommendation.overrides.main) };
    const exported = await cli(['export', 'grpc-service-config', writeExperiment(dir, 'recommended.json', applied), '--layer', 'sdk']);
    expect(exported.code).toBe(0);
    expect(exported.out).toBe(grpc!.text);
    // Layers of that name whose policies differ are no one configuration: refused, naming their stacks.
    const differing = { ...written, scenario: applyOverrides(written.scenario as Json, { [`${CALL_B}.policy.maxAttempts`]: 3 }) };
    const refused = await cli(['export', 'grpc-service-config', writeExperiment(dir, 'differing.json', differing), '--layer', 'sdk']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('has 2 layers named "sdk" with different policies (in two-calls (gateway.get -> a.get), two-calls (gateway.get -> b.get))');
  });

  it("covers every stack: each named workload's and each call's, in the configuration of a tied dimension", () => {
    const written = root({ space: { 'layers[sdk].policy.maxAttempts': { kind: 'int', min: 1, max: 4 } } });
    const { workload, stack: _stack, ...scenario } = written.scenario as Json;
    const sdk = [{ name: 'sdk', policy: { maxAttempts: 2, backoff: { kind: 'none' } } }];
    const named = { ...scenario, workloads: { web: { ...(workload as Json), stack: sdk }, mobile: { ...(workload as Json), stack: sdk } } };
    const problem = problemOf({ ...written, scenario: named });
    expect(problem.space[0]?.layers).toEqual(['workloads.web.stack.0', 'workloads.mobile.stack.0', CALL_A, CALL_B]);
    const answer = { recommendation: { overrides: { main: { 'layers[sdk].policy.maxAttempts': 3 } } } } as unknown as TuneAnswer;
    const config = recommendedConfiguration(problem, answer);
    expect(config.map((c) => ({ layer: c.layer, layers: c.layers }))).toEqual([{ layer: 'sdk', layers: ['workloads.web.stack.0', 'workloads.mobile.stack.0', CALL_A, CALL_B] }]);
    const grpc = config[0]!.exports.find((e) => e.format === 'grpc-service-config');
    expect(JSON.parse(grpc!.text).methodConfig[0].retryPolicy.maxAttempts).toBe(3);
  });
});
