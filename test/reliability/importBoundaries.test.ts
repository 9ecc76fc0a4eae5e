import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importAwsConfig } from '../../src/check/importAwsConfig.js';
import { importGrpcServiceConfig } from '../../src/check/importGrpcServiceConfig.js';
import { CheckInputError } from '../../src/check/CheckInputError.js';
import { readDocument } from '../../src/check/readDocument.js';
import { importEnvoyRoute } from '../../src/check/importEnvoyRoute.js';
import { loadStacks } from '../../src/check/index.js';
import { unrecognisedFileMessage } from '../../src/check/checkFormats.js';
import { MAX_LISTED_NAMES } from '../../src/policy/schema/describeValue.js';
import { parseJson } from '../../src/experiment/parseJson.js';
import { MAX_NAME_CHARS, MAX_QUOTED_CHARS, MAX_QUOTED_LINES, MAX_QUOTED_VALUES } from '../../src/policy/schema/describeValue.js';
import { cli, tempDir } from '../cli/helpers.js';

/** A file that is not an AWS config: every line is a secret that must not reach the messages whole. */
function secretFile(dir: string, lines = 40): string {
  const path = join(dir, 'secrets.txt');
  const text = Array.from({ length: lines }, (_, i) => `secret-${i}:${'x'.repeat(100)}:tail-${i}\u001b[31m`).join('\n');
  writeFileSync(path, text + '\n');
  return path;
}

function experimentImporting(dir: string, file: string): string {
  const path = join(dir, 'exp.json');
  writeFileSync(
    path,
    JSON.stringify({
      name: 'imports',
      scenario: { workload: { kind: 'burst', clients: 2 }, stack: [{ import: { format: 'aws-config', file } }], leaf: { kind: 'occ' } },
    }),
  );
  return path;
}

function problemsOf(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    if (e instanceof CheckInputError) return e.problems;
    throw e;
  }
  throw new Error('expected a CheckInputError');
}

