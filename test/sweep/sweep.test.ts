import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandExperiment, parseExperimentText } from '../../src/experiment/index.js';
import { mergeRunDirs } from '../../src/sweep/merge.js';
import { runSweep, SweepPool, type SweepOptions } from '../../src/sweep/runSweep.js';
import { VERSION } from '../../src/version.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';

const experiment = {
  name: 'sweep-test',
  seed: 77,
  scenario: {
    workload: { kind: 'burst', clients: 5 },
    stack: [{ name: 'client', policy: { maxAttempts: 4, backoff: { kind: 'full-jitter', baseMs: 10, capMs: 1000 } } }],
    leaf: { kind: 'server', concurrency: 2, serviceMs: { dist: 'exponential', mean: 5 }, faults: [{ probability: 0.5 }] },
    network: { hopMs: { dist: 'abs-normal', mean: 1, sd: 0.5 } },
  },
  variants: { jitter: {}, none: { 'stack.0.policy.backoff.kind': 'none' } },
  sweep: { grid: { 'workload.clients': [5, 10, 20] } },
  replications: 4,
};
const text = JSON.stringify(experiment);

function plan() {
  const p = parseExperimentText(text, 'sweep-test.json');
  if (!p.ok) throw new Error(p.errors.join('\n'));
  const e = expandExperiment(p.experiment, { quick: false });
  if (!e.ok) throw new Error(e.errors.join('\n'));
  return e.plan;
}

function options(outDir: string, over: Partial<SweepOptions> = {}): SweepOptions {
  return {
    outDir,
    manifest: { experiment: 'sweep-test', seed: 77, version: VERSION, sourceSha256: createHash('sha256').update(text).digest('hex'), source: text, quick: false, set: [] },
    ...over,
  };
}

const summaryBytes = (dir: string) => readFileSync(join(dir, 'summary.json'), 'utf8');

