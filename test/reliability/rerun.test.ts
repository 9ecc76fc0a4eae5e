import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { lockPathOf } from '../../src/cli/dirLock.js';
import { commitOutput, planOutput, stagingDirOf } from '../../src/cli/outputDir.js';
import { FINISHED_RUN_FILES } from '../../src/sweep/ResultReader.js';
import { cli, jsonlRecords, spawnCli, tempDir, writeExperiment } from '../helpers/reliability.js';

/**
 * A finished run is never lost to a new one: a run into its directory is refused unless --replace
 * (or --resume) is given, and with --replace the new run is written beside it and takes its place
 * only once complete, whatever stops it before (Ctrl-C, a kill at any point, a crash in the swap).
 * And one directory is written by one process at a time (a lock beside it).
 */

/** A sweep of 3 cells x 8 replications: a few seconds in a child process with one worker. */
const sweep = {
  name: 'rerun',
  seed: 11,
  scenario: {
    workload: { kind: 'open', rate: 2000, durationMs: 3000 },
    stack: [{ name: 'client', policy: { maxAttempts: 3, backoff: { kind: 'full-jitter', baseMs: 10, capMs: 100 } } }],
    leaf: { kind: 'server', serviceMs: 2, concurrency: 8, faults: [{ probability: 0.2 }] },
    metrics: { timeSeriesBinMs: 1000, clusteringBinMs: [10] },
  },
  sweep: { grid: { 'workload.rate': [1000, 1500, 2000] } },
  replications: 8,
};

/** Every file under `dir` (recursively) with its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const p = join(dir, f);
    if (statSync(p).isFile()) out[f] = readFileSync(p, 'latin1');
  }
  return out;
}

/** A directory holding a whole run: its summary covers every cell and results.jsonl every replication. */
function expectCompleteRun(dir: string, seed: number): void {
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { seed: number; cells: Array<{ replications: number }> };
  expect(summary.seed).toBe(seed);
  expect(summary.cells.map((c) => c.replications)).toEqual([8, 8, 8]);
  expect(jsonlRecords(join(dir, 'results.jsonl'))).toHaveLength(24);
  expect(existsSync(join(dir, 'index.html'))).toBe(true);
}

async function firstRun(): Promise<{ dir: string; file: string; out: string; expDir: string; before: Record<string, string> }> {
  const dir = tempDir();
  const file = writeExperiment(dir, 'e.json', sweep);
  const out = join(dir, 'out');
  const r = await cli(['run', file, '--out', out, '--quiet', '--workers', '2']);
  expect(r).toMatchObject({ code: 0, err: '' });
  const expDir = join(out, 'rerun');
  return { dir, file, out, expDir, before: snapshot(expDir) };
}