describe('an import may not leave the directory of the file that names it', () => {
  const outside = tempDir();
  const secret = secretFile(outside);

  it.each([
    ['an absolute path', (_dir: string) => secret],
    ['a ../ path', (dir: string) => relative(dir, secret)],
    ['a symbolic link inside that leads outside', (dir: string) => (symlinkSync(secret, join(dir, 'link.ini')), 'link.ini')],
  ])('%s is refused by every command that reads experiment files, naming the field, the rule and the option', async (_what, name) => {
    const dir = join(tempDir(), 'exp');
    mkdirSync(dir);
    const exp = experimentImporting(dir, name(dir));
    for (const args of [['validate', exp], ['run', exp, '--out', join(dir, 'out')], ['trace', exp, '--script', '200:1'], ['check', exp], ['export', 'aws-config', exp], ['tune', exp, '--out', join(dir, 'out')], ['risk', exp, '--out', join(dir, 'out')]]) {
      const r = await cli(args);
      expect({ args: args[0], code: r.code }).toEqual({ args: args[0], code: 2 });
      expect(r.err).toMatch(/scenario\.stack\.0\.import\.file: ".*" is outside the directory of .*exp\.json \(it leads to .*secrets\.txt\): an imported file must be in that directory or below it, symbolic links followed; --allow-imports-outside allows it\n$/);
      expect(r.err).not.toMatch(/secret-0|xxxx/);
    }
  });

  it('a stack file read by check is held to the same rule', async () => {
    const dir = join(tempDir(), 'stack');
    mkdirSync(dir);
    writeFileSync(join(dir, 'stack.yaml'), `layers:\n  - name: sdk\n    import: { format: aws-config, file: ${JSON.stringify(secret)} }\n`);
    const r = await cli(['check', join(dir, 'stack.yaml')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/stack\.yaml: layers\.0\.import\.file: ".*secrets\.txt" is outside the directory of .*stack\.yaml .*--allow-imports-outside allows it\n$/);
  });

  it('--allow-imports-outside reads it, and the messages quote at most a few short, escaped excerpts of its lines', async () => {
    const dir = join(tempDir(), 'exp');
    mkdirSync(dir);
    const exp = experimentImporting(dir, secret);
    for (const args of [['validate', exp], ['check', exp], ['trace', exp, '--script', '200:1']]) {
      const r = await cli([...args, '--allow-imports-outside']);
      expect(r.code).toBe(2);
      const lines = r.err.trimEnd().split('\n');
      expect(lines).toHaveLength(MAX_QUOTED_LINES + 1);
      lines.slice(0, MAX_QUOTED_LINES).forEach((l, i) => {
        const quoted = /\(got (".*)\)$/.exec(l)?.[1] as string;
        expect(quoted.length).toBeLessThanOrEqual(MAX_QUOTED_CHARS);
        expect(quoted.startsWith(`"secret-${i}:xxx`)).toBe(true);
      });
      expect(lines[MAX_QUOTED_LINES]).toMatch(/secrets\.txt: 37 more lines like these \(not quoted: at most 3 are\)/);
      expect(r.err).not.toMatch(/tail-|secret-3/);
      expect(r.err.includes('\u001b')).toBe(false);
    }
  });
});

describe('parse errors quote a short, escaped excerpt of one line', () => {
  it('an AWS config: the first few bad lines, each cut, control characters escaped, the rest counted', () => {
    const text = ['\u001b]0;title\u0007' + 'a'.repeat(500), 'second line', 'third line', 'fourth', 'fifth'].join('\n');
    expect(problemsOf(() => importAwsConfig(text, 'c.ini'))).toEqual([
      `c.ini: line 1 must be a [section] or a "key = value" setting (got "\\u001b]0;title\\u0007${'a'.repeat(36)}...)`,
      'c.ini: line 2 must be a [section] or a "key = value" setting (got "second line")',
      'c.ini: line 3 must be a [section] or a "key = value" setting (got "third line")',
      'c.ini: 2 more lines like these (not quoted: at most 3 are); is this file of the format it was read as?',
    ]);
  });

  it('a key set before any section is quoted the same way (not its whole line)', () => {
    expect(problemsOf(() => importAwsConfig(`${'K'.repeat(300)}=v\n`, 'c.ini'))).toEqual([
      `c.ini: line 1 sets a key before any [section] (got "${'K'.repeat(MAX_QUOTED_CHARS - 4)}...)`,
    ]);
  });

  it('a gRPC service config that is a plain text file is not printed whole', () => {
    const text = Array.from({ length: 50 }, (_, i) => `line ${i} of a file that is not a service config`).join('\n');
    const [p] = problemsOf(() => importGrpcServiceConfig(text, 'notes.txt'));
    expect(p).toBe(`notes.txt: must be a gRPC service config object with "methodConfig" (got "line 0 of a file that is not a service config line 1 of ...)`);
  });

  it('a YAML syntax error quoting a huge token is cut', () => {
    const [p] = problemsOf(() => readDocument(`a: |x${'y'.repeat(5000)}\n  b\n`, 'r.yaml'));
    expect(p?.length).toBeLessThan(200);
    expect(p).toMatch(/^r\.yaml: invalid YAML at line 1, column \d+: .*\.\.\.$/);
  });

  it('a JSON error naming a long bare word quotes it cut', () => {
    const r = parseJson(`{"a": ${'w'.repeat(10_000)}}`, 'e.json');
    expect(r).toEqual({ ok: false, error: `e.json: invalid JSON at line 1, column 7: unexpected word "${'w'.repeat(MAX_QUOTED_CHARS - 4)}... (expected a value; strings need double quotes)` });
  });

  it('a document of many unknown fields lists the first ones (their names cut) and counts the rest', () => {
    const keys = Array.from({ length: 50 }, (_, i) => `          k${i}${'z'.repeat(200)}: 1`).join('\n');
    const doc = `virtual_hosts:\n  - name: vh\n    domains: ["*"]\n    routes:\n      - name: r\n        match: { prefix: "/" }\n        route:\n          cluster: c\n          retry_policy:\n            num_retries: 2\n${keys.replace(/^ {10}/gm, '            ')}\n`;
    const problems = problemsOf(() => importEnvoyRoute(doc, 'route.yaml'));
    expect(problems).toHaveLength(MAX_QUOTED_VALUES + 1);
    expect(problems[0]).toBe(`route.yaml: virtual_hosts.0.routes.0.route.retry_policy.k0${'z'.repeat(MAX_NAME_CHARS - 5)}... is not a known field`);
    expect(problems[MAX_QUOTED_VALUES]).toBe(`route.yaml: virtual_hosts.0.routes.0.route.retry_policy has 40 more fields that are not known (not listed: at most ${MAX_QUOTED_VALUES} are)`);
  });

  it('check given a text file of another kind names what it got in one short excerpt, not the whole file', () => {
    const text = Array.from({ length: 50 }, (_, i) => `line ${i} of some notes`).join('\n');
    expect(problemsOf(() => loadStacks(text, 'notes.txt', {}))).toEqual([
      unrecognisedFileMessage('notes.txt', 'got "line 0 of some notes line 1 of some notes line 2 of some...'),
    ]);
  });

  it('names read from a file are listed up to a limit, the rest counted', () => {
    const docs = Array.from({ length: 30 }, (_, i) => `apiVersion: v1\nkind: Kind${i}${'q'.repeat(300)}\nmetadata: { name: n${i} }`).join('\n---\n');
    const [p] = problemsOf(() => loadStacks(docs, 'all.yaml', {}));
    expect(p).toMatch(new RegExp(`^all\\.yaml: holds no resource with retries that check reads \\(got (v1 Kind\\d+q+\\.\\.\\., ){${MAX_LISTED_NAMES}}and ${30 - MAX_LISTED_NAMES} more; known: `));
    expect(p?.length).toBeLessThan(2500);
  });
});
