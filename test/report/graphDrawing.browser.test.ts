import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartsForScript } from '../../src/report/escape.js';
import { cli, tempDir } from '../cli/helpers.js';
import { HAVE_CHROMIUM, launchChromium, openReport } from './chromium.js';

type Row = Record<string, number | string>;
interface Layer {
  name?: string;
  data: { values: Row[] };
}
interface Chart {
  id: string;
  spec: { layer?: Layer[] };
}

/** The shipped experiments run-all runs (no risk section) whose scenario (or a part's) is a service graph. */
function shippedGraphExperiments(): string[] {
  return readdirSync('experiments')
    .filter((f) => f.endsWith('.json') && f !== 'schema.json')
    .filter((f) => {
      const e = JSON.parse(readFileSync(join('experiments', f), 'utf8')) as { scenario?: { services?: unknown }; risk?: unknown; parts?: Array<{ scenario?: { services?: unknown }; risk?: unknown }> };
      // A file with a risk section is estimated (run-all runs `risk` on it), and its report draws no graph.
      if (e.risk !== undefined || (e.parts ?? []).some((p) => p.risk !== undefined)) return false;
      return [e.scenario, ...(e.parts ?? []).map((p) => p.scenario)].some((s) => s?.services !== undefined);
    })
    .sort();
}

/**
 * In the page, for each graph drawing (`.vis[data-kind="graph"]`): the boxes Chromium drew of its
 * edge labels, its services' boxes and their names (the layers `edgeLabels`, `nodes`, `nodeNames`
 * of src/report/specs/graphDrawing.ts; the i-th name is the i-th service's), measured with
 * getBoundingClientRect, and what is wrong with them: an edge without its label, two texts that
 * overlap, a text over a service's box that is not its own (a name outside its own box), a text or
 * a box outside the chart's plot. Boxes may touch, or overlap by half a pixel.
 */
function drawingProblems(): string[] {
  const out: string[] = [];
  const tol = 0.5;
  const overlap = (a: DOMRect, b: DOMRect) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > tol && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > tol;
  const inside = (a: DOMRect, b: DOMRect) => a.left >= b.left - tol && a.right <= b.right + tol && a.top >= b.top - tol && a.bottom <= b.bottom + tol;
  for (const vis of document.querySelectorAll('.vis[data-kind="graph"]')) {
    const svg = vis.querySelector('svg');
    const plot = svg?.querySelector('.role-frame.root path.background');
    if (!svg || !plot) {
      out.push(`${vis.id}: no drawing`);
      continue;
    }
    const frame = plot.getBoundingClientRect();
    const all = (sel: string) => [...svg.querySelectorAll(sel)];
    const edges = all('.edges_marks line');
    const labels = all('.edgeLabels_marks text').map((t) => ({ text: `label "${t.textContent}"`, box: t.getBoundingClientRect(), own: -1 }));
    const boxes = all('.nodes_marks path').map((p) => p.getBoundingClientRect());
    const names = all('.nodeNames_marks text').map((t, i) => ({ text: `name "${t.textContent}"`, box: t.getBoundingClientRect(), own: i }));
    if (edges.length === 0 || boxes.length === 0) out.push(`${vis.id}: ${edges.length} edges and ${boxes.length} services drawn`);
    if (labels.length !== edges.length) out.push(`${vis.id}: ${labels.length} labels for ${edges.length} edges`);
    if (names.length !== boxes.length) out.push(`${vis.id}: ${names.length} names for ${boxes.length} services`);
    const texts = [...labels, ...names];
    const service = (i: number) => names[i]?.text.slice('name '.length) ?? String(i);
    texts.forEach((t, i) => {
      if (!inside(t.box, frame)) out.push(`${vis.id}: ${t.text} is outside the chart`);
      for (const u of texts.slice(i + 1)) if (overlap(t.box, u.box)) out.push(`${vis.id}: ${t.text} overlaps ${u.text}`);
      boxes.forEach((b, k) => {
        if (k !== t.own && overlap(t.box, b)) out.push(`${vis.id}: ${t.text} overlaps the box of ${service(k)}`);
      });
      const own = boxes[t.own];
      if (own && !inside(t.box, own)) out.push(`${vis.id}: ${t.text} leaves its box`);
    });
    boxes.forEach((b, k) => {
      if (!inside(b, frame)) out.push(`${vis.id}: the box of ${service(k)} is outside the chart`);
    });
  }
  return out;
}

