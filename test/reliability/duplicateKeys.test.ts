import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseExperimentText, parseJson } from '../../src/experiment/index.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';

/** A small valid experiment as text, with `policy` written by hand so that a key can be repeated in it. */
function experimentText(policy: string): string {
  return [
    '{',
    '  "name": "dup",',
    '  "scenario": {',
    '    "workload": { "kind": "burst", "clients": 5 },',
    '    "stack": [',
    `      { "name": "client", "policy": ${policy} }`,
    '    ],',
    '    "leaf": { "kind": "server", "concurrency": "unlimited", "serviceMs": 1 }',
    '  }',
    '}',
  ].join('\n');
}

describe('a key repeated in one JSON object', () => {
  it('is refused with the dotted path of its object, the key and where both occurrences are', () => {
    const r = parseExperimentText(experimentText('{ "maxAttempts": 3, "maxAttempts": 5 }'), 'dup.json');
    expect(r.ok ? [] : r.errors).toEqual(['dup.json: scenario.stack.0.policy: duplicate key "maxAttempts" at line 6, column 57 (first at line 6, column 39)']);
  });

  it('compares keys as decoded ("a" and "\\u0061" are one key), at the root and inside arrays', () => {
    expect(parseJson('{"name":1,"n\\u0061me":2}', 'x.json')).toEqual({ ok: false, duplicateKey: true, error: 'x.json: duplicate key "name" at line 1, column 11 (first at line 1, column 2)' });
    expect(parseJson('{"a":[{"k":"\\"}"},{"k":1,"k":2}]}', 'x.json')).toEqual({ ok: false, duplicateKey: true, error: 'x.json: a.1: duplicate key "k" at line 1, column 26 (first at line 1, column 20)' });
    // The same key in different objects is no repeat.
    expect(parseJson('{"a":{"k":1},"b":{"k":2},"k":{"a":3}}', 'x.json')).toEqual({ ok: true, value: { a: { k: 1 }, b: { k: 2 }, k: { a: 3 } } });
  });

  it('is found in a file of several megabytes, as the last key of the last object', () => {
    const cells = Array.from({ length: 60_000 }, (_, i) => `{"name":"c${i}","values":[${i},${i * 2},"x\\"y"],"nested":{"a":1,"b":"t"}}`);
    const text = `{"cells":[${cells.join(',')}],"tail":{"z":1,"z":2}}`;
    expect(text.length).toBeGreaterThan(4_000_000);
    const r = parseJson(text, 'big.json');
    expect(r.ok ? '' : r.error).toMatch(/^big\.json: tail: duplicate key "z" at line 1, column \d+ \(first at line 1, column \d+\)$/);
  });

  it('exits 2 from validate, run, tune, risk and check, naming the file and the path, with no stack trace', async () => {
    const dir = tempDir();
    const exp = writeExperiment(dir, 'dup.json', experimentText('{ "maxAttempts": 3, "backoff": { "kind": "none", "kind": "constant" } }'));
    const expected = `${exp}: scenario.stack.0.policy.backoff: duplicate key "kind" at line 6, column 86 (first at line 6, column 70)`;
    for (const args of [['validate', exp], ['run', exp, '--out', join(dir, 'out'), '--quiet'], ['tune', exp, '--out', join(dir, 'out'), '--quiet'], ['risk', exp, '--out', join(dir, 'out'), '--quiet']]) {
      const r = await cli(args);
      expect(r.code, args[0]).toBe(2);
      expect(r.err).toContain(expected);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
    const stack = writeExperiment(dir, 'stack.json', '{"layers":[{"name":"sdk","policy":{"maxAttempts":2}},{"name":"proxy","policy":{"maxAttempts":2},"policy":{"maxAttempts":9}}]}');
    const r = await cli(['check', stack]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${stack}: layers.1: duplicate key "policy" at line 1, column 97 (first at line 1, column 70)`);
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('is refused in a --set value too', async () => {
    const dir = tempDir();
    const exp = writeExperiment(dir, 'ok.json', experimentText('{ "maxAttempts": 3 }'));
    const r = await cli(['validate', exp, '--set', 'stack.0.policy={"maxAttempts":2,"maxAttempts":4}']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--set stack.0.policy: duplicate key "maxAttempts" at line 1, column 18 (first at line 1, column 2)');
  });
});
