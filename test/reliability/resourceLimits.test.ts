import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { tempDir, writeExperiment } from '../helpers/reliability.js';

/** Run the CLI in-process on a machine of `memoryBytes`, capturing its output. */
async function cliOn(memoryBytes: number, args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { stdout: (s) => (out += s), stderr: (s) => (err += s), cwd, memoryBytes });
  return { code, out, err };
}

const GB16 = 16e9;

function closedLoop(clients: number) {
  return {
    name: 'many-clients',
    scenario: {
      workload: { kind: 'closed', clients, thinkMs: 1000, durationMs: 1000 },
      stack: [{ name: 'client', policy: { maxAttempts: 2 } }],
      leaf: { kind: 'server', concurrency: 4, serviceMs: 5 },
    },
  };
}

describe('validate and run refuse what would not fit in memory, unless --force', () => {
  // 10^8 clients x 300 bytes = 30 GB, plus 150 MB of base and 2 bins x 9 series of values.
  const refusal =
    'e.json: the run would need about 30 GB of memory, more than this machine\'s 16 GB: 100000000 clients at 300 bytes each and the series, 30 GB a run x 1 at once, plus 144 bytes of series kept for the summary (use fewer clients or fewer workers, or pass --force to run it anyway)';

  it('validate: exit 2 naming the clients and the estimate', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'e.json', closedLoop(1e8));
    const r = await cliOn(GB16, ['validate', 'e.json'], dir);
    expect(r.err).toBe(`error: ${refusal}\n`);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
  });

  it('run: exit 2 before anything runs; --force validates with a warning', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'e.json', closedLoop(1e8));
    const r = await cliOn(GB16, ['run', 'e.json', '--out', 'out', '--quiet'], dir);
    expect(r.err).toBe(`error: ${refusal}\n`);
    expect(r.code).toBe(2);
    expect(() => readdirSync(join(dir, 'out'))).toThrow();
    const forced = await cliOn(GB16, ['validate', 'e.json', '--force'], dir);
    expect(forced.code).toBe(0);
    expect(forced.err).toBe(`warning: ${refusal}\n`);
  });

  it('counts the clients of every workload of a service graph', async () => {
    // Two closed loops of 6 x 10^7 clients each: 1.2 x 10^8 clients x 300 bytes = 36 GB (either alone would be 18 GB).
    const loop = (entry: string) => ({ kind: 'closed', clients: 6e7, thinkMs: 1000, durationMs: 1000, entry: { service: entry }, stack: [{ name: 'client', policy: { maxAttempts: 2 } }] });
    const dir = tempDir();
    writeExperiment(dir, 'e.json', {
      name: 'two-crowds',
      scenario: {
        workloads: { web: loop('a'), batch: loop('b') },
        services: {
          a: { fleet: { kind: 'server', concurrency: 4, serviceMs: 5 }, endpoints: { get: {} } },
          b: { fleet: { kind: 'server', concurrency: 4, serviceMs: 5 }, endpoints: { get: {} } },
        },
      },
    });
    const r = await cliOn(GB16 * 4, ['validate', 'e.json'], dir);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^warning: e\.json: the run would need about 36 GB of memory, over half of this machine's 64 GB: 120000000 clients at 300 bytes each/);
  });

  it('warns above half of the machine\'s memory', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'e.json', closedLoop(3e7));
    const r = await cliOn(GB16, ['validate', 'e.json'], dir);
    expect(r.code).toBe(0);
    expect(r.err).toBe(
      "warning: e.json: the run would need about 9.2 GB of memory, over half of this machine's 16 GB: 30000000 clients at 300 bytes each and the series, 9.0 GB a run x 1 at once, plus 144 bytes of series kept for the summary\n",
    );
  });
});