/** The charts embedded in a report page, and the page with them replaced. */
function chartsOf(html: string): Chart[] {
  const m = /<script type="application\/json" id="retrystorm-charts">([^<]*)<\/script>/.exec(html);
  if (!m) throw new Error('no charts in the page');
  return JSON.parse(m[1] as string) as Chart[];
}
function withCharts(html: string, charts: Chart[]): string {
  return html.replace(/(<script type="application\/json" id="retrystorm-charts">)[^<]*(<\/script>)/, (_, a: string, b: string) => `${a}${chartsForScript(charts)}${b}`);
}
function layer(chart: Chart, name: string): Row[] {
  const l = chart.spec.layer?.find((x) => x.name === name);
  if (!l) throw new Error(`${chart.id}: no layer ${name}`);
  return l.data.values;
}

describe.skipIf(!HAVE_CHROMIUM)('the graph drawings of the shipped graph experiments in headless Chromium', () => {
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  const pages: Array<{ name: string; file: string }> = [];

  beforeAll(async () => {
    const src = tempDir();
    const out = tempDir();
    for (const f of shippedGraphExperiments()) cpSync(join('experiments', f), join(src, f));
    const run = await cli(['run', src, '--quick', '--out', out, '--quiet', '--workers', '2']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    for (const name of readdirSync(out).sort()) pages.push({ name, file: join(out, name, 'index.html') });
    chromium = await launchChromium();
  }, 300_000);

  afterAll(async () => {
    await chromium?.close();
  });

  async function problemsOf(file: string): Promise<{ charts: number; problems: string[] }> {
    const { page, messages } = await openReport(chromium.context, file);
    const charts = await page.$$eval('.vis[data-kind="graph"][data-rendered]', (els) => els.length);
    const problems = [...messages, ...(await (page as Page).evaluate(drawingProblems))];
    await page.close();
    return { charts, problems };
  }

  it('covers every shipped graph experiment, each with its drawings', () => {
    expect(shippedGraphExperiments()).toEqual(expect.arrayContaining(['microservice-cascade.json', 'noisy-neighbor.json']));
    expect(pages.map((p) => `${p.name}.json`)).toEqual(shippedGraphExperiments());
    for (const { file } of pages) expect(chartsOf(readFileSync(file, 'utf8')).filter((c) => c.id.includes('-graph')).length, file).toBeGreaterThan(0);
  });

  it('labels every edge; no two texts overlap, none is over a service that is not its own, all lie inside the chart', async () => {
    const problems: string[] = [];
    for (const { name, file } of pages) {
      const r = await problemsOf(file);
      expect(r.charts, name).toBeGreaterThan(0);
      for (const p of r.problems) problems.push(`${name} ${p}`);
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('catches a constructed overlap: two labels at one spot, a name in the wrong box, a label cut by the chart', async () => {
    const page = pages.find((p) => p.name === 'microservice-cascade') as { file: string };
    const html = readFileSync(page.file, 'utf8');
    const charts = chartsOf(html);
    const [a, b, c] = charts.filter((x) => x.id.includes('-graph')) as [Chart, Chart, Chart];
    const labels = layer(a, 'edgeLabels');
    Object.assign(labels[1] as Row, { lx: labels[0]?.lx, ly: labels[0]?.ly });
    const names = layer(b, 'nodeNames');
    const db = names.find((n) => n.name === 'db') as Row;
    const users = names.find((n) => n.name === 'users') as Row;
    Object.assign(users, { x: db.x, y: db.y });
    Object.assign(layer(c, 'edgeLabels')[0] as Row, { lx: -4 });
    const file = join(page.file, '..', 'constructed.html');
    writeFileSync(file, withCharts(html, charts));
    const r = await problemsOf(file);
    const first = (rows: Row[]) => `label "${String(rows[0]?.label)}"`;
    expect(r.problems).toEqual(
      expect.arrayContaining([
        `chart-${a.id}: ${first(labels)} overlaps label "${String(labels[1]?.label)}"`,
        `chart-${b.id}: name "users" overlaps name "db"`,
        `chart-${b.id}: name "users" overlaps the box of "db"`,
        `chart-${b.id}: name "users" leaves its box`,
        `chart-${c.id}: ${first(layer(c, 'edgeLabels'))} is outside the chart`,
      ]),
    );
    // Nothing else is wrong with the three drawings.
    expect(r.problems.filter((p) => !/^chart-[^:]*: (label|name) "/.test(p))).toEqual([]);
    expect(r.problems.some((p) => p.startsWith(`chart-${c.id}: label`) && !p.endsWith('outside the chart'))).toBe(false);
  }, 60_000);
});
