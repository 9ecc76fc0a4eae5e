import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir, writeExperiment } from '../helpers/reliability.js';

/**
 * Reports written by the command line. A regression test: user text in an experiment file
 * (description, variant names, layer names, part descriptions, the finding hint) reaches the
 * written report as text, never as markup, and cannot close a script element early. And a
 * report rebuilt from the saved results is the page the run wrote.
 */

const HOSTILE = (n: number) => `</script><img src=x onerror=alert(${n})>`;
const ESCAPED = (n: number) => `&#60;/script&#62;&#60;img src=x onerror=alert(${n})&#62;`;

const hostile = {
  name: 'hostile',
  description: `Described ${HOSTILE(1)}`,
  seed: 3,
  scenario: {
    workload: { kind: 'burst', clients: 5 },
    stack: [{ name: HOSTILE(2), policy: { maxAttempts: 2 } }],
    leaf: { kind: 'server', serviceMs: 1, faults: [{ probability: 0.5 }] },
  },
  variants: { [HOSTILE(3)]: { 'stack.0.policy.maxAttempts': 3 }, plain: {} },
  sweep: { grid: { 'workload.clients': [2, 4] } },
  replications: 2,
  report: { finding: `Finding ${HOSTILE(4)}` },
};

const hostileParts = {
  name: 'hostile-parts',
  description: `Parts ${HOSTILE(5)}`,
  parts: [
    {
      name: 'first',
      description: `Part ${HOSTILE(6)}`,
      scenario: { workload: { kind: 'burst', clients: 2 }, stack: [{ name: 'a' }], leaf: { kind: 'server', serviceMs: 1 } },
    },
    {
      name: 'second',
      description: `Part ${HOSTILE(7)}`,
      scenario: { workload: { kind: 'burst', clients: 3 }, stack: [{ name: 'a' }], leaf: { kind: 'server', serviceMs: 1 } },
    },
  ],
};

/** The page without its inlined vega bundles (their code mentions `<img` in a template). */
function withoutBundles(html: string): string {
  return html.replace(/<script>[\s\S]*?<\/script>/g, '<script></script>');
}

describe('hostile user text in the written report', () => {
  let out = '';
  beforeAll(async () => {
    const dir = tempDir();
    writeExperiment(dir, 'hostile.json', hostile);
    writeExperiment(dir, 'hostile-parts.json', hostileParts);
    out = join(dir, 'out');
    const r = await cli(['run', dir, '--out', out, '--quiet', '--workers', '1']);
    expect(r).toMatchObject({ code: 0, err: '' });
  });

  it('the description, variant names, layer names and finding show as escaped text, and no element is injected', () => {
    const html = readFileSync(join(out, 'hostile', 'index.html'), 'utf8');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toMatch(/onerror=alert\(\d\)>/);
    const page = withoutBundles(html);
    expect(page).not.toContain('<img');
    expect(page).toContain(`<p class="description" id="experiment-description">Described ${ESCAPED(1)}</p>`);
    expect(page).toContain(`<p class="finding" id="finding">Finding ${ESCAPED(4)}</p>`);
    expect(page).toContain(`<td>${ESCAPED(2)}</td>`);
    expect(page).toContain(`</span>${ESCAPED(3)}</th>`);
  });

  it('no script element is closed early: five open, five close', () => {
    const html = readFileSync(join(out, 'hostile', 'index.html'), 'utf8');
    expect(html.match(/<script\b/g)).toHaveLength(5);
    expect(html.match(/<\/script>/g)).toHaveLength(5);
  });

  it('the chart data embedded as JSON reads back with the exact names', () => {
    const html = readFileSync(join(out, 'hostile', 'index.html'), 'utf8');
    const m = /<script type="application\/json" id="retrystorm-charts">([^<]*)<\/script>/.exec(html);
    expect(m).not.toBeNull();
    const text = JSON.stringify(JSON.parse(m?.[1] ?? 'null'));
    expect(text).toContain(JSON.stringify(HOSTILE(3)));
    expect(text).toContain(JSON.stringify(HOSTILE(2)));
  });

  it('part descriptions are escaped too', () => {
    const page = withoutBundles(readFileSync(join(out, 'hostile-parts', 'index.html'), 'utf8'));
    expect(page).not.toContain('<img');
    expect(page).toContain(`<p class="description">Part ${ESCAPED(6)}</p>`);
    expect(page).toContain(`<p class="description">Part ${ESCAPED(7)}</p>`);
    expect(page).toContain(`Parts ${ESCAPED(5)}`);
  });

  it('`report` rebuilds the page from the saved results with the same escaping, and its index of reports escapes the descriptions', async () => {
    const dir = join(out, 'hostile');
    expect((await cli(['report', dir])).code).toBe(0);
    const rebuilt = withoutBundles(readFileSync(join(dir, 'index.html'), 'utf8'));
    expect(rebuilt).not.toContain('<img');
    expect(rebuilt).toContain(`Described ${ESCAPED(1)}`);
    expect(rebuilt).toContain(`</span>${ESCAPED(3)}</th>`);

    expect((await cli(['report', out, '--shared-assets'])).code).toBe(0);
    const index = readFileSync(join(out, 'index.html'), 'utf8');
    expect(index).not.toContain('<img');
    expect(index).not.toContain('<script');
    expect(index).toContain(`Finding ${ESCAPED(4)}`);
    expect(index).toContain(`Parts ${ESCAPED(5)}`);
    const shared = readFileSync(join(dir, 'index.html'), 'utf8');
    expect(shared).not.toContain('<img');
    expect(shared).toContain(`Described ${ESCAPED(1)}`);
  });
});

