import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir, validExperiment, writeExperiment } from '../helpers/reliability.js';

/**
 * Input crafted to break the reader: nesting deep enough to exhaust the stack, YAML aliases that
 * expand exponentially, `__proto__` keys that would vanish into a prototype. Each is a clear input
 * error (exit 2) naming the file and the rule, never an internal error.
 */

/** `{"name": "deep", "x": [[[...]]]}` with `depth` levels of arrays under x. */
function nestedJson(depth: number): string {
  return `{"name": "deep", "x": ${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

describe('nesting is limited to 1000 levels', () => {
  it('an experiment file nested 6,000 levels deep is refused with the position of level 1001', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'deep.json', nestedJson(6000));
    const r = await cli(['validate', file]);
    expect(r).toEqual({ code: 2, out: '', err: `error: ${file}: nested too deep at line 1, column 1022: arrays and objects may nest at most 1000 levels\n` });
  });

  it('1000 levels are read (and then refused for what they are: an unknown field)', async () => {
    const dir = tempDir();
    // The root object is level 1, so 999 arrays under it make 1000 levels.
    const file = writeExperiment(dir, 'deep.json', nestedJson(999));
    const r = await cli(['validate', file]);
    expect(r.code).toBe(2);
    expect(r.err).not.toContain('nested too deep');
    expect(r.err).toContain('x is not a known field');
  });

  it('`run` refuses it the same way before running anything', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'deep.json', nestedJson(6000));
    const r = await cli(['run', file, '--out', join(dir, 'out')]);
    expect([r.code, r.err]).toEqual([2, `error: ${file}: nested too deep at line 1, column 1022: arrays and objects may nest at most 1000 levels\n`]);
  });

  it('`check` of a JSON stack nested 6,000 levels deep', async () => {
    const dir = tempDir();
    const file = join(dir, 'stack.json');
    writeFileSync(file, `{"layers": ${'['.repeat(6000)}${']'.repeat(6000)}}`);
    const r = await cli(['check', file]);
    expect([r.code, r.err]).toEqual([2, `error: ${file}: nested too deep at line 1, column 1011: arrays and objects may nest at most 1000 levels\n`]);
  });

  it('`check` of a YAML stack nested deeper than its reader manages', async () => {
    const dir = tempDir();
    const file = join(dir, 'stack.yaml');
    writeFileSync(file, `layers: ${'['.repeat(6000)}${']'.repeat(6000)}\n`);
    const r = await cli(['check', file]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^error: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: nested too deep at line 1, column \\d+: the YAML reader runs out of stack there\\n$`));
  });
});

describe('YAML aliases are limited to 100', () => {
  /** Ten levels of ten aliases each: 10^10 copies once expanded. */
  function aliasBomb(): string {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 10; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]`);
    return lines.join('\n') + '\n';
  }

  it('an alias bomb given to `check` is an input error (exit 2), not an error-level finding (exit 1)', async () => {
    const dir = tempDir();
    const file = join(dir, 'bomb.yaml');
    writeFileSync(file, aliasBomb());
    const r = await cli(['check', file]);
    expect(r).toEqual({ code: 2, out: '', err: `error: ${file}: too many YAML aliases: a document may use at most 100 (each alias copies what it names)\n` });
  });
});

describe('"__proto__" is an unknown field like any other', () => {
  it('inside scenario and inside a policy, with the path of each', async () => {
    const dir = tempDir();
    const e = validExperiment();
    const text = JSON.stringify(e).replace('"scenario":{', '"scenario":{"__proto__":{"horizonMs":1},').replace('"policy":{', '"policy":{"__proto__":{"maxAttempts":9},');
    const file = writeExperiment(dir, 'proto.json', text);
    const r = await cli(['validate', file]);
    expect(r).toEqual({
      code: 2,
      out: '',
      err: `error: ${file}: scenario.__proto__ is not a known field\nerror: ${file}: scenario.stack.0.policy.__proto__ is not a known field\n`,
    });
  });
});
