import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { OutcomeCode } from '../src/policy/outcome.js';
import type { BackendsOwner } from '../src/model/leaves/server/Backends.js';
import type { ServerFarm } from '../src/model/leaves/server/ServerFarm.js';
import type { HandlersOwner, ServiceHandlers } from '../src/model/graph/ServiceHandlers.js';

/**
 * The server farm and a graph service's runtime are built by composition (docs/architecture.md,
 * "The leaf contract" and "Service graphs"): each part with a name of its own is a collaborator held
 * by reference, telling its owner what happened through a narrow interface, so a flow reads
 * top-down in one or two files; no base class calls down into a subclass.
 */
const FARM_DIR = join('src', 'model', 'leaves', 'server');
const COMPOSED = [
  ...readdirSync(FARM_DIR).map((f) => join(FARM_DIR, f)),
  ...['ServiceRuntime.ts', 'ServiceHandlers.ts', 'FleetSlots.ts', 'GraphRun.ts'].map((f) => join('src', 'model', 'graph', f)),
];

/** The longest a function of these files may be (lines, its signature and closing brace included). */
const MAX_FUNCTION_LINES = 80;

/** A file's code without its comments. */
function code(file: string): string {
  return readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
}

/** The functions (declarations, methods, constructors, accessors, arrows) of a source text longer than `max` lines, as `name (n lines)`. */
function longFunctions(fileName: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = node.name !== undefined && ts.isIdentifier(node.name) ? node.name.text : ts.isConstructorDeclaration(node) ? 'constructor' : '(anonymous)';
      if (last - first + 1 > max) out.push(`${fileName}: ${name} (${last - first + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe('the farm and the service runtime are composed, not split into subclasses', () => {
  it('declares no abstract class and no subclass', () => {
    const found = COMPOSED.flatMap((f) => [...code(f).matchAll(/\babstract\b|\bclass\s+\w+\s+extends\b/g)].map((m) => `${f}: ${m[0]}`));
    expect(found).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(COMPOSED.flatMap((f) => longFunctions(f, readFileSync(f, 'utf8'), MAX_FUNCTION_LINES))).toEqual([]);
  });

  it('finds a function over the limit (the check is not vacuous)', () => {
    const body = Array.from({ length: MAX_FUNCTION_LINES }, (_, i) => `  const x${i} = ${i};`).join('\n');
    expect(longFunctions('f.ts', `class A {\n  m(): void {\n${body}\n  }\n}\n`, MAX_FUNCTION_LINES)).toEqual(['f.ts: m (82 lines)']);
    expect(longFunctions('f.ts', `const g = () => {\n${body.split('\n').slice(2).join('\n')}\n};\n`, MAX_FUNCTION_LINES)).toEqual([]);
  });

  it('reads typed-array entries without asserting them to be numbers', () => {
    const found = COMPOSED.flatMap((f) => [...code(f).matchAll(/\w\[[^\]\n]+\] as number(?![\w[])/g)].map((m) => `${f}: ${m[0]}`));
    expect(found).toEqual([]);
  });

  it('types outcomes as outcome codes where the farm and the handlers pass them on', () => {
    expectTypeOf<Parameters<BackendsOwner['answer']>[1]>().toEqualTypeOf<OutcomeCode>();
    expectTypeOf<Parameters<ServerFarm['handlerAnswered']>[1]>().toEqualTypeOf<OutcomeCode>();
    expectTypeOf<Parameters<HandlersOwner['answerCaller']>[2]>().toEqualTypeOf<OutcomeCode>();
    expectTypeOf<Parameters<ServiceHandlers['stepAnswered']>[2]>().toEqualTypeOf<OutcomeCode>();
  });
});
