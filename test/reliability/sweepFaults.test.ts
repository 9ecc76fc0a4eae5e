import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, cliInterrupted, cliUnprivileged, jsonlRecords, jsonlRecordsAfterKill, leftoverTempFiles, permissionsApply, spawnCli, tempDir, writeExperiment } from '../helpers/reliability.js';

/**
 * Faults around the files a run writes: every whole file appears under its name only complete
 * (written to a temporary name, then renamed), a write that fails leaves nothing half-written,
 * an unwritable output directory is a clear error, and an interrupted or killed run leaves
 * results.jsonl with complete lines only, from which --resume finishes the run.
 */

const sweep = {
  name: 'faults',
  seed: 5,
  scenario: {
    workload: { kind: 'burst', clients: 5 },
    stack: [{ name: 'client', policy: { maxAttempts: 3, backoff: { kind: 'full-jitter', baseMs: 10, capMs: 100 } } }],
    leaf: { kind: 'server', serviceMs: 5, faults: [{ probability: 0.5 }] },
    metrics: { timeSeriesBinMs: 1000, clusteringBinMs: [10] },
  },
  sweep: { grid: { 'workload.clients': [5, 6, 7] } },
  replications: 3,
};
const single = { ...sweep, name: 'faults-single', sweep: undefined, replications: undefined };

/** Every name-level event in `dir` while `action` runs (inotify on Linux), once they stop coming. */
async function watchWrites<T>(dir: string, action: () => Promise<T>): Promise<{ result: T; events: string[] }> {
  mkdirSync(dir, { recursive: true });
  const events: string[] = [];
  const watcher = watch(dir, (type, name) => events.push(`${type} ${name}`));
  try {
    const result = await action();
    let seen = -1;
    while (seen !== events.length) {
      seen = events.length;
      await new Promise((r) => setTimeout(r, 150));
    }
    return { result, events };
  } finally {
    watcher.close();
  }
}

/**
 * Each file now in `dir` (or each of `only`) arrived last by a rename from `<name>.tmp-<number>` (the
 * two events are adjacent) and was never modified under its own name; files in `appended`
 * (results.jsonl) may grow afterwards.
 */
function expectWrittenAtomically(dir: string, events: string[], opts: { appended?: string[]; only?: string[] } = {}): void {
  const files = opts.only ?? readdirSync(dir).filter((f) => statSync(join(dir, f)).isFile());
  expect(files.length).toBeGreaterThan(0);
  for (const f of files) {
    const arrival = events.lastIndexOf(`rename ${f}`);
    expect(arrival, `${f} appeared by a rename`).toBeGreaterThan(0);
    expect(events[arrival - 1], `${f} was renamed from a temporary name`).toMatch(new RegExp(`^rename ${f.replace(/\./g, '\\.')}\\.tmp-\\d+$`));
    const changes = events.filter((e) => e === `change ${f}`);
    if (opts.appended?.includes(f)) expect(events.indexOf(`change ${f}`) === -1 || events.indexOf(`change ${f}`) > arrival).toBe(true);
    else expect(changes, `${f} was never modified in place`).toEqual([]);
  }
  expect(leftoverTempFiles(dir)).toEqual([]);
}

