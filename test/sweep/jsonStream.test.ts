import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toJson } from '../../src/sweep/json.js';
import { JsonChunkError, JsonChunkParser, jsonClone, writeJsonChunks } from '../../src/sweep/jsonStream.js';
import { BLANK, forEachJsonLine, readJsonFile } from '../../src/sweep/ResultReader.js';

/** JSON-like values with what toJson treats specially: infinities, NaN, -0, undefined, odd keys. */
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.double(),
    fc.constantFrom(Infinity, -Infinity, NaN, -0, 0, undefined, null, true, false),
    fc.string({ unit: 'grapheme' }),
    fc.constantFrom('\u2028', '\u2029', '"\\', '\u0000\u001f'),
  ),
  node: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('array'), tie('object')),
  array: fc.array(tie('node'), { maxLength: 6 }),
  object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'toString', '')), tie('node'), { maxKeys: 5 }),
})).node;

function chunked(v: unknown, indent: number, smallValues: number): string {
  const parts: string[] = [];
  writeJsonChunks(v, (c) => parts.push(c), { indent, smallValues });
  return parts.join('');
}

function parseInPieces(text: string, size: number): unknown {
  const bytes = Buffer.from(text);
  let i = 0;
  return new JsonChunkParser(() => (i < bytes.length ? bytes.subarray(i, (i += size)) : null)).parse();
}

describe('writeJsonChunks', () => {
  it('writes exactly the text of toJson, walking any subtree, with and without indentation', () => {
    fc.assert(
      fc.property(value, fc.constantFrom(0, 2), fc.constantFrom(1, 2, 5, 100_000), (v, indent, small) => {
        expect(chunked(v, indent, small)).toBe(toJson(v, indent || undefined) ?? '');
      }),
      { numRuns: 400 },
    );
  });

  it('applies toJSON and leaves out functions as JSON.stringify does', () => {
    const v = { d: new Date(0), f: () => 1, a: [() => 1, new Date(1)] };
    expect(chunked(v, 2, 1)).toBe(toJson(v, 2));
  });

  it('emits a long array in pieces of about a megabyte, none holding the whole text', () => {
    const v = { s: Array.from({ length: 400_000 }, (_, i) => i / 7) };
    const parts: string[] = [];
    writeJsonChunks(v, (c) => parts.push(c), { indent: 2 });
    expect(parts.length).toBeGreaterThan(5);
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThan(1.1 * 2 ** 20);
    expect(parts.join('')).toBe(toJson(v, 2));
  });
});

describe('jsonClone', () => {
  it('gives what JSON.parse(toJson(value)) gives', () => {
    fc.assert(
      fc.property(value, (v) => {
        const text = toJson(v);
        const want = text === undefined ? undefined : (JSON.parse(text) as unknown);
        expect(jsonClone(v)).toStrictEqual(want);
        if (text !== undefined) expect(toJson(jsonClone(v))).toBe(text);
      }),
      { numRuns: 400 },
    );
  });
});

