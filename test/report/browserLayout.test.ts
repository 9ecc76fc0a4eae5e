import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';
import { chartProblems, drawnCharts, type DrawnChart } from './chartChecks.js';
import { HAVE_CHROMIUM, launchChromium, openReport } from './chromium.js';
import { generatedExperiments } from './generatedExperiments.js';
const REPORTS = join(process.cwd(), 'reports');

/** Every report page under reports/ (quick and full), the indexes included. */
function shippedReports(dir = REPORTS): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) return n === 'assets' ? [] : shippedReports(p);
      return n === 'index.html' ? [p] : [];
    });
}

/** A layout problem of one chart: two texts that overlap, or a text cut by the chart's bounds. */
interface LayoutProblem {
  chart: string;
  problem: string;
}

/**
 * In the page: for each chart's SVG, the visible text marks (axis labels and titles, legend labels
 * and titles, mark labels, panel titles) as drawn, and the pairs whose boxes intersect by more
 * than half a pixel each way, and those that reach outside the SVG.
 */
function layoutProblems(): LayoutProblem[] {
  const out: LayoutProblem[] = [];
  const visible = (el: Element): boolean => {
    for (let e: Element | null = el; e && e.tagName.toLowerCase() !== 'svg'; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.display === 'none' || style.visibility === 'hidden') return false;
      if (Number(e.getAttribute('opacity') ?? 1) === 0 || Number(e.getAttribute('fill-opacity') ?? 1) === 0) return false;
    }
    return (el.textContent ?? '').trim() !== '';
  };
  for (const vis of document.querySelectorAll('.vis')) {
    const svg = vis.querySelector('svg');
    if (!svg) continue;
    const frame = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].filter(visible).map((t) => ({ text: (t.textContent ?? '').trim(), box: t.getBoundingClientRect() }));
    const tol = 0.5;
    for (const t of texts) {
      const b = t.box;
      if (b.left < frame.left - tol || b.right > frame.right + tol || b.top < frame.top - tol || b.bottom > frame.bottom + tol) {
        out.push({ chart: vis.id, problem: `"${t.text}" is cut by the chart's bounds` });
      }
    }
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        const a = (texts[i] as (typeof texts)[number]).box;
        const b = (texts[j] as (typeof texts)[number]).box;
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > tol && h > tol) out.push({ chart: vis.id, problem: `"${texts[i]?.text}" overlaps "${texts[j]?.text}"` });
      }
    }
  }
  return out;
}

describe.skipIf(!HAVE_CHROMIUM)('chart layout in headless Chromium', () => {
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  const pages: Array<{ label: string; file: string }> = [];

  beforeAll(async () => {
    for (const file of shippedReports()) pages.push({ label: relative(process.cwd(), file), file });
    const src = tempDir();
    const out = tempDir();
    for (const e of generatedExperiments(12, 32)) writeExperiment(src, `${String(e.name)}.json`, e);
    const run = await cli(['run', src, '--out', out, '--quiet', '--workers', '2']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    for (const name of readdirSync(out).sort()) pages.push({ label: name, file: join(out, name, 'index.html') });
    chromium = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
  });

  it('covers every shipped report, quick and full, and 12 generated experiments', () => {
    const shipped = pages.filter((p) => p.label.startsWith('reports'));
    expect(shipped.length).toBeGreaterThanOrEqual(2 * 12);
    expect(shipped.some((p) => p.label.startsWith(join('reports', 'full')))).toBe(true);
    expect(pages.length - shipped.length).toBe(12);
  });

  it('no two texts of a chart overlap, none is cut by its bounds, and no page logs an error', async () => {
    const problems: string[] = [];
    for (const { label, file } of pages) {
      const { page, messages } = await openReport(chromium.context, file);
      const errors = await page.$$eval('.vis[data-error]', (els) => els.map((e) => `${e.id}: ${e.getAttribute('data-error')}`));
      for (const e of errors) problems.push(`${label}: chart failed: ${e}`);
      for (const m of messages) problems.push(`${label}: console ${m}`);
      for (const p of await page.evaluate(layoutProblems)) problems.push(`${label} ${p.chart}: ${p.problem}`);
      drawn.push(...(await page.evaluate(drawnCharts)).map((c) => ({ ...c, id: `${label} ${c.id}` })));
      await page.close();
    }
    expect(problems).toEqual([]);
  }, 600_000);

  // Read from the pages the test above opened (vega's scene graph of each chart), so that each page is rendered once.
  const drawn: DrawnChart[] = [];

  it('labels every log axis across its data, gives every colour, shape and dash a legend, draws what the captions name, and runs no line through a label and no point off its plot', () => {
    expect(drawn.length).toBeGreaterThan(pages.length);
    expect(drawn.some((c) => c.logAxes.length > 0)).toBe(true);
    expect(chartProblems(drawn)).toEqual([]);
  });
});