describe('every output file is written to a temporary name and renamed', () => {
  it('`run` of a sweep: run.json, results.jsonl, summary.json, summary.csv, index.html, report.json', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', sweep);
    const expDir = join(dir, 'out', 'faults');
    const { result, events } = await watchWrites(expDir, () => cli(['run', file, '--out', join(dir, 'out'), '--quiet', '--workers', '2']));
    expect(result.code).toBe(0);
    expect(readdirSync(expDir).sort()).toEqual(['index.html', 'report.json', 'results.jsonl', 'run.json', 'summary.csv', 'summary.json']);
    expectWrittenAtomically(expDir, events, { appended: ['results.jsonl'] });
    // results.jsonl only grows by whole records after it appeared.
    expect(jsonlRecords(join(expDir, 'results.jsonl'))).toHaveLength(9);
  });

  it('`run` of a single run writes results.json the same way, and so does a second run resumed over the first', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', single);
    const expDir = join(dir, 'out', 'faults-single');
    for (let k = 0; k < 2; k++) {
      const { result, events } = await watchWrites(expDir, () => cli(['run', file, '--out', join(dir, 'out'), '--quiet', ...(k > 0 ? ['--resume'] : [])]));
      expect(result.code).toBe(0);
      expect(readdirSync(expDir)).toContain('results.json');
      expectWrittenAtomically(expDir, events, { appended: ['results.jsonl'] });
    }
  });

  it('`report`, `merge` and `schema` write their files the same way', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', sweep);
    for (const k of [0, 1]) expect((await cli(['run', file, '--out', join(dir, `s${k}`), '--shard', `${k}/2`, '--quiet', '--workers', '1'])).code).toBe(0);

    const merged = join(dir, 'merged', 'faults');
    const m = await watchWrites(merged, () => cli(['merge', join(dir, 's0', 'faults'), join(dir, 's1', 'faults'), '--out', join(dir, 'merged')]));
    expect(m.result.code).toBe(0);
    expectWrittenAtomically(merged, m.events, { appended: ['results.jsonl'] });

    const r = await watchWrites(merged, () => cli(['report', merged]));
    expect(r.result.code).toBe(0);
    expectWrittenAtomically(merged, r.events, { only: ['index.html', 'report.json'] });

    const schemaDir = join(dir, 'schema');
    const s = await watchWrites(schemaDir, () => cli(['schema', join(schemaDir, 'schema.json')]));
    expect(s.result.code).toBe(0);
    expectWrittenAtomically(schemaDir, s.events);
  });
});