describe('a run into a directory that holds a finished run', () => {
  it('is refused without --replace or --resume, naming what would be replaced, and changes nothing', async () => {
    const { file, out, expDir, before } = await firstRun();
    const r = await cli(['run', file, '--out', out, '--quiet', '--seed', '12']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `error: ${relative(process.cwd(), expDir)} holds a finished run (summary.json, summary.csv): --replace runs again and replaces it only once the new run is complete, --resume keeps its replications and runs only what is missing, or choose another --out\n`,
    );
    expect(snapshot(expDir)).toEqual(before);
    expect(readdirSync(out).sort()).toEqual(['rerun']);
  });

  it('with --replace: the new run takes its place once complete, and nothing is left beside it', async () => {
    const { file, out, expDir, before } = await firstRun();
    const r = await cli(['run', file, '--out', out, '--seed', '12', '--replace', '--workers', '2']);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`report: ${relative(process.cwd(), join(expDir, 'index.html'))}\n`);
    expect(r.out).toContain(`written to ${relative(process.cwd(), expDir)}\n`);
    expectCompleteRun(expDir, 12);
    expect(snapshot(expDir)['summary.json']).not.toBe(before['summary.json']);
    expect(readdirSync(out).sort()).toEqual(['rerun']);
  });

  it('the complete run survives a kill at every point of its replacement, and --replace --resume finishes it', async () => {
    const { file, out, expDir, before } = await firstRun();
    const staging = stagingDirOf(expDir);
    const lines = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8').split('\n').length - 1 : 0);
    // Points of the replacement, each watched for in the staging directory: its start, a third of
    // the replications, all but the last, and the summary written (the report being built).
    const points: Array<[string, () => boolean]> = [
      ['started', () => existsSync(join(staging, 'run.json'))],
      ['a third done', () => lines(join(staging, 'results.jsonl')) >= 8],
      ['all but one done', () => lines(join(staging, 'results.jsonl')) >= 23],
      ['summary written', () => existsSync(join(staging, 'summary.json'))],
    ];
    let killedBeforeSwap = 0;
    for (const [point, reached] of points) {
      const run = spawnCli(['run', file, '--out', out, '--seed', '12', '--replace', '--resume', '--quiet', '--workers', '1'], { timeoutMs: 90_000 });
      let killed = false;
      const poll = setInterval(() => {
        if (!killed && reached()) {
          killed = true;
          run.child.kill('SIGKILL');
        }
      }, 2);
      const res = await run.finally(() => clearInterval(poll));
      if (res.signal === 'SIGKILL') {
        // Killed: the finished run is whole, byte for byte, and nothing else took its name.
        expect(snapshot(expDir), `after a kill at "${point}"`).toEqual(before);
        killedBeforeSwap++;
      } else {
        // It finished before the kill reached it: the new run is whole.
        expect(res.code, `${point}: ${res.stderr}`).toBe(0);
        expectCompleteRun(expDir, 12);
        break;
      }
    }
    expect(killedBeforeSwap).toBeGreaterThanOrEqual(2);
    // The lock of a killed process is stale: the next command takes it over and finishes the replacement.
    const done = await cli(['run', file, '--out', out, '--seed', '12', '--replace', '--resume', '--quiet', '--workers', '2']);
    expect(done).toMatchObject({ code: 0, err: '' });
    expectCompleteRun(expDir, 12);
    expect(readdirSync(out).sort()).toEqual(['rerun']);
  }, 240_000);

  it('Ctrl-C during a replacement: exit 130, the finished run untouched, and the message says how to go on', async () => {
    const { file, out, expDir, before } = await firstRun();
    const staging = stagingDirOf(expDir);
    const run = spawnCli(['run', file, '--out', out, '--seed', '12', '--replace', '--quiet', '--workers', '1'], { timeoutMs: 90_000 });
    let sent = false;
    const poll = setInterval(() => {
      if (!sent && existsSync(join(staging, 'results.jsonl')) && readFileSync(join(staging, 'results.jsonl'), 'utf8').length > 0) {
        sent = true;
        run.child.kill('SIGINT');
      }
    }, 5);
    const res = await run.finally(() => clearInterval(poll));
    expect(res.code).toBe(130);
    expect(res.stderr).toMatch(
      new RegExp(`^interrupted: \\d+ of 24 replications are in ${relative(process.cwd(), join(staging, 'results.jsonl')).replace(/\./g, '\\.')}; ${relative(process.cwd(), expDir).replace(/\./g, '\\.')} still holds the earlier finished run; run again with --replace --resume to finish replacing it\\n$`),
    );
    expect(snapshot(expDir)).toEqual(before);
  }, 120_000);

  it('a crash between the steps of the swap is repaired by the next command: the old run or the new one, never neither', () => {
    for (const crashAt of ['move-old', 'move-new', 'remove-old'] as const) {
      const root = tempDir();
      const final = join(root, 'exp');
      mkdirSync(final);
      writeFileSync(join(final, 'summary.json'), 'old');
      const plan = planOutput(final, 'exp', FINISHED_RUN_FILES, { replace: true, resume: false });
      mkdirSync(plan.work, { recursive: true });
      writeFileSync(join(plan.work, 'summary.json'), 'new');
      expect(() =>
        commitOutput(plan, (step) => {
          if (step === crashAt) throw new Error(`crash at ${step}`);
        }),
      ).toThrow(`crash at ${crashAt}`);
      // The next command into the directory repairs the swap before anything else.
      planOutput(final, 'exp', FINISHED_RUN_FILES, { replace: true, resume: true });
      expect(readFileSync(join(final, 'summary.json'), 'utf8'), `crash at ${crashAt}`).toBe(crashAt === 'move-old' ? 'old' : 'new');
      expect(readdirSync(root).filter((n) => n.endsWith('.replaced'))).toEqual([]);
    }
  });

  it('--resume on a finished run keeps it and runs nothing', async () => {
    const { file, out, expDir, before } = await firstRun();
    const r = await cli(['run', file, '--out', out, '--quiet', '--resume']);
    expect(r).toMatchObject({ code: 0, err: '' });
    const after = snapshot(expDir);
    for (const f of ['results.jsonl', 'summary.json', 'summary.csv', 'run.json']) expect(after[f], f).toBe(before[f]);
  });
});

