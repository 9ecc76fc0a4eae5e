import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';
import { generatedExperiments } from './generatedExperiments.js';

/** Debian's Chromium (`apt-get install -y chromium`); never a downloaded browser. */
const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const HAVE_CHROMIUM = existsSync(CHROMIUM);
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
  let context: BrowserContext;
  let profile = '';
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
    profile = mkdtempSync(join(tmpdir(), 'retrystorm-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1200, height: 900 } });
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
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
      const page = await context.newPage();
      const messages: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') messages.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => messages.push(`pageerror: ${e.message}`));
      await page.goto(pathToFileURL(file).href);
      await page.waitForFunction(() => [...document.querySelectorAll('.vis')].every((e) => e.hasAttribute('data-rendered') || e.hasAttribute('data-error')), null, { timeout: 60_000 });
      const errors = await page.$$eval('.vis[data-error]', (els) => els.map((e) => `${e.id}: ${e.getAttribute('data-error')}`));
      for (const e of errors) problems.push(`${label}: chart failed: ${e}`);
      for (const m of messages) problems.push(`${label}: console ${m}`);
      for (const p of await page.evaluate(layoutProblems)) problems.push(`${label} ${p.chart}: ${p.problem}`);
      await page.close();
    }
    expect(problems).toEqual([]);
  }, 600_000);
});
