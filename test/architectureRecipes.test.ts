import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The recipes of docs/architecture.md stay true: every file a recipe names exists, and every
 * identifier it names is declared or used in one of the files that recipe names. A renamed
 * function or a moved switch makes this fail until the recipe is corrected.
 */
const ROOT = join(__dirname, '..');
const DOC = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');

/** The recipes: each bold "**Add ...**" paragraph of the Recipes section, up to the next one. */
function recipes(): Array<{ title: string; text: string }> {
  const start = DOC.indexOf('\n## Recipes');
  expect(start, 'docs/architecture.md has a "## Recipes" section').toBeGreaterThan(0);
  const rest = DOC.slice(start + 1);
  const end = rest.indexOf('\n## ', 1);
  const section = end < 0 ? rest : rest.slice(0, end);
  const out: Array<{ title: string; text: string }> = [];
  const re = /\*\*(Add [^*]+)\*\*/g;
  const heads = [...section.matchAll(re)];
  heads.forEach((m, i) => {
    const from = m.index as number;
    const to = i + 1 < heads.length ? ((heads[i + 1] as RegExpMatchArray).index as number) : section.length;
    out.push({ title: (m[1] as string).replace(/\.$/, ''), text: section.slice(from, to) });
  });
  return out;
}

/** Backticked tokens of a text. */
function ticks(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
}

const PATH = /^(src|test|experiments|docs|bench)\/[\w./-]+\.(ts|json|md|mjs)$/;
const IDENT = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

describe('docs/architecture.md recipes', () => {
  const all = recipes();

  it('covers the extension points a newcomer meets', () => {
    const titles = all.map((r) => r.title.toLowerCase());
    for (const what of ['leaf kind', 'join kind', 'backoff strategy', 'budget', 'chart', 'configuration format']) {
      expect(
        titles.some((t) => t.includes(what)),
        `a recipe for "${what}" (recipes: ${titles.join('; ')})`,
      ).toBe(true);
    }
  });

  for (const recipe of all) {
    it(`"${recipe.title}" names files that exist and symbols they hold`, () => {
      const tokens = ticks(recipe.text);
      const paths = tokens.filter((t) => PATH.test(t));
      expect(paths.length, 'a recipe names at least one file').toBeGreaterThan(0);
      const missing = paths.filter((p) => !existsSync(join(ROOT, p)));
      expect(missing, 'files named by the recipe that do not exist').toEqual([]);
      const bare = tokens.filter((t) => /^[\w.-]+\.(ts|json|mjs)$/.test(t));
      expect(bare, 'files named without their path (name them from the repository root)').toEqual([]);
      const sources = paths.map((p) => readFileSync(join(ROOT, p), 'utf8'));
      const symbols = tokens.filter((t) => IDENT.test(t) && !PATH.test(t));
      const lost = symbols.filter((s) => {
        const parts = s.split('.');
        return !parts.every((part) => sources.some((src) => new RegExp(`\\b${part.replace(/\$/g, '\\$')}\\b`).test(src)));
      });
      expect(lost, `symbols named by the recipe that none of its files (${paths.join(', ')}) holds`).toEqual([]);
    });
  }
});