/** A process that lives until killed, to hold a lock. */
function liveProcess(): { pid: number; stop: () => void } {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { stdio: 'ignore' });
  return { pid: child.pid as number, stop: () => child.kill('SIGKILL') };
}

describe('one process at a time writes an output directory', () => {
  it('run, tune, merge and report exit 2 naming the holder of the lock', async () => {
    const { dir, file, out, expDir, before } = await firstRun();
    const holder = liveProcess();
    try {
      writeFileSync(lockPathOf(expDir), JSON.stringify({ pid: holder.pid, host: hostname(), command: 'run', since: '2026-01-01T00:00:00.000Z' }) + '\n');
      const inUse = `error: ${relative(process.cwd(), expDir)} is in use by another retrystorm (\`run\`, pid ${holder.pid}, since 2026-01-01T00:00:00.000Z): wait for it to finish, or remove ${relative(process.cwd(), lockPathOf(expDir))} if that process is gone\n`;
      expect(await cli(['run', file, '--out', out, '--quiet', '--resume'])).toMatchObject({ code: 2, err: inUse });
      expect(await cli(['report', expDir])).toMatchObject({ code: 2, err: inUse });
      for (const k of [0, 1]) expect((await cli(['run', file, '--out', join(dir, `s${k}`), '--shard', `${k}/2`, '--quiet'])).code).toBe(0);
      expect(await cli(['merge', join(dir, 's0', 'rerun'), join(dir, 's1', 'rerun'), '--out', out, '--replace'])).toMatchObject({ code: 2, err: inUse });
      const tuneFile = writeExperiment(dir, 't.json', {
        name: 'rerun',
        scenario: sweep.scenario,
        tune: { space: { 'stack.0.policy.maxAttempts': { kind: 'int', min: 1, max: 3 } }, objectives: [{ metric: 'successRate', goal: 'maximize', tolerance: 0.01 }] },
      });
      expect(await cli(['tune', tuneFile, '--out', out, '--resume', '--quiet'])).toMatchObject({ code: 2, err: inUse });
      expect(snapshot(expDir)).toEqual(before);
    } finally {
      holder.stop();
    }
  }, 120_000);

  it('a lock left by a process that is gone is taken over, and released at the end', async () => {
    const { file, out, expDir } = await firstRun();
    const gone = liveProcess();
    gone.stop();
    await new Promise((r) => setTimeout(r, 200));
    writeFileSync(lockPathOf(expDir), JSON.stringify({ pid: gone.pid, host: hostname(), command: 'run', since: '2026-01-01T00:00:00.000Z' }) + '\n');
    expect(await cli(['run', file, '--out', out, '--quiet', '--resume'])).toMatchObject({ code: 0, err: '' });
    expect(existsSync(lockPathOf(expDir))).toBe(false);
  });

  it('two runs started at once into one directory: one runs, the other exits 2 naming it', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', sweep);
    const out = join(dir, 'out');
    const args = ['run', file, '--out', out, '--quiet', '--workers', '1'];
    const [a, b] = await Promise.all([spawnCli(args, { timeoutMs: 90_000 }), spawnCli(args, { timeoutMs: 90_000 })]);
    const codes = [a.code, b.code].sort();
    expect(codes).toEqual([0, 2]);
    const loser = a.code === 2 ? a : b;
    // Either it found the lock held, or (if it started after the winner ended) a finished run.
    expect(loser.stderr).toMatch(/is in use by another retrystorm \(`run`, pid \d+, since [-0-9T:.Z]+\)|holds a finished run/);
    expectCompleteRun(join(out, 'rerun'), 11);
  }, 120_000);
});
