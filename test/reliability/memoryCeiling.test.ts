import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { expandExperiment, parseExperiment, type ExperimentPlan } from '../../src/experiment/index.js';
import { estimateMemory } from '../../src/sweep/estimateMemory.js';
import { runReplication } from '../../src/sweep/runPlan.js';
import { tempDir, writeExperiment } from '../helpers/reliability.js';

const GB16 = 16e9;

/**
 * An open loop of 5,000 operations a second into `app`, whose handler calls `db` through a stack of
 * its own; `db` serves 100 a second from an unlimited queue, so the queue, the requests and the
 * frames grow for as long as operations arrive.
 */
function growing(maxInFlight?: number) {
  return {
    name: 'growing',
    scenario: {
      workload: { kind: 'open', rate: 5000, durationMs: 20_000, entry: { service: 'app' } },
      stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
      services: {
        app: {
          fleet: { kind: 'server', concurrency: 64, serviceMs: 0.1 },
          endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'sdk', policy: { maxAttempts: 1 } }] }] }] } },
        },
        db: { fleet: { kind: 'server', concurrency: 1, serviceMs: 10 }, endpoints: { get: {} } },
      },
      ...(maxInFlight !== undefined ? { maxInFlight } : {}),
    },
  };
}

function plan(root: Record<string, unknown>): ExperimentPlan {
  const parsed = parseExperiment(root);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const expanded = expandExperiment(parsed.experiment, { quick: false, set: [] });
  if (!expanded.ok) throw new Error(expanded.errors.join('\n'));
  return expanded.plan;
}

describe('a run whose tables would grow past its memory ceiling stops, truncated with the reason', () => {
  it('run --memory-limit: the graph whose queue grows stops at its share, results written and marked', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'e.json', growing());
    let err = '';
    // 155 MB for one run at once: 5 MB of tables once the process's 150 MB are taken off.
    const code = await runCli(['run', 'e.json', '--out', 'out', '--quiet', '--memory-limit', '155'], { stdout: () => {}, stderr: (s) => (err += s), cwd: dir, memoryBytes: GB16 });
    expect(err).toBe('');
    expect(code).toBe(0);
    const r = JSON.parse(readFileSync(join(dir, 'out', 'growing', 'results.json'), 'utf8')) as Record<string, any>;
    expect(r.truncated).toBe('memory-cap');
    expect(r.truncatedReason).toMatch(/^stopped at the memory ceiling \(its tables grew to 5\.\d MB, over the 5\.0 MB a run may hold: run --memory-limit\) at \d+\.\d ms with \d+ operations unfinished$/);
    // It stopped long before the demand ended (100,000 operations over 20 s).
    expect(r.operations.offered).toBeLessThan(20_000);
    expect(r.operations.unfinished).toBeGreaterThan(0);
  });

  it('a sweep\'s summary counts the runs stopped there, and its report names the bound', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'e.json', { ...growing(), replications: 2 });
    const code = await runCli(['run', 'e.json', '--out', 'out', '--quiet', '--workers', '1', '--memory-limit', '155'], { stdout: () => {}, stderr: () => {}, cwd: dir, memoryBytes: GB16 });
    expect(code).toBe(0);
    const summary = JSON.parse(readFileSync(join(dir, 'out', 'growing', 'summary.json'), 'utf8')) as Record<string, any>;
    expect(summary.cells[0].metrics.truncated.mean).toBe(1);
    expect(summary.cells[0].metrics.truncatedAtMemoryCeiling).toMatchObject({ n: 2, mean: 1 });
    const html = readFileSync(join(dir, 'out', 'growing', 'index.html'), 'utf8');
    expect(html).toContain('100% of runs stopped at the memory ceiling (run --memory-limit)');
  });

  it('the same seed stops at the same event', () => {
    const cell = plan(growing()).parts[0]!.cells[0]!;
    const a = runReplication(cell, 0, 1, false, null, 5e6);
    const b = runReplication(cell, 0, 1, false, null, 5e6);
    expect(a.state === 'ok' && a.results.truncated).toBe('memory-cap');
    expect(a.state === 'ok' && b.state === 'ok' && [a.results.events, a.results.simulatedMs]).toEqual(b.state === 'ok' && [b.results.events, b.results.simulatedMs]);
  });

  it('--memory-limit must be a number of megabytes above what the process takes before any run', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'e.json', growing());
    for (const limit of ['lots', '150']) {
      let err = '';
      const code = await runCli(['run', 'e.json', '--memory-limit', limit], { stdout: () => {}, stderr: (s) => (err += s), cwd: dir, memoryBytes: GB16 });
      expect(code).toBe(2);
      expect(err).toBe(`error: --memory-limit must be a number of megabytes above 150 (what the process takes before any run; got "${limit}")\n`);
    }
  });
});

