import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, jsonlRecords, tempDir, writeExperiment } from '../helpers/reliability.js';

/**
 * What a run reads back from its own files (run.json, results.jsonl) is checked like any input:
 * names must be experiment names that agree with the embedded source, and every record must be
 * whole; and what one run writes never lands on another's files.
 */

const sweep = {
  name: 'readback',
  seed: 9,
  scenario: {
    workload: { kind: 'burst', clients: 3 },
    stack: [{ name: 'client', policy: { maxAttempts: 2 } }],
    leaf: { kind: 'server', serviceMs: 5, faults: [{ probability: 0.3 }] },
    metrics: { timeSeriesBinMs: 1000, clusteringBinMs: [10] },
  },
  sweep: { grid: { 'workload.clients': [3, 4] } },
  replications: 2,
};

/** Two shards of `sweep` in dir/s0 and dir/s1. */
async function shards(dir: string): Promise<[string, string]> {
  const file = writeExperiment(dir, 'e.json', sweep);
  for (const k of [0, 1]) expect((await cli(['run', file, '--out', join(dir, `s${k}`), '--shard', `${k}/2`, '--quiet', '--workers', '1'])).code).toBe(0);
  return [join(dir, 's0', 'readback'), join(dir, 's1', 'readback')];
}

function editManifest(runDir: string, patch: Record<string, unknown>): void {
  const path = join(runDir, 'run.json');
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), ...patch }, null, 2));
}

