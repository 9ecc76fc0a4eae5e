import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir } from '../cli/helpers.js';
import { CHROMIUM, FLAGS, HAVE_CHROMIUM } from './chromium.js';

const ON_CI = process.env.CI === 'true' || process.env.CI === '1';
const HOSTILE = '</script><img src=x onerror=alert(1)>';
const INSTALL = `Chromium not found at ${CHROMIUM}: install Debian's package with \`apt-get install -y chromium\``;

if (!HAVE_CHROMIUM && !ON_CI) console.warn(`skipping the browser test of the HTML reports. ${INSTALL}`);

describe.runIf(!HAVE_CHROMIUM && ON_CI)('the browser test on CI', () => {
  it('needs Chromium', () => {
    throw new Error(INSTALL);
  });
});

interface PageCheck {
  charts: Array<{ id: string; rendered: string | null; error: string | null; svg: boolean; marks: number }>;
  requests: string[];
  console: string[];
  dialogs: string[];
  images: number;
  name: string;
}

describe.skipIf(!HAVE_CHROMIUM)('reports in headless Chromium', () => {
  let context: BrowserContext;
  let profile = '';
  const pages: Record<string, string> = {};

  beforeAll(async () => {
    const out = tempDir();
    const run = await cli(['run', 'test/report/fixtures', '--out', out, '--quiet', '--workers', '2']);
    expect(run.code).toBe(0);
    for (const name of ['report-occ-contention', 'report-spike-layers', 'report-tick-clustering', 'report-single', 'report-parts']) {
      pages[name] = join(out, name, 'index.html');
    }
    // The shared-bundle variant written for reports/.
    const shared = tempDir();
    for (const name of ['report-occ-contention', 'report-parts']) cpSync(join(out, name), join(shared, name), { recursive: true });
    expect((await cli(['report', shared, '--shared-assets'])).code).toBe(0);
    pages['shared occ'] = join(shared, 'report-occ-contention', 'index.html');
    pages['shared parts'] = join(shared, 'report-parts', 'index.html');
    // A hostile experiment name (experiment files only allow slugs; saved results can say anything).
    const hostile = join(tempDir(), 'hostile');
    cpSync(join(out, 'report-spike-layers'), hostile, { recursive: true });
    const summary = JSON.parse(readFileSync(join(hostile, 'summary.json'), 'utf8')) as { experiment: string };
    writeFileSync(join(hostile, 'summary.json'), JSON.stringify({ ...summary, experiment: HOSTILE }));
    rmSync(join(hostile, 'index.html'));
    expect((await cli(['report', hostile])).code).toBe(0);
    pages.hostile = join(hostile, 'index.html');

    profile = mkdtempSync(join(tmpdir(), 'retrystorm-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1200, height: 900 } });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  async function open(file: string): Promise<PageCheck> {
    const page = await context.newPage();
    const requests: string[] = [];
    const messages: string[] = [];
    const dialogs: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') messages.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => messages.push(`pageerror: ${e.message}`));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction(() => [...document.querySelectorAll('.vis')].every((e) => e.hasAttribute('data-rendered') || e.hasAttribute('data-error')), null, { timeout: 20_000 });
    const charts = await page.$$eval('.vis', (els) =>
      els.map((e) => ({
        id: e.id,
        rendered: e.getAttribute('data-rendered'),
        error: e.getAttribute('data-error'),
        svg: e.querySelector('svg, canvas') !== null,
        marks: e.querySelectorAll('svg .role-mark > *').length,
      })),
    );
    const images = await page.$$eval('img', (els) => els.length);
    const name = (await page.textContent('#experiment-name')) ?? '';
    await page.close();
    return { charts, requests, console: messages, dialogs, images, name };
  }

  it('every chart of every report renders from file:// with marks, no network request and no console error', async () => {
    for (const [label, file] of Object.entries(pages)) {
      const r = await open(file);
      expect(r.charts.length, label).toBeGreaterThan(0);
      for (const c of r.charts) {
        expect({ label, ...c, marks: c.marks > 0 }).toEqual({ label, id: c.id, rendered: 'true', error: null, svg: true, marks: true });
      }
      expect(r.requests.filter((u) => !/^(file|data):/.test(u)), label).toEqual([]);
      expect(r.console, label).toEqual([]);
      expect(r.dialogs, label).toEqual([]);
    }
  }, 90_000);

  it('shows a hostile experiment name and variant label as text, and runs nothing they contain', async () => {
    const r = await open(pages.hostile as string);
    expect(r.name).toBe(HOSTILE);
    expect(r.images).toBe(0);
    expect(r.dialogs).toEqual([]);
    const spike = await open(pages['report-spike-layers'] as string);
    expect(spike.images).toBe(0);
    const page = await context.newPage();
    await page.goto(pathToFileURL(pages['report-spike-layers'] as string).href);
    await expect.poll(() => page.textContent('table.findings')).toContain(HOSTILE);
    expect(await page.textContent('#experiment-description')).toContain(`Hostile text: ${HOSTILE} & "quotes"`);
    await page.close();
  });

  it('the legend filters: clicking a variant fades the others', async () => {
    const page = await context.newPage();
    await page.goto(pathToFileURL(pages['report-occ-contention'] as string).href);
    await page.waitForSelector('#chart-01-metric-writes[data-rendered]');
    const faded = () => page.$$eval('#chart-01-metric-writes .mark-line path', (ps) => ps.filter((p) => Number(p.getAttribute('opacity') ?? 1) < 0.5).length);
    expect(await faded()).toBe(0);
    // vega picks the item under the pointer from its scene graph: click where the first legend symbol is drawn.
    const symbol = page.locator('#chart-01-metric-writes .role-legend-symbol path').first();
    await symbol.scrollIntoViewIfNeeded();
    const box = await symbol.boundingBox();
    expect(box).not.toBeNull();
    await page.mouse.click((box?.x ?? 0) + (box?.width ?? 0) / 2, (box?.y ?? 0) + (box?.height ?? 0) / 2);
    await expect.poll(faded).toBe(2);
    await page.close();
  });
});