describe('a write that fails leaves no partial file', () => {
  it('a directory in the way of run.json or results.jsonl: exit code 2, a clear message, nothing half-written', async () => {
    for (const blocker of ['run.json', 'results.jsonl']) {
      const dir = tempDir();
      const file = writeExperiment(dir, 'e.json', sweep);
      const expDir = join(dir, 'out', 'faults');
      mkdirSync(join(expDir, blocker), { recursive: true });
      const r = await cli(['run', file, '--out', join(dir, 'out'), '--quiet', '--workers', '1']);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(new RegExp(`^error: cannot write ${join(expDir, blocker)} \\(EISDIR: [^\\n]*\\)\\n$`));
      expect(leftoverTempFiles(dir)).toEqual([]);
      expect(existsSync(join(expDir, 'summary.json'))).toBe(false);
    }
  });

  it('a directory in the way of report.json: the results stay, the report is an error (exit code 1), no temporary file is left', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', sweep);
    const expDir = join(dir, 'out', 'faults');
    mkdirSync(join(expDir, 'report.json'), { recursive: true });
    const r = await cli(['run', file, '--out', join(dir, 'out'), '--quiet', '--workers', '1']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^error: faults: the report was not written \(cannot write \/.*\/faults\/report\.json: it is a directory, and only a regular file is replaced \(remove it or write elsewhere\)\); the results are saved, run `retrystorm report .*faults` to try again\n$/);
    expect(JSON.parse(readFileSync(join(expDir, 'summary.json'), 'utf8')).cells).toHaveLength(3);
    expect(leftoverTempFiles(dir)).toEqual([]);
  });

  // ResultWriter.start removes stale summary.json, summary.csv and results.json with rmSync outside
  // its guard: a directory of that name throws ERR_FS_EISDIR, which runCli does not recognise
  // (its code is not /^E[A-Z]+$/), so the command fails with an internal error and a stack trace.
  for (const blocker of ['summary.json', 'summary.csv', 'results.json']) {
    it(`a directory in the way of ${blocker}: exit code 2 and a clear message`, async () => {
      const dir = tempDir();
      const file = writeExperiment(dir, 'e.json', blocker === 'results.json' ? single : sweep);
      const expDir = join(dir, 'out', blocker === 'results.json' ? 'faults-single' : 'faults');
      mkdirSync(join(expDir, blocker), { recursive: true });
      let r: { code: number; err: string };
      try {
        r = await cli(['run', file, '--out', join(dir, 'out'), '--quiet', '--workers', '1']);
      } catch (e) {
        r = { code: -1, err: String((e as Error).stack) };
      }
      expect(r.code).toBe(2);
      expect(r.err).toMatch(new RegExp(`^error: cannot write ${join(expDir, blocker)} \\(`));
      expect(r.err).not.toMatch(/\n\s+at /);
    });
  }

  it('`schema` onto a directory is an error with exit code 2', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'schema.json'));
    const r = await cli(['schema', join(dir, 'schema.json')]);
    expect(r.code).toBe(2);
    expect(r).toEqual({ code: 2, out: '', err: `error: cannot write the schema file ${join(dir, 'schema.json')}: it is a directory, and only a regular file is replaced (remove it or write elsewhere)\n` });
  });

  // writeFileAtomic (src/cli/cli.ts) does not remove its temporary file when the rename fails.
  it('`schema` onto a directory leaves no temporary file', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'schema.json'));
    await cli(['schema', join(dir, 'schema.json')]);
    expect(readdirSync(dir)).toEqual(['schema.json']);
  });

  it('a file-size limit hit while results.jsonl grows (as on a full disk): exit code 2, a clear message, and --resume finishes', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', sweep);
    const out = join(dir, 'out');
    // Records are about 3 KB each: a limit of 6 KiB is reached at the second or third, well before the summary and report (which would exceed it too).
    const r = await spawnCli(['run', file, '--out', out, '--quiet', '--workers', '2'], { timeoutMs: 60_000, fileSizeLimitKb: 6 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^error: cannot write ${join(out, 'faults', 'results.jsonl')} \\(EFBIG: the file is too large\\)\\n$`));
    expect(existsSync(join(out, 'faults', 'summary.json'))).toBe(false);
    expect(leftoverTempFiles(out)).toEqual([]);
    const resumed = await cli(['run', file, '--out', out, '--quiet', '--workers', '2', '--resume']);
    expect(resumed.code).toBe(0);
    const fresh = await cli(['run', file, '--out', join(dir, 'fresh'), '--quiet', '--workers', '2']);
    expect(readFileSync(join(out, 'faults', 'summary.json'), 'utf8')).toBe(readFileSync(join(dir, 'fresh', 'faults', 'summary.json'), 'utf8'));
    expect(fresh.code).toBe(0);
  });

  // ResultWriter.append ignores the count writeSync returns: a short write (a full disk, a file-size
  // limit) leaves the record cut short, and the error only comes with the next write.
  it('a file-size limit hit while results.jsonl grows leaves only complete lines in it', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', sweep);
    const out = join(dir, 'out');
    const r = await spawnCli(['run', file, '--out', out, '--quiet', '--workers', '2'], { timeoutMs: 60_000, fileSizeLimitKb: 6 });
    expect(r.code).toBe(2);
    expect(() => jsonlRecords(join(out, 'faults', 'results.jsonl'))).not.toThrow();
  });
});

describe('an unwritable output directory (as root, the command runs as nobody so that permissions apply)', () => {
  const canTest = permissionsApply();

  function setUp() {
    const dir = tempDir();
    chmodSync(dir, 0o777);
    const file = writeExperiment(dir, 'e.json', sweep);
    chmodSync(file, 0o644);
    return { dir, file };
  }

  it.skipIf(!canTest)('a read-only output directory: exit code 2 naming the directory, nothing written', async () => {
    const { dir, file } = setUp();
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    chmodSync(ro, 0o555);
    const r = await cliUnprivileged(['run', file, '--out', ro, '--quiet', '--workers', '1']);
    expect(r).toEqual({ code: 2, err: `error: cannot write ${join(ro, 'faults')} (EACCES: permission denied)\n` });
    expect(readdirSync(ro)).toEqual([]);
  });

  it.skipIf(!canTest)("a read-only experiment directory: exit code 2 naming run.json, nothing written", async () => {
    const { dir, file } = setUp();
    const out = join(dir, 'out');
    mkdirSync(join(out, 'faults'), { recursive: true });
    chmodSync(out, 0o777);
    chmodSync(join(out, 'faults'), 0o555);
    const r = await cliUnprivileged(['run', file, '--out', out, '--quiet', '--workers', '1']);
    expect(r).toEqual({ code: 2, err: `error: cannot write ${join(out, 'faults', 'run.json')} (EACCES: permission denied)\n` });
    expect(readdirSync(join(out, 'faults'))).toEqual([]);
  });

  it('an output path whose name is too long: exit code 2 naming it', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', sweep);
    for (const n of [300, 10_000]) {
      const long = join(dir, 'a'.repeat(n));
      const r = await cli(['run', file, '--out', long, '--quiet']);
      expect(r.code).toBe(2);
      // The path is named by its two ends and its length, whatever its length: a message of a line.
      const path = join(long, 'faults');
      expect(r.err).toBe(`error: cannot write ${path.slice(0, 60)}...${path.slice(-60)} (a path of ${path.length.toLocaleString('en-US')} characters) (ENAMETOOLONG: the file name is too long)\n`);
    }
  });
});

describe('interrupted and killed runs leave complete lines that --resume finishes', () => {
  const big = { ...sweep, name: 'faults-big', replications: 40, sweep: { grid: { 'workload.clients': [50, 100, 200] } } };

  it('an interrupt (the Ctrl-C handler) in the middle of `run`: exit code 130, complete lines, no summary or report', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', big);
    const out = join(dir, 'out');
    const results = join(out, 'faults-big', 'results.jsonl');
    const { code, err } = await cliInterrupted(['run', file, '--out', out, '--workers', '2', '--quiet'], dir, results, 10, 10);
    expect(code).toBe(130);
    const records = jsonlRecords(results);
    expect(records.length).toBeGreaterThanOrEqual(10);
    expect(records.length).toBeLessThan(120);
    expect(err).toBe(`interrupted: ${records.length} of 120 replications are in ${join('out', 'faults-big', 'results.jsonl')}; run again with --resume to finish\n`);
    for (const rec of records) expect(rec).toMatchObject({ state: 'ok', key: expect.any(String), replication: expect.any(Number) });
    expect(readdirSync(join(out, 'faults-big')).sort()).toEqual(['results.jsonl', 'run.json']);
  });

  it('SIGTERM stops the command cleanly (exit code 130) with complete lines', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', big);
    const out = join(dir, 'out');
    const results = join(out, 'faults-big', 'results.jsonl');
    const run = spawnCli(['run', file, '--out', out, '--workers', '2'], { timeoutMs: 60_000 });
    const poll = setInterval(() => {
      if (existsSync(results) && readFileSync(results, 'utf8').split('\n').length > 10) {
        clearInterval(poll);
        run.child.kill('SIGTERM');
      }
    }, 10);
    const r = await run.finally(() => clearInterval(poll));
    expect(r.code).toBe(130);
    const records = jsonlRecords(results);
    expect(r.stderr).toContain(`interrupted: ${records.length} of 120 replications are in `);
    expect(records.length).toBeLessThan(120);
    expect(existsSync(join(out, 'faults-big', 'summary.json'))).toBe(false);
  });

  it('SIGKILL in the middle of `run` leaves complete lines (the last perhaps cut short), and --resume gives the summary of an uninterrupted run', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', big);
    const out = join(dir, 'out');
    const results = join(out, 'faults-big', 'results.jsonl');
    const run = spawnCli(['run', file, '--out', out, '--workers', '2', '--quiet'], { timeoutMs: 60_000 });
    const poll = setInterval(() => {
      if (existsSync(results) && readFileSync(results, 'utf8').split('\n').length > 20) {
        clearInterval(poll);
        run.child.kill('SIGKILL');
      }
    }, 5);
    const r = await run.finally(() => clearInterval(poll));
    expect(r.signal).toBe('SIGKILL');
    const { records, cut } = jsonlRecordsAfterKill(results);
    for (const rec of records) expect(rec).toMatchObject({ state: 'ok', key: expect.any(String), replication: expect.any(Number) });
    // A line is written by one call: a kill can cut only the line being written, the last, from its start.
    if (cut !== '') expect(cut.startsWith('{"')).toBe(true);
    expect(records.length).toBeGreaterThanOrEqual(20);
    expect(records.length).toBeLessThan(120);
    expect(leftoverTempFiles(out)).toEqual([]);
    const resumed = await cli(['run', file, '--out', out, '--workers', '2', '--quiet', '--resume']);
    expect(resumed.code).toBe(0);
    expect(jsonlRecords(results)).toHaveLength(120);
    const fresh = await cli(['run', file, '--out', join(dir, 'fresh'), '--workers', '2', '--quiet']);
    expect(fresh.code).toBe(0);
    expect(readFileSync(join(out, 'faults-big', 'summary.json'), 'utf8')).toBe(readFileSync(join(dir, 'fresh', 'faults-big', 'summary.json'), 'utf8'));
  });
});
