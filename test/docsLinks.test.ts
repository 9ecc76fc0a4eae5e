import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The documentation's links hold: every relative link and image in README.md and docs/*.md leads to
 * a file or directory of the repository, and every `#anchor` to a heading of the page it names
 * (GitHub's rule: the heading's text, lower-cased, punctuation dropped, each space a '-', a repeated
 * heading suffixed -1, -2...). And the source cites the pages: a doc comment that names a section
 * (`docs/experiments.md, "Service graphs"`) names a page that has it.
 */
const ROOT = join(__dirname, '..');

/** README.md and every page under docs/, by path from the repository root. */
function documents(): Map<string, string> {
  const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  return new Map(pages.map((p) => [p, readFileSync(join(ROOT, p), 'utf8')]));
}

/** The text of a page without its fenced code blocks (whose brackets are not links). */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** GitHub's anchor of a heading's text. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings, repeated ones suffixed as GitHub does. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const base = slug(m[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/**
 * The broken links of `pages` (path from the root -> text), each as `page: target (why)`. `exists`
 * says whether a path from the root is a file or directory of the repository.
 */
function brokenLinks(pages: Map<string, string>, exists: (path: string) => boolean, read: (path: string) => string): string[] {
  const out: string[] = [];
  for (const [page, text] of pages) {
    const body = prose(text).replace(/`[^`\n]*`/g, '');
    for (const m of body.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1] as string;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const hash = target.indexOf('#');
      const file = hash < 0 ? target : target.slice(0, hash);
      const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
      const path = file === '' ? page : posix.normalize(posix.join(posix.dirname(page), decodeURIComponent(file)));
      if (path.startsWith('../') || !(pages.has(path) || exists(path))) {
        out.push(`${page}: ${target} (no file ${path})`);
        continue;
      }
      if (anchor !== null) {
        if (!path.endsWith('.md')) out.push(`${page}: ${target} (an anchor into ${path}, which is not a page)`);
        else if (!anchors(pages.get(path) ?? read(path)).has(anchor)) out.push(`${page}: ${target} (no heading #${anchor} in ${path})`);
      }
    }
  }
  return out;
}

/** The files under `dir` (from the root) whose name ends with `.ts`. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${dir}/${f}`);
}

/** A comment's text with its line breaks and leading `*` or `//` joined into one line. */
function joined(text: string): string {
  return text.replace(/\n[ \t]*(?:\*(?!\/)|\/\/)?[ \t]*/g, ' ');
}

/** Does `page` hold `name` as a heading, a bold term or a list item's first words? */
function holds(page: string, name: string): boolean {
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^(#{1,6} ${esc}\\b|\\s*(- )?\\*\\*${esc}\\b|\\s*- ${esc}\\b)`, 'm').test(page);
}

const exists = (p: string): boolean => existsSync(join(ROOT, p)) && (statSync(join(ROOT, p)).isFile() || statSync(join(ROOT, p)).isDirectory());
const read = (p: string): string => readFileSync(join(ROOT, p), 'utf8');

describe('documentation links', () => {
  it('every relative link and #anchor of README.md and docs/*.md resolves to a file and a heading', () => {
    const docs = documents();
    expect(docs.size).toBeGreaterThan(5);
    expect(brokenLinks(docs, exists, read)).toEqual([]);
  });

  it('every file README.md links to is in the npm package (package.json "files"), so the installed README\'s links hold', () => {
    const files = (JSON.parse(read('package.json')) as { files: string[] }).files;
    const targets = [...prose(read('README.md')).matchAll(/\]\(([^)#\s]+)[^)]*\)/g)].map((m) => m[1] as string).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
    expect(targets.length).toBeGreaterThan(5);
    expect(targets.filter((t) => !files.some((f) => t === f || t.startsWith(`${f}/`)))).toEqual([]);
  });

  it('reports a link to a missing file, a missing heading and a page outside the repository (a probe)', () => {
    const probe = new Map([
      [
        'docs/probe.md',
        [
          '# Probe page',
          '## Twice',
          '## Twice',
          'Fine: [a](concepts.md#the-model), [b](#probe-page), [c](#twice-1), [d](img/fleet-cascade.png), [e](https://example.com/x#y).',
          'Broken: [f](nowhere.md), [g](concepts.md#no-such-heading), [h](#twice-2), ![i](img/missing.png), [j](../../etc/passwd).',
          '```',
          '[k](in-a-code-block.md) `[l](in-code.md)`',
          '```',
        ].join('\n'),
      ],
    ]);
    expect(brokenLinks(probe, exists, read)).toEqual([
      'docs/probe.md: nowhere.md (no file docs/nowhere.md)',
      'docs/probe.md: concepts.md#no-such-heading (no heading #no-such-heading in docs/concepts.md)',
      'docs/probe.md: #twice-2 (no heading #twice-2 in docs/probe.md)',
      'docs/probe.md: img/missing.png (no file docs/img/missing.png)',
      'docs/probe.md: ../../etc/passwd (no file ../etc/passwd)',
    ]);
  });

  it('makes anchors as GitHub does', () => {
    expect(slug('`retrystorm export`: a policy back in your format')).toBe('retrystorm-export-a-policy-back-in-your-format');
    expect(slug('`--simulate`: the standard storm')).toBe('--simulate-the-standard-storm');
    expect(slug('Status (0.1.0)')).toBe('status-010');
    expect(slug('AWS SDK shared config (`~/.aws/config`)')).toBe('aws-sdk-shared-config-awsconfig');
  });

  it('every section a source or test comment cites is on the page it names, and none cites the README for one', () => {
    const bad: string[] = [];
    let cited = 0;
    for (const f of [...sources('src'), ...sources('test')]) {
      const text = joined(read(f));
      for (const m of text.matchAll(/README(?:\.md)?(?:'s)?[ ,(]*"/g)) bad.push(`${f}: cites a section of the README (${text.slice(m.index, m.index + 50)})`);
      for (const m of text.matchAll(/\b(docs\/[\w-]+\.md),? \(?((?:"[^"]+"(?:, )?)+)/g)) {
        const page = m[1] as string;
        if (!exists(page)) {
          bad.push(`${f}: ${page} does not exist`);
          continue;
        }
        for (const n of (m[2] as string).matchAll(/"([^"]+)"/g)) {
          cited++;
          if (!holds(read(page), n[1] as string)) bad.push(`${f}: ${page} has no section "${n[1]}"`);
        }
      }
    }
    expect(cited).toBeGreaterThan(50);
    expect(bad).toEqual([]);
  });
});
