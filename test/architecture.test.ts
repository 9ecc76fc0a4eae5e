import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every .ts file under a directory. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The src/ areas a file imports from (relative imports only), e.g. ['policy', 'engine']. */
function importedAreas(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const areas = new Set<string>();
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/gm)) {
    const target = relative('src', join(file, '..', m[1] as string));
    areas.add(target.includes('/') ? (target.split('/')[0] as string) : target.replace(/\.js$/, ''));
  }
  return [...areas];
}

/** README.md, "Layout": imports point one way; `version` (the package version) is importable by all. */
const ALLOWED: Record<string, string[]> = {
  engine: ['engine'],
  policy: ['policy'],
  metrics: ['metrics'],
  model: ['model', 'policy', 'engine', 'metrics', 'version'],
  experiment: ['experiment', 'model', 'policy', 'engine'],
  sweep: ['sweep', 'experiment', 'model', 'policy', 'engine', 'metrics', 'version'],
  report: ['report', 'model', 'sweep', 'experiment', 'policy', 'engine', 'metrics', 'version'],
  check: ['check', 'experiment', 'model', 'policy', 'engine', 'metrics', 'simulate', 'version'],
  executor: ['executor', 'policy'],
  tune: ['tune', 'sweep', 'report', 'experiment', 'model', 'policy', 'engine', 'metrics', 'version'],
};

describe('architecture (README.md, "Layout")', () => {
  for (const [area, allowed] of Object.entries(ALLOWED)) {
    it(`src/${area} imports only from ${allowed.join(', ')}`, () => {
      for (const f of files(join('src', area))) {
        const bad = importedAreas(f).filter((a) => !allowed.includes(a));
        expect({ file: f, imports: bad }).toEqual({ file: f, imports: [] });
      }
    });
  }

  it('the engine and the policies know nothing of retries or servers, and never read time or Math.random', () => {
    for (const f of [...files('src/engine'), ...files('src/policy')]) {
      const code = readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect({ file: f, random: /Math\.random\(/.test(code), clock: /Date\.now\(|performance\.now\(|new Date\(/.test(code) }).toEqual({
        file: f,
        random: false,
        clock: false,
      });
    }
  });

  it('only src/cli touches the console, and only src/cli and the sweep write files', () => {
    for (const f of files('src')) {
      if (f.startsWith(join('src', 'cli'))) continue;
      const code = readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      // The report's inline page script logs in the browser, not in Node.
      const consoleUse = f.endsWith(join('report', 'renderReport.ts')) ? false : /\bconsole\./.test(code);
      const fsWrite = /\b(writeFileSync|writeSync|renameSync|appendFileSync|mkdirSync|rmSync)\b/.test(code);
      expect({ file: f, console: consoleUse }).toEqual({ file: f, console: false });
      if (!f.startsWith(join('src', 'sweep'))) expect({ file: f, writesFiles: fsWrite }).toEqual({ file: f, writesFiles: false });
    }
  });
});