describe('rebuilding a report from the saved results', () => {
  // summary.json leaves out infinite numbers (src/sweep/json.ts toJson), but the report that `run`
  // writes is built from the summary in memory, where a fault window without toMs is Infinity:
  // the first page lists `leaf.faults.0.toMs: Infinity`, the rebuilt one does not.
  it('`report` rebuilds the page `run` wrote, byte for byte, when the scenario has an open-ended fault window', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', {
      name: 'open-ended',
      scenario: { workload: { kind: 'burst', clients: 3 }, stack: [{ name: 'a' }], leaf: { kind: 'server', serviceMs: 1, faults: [{ probability: 0.5 }] } },
      replications: 2,
    });
    expect((await cli(['run', file, '--out', dir, '--quiet', '--workers', '1'])).code).toBe(0);
    const before = readFileSync(join(dir, 'open-ended', 'index.html'), 'utf8');
    expect((await cli(['report', join(dir, 'open-ended')])).code).toBe(0);
    expect(readFileSync(join(dir, 'open-ended', 'index.html'), 'utf8')).toBe(before);
  });
});

describe('report of a directory of runs', () => {
  it('one corrupt sub-directory is named and left out; the others and the index are still written (exit 2)', async () => {
    const dir = tempDir();
    const runs = join(dir, 'runs');
    for (const name of ['alpha', 'beta', 'gamma']) {
      const file = writeExperiment(dir, `${name}.json`, { name, scenario: { workload: { kind: 'burst', clients: 2 }, stack: [{ name: 'c' }], leaf: { kind: 'server', serviceMs: 1 } } });
      expect((await cli(['run', file, '--out', runs, '--quiet'])).code).toBe(0);
    }
    writeFileSync(join(runs, 'beta', 'summary.json'), '{"cells": [');
    // A replacement in progress beside a run is nobody's report.
    mkdirSync(join(runs, '.gamma.replacing'));
    writeFileSync(join(runs, '.gamma.replacing', 'summary.json'), readFileSync(join(runs, 'gamma', 'summary.json')));
    const r = await cli(['report', runs]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^error: ${join(runs, 'beta', 'summary.json')}: cannot read \\([^\\n]*\\); its report is left out of the index\\n$`));
    expect(r.out).toContain(`report written to ${relative(process.cwd(), join(runs, 'alpha', 'index.html'))}\n`);
    expect(r.out).toContain(`report written to ${relative(process.cwd(), join(runs, 'gamma', 'index.html'))}\n`);
    const index = readFileSync(join(runs, 'index.html'), 'utf8');
    expect(index).toContain('alpha/index.html');
    expect(index).toContain('gamma/index.html');
    expect(index).not.toContain('beta/index.html');
    expect(index).not.toContain('replacing');
  });
});
