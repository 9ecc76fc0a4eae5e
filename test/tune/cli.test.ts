import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';
import { fixture } from './helpers.js';

function withTune(tune: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const base = fixture('known-optimum.json');
  return { ...base, ...extra, tune: { ...(base.tune as Record<string, unknown>), ...tune } };
}

describe('retrystorm tune: bad input', () => {
  it('gives one message per problem, with dotted paths, and exit code 2', async () => {
    const dir = tempDir();
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [withTune({ space: {} }), ['tune.space must name at least one parameter (got an empty space)']],
      [
        withTune({ space: { 'stack.0.policy.maxAttemps': { kind: 'int', min: 1, max: 3 } } }),
        ['tune.space.stack.0.policy.maxAttemps: scenario.stack.0.policy.maxAttemps is not a known field (did you mean "maxAttempts"?)'],
      ],
      [withTune({ space: { 'stack.0.policy.maxAttempts': { kind: 'int', min: 5, max: 3 } } }), ['tune.space.stack.0.policy.maxAttempts.min must be <= max (got 5 > 3)']],
      [
        withTune({ objectives: [{ metric: 'amplificaton', goal: 'minimize' }], constraints: [{ metric: 'successRate', min: 0.9, part: 'outage' }] }),
        [
          'tune.objectives.0.metric must be one of ',
          'tune.constraints.0.part must be one of main (got "outage")',
        ],
      ],
      [withTune({ constraints: [{ metric: 'successRate', min: 0.9, window: 'during' }] }), ["tune.constraints.0.window must name a window of the scenario's metrics.windows (got \"during\"; it has none)"]],
      [withTune({ objectives: [{ metric: 'successRate', goal: 'maximize' }] }), ['tune.objectives.0.tolerance is required for successRate (it can be 0 or is a rate: equivalence needs an absolute margin)']],
      [withTune({ presets: [{ layer: 'sdk', names: ['aws-sdk-js-standard'] }] }), ['tune.presets.0.layer must name a layer of the scenario (got "sdk"; layers: client)']],
    ];
    for (const [body, messages] of cases) {
      const file = writeExperiment(dir, 'bad.json', body);
      const r = await cli(['tune', file, '--out', join(dir, 'out'), '--quiet']);
      expect(r.code).toBe(2);
      const lines = r.err.trim().split('\n');
      expect(lines.length).toBe(messages.length);
      messages.forEach((m, i) => expect(lines[i]).toContain(`${file}: ${m}`));
      expect(r.err).not.toMatch(/\n\s+at /);
    }
  });

  it('ends normally on an infeasible problem, with "no candidate met the constraints" and the closest candidates', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'infeasible.json', withTune({ space: { 'stack.0.policy.maxAttempts': { kind: 'int', min: 1, max: 3 } } }));
    const r = await cli(['tune', file, '--out', join(dir, 'out'), '--workers', '1']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('no candidate met the constraints (every candidate was proven infeasible or errored); closest: maxAttempts=3; maxAttempts=2; maxAttempts=1.');
    const answer = JSON.parse(readFileSync(join(dir, 'out', 'known-optimum', 'tune.json'), 'utf8'));
    expect(answer.status).toBe('no-feasible-candidate');
    expect(answer.closest).toEqual(['c3', 'c2', 'c1']);
    expect(answer.totalRuns).toBe(12);
  });
});

describe('retrystorm tune: determinism', () => {
  it('gives the same answer with 1 or 2 workers, and after an interruption and --resume', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'opt.json', fixture('known-optimum.json'));
    const answer = (out: string) => readFileSync(join(dir, out, 'known-optimum', 'tune.json'), 'utf8');
    const one = await cli(['tune', file, '--out', join(dir, 'w1'), '--workers', '1', '--quiet']);
    const two = await cli(['tune', file, '--out', join(dir, 'w2'), '--workers', '2', '--quiet']);
    expect([one.code, two.code]).toEqual([0, 0]);
    expect(answer('w2')).toBe(answer('w1'));

    // Interrupted as round 1 starts: exit 130, the rounds so far kept.
    let interrupt = () => {};
    let err = '';
    const code = await runCli(['tune', file, '--out', join(dir, 'cut'), '--workers', '2'], {
      stdout: () => {},
      stderr: (s) => {
        err += s;
        if (s.includes('round 1:')) interrupt();
      },
      cwd: dir,
      onInterrupt: (h) => {
        interrupt = h;
        return () => {};
      },
    });
    expect(code).toBe(130);
    expect(err).toContain('run again with --resume to continue');
    const resumed = await cli(['tune', file, '--out', join(dir, 'cut'), '--workers', '2', '--resume', '--quiet']);
    expect(resumed.code).toBe(0);
    expect(answer('cut')).toBe(answer('w1'));
    // Every round is an experiment file that `retrystorm run` can run (and shard).
    const round = JSON.parse(readFileSync(join(dir, 'w1', 'known-optimum', 'rounds', 'round-1.json'), 'utf8'));
    expect([round.name, round.replications, Object.keys(round.variants)]).toEqual(['known-optimum-round-1', 8, ['c4']]);
  });
});

describe('run-all with a file that has a tune section', () => {
  it('searches it instead of sweeping it, and lists its report in the index', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'exp'));
    writeExperiment(join(dir, 'exp'), 'opt.json', fixture('known-optimum.json'));
    const r = await cli(['run-all', '--dir', join(dir, 'exp'), '--out', join(dir, 'out'), '--workers', '2', '--quiet']);
    expect(r.code).toBe(0);
    const answer = JSON.parse(readFileSync(join(dir, 'out', 'known-optimum', 'tune.json'), 'utf8'));
    expect(answer.recommendation.overrides).toEqual({ main: { 'stack.0.policy.maxAttempts': 4 } });
    expect(readFileSync(join(dir, 'out', 'index.html'), 'utf8')).toContain('known-optimum/index.html');
    expect(readFileSync(join(dir, 'out', 'known-optimum', 'index.html'), 'utf8')).toContain('../assets/vega.min.js');
  });

  it('reports a bad tune section before anything runs', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'exp'));
    writeExperiment(join(dir, 'exp'), 'bad.json', withTune({ space: {} }));
    writeExperiment(join(dir, 'exp'), 'plain.json', { name: 'plain', scenario: (fixture('known-optimum.json') as { scenario: unknown }).scenario });
    const r = await cli(['run-all', '--dir', join(dir, 'exp'), '--out', join(dir, 'out'), '--quiet']);
    expect(r.code).toBe(2);
    expect(r.err.trim()).toBe(`error: ${join(dir, 'exp', 'bad.json')}: tune.space must name at least one parameter (got an empty space)`);
    expect(existsSync(join(dir, 'out', 'plain'))).toBe(false);
  });
});