describe('the memory estimate of a graph counts what its operations in flight can hold', () => {
  it('within a factor of 4 of what the run holds when its in-flight cap stops it', () => {
    // 3,000 operations in flight at the most: the run stops at its in-flight cap, holding what they hold.
    const p = plan(growing(3000));
    const estimate = estimateMemory(p, 1).graphBytes;
    expect(estimate).toBeGreaterThan(0);
    const cell = p.parts[0]!.cells[0]!;
    const roomy = runReplication(cell, 0, 1, false, null, 4 * estimate);
    expect(roomy.state === 'ok' && roomy.results.truncated).toBe('in-flight-cap');
    const tight = runReplication(cell, 0, 1, false, null, estimate / 4);
    expect(tight.state === 'ok' && tight.results.truncated).toBe('memory-cap');
  });

  it('validate of the unbounded graph says it is bounded by the memory limit, and by nothing less than the demand', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'e.json', { ...growing(), scenario: { ...growing().scenario, workload: { kind: 'open', rate: 5e6, durationMs: 3_600_000, entry: { service: 'app' } } } });
    let out = '';
    const code = await runCli(['validate', 'e.json', '--workers', '1', '--memory-limit', '2000'], { stdout: (s) => (out += s), stderr: () => {}, cwd: dir, memoryBytes: GB16 });
    expect(code).toBe(0);
    // 150 MB of base and the run's 1.85 GB share, plus its series.
    expect(out).toMatch(/memory: about 2\.0 GB at peak \(at most: a run whose queues keep growing stops at its share of the 2\.0 GB memory limit\)/);
  });
});

describe('caches at their documented maximum', () => {
  const bigCache = (initial: 'warm' | 'empty') => ({
    name: 'big-cache',
    scenario: {
      workload: { kind: 'open', rate: 100, durationMs: 1000, entry: { service: 'app' } },
      stack: [{ name: 'client', policy: { maxAttempts: 2 } }],
      services: {
        app: {
          fleet: { kind: 'server', concurrency: 4, serviceMs: 1 },
          endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', cache: { capacity: 1e7, keys: 1e7, zipf: 0.8, initial } }] }] } },
        },
        db: { fleet: { kind: 'server', concurrency: 4, serviceMs: 1 }, endpoints: { get: {} } },
      },
    },
  });

  it('validate does not build them, counts them in the memory estimate and announces a long warm start', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'e.json', bigCache('warm'));
    let out = '';
    let err = '';
    const code = await runCli(['validate', 'e.json', '--workers', '1'], { stdout: (s) => (out += s), stderr: (s) => (err += s), cwd: dir, memoryBytes: GB16 });
    expect(code).toBe(0);
    // Entries 10^7 x 20 bytes, key index 4 x (10^7 + 1), key popularity 10^7 x 36: 600 MB, and 150 MB of base.
    expect(out).toContain('memory: about 750 MB at peak');
    expect(err).toBe(
      'warning: e.json: the caches that start warm replay 200,000,000 requests before each run starts (20 per entry of capacity), about 114 s a run before its first event (a smaller capacity, or initial "empty", starts at once)\n',
    );
  });

  it('caches larger than a run may hold are refused before anything runs', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'e.json', bigCache('empty'));
    let err = '';
    const code = await runCli(['run', 'e.json', '--out', 'out', '--memory-limit', '500'], { stdout: () => {}, stderr: (s) => (err += s), cwd: dir, memoryBytes: GB16 });
    expect(code).toBe(2);
    expect(err).toContain('e.json: the caches take about 600 MB (their entries, key index and key popularity), more than the 350 MB a run may hold under the memory limit');
  });
});
