import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every .ts file under `dir`, as paths relative to the repository. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

const FRAME_TABLE = join('src', 'model', 'layers', 'FrameTable.ts');
const LAYERS_DIR = join('src', 'model', 'layers');

/** The frame columns, as FrameTable.ts declares them (FRAME_COLUMNS). */
function frameColumns(): string[] {
  const src = readFileSync(FRAME_TABLE, 'utf8');
  const decl = /const FRAME_COLUMNS[^=]*=\s*\{([\s\S]*?)\};/.exec(src);
  if (decl === null) throw new Error('FRAME_COLUMNS not found in FrameTable.ts');
  return [...(decl[1] as string).matchAll(/'(f[A-Z]\w*)'/g)].map((m) => m[1] as string);
}

/** Per column: the files of `files` that write an element of it (`x.col[i] = ...`, `+=`, `++`...). */
function writersOf(columns: string[], files: Array<{ path: string; text: string }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const col of columns) {
    const write = new RegExp(`\\b${col}\\[[^\\]]*\\]\\s*(?:=(?!=)|\\+=|-=|\\|=|&=|\\+\\+|--)|(?:\\+\\+|--)\\s*[\\w.]*\\b${col}\\[`);
    out.set(
      col,
      files.filter((f) => write.test(f.text)).map((f) => f.path),
    );
  }
  return out;
}

/** The classes of the layers that extend another class of the layers, or are abstract: a split class rather than parts. */
function splitClasses(files: Array<{ path: string; text: string }>): string[] {
  const declared = new Set(files.flatMap((f) => [...f.text.matchAll(/\bclass (\w+)/g)].map((m) => m[1] as string)));
  const out: string[] = [];
  for (const f of files) {
    for (const m of f.text.matchAll(/\b(abstract )?class (\w+)(?: extends (\w+))?/g)) {
      if (m[1] !== undefined) out.push(`${f.path}: abstract class ${m[2]}`);
      else if (m[3] !== undefined && declared.has(m[3])) out.push(`${f.path}: ${m[2]} extends ${m[3]}`);
    }
  }
  return out;
}

describe('the stack of layers is parts held by reference, and each frame column has one writer', () => {
  const src = tsFiles('src').map((path) => ({ path, text: readFileSync(path, 'utf8') }));

  it('every frame column is written only in FrameTable.ts', () => {
    const columns = frameColumns();
    expect(columns.length).toBeGreaterThan(15);
    const writers = writersOf(columns, src);
    const elsewhere = [...writers].filter(([, files]) => files.length !== 1 || files[0] !== FRAME_TABLE);
    expect(elsewhere).toEqual([]);
  });

  it('no class of src/model/layers is abstract or extends another of them', () => {
    expect(splitClasses(src.filter((f) => f.path.startsWith(LAYERS_DIR + '/')))).toEqual([]);
  });

  it('the checks can fail: a write elsewhere and a split class are named', () => {
    const files = [
      { path: FRAME_TABLE, text: 'this.fChild[f] = NO_CHILD;' },
      { path: 'src/model/layers/Other.ts', text: 'ly.fOutstanding[f] = (ly.fOutstanding[f] as number) + 1;\nthis.fChild[c]++;\nconst x = fr.fLayer[f] === k;' },
    ];
    const w = writersOf(['fChild', 'fOutstanding', 'fLayer'], files);
    expect(w.get('fChild')).toEqual([FRAME_TABLE, 'src/model/layers/Other.ts']);
    expect(w.get('fOutstanding')).toEqual(['src/model/layers/Other.ts']);
    expect(w.get('fLayer')).toEqual([]);
    expect(
      splitClasses([
        { path: 'a.ts', text: 'export abstract class A {}' },
        { path: 'b.ts', text: 'export class B extends A {}\nclass C extends BudgetChain {}' },
      ]),
    ).toEqual(['a.ts: abstract class A', 'b.ts: B extends A']);
  });
});
