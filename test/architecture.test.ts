import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Every .ts file under a directory. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** A file's code without its comments (what the rules below look at). */
function code(file: string): string {
  return readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
}

/** Every module a file imports or re-exports: static (`from '...'`, `import '...'`) and dynamic (`import('...')`). */
function importedModules(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\bfrom\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/gm)) {
    found.push((m[1] ?? m[2] ?? m[3]) as string);
  }
  return found;
}

/** The src/ areas a file imports from (relative imports only), e.g. ['policy', 'engine']. */
function importedAreas(file: string): string[] {
  const areas = new Set<string>();
  for (const target of importedModules(readFileSync(file, 'utf8')).filter((m) => m.startsWith('.'))) {
    const path = relative('src', join(file, '..', target));
    areas.add(path.includes('/') ? (path.split('/')[0] as string) : path.replace(/\.js$/, ''));
  }
  return [...areas];
}

/**
 * The modules on the path of an event, where a namespace import bound to constants of the module
 * pays (docs/performance.md, "Imported bindings", lists the same).
 */
const HOT_MODULES = [join('src', 'engine'), join('src', 'model'), join('src', 'policy', 'retryLoop.ts'), join('src', 'policy', 'retrySteps.ts'), join('src', 'policy', 'budgets')];

/**
 * Files that break the imported-bindings convention: a namespace import of a project module
 * outside {@link HOT_MODULES}; or one in them that is not bound once (`const { ... } = xModule;`),
 * read through the namespace, or without the comment that points to the measurement.
 */
