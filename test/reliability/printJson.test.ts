import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { printJson } from '../../src/cli/printJson.js';
import { cli, tempDir, writeExperiment } from '../helpers/reliability.js';

/** The longest string V8 makes in Node 20 (2^29 - 24 characters): the text JSON.stringify could not exceed. */
const V8_MAX_STRING = 2 ** 29 - 24;

/** What `printJson` prints, gathered. */
function printed(value: unknown): { text: string; chunks: number } {
  const chunks: string[] = [];
  printJson((s) => chunks.push(s), value);
  return { text: chunks.join(''), chunks: chunks.length };
}

describe('run --json and merge --json print in pieces, the bytes of JSON.stringify(value, null, 2)', () => {
  it('gives the old text for values with infinities, NaN, -0, toJSON, undefined and nesting', () => {
    const values: unknown[] = [
      { a: Infinity, b: -Infinity, c: NaN, d: -0, e: undefined, f: [Infinity, undefined, null, 1.5e-9], g: new Date(0) },
      { experiment: 'x', cells: [{ key: '{"a":1}', metrics: { m: { mean: 1 / 3, ci95: [0, Infinity] } }, nested: [[[]], {}, [{}]] }] },
      'a "string" with \u2028 and \u001b',
      [],
      42,
    ];
    for (const v of values) expect(printed(v).text).toBe(JSON.stringify(v, null, 2) + '\n');
  });

  it('gives the old text for a long series and many small objects (walked, not stringified whole)', () => {
    const series = Array.from({ length: 250_000 }, (_, i) => (i % 7 === 0 ? Infinity : i / 3));
    const rows = Array.from({ length: 60_000 }, (_, i) => ({ i, inf: i % 2 === 0 ? Infinity : -i, s: `r${i}` }));
    const value = { timeSeries: { typical: { queue: series } }, rows };
    const { text, chunks } = printed(value);
    expect(chunks).toBeGreaterThan(2);
    expect(text).toBe(JSON.stringify(value, null, 2) + '\n');
  });

  it('prints a result longer than the longest string V8 makes', () => {
    // 515 texts of a mebibyte (cheap to write and scan) beside a series of 100,000 numbers.
    const texts = Array.from({ length: 515 }, (_, i) => String.fromCharCode(0x41 + (i % 26)).repeat(2 ** 20));
    const series = Array.from({ length: 100_000 }, (_, i) => i / 7);
    let chars = 0;
    let longest = 0;
    let head = '';
    let tail = '';
    printJson((s) => {
      chars += s.length;
      longest = Math.max(longest, s.length);
      if (head.length < 64) head += s.slice(0, 64);
      tail = (tail + s).slice(-64);
    }, { experiment: 'huge', texts, series });
    // The same value with one-character texts, as one string: the huge text is that plus 2^20 - 1 characters per text.
    const small = JSON.stringify({ experiment: 'huge', texts: texts.map((t) => t.slice(0, 1)), series }, null, 2) + '\n';
    expect(chars).toBeGreaterThan(V8_MAX_STRING);
    expect(chars).toBe(small.length + 515 * (2 ** 20 - 1));
    expect(longest).toBeLessThan(2 ** 22);
    expect(head.startsWith('{\n  "experiment": "huge",\n  "texts": [\n    "AAAA')).toBe(true);
    expect(tail).toBe(small.slice(-64));
  }, 300_000);

  it('run --json prints what summary.json holds, and merge --json the merged summary', async () => {
    const dir = tempDir();
    const exp = {
      name: 'json-out',
      seed: 3,
      scenario: {
        workload: { kind: 'burst', clients: 5 },
        stack: [{ name: 'client', policy: { maxAttempts: 2 } }],
        leaf: { kind: 'server', concurrency: 1, serviceMs: 5 },
      },
      variants: { a: {}, b: { 'stack.0.policy.maxAttempts': 3 } },
      replications: 2,
    };
    const file = writeExperiment(dir, 'e.json', exp);
    const run = await cli(['run', file, '--out', join(dir, 'out'), '--json', '--workers', '1']);
    expect(run.code).toBe(0);
    expect(run.out.endsWith('}\n')).toBe(true);
    const fromFile = JSON.parse(readFileSync(join(dir, 'out', 'json-out', 'summary.json'), 'utf8')) as unknown;
    expect(JSON.parse(run.out)).toEqual(fromFile);
    const merged = await cli(['merge', join(dir, 'out', 'json-out'), '--out', join(dir, 'merged'), '--json']);
    expect(merged.code).toBe(0);
    expect(JSON.parse(merged.out)).toEqual(fromFile);
  }, 120_000);
});
