import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A new member of a kind union must be handled where the kind is dispatched on: the compiler says
 * where. This copies src to a temporary directory, adds a member to the backoff-kind union, one
 * to the leaf-kind union, one to the join union and one to the distribution union, type-checks the copy, and expects errors in the files that must handle
 * each new kind (tables keyed by kind, switches ending in a `never` check).
 */

const PROBE = 'exhaustiveness-probe';

/** Every .ts file under a directory. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Replace `from` (which must occur) by `to` in a file of the copy. */
function edit(root: string, file: string, from: string, to: string): void {
  const p = join(root, file);
  const text = readFileSync(p, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} no longer contains ${JSON.stringify(from)}: update this test`);
  writeFileSync(p, text.replace(from, to));
}

/** The files of the copy (relative to its root) with type errors, and each error's text. */
function typeErrors(root: string): Map<string, string[]> {
  const repo = resolve('.');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    esModuleInterop: true,
    skipLibCheck: true,
    resolveJsonModule: true,
    noEmit: true,
    types: ['node'],
    typeRoots: [join(repo, 'node_modules', '@types')],
  };
  const program = ts.createProgram(files(join(root, 'src')), options);
  const out = new Map<string, string[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file ? relative(root, d.file.fileName) : '(global)';
    out.set(file, [...(out.get(file) ?? []), ts.flattenDiagnosticMessageText(d.messageText, '\n')]);
  }
  return out;
}

describe('a new kind is reported by the compiler where it must be handled', () => {
  let root = '';
  let errors = new Map<string, string[]>();

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'retrystorm-kinds-'));
    cpSync('src', join(root, 'src'), { recursive: true });
    writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
    symlinkSync(resolve('node_modules'), join(root, 'node_modules'), 'dir');
    edit(root, 'src/policy/types.ts', 'export type BackoffKind =\n', `export type BackoffKind =\n  | '${PROBE}'\n`);
    edit(root, 'src/model/scenario.ts', 'export type Leaf = ServerLeaf | ', `export type Leaf = { kind: '${PROBE}' } | ServerLeaf | `);
    edit(root, 'src/model/graph/ServiceGraph.ts', 'export type Join =\n', `export type Join =\n  | { kind: '${PROBE}' }\n`);
    edit(root, 'src/engine/distributions.ts', 'export type DistSpec =\n', `export type DistSpec =\n  | { dist: '${PROBE}' }\n`);
    errors = typeErrors(root);
  }, 600_000);

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('a new leaf kind: the leaf factory (makeLeaf) fails to compile', () => {
    expect(errors.get('src/model/leaves/makeLeaf.ts')?.join('\n')).toMatch(/never/);
  });

  it('a new leaf kind: the output estimate must say whether it has servers (SERVERLESS_LEAF)', () => {
    expect(errors.get('src/sweep/estimateOutput.ts')?.join('\n')).toMatch(new RegExp(PROBE));
  });

  it('a new join kind: its code (joinCode) fails to compile', () => {
    expect(errors.get('src/model/graph/handlerSteps.ts')?.join('\n')).toMatch(/never/);
  });

  it('a new backoff kind: the backoff tables keyed by kind fail to compile', () => {
    expect(errors.get('src/policy/backoff.ts')?.join('\n')).toMatch(new RegExp(PROBE));
  });

  it('a new distribution kind: its text (DIST_TEXT, whose keys are DIST_KINDS), rules, mean and continuity fail to compile', () => {
    expect(errors.get('src/engine/distributionRules.ts')?.join('\n')).toMatch(new RegExp(PROBE));
    expect(errors.get('src/engine/distributionRules.ts')?.join('\n')).toMatch(/lacks ending return/);
  });

  it('a new distribution kind: its sampler (makeSampler) and its schema (the choice of distSchema) fail to compile', () => {
    expect(errors.get('src/engine/distributions.ts')?.join('\n')).toMatch(/lacks ending return/);
    expect(errors.get('src/experiment/distSchema.ts')?.join('\n')).toMatch(/never/);
  });

  it('no error anywhere else than where a kind is handled (the copy compiles but for the new kinds)', () => {
    const all = [...errors.values()].flat().join('\n');
    expect(all).toMatch(new RegExp(PROBE));
    for (const [file, msgs] of errors) {
      for (const m of msgs) expect({ file, message: m }).toEqual({ file, message: expect.stringMatching(new RegExp(`${PROBE}|never|lacks ending return|implicitly has an 'any' type`)) });
    }
  });
});
