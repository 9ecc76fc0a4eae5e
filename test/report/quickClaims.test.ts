import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateAllClaims, QUICK_UNDECIDED } from '../../src/report/claims.js';
import { buildReportModel } from '../../src/report/reportModel.js';
import { renderIndexHtml } from '../../src/report/renderReport.js';
import type { ReportCell } from '../../src/report/types.js';
import { metricStats } from '../../src/sweep/aggregate.js';
import { runInfo, scenario, summary } from './helpers.js';

function cellOf(variant: string, values: number[]): ReportCell {
  return {
    key: JSON.stringify({ params: {}, part: 'main', variant }),
    part: 'main',
    variant,
    params: {},
    state: 'ok',
    replications: values.length,
    errors: [],
    metrics: { leafCalls: metricStats(values) },
    scenario: scenario({ workload: { kind: 'burst', clients: 10 } }),
    timeSeries: { typical: null, mean: null },
    samples: { replications: values.map((_, i) => i), values: { leafCalls: values } },
  };
}

describe('a claim a quick run cannot show says the quick size is why', () => {
  const source = {
    variants: { a: {}, b: {}, c: {} },
    report: {
      claims: [
        { text: 'a below b', metric: 'leafCalls', variants: ['a', 'b'], relation: 'less' },
        { text: 'a below c', metric: 'leafCalls', variants: ['a', 'c'], relation: 'less' },
      ],
    },
  };
  // a - b is -2 in every run; a - c is -5 then +3: within noise.
  const cells = [cellOf('a', [10, 20]), cellOf('b', [12, 22]), cellOf('c', [15, 17])];

  it('quick: not decided at quick size, with the number of runs', () => {
    const results = evaluateAllClaims(buildReportModel(summary(cells), { ...runInfo(source), quick: true }));
    expect(results.map((r) => [r.status, r.shown])).toEqual([
      ['supported', 'supported'],
      ['not shown', 'not decided at quick size (2 runs)'],
    ]);
  });

  it('full: not shown', () => {
    const results = evaluateAllClaims(buildReportModel(summary(cells), { ...runInfo(source), quick: false }));
    expect(results.map((r) => r.shown)).toEqual(['supported', 'not shown']);
  });

  it('the index lists each claim with its status', () => {
    const claims = evaluateAllClaims(buildReportModel(summary(cells), { ...runInfo(source), quick: true }));
    const html = renderIndexHtml([{ name: 'x', description: '', finding: 'F.', href: 'x/index.html', date: null, claims }], '0.1.0');
    expect(html).toContain('<li><span class="claim-ok">supported</span>: a below b</li>');
    expect(html).toContain('<li><span class="claim-unknown">not decided at quick size (2 runs)</span>: a below c</li>');
  });
});

/** Every claim an experiment file makes (the file's and each part's), by text. */
function fileClaims(root: Record<string, any>): string[] {
  const texts: string[] = [];
  for (const c of root.report?.claims ?? []) texts.push(c.text);
  for (const p of root.parts ?? []) for (const c of p.report?.claims ?? []) texts.push(c.text);
  return texts;
}

describe('the committed quick reports: every claim holds or is not decided at quick size, none contradicted', () => {
  const shipped = readdirSync('experiments')
    .filter((f) => f.endsWith('.json') && f !== 'schema.json')
    .map((f) => JSON.parse(readFileSync(join('experiments', f), 'utf8')) as Record<string, any>)
    .filter((root) => root.tune === undefined);
  it('covers every shipped experiment that makes claims', () => {
    expect(shipped.filter((r) => fileClaims(r).length > 0).length).toBeGreaterThanOrEqual(12);
  });
  for (const root of shipped) {
    const claims = fileClaims(root);
    if (claims.length === 0) continue;
    it(root.name, () => {
      const path = join('reports', root.name, 'report.json');
      expect(existsSync(path), `${path} (written by npm start)`).toBe(true);
      const meta = JSON.parse(readFileSync(path, 'utf8')) as { claims?: Array<{ text: string; status: string; shown: string; reason: string }> };
      expect(meta.claims, `${path} has no claims: regenerate the quick reports with npm start`).toBeDefined();
      const got = meta.claims ?? [];
      for (const text of claims) expect(got.map((c) => c.text), `${root.name}: claim missing from the quick report`).toContain(text);
      for (const c of got) {
        expect(c.status, `${root.name}: "${c.text}" is contradicted in the quick run (${c.reason})`).not.toBe('contradicted');
        if (c.status !== 'supported') expect(c.shown).toMatch(new RegExp(`^${QUICK_UNDECIDED} \\(\\d+ runs?\\)$`));
      }
    });
  }
});
