import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The outcome names are declared once (OUTCOME_NAMES in src/policy/outcome.ts), the retryable
 * classes once (RETRY_ON_CLASSES in src/policy/classify.ts), the answers once (FAULT_STATUSES):
 * the types and tables derive from them or must cover them. Each case edits those files in memory
 * and asks the compiler, on the executor's and the policies' classification modules, what follows.
 */

const ROOTS = ['src/executor/classify.ts', 'src/policy/classify.ts'];
const PROBE_FILE = 'test/policy/outcome-names-probe.ts';
const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: true,
  noEmit: true,
  types: [],
};

/** An edit of a file: `from` (which must occur) replaced by `to`. */
interface Edit {
  file: string;
  from: string;
  to: string;
}

/** Parsed files that no case edits (the lib's declarations, the untouched modules), shared by the cases. */
const parsed = new Map<string, ts.SourceFile>();

/** The type errors of the roots (and of `probe`, a module beside the tests) after `edits`, as `file: message`. */
function typeErrors(edits: readonly Edit[], probe = ''): string[] {
  const repo = resolve('.');
  const texts = new Map<string, string>();
  for (const e of edits) {
    const p = join(repo, e.file);
    const text = texts.get(p) ?? readFileSync(p, 'utf8');
    if (!text.includes(e.from)) throw new Error(`${e.file} no longer contains ${JSON.stringify(e.from)}: update this test`);
    texts.set(p, text.replace(e.from, e.to));
  }
  texts.set(join(repo, PROBE_FILE), probe);
  const host = ts.createCompilerHost(OPTIONS);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (f, language) => {
    const text = texts.get(f);
    if (text !== undefined) return ts.createSourceFile(f, text, language);
    let sf = parsed.get(f);
    if (sf === undefined) {
      sf = getSourceFile(f, language);
      if (sf !== undefined) parsed.set(f, sf);
    }
    return sf;
  };
  host.fileExists = ((exists) => (f: string) => texts.has(f) || exists(f))(host.fileExists.bind(host));
  const program = ts.createProgram({ rootNames: [...ROOTS, PROBE_FILE].map((f) => join(repo, f)), options: OPTIONS, host });
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? relative(repo, d.file.fileName) : '(global)'}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
}

/** A new outcome code and name, `teapot`. */
const NEW_OUTCOME: Edit[] = [
  { file: 'src/policy/outcome.ts', from: '  UNKNOWN: 24,\n', to: '  UNKNOWN: 24,\n  TEAPOT: 25,\n' },
  { file: 'src/policy/outcome.ts', from: "  'unknown',\n] as const satisfies { readonly [C in OutcomeCode]", to: "  'unknown',\n  'teapot',\n] as const satisfies { readonly [C in OutcomeCode]" },
];

describe('outcome names are declared once (src/policy/outcome.ts) and the rest derives from them', () => {
  it('the files compile as they are, and the executor takes every outcome name', () => {
    const probe = [
      "import type { OutcomeName } from '../../src/executor/classify.js';",
      "import { OUTCOME_NAMES } from '../../src/policy/outcome.js';",
      'export const all: readonly OutcomeName[] = OUTCOME_NAMES;',
    ].join('\n');
    expect(typeErrors([], probe)).toEqual([]);
  });

  it('a new outcome name reaches the executor, and the compiler asks whether it is retryable', () => {
    const errors = typeErrors(NEW_OUTCOME, "import type { OutcomeName } from '../../src/executor/classify.js';\nexport const n: OutcomeName = 'teapot';\n");
    expect(errors.filter((e) => e.startsWith(PROBE_FILE))).toEqual([]);
    expect(errors).toEqual([expect.stringMatching(/^src\/policy\/classify\.ts: .*'"teapot"'/)]);
  });

  it('placed among the never-retried outcomes, it compiles; among the retryable classes, their tables must describe it', () => {
    const never = { file: 'src/policy/classify.ts', from: "['200', 'overloaded']", to: "['200', 'overloaded', 'teapot']" };
    expect(typeErrors([...NEW_OUTCOME, never])).toEqual([]);
    const retryable = { file: 'src/policy/classify.ts', from: "  'bulkhead-full',\n  ...WIDER_CLASSES,", to: "  'bulkhead-full',\n  'teapot',\n  ...WIDER_CLASSES," };
    const errors = typeErrors([...NEW_OUTCOME, retryable]);
    // RetryOnBit and RETRY_ON_CLASS_INFO, the two tables keyed by every retryable class.
    expect(errors).toHaveLength(2);
    for (const e of errors) expect(e).toMatch(/^src\/policy\/classify\.ts: .*teapot/);
  });

  it('an outcome code without a name does not compile', () => {
    const errors = typeErrors([{ file: 'src/policy/outcome.ts', from: '  UNKNOWN: 24,\n', to: '  UNKNOWN: 24,\n  TEAPOT: 25,\n' }]);
    expect(errors).toEqual([expect.stringMatching(/^src\/policy\/outcome\.ts: .*25/)]);
  });

  it('an answer given an outcome but not listed among the answers does not compile', () => {
    const errors = typeErrors([{ file: 'src/policy/outcome.ts', from: '  200: Outcome.SUCCESS,\n', to: '  200: Outcome.SUCCESS,\n  418: Outcome.S400,\n' }]);
    expect(errors).toEqual([expect.stringMatching(/^src\/policy\/outcome\.ts: .*418/)]);
  });

  it('an answer listed without its outcome does not compile', () => {
    const errors = typeErrors([{ file: 'src/policy/outcome.ts', from: 'export const FAULT_STATUSES = [\n', to: 'export const FAULT_STATUSES = [\n  418,\n' }]);
    expect(errors).toEqual([expect.stringMatching(/^src\/policy\/outcome\.ts: .*418/)]);
  });
});