describe('merge writes only under --out, into the directory of the experiment its source names', () => {
  it.each([['../../../../outside/x'], ['/tmp/absolute'], ['Upper']])('a run.json naming the experiment %j is refused (exit 2) and nothing is written', async (name) => {
    const dir = tempDir();
    const [a, b] = await shards(dir);
    editManifest(a, { experiment: name });
    editManifest(b, { experiment: name });
    const r = await cli(['merge', a, b, '--out', join(dir, 'merged')]);
    expect(r).toEqual({
      code: 2,
      out: '',
      err: `error: ${a}/run.json: experiment must be an experiment name (lowercase letters, digits, ".", "_", "-"; got ${JSON.stringify(name)})\n`,
    });
    expect(existsSync(join(dir, 'merged'))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['e.json', 's0', 's1']);
  });

  it('a valid name that is not the one in the embedded source is refused', async () => {
    const dir = tempDir();
    const [a, b] = await shards(dir);
    editManifest(a, { experiment: 'other' });
    editManifest(b, { experiment: 'other' });
    const r = await cli(['merge', a, b, '--out', join(dir, 'merged')]);
    expect([r.code, r.err]).toEqual([2, `error: ${a}/run.json: experiment "other" is not the name in its source ("readback")\n`]);
    expect(existsSync(join(dir, 'merged'))).toBe(false);
  });

  it('an unreadable run.json is an input error', async () => {
    const dir = tempDir();
    const [a, b] = await shards(dir);
    writeFileSync(join(a, 'run.json'), '{ torn');
    const r = await cli(['merge', a, b, '--out', join(dir, 'merged')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^error: ${a}: not a retrystorm run directory \\(run\\.json cannot be read: `));
  });
});

describe('resume and merge check every record of results.jsonl', () => {
  /** results.jsonl with its line `index` (0-based) replaced by `text`. */
  function replaceLine(path: string, index: number, text: string): void {
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[index] = text;
    writeFileSync(path, lines.join('\n'));
  }

  it.each([
    ['null', 'not a record (null)'],
    ['[1, 2]', 'not a record (an array)'],
    ['{"state": "ok"}', 'key must be a string'],
    ['not json', 'not valid JSON'],
  ])('a line %j is reported with its line number and runs again; the summary is that of a clean run', async (text, why) => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', sweep);
    const out = join(dir, 'out');
    expect((await cli(['run', file, '--out', out, '--quiet', '--workers', '1'])).code).toBe(0);
    const clean = readFileSync(join(out, 'readback', 'summary.json'), 'utf8');
    const results = join(out, 'readback', 'results.jsonl');
    replaceLine(results, 1, text);
    const r = await cli(['run', file, '--out', out, '--quiet', '--workers', '1', '--resume']);
    expect(r.code).toBe(0);
    expect(r.err).toBe(`warning: ${join(out, 'readback')}/results.jsonl line 2: ${why}; that replication runs again\n`);
    expect(jsonlRecords(results)).toHaveLength(4);
    expect(readFileSync(join(out, 'readback', 'summary.json'), 'utf8')).toBe(clean);
  });

  it('a last line cut short (as a kill in the middle of its write leaves it) runs again without a word', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', sweep);
    const out = join(dir, 'out');
    expect((await cli(['run', file, '--out', out, '--quiet', '--workers', '1'])).code).toBe(0);
    const clean = readFileSync(join(out, 'readback', 'summary.json'), 'utf8');
    const results = join(out, 'readback', 'results.jsonl');
    const text = readFileSync(results, 'utf8');
    const lastStart = text.lastIndexOf('\n', text.length - 2) + 1;
    writeFileSync(results, text.slice(0, lastStart + Math.floor((text.length - lastStart) / 2)));
    expect(() => jsonlRecords(results)).toThrow(/ends with a partial line/);
    const r = await cli(['run', file, '--out', out, '--quiet', '--workers', '1', '--resume']);
    expect([r.code, r.err]).toEqual([0, '']);
    expect(jsonlRecords(results)).toHaveLength(4);
    expect(readFileSync(join(out, 'readback', 'summary.json'), 'utf8')).toBe(clean);
  });

  it('an ok record missing its results counts as missing', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', sweep);
    const out = join(dir, 'out');
    expect((await cli(['run', file, '--out', out, '--quiet', '--workers', '1'])).code).toBe(0);
    const results = join(out, 'readback', 'results.jsonl');
    const rec = jsonlRecords(results)[0] as Record<string, unknown>;
    delete rec.results;
    replaceLine(results, 0, JSON.stringify(rec));
    const r = await cli(['run', file, '--out', out, '--quiet', '--workers', '1', '--resume']);
    expect([r.code, r.err]).toEqual([0, `warning: ${join(out, 'readback')}/results.jsonl line 1: results must be an object; that replication runs again\n`]);
  });

  it('merge of a shard with a bad line says the shard is incomplete and names the line', async () => {
    const dir = tempDir();
    const [a, b] = await shards(dir);
    replaceLine(join(a, 'results.jsonl'), 0, 'null');
    const r = await cli(['merge', a, b, '--out', join(dir, 'merged')]);
    expect([r.code, r.err]).toEqual([2, `error: ${a} is incomplete: 1 of 2 replications (finish it with --resume)\n  ${a}/results.jsonl line 1: not a record (null)\n`]);
  });
});

describe('experiments of one run', () => {
  it('two files with the same name are refused before anything runs, naming both', async () => {
    const dir = tempDir();
    writeExperiment(join(dir, '.'), 'a.json', { ...sweep, sweep: undefined, replications: undefined });
    writeExperiment(join(dir, '.'), 'b.json', { ...sweep, sweep: undefined, replications: undefined, seed: 10 });
    const r = await cli(['run', '.', '--out', 'out', '--quiet'], dir);
    expect(r).toEqual({ code: 2, out: '', err: 'error: a.json and b.json are both named "readback": their results would overwrite each other (give each experiment its own name)\n' });
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('a temporary file left by a killed run is removed by the next run into the directory', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', sweep);
    const out = join(dir, 'out');
    expect((await cli(['run', file, '--out', out, '--quiet', '--workers', '1'])).code).toBe(0);
    // A run killed before its end leaves no summary, and perhaps a temporary file.
    for (const f of ['summary.json', 'summary.csv']) rmSync(join(out, 'readback', f));
    writeFileSync(join(out, 'readback', 'summary.json.tmp-12345'), '{"half": ');
    expect((await cli(['run', file, '--out', out, '--quiet', '--workers', '1'])).code).toBe(0);
    expect(readdirSync(join(out, 'readback')).sort()).toEqual(['index.html', 'report.json', 'results.jsonl', 'run.json', 'summary.csv', 'summary.json']);
  });
});