describe('sweeps', () => {
  it('summary.json is byte-identical for 1 worker, 2 workers, merged shards and an interrupted run resumed', async () => {
    const one = tempDir();
    const two = tempDir();
    await runSweep(plan(), options(one, { workers: 1 }));
    await runSweep(plan(), options(two, { workers: 2 }));
    expect(summaryBytes(two)).toBe(summaryBytes(one));

    const shards = [0, 1, 2].map(() => tempDir());
    for (let k = 0; k < 3; k++) await runSweep(plan(), options(shards[k] as string, { workers: 2, shard: { index: k, count: 3 } }));
    const merged = tempDir();
    mergeRunDirs(shards, merged);
    expect(summaryBytes(merged)).toBe(summaryBytes(one));

    const interrupted = tempDir();
    const ac = new AbortController();
    const first = await runSweep(plan(), options(interrupted, { workers: 2, signal: ac.signal, onProgress: (p) => p.done >= 7 && ac.abort() }));
    expect(first.interrupted).toBe(true);
    expect(first.summary).toBe(null);
    expect(existsSync(join(interrupted, 'summary.json'))).toBe(false);
    const lines = readFileSync(join(interrupted, 'results.jsonl'), 'utf8').trim().split('\n');
    expect(lines.length).toBe(first.done);
    lines.forEach((l) => expect(() => JSON.parse(l)).not.toThrow());
    let resumedFrom = -1;
    const second = await runSweep(plan(), options(interrupted, { workers: 2, resume: true, onProgress: (p) => (resumedFrom = p.resumed) }));
    expect(resumedFrom).toBe(first.done);
    expect(second.done).toBe(24);
    expect(summaryBytes(interrupted)).toBe(summaryBytes(one));
  });

  it('orders the summary by cell key and writes the flat CSV', async () => {
    const dir = tempDir();
    const r = await runSweep(plan(), options(dir, { workers: 2 }));
    const keys = r.summary?.cells.map((c) => c.key) ?? [];
    expect(keys).toEqual([...keys].sort());
    expect(keys).toHaveLength(6);
    const csv = readFileSync(join(dir, 'summary.csv'), 'utf8').split('\n');
    expect(csv[0]).toBe('part,variant,workload.clients,state,metric,n,mean,sd,ci95_low,ci95_high');
    const row = csv.find((l) => l.startsWith('main,jitter,10,ok,operations.offered,'));
    expect(row).toBe('main,jitter,10,ok,operations.offered,4,10,0,10,10');
    const cell = r.summary?.cells.find((c) => c.variant === 'none' && c.params['workload.clients'] === 20);
    expect(cell?.replications).toBe(4);
    expect(cell?.metrics['leafCalls']?.n).toBe(4);
    expect(cell?.scenario.workload.clients).toBe(20);
    expect(cell?.timeSeries.typical?.arrivalsFirst.reduce((a, b) => a + b, 0)).toBe(20);
  });

  it('an errored replication does not stop the others, and a killed worker is replaced', async () => {
    const dir = tempDir();
    const r = await runSweep(
      plan(),
      options(dir, {
        workers: 2,
        faultInjection: (key, rep) => (key.includes('"workload.clients":5') && key.includes('"jitter"') ? (rep === 1 ? 'throw' : rep === 2 ? 'exit' : undefined) : undefined),
      }),
    );
    expect(r.done).toBe(24);
    expect(r.errored).toHaveLength(1);
    expect(r.errored[0]?.errors).toHaveLength(2);
    expect(r.errored[0]?.errors[0]).toMatch(/^replication 1: injected fault/);
    expect(r.errored[0]?.errors[1]).toMatch(/^replication 2: worker failed/);
    const ok = r.summary?.cells.filter((c) => c.state === 'ok') ?? [];
    expect(ok).toHaveLength(5);
    ok.forEach((c) => expect(c.replications).toBe(4));
  });

  it('sweeps that share a pool give the same bytes as sweeps with their own, and a worker killed in one leaves the next whole', async () => {
    const own = tempDir();
    await runSweep(plan(), options(own, { workers: 2 }));
    const pool = new SweepPool(2);
    try {
      expect(pool.threads).toBe(2);
      const killed = tempDir();
      const first = await runSweep(
        plan(),
        options(killed, { pool, faultInjection: (key, rep) => (key.includes('"workload.clients":10') && rep === 0 ? 'exit' : undefined) }),
      );
      expect(first.errored).toHaveLength(2);
      first.errored.forEach((e) => expect(e.errors[0]).toMatch(/^replication 0: worker failed/));
      // The pool is still usable after a sweep that lost a worker, and gives the bytes of a sweep with its own threads.
      for (let i = 0; i < 2; i++) {
        const shared = tempDir();
        const r = await runSweep(plan(), options(shared, { pool }));
        expect(r.errored).toHaveLength(0);
        expect(summaryBytes(shared)).toBe(summaryBytes(own));
      }
    } finally {
      await pool.destroy();
    }
  });

  it('merge refuses shards of a different seed, a missing shard, and an incomplete shard', async () => {
    const a = tempDir();
    const b = tempDir();
    await runSweep(plan(), options(a, { workers: 1, shard: { index: 0, count: 2 } }));
    const other = options(b, { workers: 1, shard: { index: 1, count: 2 } });
    other.manifest = { ...other.manifest, seed: 78 };
    await runSweep(plan(), other);
    expect(() => mergeRunDirs([a, b], tempDir())).toThrow(/does not belong with .*: seed 77 is not 78/);
    expect(() => mergeRunDirs([a], tempDir())).toThrow('missing shard 1/2');
    const c = tempDir();
    const ac = new AbortController();
    await runSweep(plan(), options(c, { workers: 1, shard: { index: 1, count: 2 }, signal: ac.signal, onProgress: (p) => p.done >= 2 && ac.abort() }));
    expect(() => mergeRunDirs([a, c], tempDir())).toThrow(/is incomplete: \d+ of 12 replications/);
  });
});