function openLoop(name: string, binMs: number, extra: Record<string, unknown> = {}) {
  return {
    name,
    seed: 1,
    scenario: {
      workload: { kind: 'open', rate: 200, durationMs: 5000 },
      stack: [{ name: 'client', policy: { maxAttempts: 3, backoff: { kind: 'full-jitter', baseMs: 10, capMs: 1000 } } }],
      leaf: { kind: 'server', concurrency: 2, queueLimit: 10, serviceMs: { dist: 'exponential', mean: 8 } },
      metrics: { timeSeriesBinMs: binMs },
    },
    variants: { a: {}, b: { 'stack.0.policy.maxAttempts': 2 } },
    replications: 2,
    ...extra,
  };
}

describe('results over 100 MB are announced, over 1 GB refused unless --force', () => {
  it('refuses a million bins a run over 3 variants x 2 replications, naming the bin width and the span', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'e.json', { ...openLoop('long', 1), scenario: { ...openLoop('long', 1).scenario, workload: { kind: 'open', rate: 10, durationMs: 1_000_000 } }, variants: { a: {}, b: {}, c: {} } });
    const r = await cliOn(GB16, ['run', 'e.json', '--out', 'out', '--quiet'], dir);
    expect(r.code).toBe(2);
    // Run ahead, replication 0's last operation ends at 999,873.6 ms (10 a second over 10^6 ms): 999,874 bins.
    expect(r.err).toBe(
      "error: e.json: the results would take about 1.5 GB, over the limit of 1.0 GB: time series of 999874 bins a run (metrics.timeSeriesBinMs 1 ms over replication 0's span (run ahead) 999874 ms) x 9 series x 6 runs (widen metrics.timeSeriesBinMs or run fewer replications, or pass --force to write them anyway)\n",
    );
  });
});

/** The bytes of the result files of a finished run (the report is left out, as by the estimate). */
function resultBytes(dir: string): number {
  return ['results.jsonl', 'summary.json', 'summary.csv', 'results.json'].reduce((n, f) => {
    try {
      return n + statSync(join(dir, f)).size;
    } catch {
      return n;
    }
  }, 0);
}

