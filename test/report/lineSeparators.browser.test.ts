import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';
// Chromium as in browser.test.ts (which fails on CI without it).
import { HAVE_CHROMIUM, launchChromium, openReport } from './chromium.js';

/** Variant names with the line separators a vega expression cannot hold raw (and a repeat of each). */
const NAMES = ['none\u2028a\u2028b', 'exponential\u2029c\u2029d'];

describe.skipIf(!HAVE_CHROMIUM)('variant names with U+2028 and U+2029 in headless Chromium', () => {
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  let page = '';

  beforeAll(async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'ls.json', {
      name: 'report-line-separators',
      description: 'Variant names holding line separators.',
      seed: 2015,
      scenario: {
        workload: { kind: 'burst', clients: 10 },
        stack: [{ name: 'client', policy: { maxAttempts: 'unlimited', backoff: { kind: 'full-jitter', baseMs: 5, capMs: 2000, exponentOffset: 1 } } }],
        leaf: { kind: 'occ' },
        network: { hopMs: { dist: 'abs-normal', mean: 10, sd: 2 } },
        metrics: { timeSeriesBinMs: 10 },
      },
      variants: { [NAMES[0] as string]: { 'stack.0.policy.backoff.kind': 'none' }, [NAMES[1] as string]: { 'stack.0.policy.backoff.kind': 'exponential' } },
      sweep: { grid: { 'workload.clients': [5, 10] } },
      replications: 2,
    });
    const run = await cli(['run', file, '--out', join(dir, 'out'), '--quiet', '--workers', '1']);
    expect(run.code).toBe(0);
    page = join(dir, 'out', 'report-line-separators', 'index.html');
    chromium = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
  });

  it('the charts hold no raw line separator, and every chart renders with no console error', async () => {
    const { page: p, messages } = await openReport(chromium.context, page, 20_000);
    const charts = await p.$$eval('.vis', (els) => els.map((e) => ({ id: e.id, error: e.getAttribute('data-error'), rendered: e.getAttribute('data-rendered') })));
    // The bar charts sort their bars by variant name: vega-lite writes that order as an expression.
    expect(charts.map((c) => c.id)).toEqual(expect.arrayContaining(['chart-06-amplification']));
    expect(charts.filter((c) => c.error !== null || c.rendered !== 'true')).toEqual([]);
    expect(messages).toEqual([]);
    // The legend shows each name, its separators written as their escapes.
    const legend = await p.$$eval('#chart-06-amplification .role-legend-label text', (els) => els.map((e) => e.textContent));
    expect(legend).toEqual(expect.arrayContaining(['none\\u2028a\\u2028b', 'exponential\\u2029c\\u2029d']));
    await p.close();
    const json = /<script type="application\/json" id="retrystorm-charts">([^<]*)<\/script>/.exec(readFileSync(page, 'utf8'))?.[1] ?? '';
    expect(json).toContain('none\\\\u2028a\\\\u2028b');
    expect(json).not.toMatch(/[\u2028\u2029]/);
  }, 60_000);
});