function bindingIdiomIssues(list: readonly string[], read: (f: string) => string = (f) => readFileSync(f, 'utf8')): string[] {
  const out: string[] = [];
  for (const f of list) {
    const text = read(f);
    const aliases = [...text.matchAll(/^import \* as (\w+) from '\.\.?\/[^']+';$/gm)].map((m) => m[1] as string);
    if (aliases.length === 0) continue;
    if (!HOT_MODULES.some((h) => f === h || f.startsWith(h + '/'))) {
      out.push(`${f}: namespace import ${aliases.join(', ')} outside the hot modules (import the names instead)`);
      continue;
    }
    for (const a of aliases) {
      const bound = text.match(new RegExp(`^const \\{[^}]+\\} = ${a};$`, 'gm'))?.length ?? 0;
      const read = text.match(new RegExp(`\\b${a}\\.`, 'g'))?.length ?? 0;
      if (bound !== 1 || read > 0) out.push(`${f}: ${a} must be bound once as \`const { ... } = ${a};\` and never read as ${a}.X`);
    }
    if (!text.includes('// Bound in this module: TurboFan folds')) out.push(`${f}: the binding lacks its comment pointing to docs/performance.md`);
  }
  return out;
}

/**
 * docs/architecture.md, "Layout": imports point one way; `version` (the package version) is importable by all.
 * The engine and the policies import nothing else from src.
 */
const ALLOWED: Record<string, string[]> = {
  engine: ['engine'],
  policy: ['policy'],
  metrics: ['metrics'],
  model: ['model', 'policy', 'engine', 'metrics', 'version'],
  experiment: ['experiment', 'model', 'policy', 'engine', 'risk'],
  sweep: ['sweep', 'experiment', 'model', 'policy', 'engine', 'metrics', 'version', 'riskModel'],
  report: ['report', 'model', 'sweep', 'experiment', 'policy', 'engine', 'metrics', 'version'],
  check: ['check', 'experiment', 'model', 'policy', 'engine', 'metrics', 'simulate', 'version'],
  executor: ['executor', 'policy'],
  telemetry: ['telemetry', 'experiment', 'model', 'policy'],
  tune: ['tune', 'sweep', 'report', 'experiment', 'model', 'policy', 'engine', 'metrics', 'version'],
  risk: ['risk', 'engine', 'metrics'],
  riskModel: ['riskModel', 'risk', 'model', 'experiment', 'engine', 'metrics'],
};

/** Besides src/cli, the only modules that read or write files: the sweep's result files. */
const FILE_MODULES = [join('src', 'sweep', 'ResultReader.ts'), join('src', 'sweep', 'ResultWriter.ts')];
/** Besides src/cli, the only module that touches `process`: the worker thread's entry. */
const PROCESS_MODULES = [join('src', 'sweep', 'worker.ts')];

const inCli = (f: string) => f.startsWith(join('src', 'cli') + '/');

/**
 * The longest a source file may be (docs/architecture.md: each concern in a file named for it, so
 * that a newcomer finds it by its name and can read it whole).
 */
const MAX_LINES = 500;

/** The source files longer than `max` lines, with their lengths. */
function longFiles(dir: string, max: number): string[] {
  return files(dir)
    .map((f) => ({ f, n: readFileSync(f, 'utf8').split('\n').length - 1 }))
    .filter((x) => x.n > max)
    .map((x) => `${x.f}: ${x.n} lines`);
}

/**
 * The longest a function may be, in lines from its first to its last (docs/architecture.md: a
 * function reads top-down as named steps).
 */
const MAX_FUNCTION_LINES = 80;

/** The functions still longer than {@link MAX_FUNCTION_LINES}, as `file name`, while they are being split. Only ever shrinks. */
const LONG_FUNCTIONS_BEING_SPLIT: string[] = [];

/** The functions, methods, constructors and arrow functions of a source text longer than `max` lines, as `file name: N lines`. */
function longFunctionsIn(file: string, text: string, max: number): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isConstructorDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n)) {
      const lines = sf.getLineAndCharacterOfPosition(n.getEnd()).line - sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
      const name = ts.isConstructorDeclaration(n) ? 'constructor' : (n.name?.getText(sf) ?? '(anonymous)');
      if (lines > max) out.push(`${file} ${name}: ${lines} lines`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** The functions of the files under `dir` longer than `max` lines. */
function longFunctions(dir: string, max: number): string[] {
  return files(dir).flatMap((f) => longFunctionsIn(f, readFileSync(f, 'utf8'), max));
}

describe('architecture (docs/architecture.md, "Layout")', () => {
  for (const [area, allowed] of Object.entries(ALLOWED)) {
    it(`src/${area} imports only from ${allowed.join(', ')}`, () => {
      for (const f of files(join('src', area))) {
        const bad = importedAreas(f).filter((a) => !allowed.includes(a));
        expect({ file: f, imports: bad }).toEqual({ file: f, imports: [] });
      }
    });
  }

  it('the decision code of src/policy imports no package; only its one validator (src/policy/schema) uses zod', () => {
    for (const f of files('src/policy')) {
      const packages = importedModules(code(f)).filter((m) => !m.startsWith('.'));
      const allowed = f.startsWith(join('src', 'policy', 'schema') + '/') ? ['zod'] : [];
      expect({ file: f, packages: packages.filter((m) => !allowed.includes(m)) }).toEqual({ file: f, packages: [] });
    }
  });

  it('the engine and the policies know nothing of retries or servers, and never read time or Math.random', () => {
    for (const f of [...files('src/engine'), ...files('src/policy')]) {
      const c = code(f);
      expect({ file: f, random: /Math\.random\(/.test(c), clock: /Date\.now\(|performance\.now\(|new Date\(/.test(c) }).toEqual({
        file: f,
        random: false,
        clock: false,
      });
    }
  });

  it('the rare-event estimators (src/risk) take only the random streams from src/engine, and never read time or Math.random', () => {
    for (const f of files('src/risk')) {
      const c = code(f);
      const engine = importedModules(c).filter((m) => m.startsWith('../engine/') && m !== '../engine/random.js');
      expect({ file: f, engine, random: /Math\.random\(/.test(c), clock: /Date\.now\(|performance\.now\(|new Date\(/.test(c) }).toEqual({
        file: f,
        engine: [],
        random: false,
        clock: false,
      });
    }
  });

  it(`only src/cli and ${FILE_MODULES.join(' and ')} read or write files`, () => {
    for (const f of files('src')) {
      if (inCli(f) || FILE_MODULES.includes(f)) continue;
      const fs = importedModules(code(f)).filter((m) => /^(node:)?fs(\/promises)?$/.test(m));
      expect({ file: f, fs }).toEqual({ file: f, fs: [] });
    }
  });

  it(`only src/cli and ${PROCESS_MODULES.join(', ')} touch process`, () => {
    for (const f of files('src')) {
      if (inCli(f) || PROCESS_MODULES.includes(f)) continue;
      const c = code(f);
      const usesProcess = /\bprocess\s*[.[]|\bglobalThis\.process\b/.test(c) || importedModules(c).some((m) => /^(node:)?process$/.test(m));
      expect({ file: f, process: usesProcess }).toEqual({ file: f, process: false });
    }
  });

  it('only src/cli touches the console', () => {
    for (const f of files('src')) {
      if (inCli(f)) continue;
      // The report's inline page script logs in the browser, not in Node.
      const consoleUse = f.endsWith(join('report', 'renderReport.ts')) ? false : /\bconsole\./.test(code(f));
      expect({ file: f, console: consoleUse }).toEqual({ file: f, console: false });
    }
  });

  it(`no file in src is longer than ${MAX_LINES} lines`, () => {
    expect(longFiles('src', MAX_LINES)).toEqual([]);
  });

  it('the line count can fail: a limit below the longest file names it', () => {
    const longest = Math.max(...files('src').map((f) => readFileSync(f, 'utf8').split('\n').length - 1));
    expect(longFiles('src', longest - 1).length).toBeGreaterThan(0);
  });

  it(`no function in src is longer than ${MAX_FUNCTION_LINES} lines (but those being split)`, () => {
    const long = longFunctions('src', MAX_FUNCTION_LINES);
    expect(long.filter((f) => !LONG_FUNCTIONS_BEING_SPLIT.includes(f.replace(/: \d+ lines$/, '')))).toEqual([]);
    // A function split since is taken off the list, so that it cannot grow back unseen.
    expect(LONG_FUNCTIONS_BEING_SPLIT.filter((f) => !long.some((l) => l.startsWith(`${f}: `)))).toEqual([]);
  });

  it('the function length can fail: a function over the limit is named, one at the limit is not', () => {
    const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const x${i} = ${i};`).join('\n');
    const text = `export function giant(): void {\n${body(MAX_FUNCTION_LINES + 1)}\n}\nclass A {\n  ok(): void {\n${body(MAX_FUNCTION_LINES)}\n  }\n}\n`;
    expect(longFunctionsIn('probe.ts', text, MAX_FUNCTION_LINES)).toEqual([`probe.ts giant: ${MAX_FUNCTION_LINES + 1} lines`]);
  });

  it('binds imported constants through a namespace import only in the hot modules, and there always the same way (docs/performance.md, "Imported bindings")', () => {
    expect(bindingIdiomIssues(files('src'))).toEqual([]);
  });

  it('the binding rule can fail: a namespace import outside the hot modules, or used without its binding, is named', () => {
    const probe = join('src', 'report', 'probe.ts');
    const texts: Record<string, string> = {
      [probe]: "import * as fooModule from './foo.js';\nconst { X } = fooModule;\n",
      [join('src', 'model', 'probe.ts')]: "import * as fooModule from './foo.js';\nexport const y = fooModule.X;\n",
    };
    const issues = bindingIdiomIssues(Object.keys(texts), (f) => texts[f] as string);
    expect(issues).toEqual([
      'src/report/probe.ts: namespace import fooModule outside the hot modules (import the names instead)',
      'src/model/probe.ts: fooModule must be bound once as `const { ... } = fooModule;` and never read as fooModule.X',
      'src/model/probe.ts: the binding lacks its comment pointing to docs/performance.md',
    ]);
  });

  it('every document a source file cites by path is in the repository', () => {
    const missing: string[] = [];
    for (const f of files('src')) {
      // This repository's documents: an upper-case `NAME.md` at the root or `docs/name.md`, not another
      // repository's (`owner/repo:path.md`, `A6-client-retries.md`).
      for (const m of readFileSync(f, 'utf8').matchAll(/(?<![\w:/.-])((?:docs\/[\w-]+|[A-Z][A-Z_]*)\.md)\b/g)) {
        if (!existsSync(m[1] as string)) missing.push(`${f}: ${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