describe('JsonChunkParser', () => {
  it('parses what JSON.parse parses, from chunks of any size (multi-byte characters split)', () => {
    fc.assert(
      fc.property(value, fc.constantFrom(0, 2), fc.integer({ min: 1, max: 9 }), (v, indent, size) => {
        const text = toJson(v, indent || undefined);
        if (text === undefined) return;
        expect(parseInPieces(text, size)).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: 400 },
    );
  });

  it('keeps __proto__ as an own key, as JSON.parse does', () => {
    const got = parseInPieces('{"__proto__": {"polluted": 1}}', 4) as Record<string, unknown>;
    expect(Object.keys(got)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['{"a": 1,}', 'expected a property name at byte 8'],
    ['[1 2]', 'expected "," or "]" at byte 3'],
    ['01', 'not a number: "01" at byte 2'],
    ['1.', 'not a number: "1." at byte 2'],
    ['"a\nb"', 'control character in a string at byte 2'],
    ['"\\x"', 'invalid escape in a string at byte 4'],
    ['[1', 'unexpected end of input at byte 2'],
    ['tru', 'expected true at byte 3'],
    ['{} x', 'unexpected text after the value at byte 3'],
  ])('refuses %j: %s', (text, message) => {
    expect(() => parseInPieces(text, 2)).toThrow(new JsonChunkError(message.replace(/ at byte \d+$/, ''), Number(/\d+$/.exec(message)?.[0])));
    expect(() => parseInPieces(text, 2)).toThrow(message);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('reads numbers within one chunk as JSON.parse does: integers, short and long decimals, exponents, -0', () => {
    // Short decimals take the computed way (up to 15 digits), the rest Number() of their text: both must give JSON.parse's double.
    const decimal = fc.tuple(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 0, max: 15 }), fc.nat()).map(([i, k, f]) => `${i}.${String(f).padStart(k, '0').slice(0, Math.max(1, k))}`);
    const number = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
      fc.integer().map(String),
      fc.maxSafeInteger().map(String),
      decimal,
      fc.constantFrom('-0', '-0.0', '0.000123', '123456789012345', '1234567890123456', '9007199254740993', '1.7976931348623157e308', '5e-324', '1E+2', '2e-7', '0.1', '0.30000000000000004'),
    );
    fc.assert(
      fc.property(fc.array(number, { maxLength: 40 }), fc.constantFrom(0, 2), (texts, indent) => {
        const text = indent === 0 ? `[${texts.join(',')}]` : `[\n  ${texts.join(',\n  ')}\n]`;
        const want = JSON.parse(text) as number[];
        const got = parseInPieces(text, 1 << 20) as number[];
        expect(got.length).toBe(want.length);
        got.forEach((v, i) => expect(Object.is(v, want[i])).toBe(true));
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['[01]', 'not a number: "01" at byte 3'],
    ['[1.]', 'not a number: "1." at byte 3'],
    ['[-]', 'not a number: "-" at byte 2'],
    ['[1e]', 'not a number: "1e" at byte 3'],
    ['[1.5.3]', 'not a number: "1.5.3" at byte 6'],
    ['[--1]', 'not a number: "--1" at byte 4'],
    ['[1e+]', 'not a number: "1e+" at byte 4'],
    ['[12-3]', 'not a number: "12-3" at byte 5'],
  ])('refuses %j within one chunk: %s', (text, message) => {
    expect(() => parseInPieces(text, 1 << 20)).toThrow(message);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('refuses nesting deeper than 1000 levels', () => {
    expect(parseInPieces('['.repeat(1000) + ']'.repeat(1000), 64)).toBeDefined();
    expect(() => parseInPieces('['.repeat(1001) + ']'.repeat(1001), 64)).toThrow('nested too deep: arrays and objects may nest at most 1000 levels at byte 1000');
  });
});

describe('reading files longer than one string', () => {
  it('readJsonFile parses in chunks above the one-string limit and gives JSON.parse\'s value', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-json-'));
    try {
      const v = { a: [1, 2.5, 'é\u2028'], b: { c: null } };
      writeFileSync(join(dir, 'x.json'), toJson(v, 2) as string);
      expect(readJsonFile(join(dir, 'x.json'), 8)).toStrictEqual(v);
      expect(readJsonFile(join(dir, 'x.json'))).toStrictEqual(v);
      writeFileSync(join(dir, 'bad.json'), '{"a": [1,, 2]}');
      expect(() => readJsonFile(join(dir, 'bad.json'), 4)).toThrow('unexpected character "," (at byte 9)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('forEachJsonLine gives every line, long ones parsed in chunks, blank ones as BLANK, the text after the last newline as last', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-jsonl-'));
    try {
      writeFileSync(join(dir, 'r.jsonl'), '{"a":1}\n\n[1,2,3,4,5,6,7,8,9,10]\nnull\n{"cut":');
      for (const limit of [4, 1 << 20]) {
        const seen: Array<[number, boolean, unknown]> = [];
        forEachJsonLine(
          join(dir, 'r.jsonl'),
          (parse, n, last) => {
            let v: unknown;
            try {
              v = parse();
            } catch {
              v = 'invalid';
            }
            seen.push([n, last, v === BLANK ? 'blank' : v]);
          },
          limit,
        );
        expect(seen).toEqual([
          [1, false, { a: 1 }],
          [2, false, 'blank'],
          [3, false, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]],
          [4, false, null],
          [5, true, 'invalid'],
        ]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
