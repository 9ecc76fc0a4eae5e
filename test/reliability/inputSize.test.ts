import { closeSync, mkdirSync, openSync, ftruncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_INPUT_BYTES } from '../../src/cli/readInput.js';
import { CheckInputError } from '../../src/check/CheckInputError.js';
import { readDocument } from '../../src/check/readDocument.js';
import { formatCount } from '../../src/policy/groupThousands.js';
import { cli, tempDir } from '../cli/helpers.js';

/** A sparse file of `bytes` bytes (no disk used, nothing to parse in time). */
function sparse(path: string, bytes: number): string {
  const fd = openSync(path, 'w');
  ftruncateSync(fd, bytes);
  closeSync(fd);
  return path;
}

const limit = `over the limit of ${formatCount(MAX_INPUT_BYTES)} bytes (${MAX_INPUT_BYTES / 1024 / 1024} MiB) of an input file`;

describe('input files over MAX_INPUT_BYTES are refused before they are read', () => {
  it('an experiment file one byte over: validate, run, trace, tune and risk refuse it at once, naming the file, its size and the limit', async () => {
    const dir = tempDir();
    const big = sparse(join(dir, 'big.json'), MAX_INPUT_BYTES + 1);
    for (const args of [['validate', big], ['run', big, '--out', join(dir, 'out')], ['trace', big, '--script', '200:1'], ['tune', big, '--out', join(dir, 'out')], ['risk', big, '--out', join(dir, 'out')]]) {
      const started = Date.now();
      const r = await cli(args);
      expect(r).toEqual({ code: 2, out: '', err: `error: ${big}: is ${formatCount(MAX_INPUT_BYTES + 1)} bytes, ${limit}\n` });
      expect(Date.now() - started).toBeLessThan(1000);
    }
  });

  it('a stack file for check or export, and a file a layer imports, are held to the same limit', async () => {
    const dir = tempDir();
    const big = sparse(join(dir, 'big.yaml'), MAX_INPUT_BYTES + 1);
    for (const args of [['check', big], ['export', 'aws-config', big]]) {
      expect(await cli(args, dir)).toEqual({ code: 2, out: '', err: `error: ${big}: is ${formatCount(MAX_INPUT_BYTES + 1)} bytes, ${limit}\n` });
    }
    mkdirSync(join(dir, 'conf'));
    sparse(join(dir, 'conf', 'aws.ini'), 50 * 1024 * 1024);
    writeFileSync(join(dir, 'stack.yaml'), 'layers:\n  - import: { format: aws-config, file: conf/aws.ini }\n');
    expect(await cli(['export', 'aws-config', 'stack.yaml'], dir)).toEqual({
      code: 2,
      out: '',
      err: `error: stack.yaml: layers.0.import.file: conf/aws.ini: is ${formatCount(50 * 1024 * 1024)} bytes, ${limit}\n`,
    });
  });

  it('a device that never ends (/dev/zero) is cut off at the limit, not read until memory runs out', async () => {
    const r = await cli(['check', '/dev/zero']);
    expect(r).toEqual({ code: 2, out: '', err: `error: /dev/zero: is more than ${formatCount(MAX_INPUT_BYTES)} bytes, ${limit}\n` });
  });

  it('a file of exactly the limit is read (and refused for what it says, not for its size)', async () => {
    const dir = tempDir();
    const path = sparse(join(dir, 'edge.json'), MAX_INPUT_BYTES);
    const r = await cli(['validate', path]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: .*edge\.json: invalid JSON at line 1, column 1: /);
    expect(r.err).not.toMatch(/limit/);
  });
});

describe('a YAML file within the limit is read in time linear in its keys', () => {
  it('a map of 30,000 keys is read in well under the seconds a check of every key against every other took', () => {
    const text = `m:\n${Array.from({ length: 30_000 }, (_, i) => `  k${i}: ${i}`).join('\n')}\n`;
    const started = Date.now();
    const doc = readDocument(text, 'keys.yaml') as { m: Record<string, number> };
    expect(Date.now() - started).toBeLessThan(5000);
    expect([Object.keys(doc.m).length, doc.m.k29999]).toEqual([30_000, 29_999]);
  });

  it('a repeated key is still refused, where it is, in block and flow maps', () => {
    const problems = (text: string) => {
      try {
        readDocument(text, 'd.yaml');
      } catch (e) {
        if (e instanceof CheckInputError) return e.problems;
      }
      return [];
    };
    expect(problems('a:\n  x: 1\n  y: 2\n  x: 3\n')).toEqual(['d.yaml: invalid YAML at line 4, column 3: Map keys must be unique']);
    expect(problems('a: { x: 1, "x": 2 }\n')).toEqual(['d.yaml: invalid YAML at line 1, column 12: Map keys must be unique']);
    expect(problems('a: { 1: one, "1": other }\n')).toEqual([]);
  });
});

describe('a file that cannot be read is named briefly', () => {
  it('a name of 10,000 characters: one short line with its ends, never the whole name (twice)', async () => {
    const dir = tempDir();
    const name = join(dir, `${'e'.repeat(10_000)}.json`);
    const r = await cli(['validate', name]);
    expect(r).toEqual({ code: 2, out: '', err: `error: ${name.slice(0, 60)}...${'e'.repeat(55)}.json (a path of ${formatCount(name.length)} characters): cannot read (the file name is too long)\n` });
    const c = await cli(['check', name]);
    expect(c.code).toBe(2);
    expect(c.err.length).toBeLessThan(300);
  });

  it('any other failed file operation: the path and what failed, not Node\'s message', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'plain'), '');
    expect(await cli(['run-all', '--dir', join(dir, 'plain')])).toEqual({ code: 2, out: '', err: `error: ${join(dir, 'plain')}: a part of the path is not a directory (scandir)\n` });
  });

  it('report of a directory of 10,000 characters that is not there: one short line', async () => {
    const name = 'r'.repeat(10_000);
    expect(await cli(['report', name])).toEqual({ code: 2, out: '', err: `error: ${'r'.repeat(60)}...${'r'.repeat(60)} (a path of 10,000 characters): no such directory\n` });
  });
});