describe('the command line', () => {
  it('--shard and merge reproduce the unsharded summary', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', experiment);
    expect((await cli(['run', file, '--out', join(dir, 'full'), '--workers', '2', '--quiet'])).code).toBe(0);
    for (const k of [0, 1]) expect((await cli(['run', file, '--out', join(dir, `s${k}`), '--shard', `${k}/2`, '--quiet'])).code).toBe(0);
    const m = await cli(['merge', join(dir, 's0', 'sweep-test'), join(dir, 's1', 'sweep-test'), '--out', join(dir, 'merged')]);
    expect(m.code).toBe(0);
    expect(summaryBytes(join(dir, 'merged', 'sweep-test'))).toBe(summaryBytes(join(dir, 'full', 'sweep-test')));
  });

  it('prints plain progress lines when not on a terminal, and nothing with --quiet', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', experiment);
    const loud = await cli(['run', file, '--out', dir, '--workers', '1']);
    expect(loud.err).toMatch(/^sweep-test: 24\/24 replications \(100\.0%\), [\d.]+\/s, ETA 0 ms$/m);
    const quiet = await cli(['run', file, '--out', dir, '--workers', '1', '--quiet', '--replace']);
    expect([quiet.out, quiet.err]).toEqual(['', '']);
  });

  it('bad --workers and --shard values are input errors', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', experiment);
    expect(await cli(['run', file, '--workers', '0'])).toMatchObject({ code: 2, err: 'error: --workers must be a positive integer (got "0")\n' });
    expect(await cli(['run', file, '--shard', '2/2'])).toMatchObject({ code: 2, err: 'error: --shard must be k/n with 0 <= k < n (got "2/2")\n' });
  });

  it('an unwritable output directory is a clear error', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', experiment);
    writeFileSync(join(dir, 'blocker'), 'not a directory');
    const r = await cli(['run', file, '--out', join(dir, 'blocker'), '--quiet']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: cannot write .*blocker\/sweep-test \((ENOTDIR|EEXIST): /);
  });

  it('SIGINT stops the built command cleanly and --resume finishes only the missing replications', async () => {
    const dir = tempDir();
    const big = { ...experiment, name: 'sigint-test', replications: 60, sweep: { grid: { 'workload.clients': [50, 100, 200] } } };
    const file = writeExperiment(dir, 'e.json', big);
    const out = join(dir, 'out');
    const child = spawn(process.execPath, ['dist/cli/main.js', 'run', file, '--out', out, '--workers', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    const code = await new Promise<number | null>((resolve) => {
      let sent = false;
      const tryInterrupt = () => {
        const f = join(out, 'sigint-test', 'results.jsonl');
        if (!sent && existsSync(f) && readFileSync(f, 'utf8').split('\n').length > 5) {
          sent = true;
          child.kill('SIGINT');
        }
      };
      const timer = setInterval(tryInterrupt, 20);
      child.stderr.on('data', (d) => (stderr += String(d)));
      child.on('exit', (c) => {
        clearInterval(timer);
        resolve(c);
      });
    });
    expect(code).toBe(130);
    expect(stderr).toMatch(/interrupted: \d+ of 360 replications are in .*results\.jsonl; run again with --resume to finish/);
    const done = readFileSync(join(out, 'sigint-test', 'results.jsonl'), 'utf8').trim().split('\n');
    done.forEach((l) => expect(() => JSON.parse(l)).not.toThrow());
    expect(done.length).toBeLessThan(360);
    const resumed = await cli(['run', file, '--out', out, '--workers', '2', '--resume']);
    expect(resumed.code).toBe(0);
    const fresh = await cli(['run', file, '--out', join(dir, 'fresh'), '--workers', '2', '--quiet']);
    expect(fresh.code).toBe(0);
    expect(summaryBytes(join(out, 'sigint-test'))).toBe(summaryBytes(join(dir, 'fresh', 'sigint-test')));
  });
});