describe('the output estimate is within 2x of the files written', () => {
  const shapes: Array<[string, Record<string, unknown>]> = [
    ['open loop, 1 ms bins, 2 cells x 2 replications', openLoop('fine', 1)],
    ['open loop, 1 s bins, 2 cells x 2 replications', openLoop('coarse', 1000)],
    ['one cell, 60 replications (lines dominate)', { ...openLoop('lines', 1000), variants: undefined, replications: 60 }],
    [
      'a contended burst (OCC, unlimited attempts, 10 ms bins): its series end with its last operation',
      {
        name: 'burst',
        seed: 3,
        scenario: {
          workload: { kind: 'burst', clients: 50, method: 'PUT' },
          stack: [{ name: 'client', policy: { maxAttempts: 'unlimited', backoff: { kind: 'full-jitter', baseMs: 5, capMs: 2000 } } }],
          leaf: { kind: 'occ' },
          network: { hopMs: { dist: 'abs-normal', mean: 10, sd: 2 } },
          metrics: { timeSeriesBinMs: 10 },
        },
        variants: { none: { 'stack.0.policy.backoff.kind': 'none' }, exponential: { 'stack.0.policy.backoff.kind': 'exponential' }, jitter: {} },
        replications: 3,
      },
    ],
    [
      'a service graph (a frontend fanning out to two services that share a database): its services\' series in every line',
      {
        name: 'graph',
        seed: 4,
        scenario: {
          workload: { kind: 'open', rate: 100, durationMs: 5000, entry: { service: 'frontend' } },
          stack: [{ name: 'client', policy: { maxAttempts: 2 } }],
          services: {
            frontend: { fleet: { kind: 'server', concurrency: 8, serviceMs: 2 }, endpoints: { page: { steps: [{ kind: 'work' }, { kind: 'call', calls: [{ service: 'a' }, { service: 'b' }] }] } } },
            a: { fleet: { kind: 'server', concurrency: 4, serviceMs: 3 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db' }] }] } } },
            b: { fleet: { kind: 'server', concurrency: 4, serviceMs: 3 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db' }] }] } } },
            db: { fleet: { kind: 'server', concurrency: 4, serviceMs: { dist: 'exponential', mean: 2 } }, endpoints: { get: {} } },
          },
          metrics: { timeSeriesBinMs: 10 },
        },
        variants: { a: {}, b: { 'stack.0.policy.maxAttempts': 3 } },
        replications: 2,
      },
    ],
    [
      'two workloads of a service graph, the second running longer: every workload\'s edges and metrics, over the longer span',
      {
        name: 'workloads',
        seed: 5,
        scenario: {
          workloads: {
            web: { kind: 'open', rate: 100, durationMs: 2000, entry: { service: 'frontend' }, stack: [{ name: 'browser', policy: { maxAttempts: 2 } }] },
            batch: { kind: 'open', rate: 50, durationMs: 5000, entry: { service: 'db' }, stack: [{ name: 'job', policy: { maxAttempts: 3 } }] },
          },
          services: {
            frontend: { fleet: { kind: 'server', concurrency: 8, serviceMs: 2 }, endpoints: { page: { steps: [{ kind: 'work' }, { kind: 'call', calls: [{ service: 'db' }] }] } } },
            db: { fleet: { kind: 'server', concurrency: 4, serviceMs: { dist: 'exponential', mean: 2 } }, endpoints: { get: {} } },
          },
          metrics: { timeSeriesBinMs: 10 },
        },
        variants: { a: {}, b: { 'workloads.batch.stack.0.policy.maxAttempts': 1 } },
        replications: 2,
      },
    ],
    [
      'a service graph with lookaside caches: their series in every line',
      {
        name: 'cached',
        seed: 5,
        scenario: {
          workload: { kind: 'open', rate: 100, durationMs: 5000, entry: { service: 'app' } },
          stack: [{ name: 'client', policy: { maxAttempts: 2 } }],
          services: {
            app: {
              fleet: { kind: 'server', concurrency: 8, serviceMs: 2 },
              endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', cache: { capacity: 50, keys: 500, zipf: 0.8 } }, { service: 'db', cache: { name: 'db2', capacity: 50, keys: 500, zipf: 0.8 } }] }] } },
            },
            db: { fleet: { kind: 'server', concurrency: 4, serviceMs: { dist: 'exponential', mean: 2 } }, endpoints: { get: {} } },
          },
          metrics: { timeSeriesBinMs: 10 },
        },
        variants: { a: {}, b: { 'stack.0.policy.maxAttempts': 3 } },
        replications: 2,
      },
    ],
    [
      'a single closed-loop run with a retry budget (results.json)',
      {
        name: 'single',
        seed: 2,
        scenario: {
          workload: { kind: 'closed', clients: 50, thinkMs: 20, durationMs: 3000 },
          stack: [{ name: 'client', policy: { maxAttempts: 3, budget: [{ kind: 'token-bucket' }] } }],
          leaf: { kind: 'server', concurrency: 4, queueLimit: 20, serviceMs: { dist: 'exponential', mean: 5 } },
          metrics: { timeSeriesBinMs: 10 },
        },
      },
    ],
  ];
  for (const [what, exp] of shapes) {
    it(what, async () => {
      const dir = tempDir();
      writeExperiment(dir, 'e.json', exp);
      const v = await cliOn(GB16, ['validate', 'e.json'], dir);
      expect(v.code).toBe(0);
      const m = /output: about ([0-9.]+) (KB|MB) of results/.exec(v.out);
      expect(m).not.toBeNull();
      const estimate = Number(m![1]) * (m![2] === 'KB' ? 1e3 : 1e6);
      const r = await cliOn(GB16, ['run', 'e.json', '--out', 'out', '--quiet', '--workers', '1'], dir);
      expect(r.code).toBe(0);
      const real = resultBytes(join(dir, 'out', exp.name as string));
      expect(estimate / real).toBeGreaterThan(0.5);
      expect(estimate / real).toBeLessThan(2);
    }, 120_000);
  }
});
