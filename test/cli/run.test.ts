import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir, writeExperiment } from './helpers.js';

/** Erlang-C probability of waiting, c servers, offered load a (Erlang 1917). */
function erlangC(c: number, a: number): number {
  let sum = 0;
  let term = 1;
  for (let k = 0; k < c; k++) {
    if (k > 0) term *= a / k;
    sum += term;
  }
  const top = ((term * a) / c) * (c / (c - a));
  return top / (sum + top);
}

describe('retrystorm run', () => {
  it('the shipped M/M/1 validation matches W = 1/(mu - lambda) = 50 ms within 3%', async () => {
    const out = tempDir();
    const r = await cli(['run', 'experiments/validation/mm1.json', '--out', out, '--json']);
    expect(r.code).toBe(0);
    const res = JSON.parse(r.out);
    expect(res.operations.offered).toBeGreaterThan(1_500_000);
    expect(Math.abs(res.latencyMs.mean - 50) / 50).toBeLessThan(0.03);
    expect(res.truncated).toBe(null);
    expect(JSON.parse(readFileSync(join(out, 'validation-mm1', 'results.json'), 'utf8'))).toEqual(res);
  });

  it('the shipped M/M/c validation (c = 10, utilisation 0.8) matches Erlang-C within 3%', async () => {
    const r = await cli(['run', 'experiments/validation/mmc.json', '--out', tempDir(), '--json']);
    expect(r.code).toBe(0);
    const res = JSON.parse(r.out);
    const mu = 1 / 10;
    const lambda = 0.8;
    const W = erlangC(10, lambda / mu) / (10 * mu - lambda) + 1 / mu;
    expect(W).toBeCloseTo(12.0459, 3);
    expect(Math.abs(res.latencyMs.mean - W) / W).toBeLessThan(0.03);
  });

  it('writes results.json with every documented field and prints a summary table', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', {
      name: 'small',
      seed: 9,
      scenario: {
        workload: { kind: 'burst', clients: 20 },
        stack: [{ name: 'app', policy: { maxAttempts: 3 } }, { name: 'sdk', policy: { maxAttempts: 2 } }],
        leaf: { kind: 'server', serviceMs: 2, faults: [{ probability: 1 }] },
      },
    });
    const r = await cli(['run', file, '--out', dir]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('amplification (leaf calls / operation)');
    expect(r.out).toMatch(/attempt-limit\s+20\n/);
    const res = JSON.parse(readFileSync(join(dir, 'small', 'results.json'), 'utf8'));
    for (const k of ['operations', 'giveUps', 'attempts', 'leafCalls', 'amplification', 'latencyMs', 'operationMs', 'completionTimeMs', 'server', 'clustering', 'timeSeries', 'truncated', 'seed', 'version']) {
      expect(res).toHaveProperty(k);
    }
    expect(res.amplification).toBe(6);
    expect(res.attempts.map((a: { layer: string; first: number; retries: number }) => [a.layer, a.first, a.retries])).toEqual([
      ['app', 20, 40],
      ['sdk', 60, 60],
    ]);
    expect(res.clustering.map((c: { binMs: number }) => c.binMs)).toEqual([1, 10]);
    expect(res.server).toHaveProperty('utilization');
    expect(res.server).toHaveProperty('wastedWorkMs');
    expect(res.server).toHaveProperty('maxQueue');
    expect(res.seed).toBe(9);
  });

  it('--seed overrides the file seed and changes the random draws', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', {
      name: 'seeded',
      scenario: {
        workload: { kind: 'open', rate: 100, durationMs: 2000 },
        stack: [{ policy: { maxAttempts: 1 } }],
        leaf: { kind: 'server', serviceMs: { dist: 'exponential', mean: 5 } },
      },
    });
    const a = JSON.parse((await cli(['run', file, '--out', dir, '--json', '--seed', '5'])).out);
    const b = JSON.parse((await cli(['run', file, '--out', dir, '--json', '--seed', '5', '--replace'])).out);
    const c = JSON.parse((await cli(['run', file, '--out', dir, '--json', '--seed', '6', '--replace'])).out);
    expect(a).toEqual(b);
    expect(a.seed).toBe(5);
    expect(c.operations.offered).not.toBe(a.operations.offered);
  });

  it('validate prints the parts, cells and replications without running', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', {
      name: 'sweep',
      scenario: { workload: { kind: 'burst', clients: 1 }, stack: [{}], leaf: { kind: 'server', serviceMs: 1 } },
      variants: { a: {}, b: { 'stack.0.policy.maxAttempts': 1 } },
      sweep: { grid: { 'workload.clients': [1, 2, 3] } },
      replications: 4,
    });
    const r = await cli(['validate', file]);
    // Operations: (1 + 2 + 3) clients x 2 variants x 4 replications = 48; attempts at most 3 (variant a) or 1 (b).
    expect(r).toMatchObject({
      code: 0,
      out: 'sweep: valid\n  part main: 6 cells x 4 replications\n  24 runs in all\n  work: about 48 operations, at most 96 leaf calls (if every attempt failed)\n  output: about 228 KB of results; memory: about 150 MB at peak\n',
    });
    expect(existsSync(join(dir, 'sweep'))).toBe(false);
  });

  it('trace prints the timeline of the example in README.md and docs/cli.md exactly', async () => {
    const r = await cli(['trace', '--script', 'hang', '--attempts', '5', '--timeout-ms', '300', '--deadline-ms', '1000', '--backoff', 'constant', '--base-ms', '100']);
    expect(r.code).toBe(0);
    for (const page of ['README.md', 'docs/cli.md']) {
      const block = readFileSync(page, 'utf8').split('$ retrystorm trace --script "hang"')[1]?.split('```')[0] ?? '';
      expect(r.out, page).toBe(block.slice(block.indexOf('\n') + 1));
    }
  });

  it('trace --json prints outcome, attempts, endMs, timeouts, ceilings and waits', async () => {
    const r = await cli(['trace', '--script', '503:250*2,200:250', '--draw', '1', '--json']);
    const j = JSON.parse(r.out);
    expect({ outcome: j.outcome, attempts: j.attempts, endMs: j.endMs, attemptTimeoutsMs: j.attemptTimeoutsMs, ceilingsMs: j.ceilingsMs, waitsMs: j.waitsMs }).toEqual({
      outcome: 'success',
      attempts: 3,
      endMs: 1050,
      attemptTimeoutsMs: [null, null, null],
      ceilingsMs: [100, 200],
      waitsMs: [100, 200],
    });
  });

  it('trace uses the stack of an experiment file', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'stack.json', {
      name: 'stack',
      scenario: {
        workload: { kind: 'burst', clients: 1 },
        stack: [{ name: 'app', policy: { maxAttempts: 2, backoff: { kind: 'none' } } }, { name: 'sdk', policy: { maxAttempts: 3, backoff: { kind: 'none' } } }],
        leaf: { kind: 'server', serviceMs: 1 },
      },
    });
    const j = JSON.parse((await cli(['trace', file, '--script', '503:10', '--json'])).out);
    expect(j.layers.map((l: { layer: string; calls: number; attempts: number }) => [l.layer, l.calls, l.attempts])).toEqual([
      ['app', 1, 2],
      ['sdk', 2, 6],
    ]);
    expect([j.outcome, j.endMs]).toEqual(['attempt-limit', 60]);
  });
});

describe('the built command', () => {
  const bin = 'dist/cli/main.js';
  it('exits 2 on bad input with the message and no stack trace', () => {
    const r = spawnSync(process.execPath, [bin, 'trace', '--script', '200', '--attempts', 'zero'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('error: --attempts must be a positive integer or "unlimited" (got "zero")\n');
  });

  it('prints its version', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }).trim()).toBe(pkg.version);
  });
});
