import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBundles } from '../../src/cli/report.js';
import { renderRiskReport, riskCharts, riskFinding, riskQuestion } from '../../src/report/riskReport.js';
import { riskResultOf } from '../../src/sweep/riskRecord.js';
import type { RiskResult } from '../../src/sweep/riskSweep.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';
import { chartProblems, drawnCharts, type DrawnChart } from './chartChecks.js';
import { HAVE_CHROMIUM, launchChromium, openReport } from './chromium.js';

type Cell = RiskResult['cells'][number];

/** A cell of a load sweep: its probability, interval and effort; a pyramid of three levels and an example when it collapsed. */
function cell(variant: string, rate: number, p: number, runs = 2000): Cell {
  const pyramid = p > 0 ? [{ level: 100, trajectories: 900, probability: 0.3, conditional: 0.3 }, { level: 200, trajectories: 500, probability: 0.02, conditional: 0.066 }, { level: 400, trajectories: 200, probability: p * 3, conditional: (p * 3) / 0.02 }, { level: Infinity, trajectories: 150, probability: p, conditional: 1 / 3 }] : [];
  const tMs = Array.from({ length: 60 }, (_, i) => i * 1000);
  const example = p > 0 ? { tMs, importance: tMs.map((t) => 50 + t / 100), collapseMetric: tMs.map((t) => (t < 40_000 ? 0.95 : 0.3)), collapseAtMs: 40_000 } : null;
  return {
    key: `${variant}/${rate}`,
    part: 'main',
    variant,
    params: { 'workload.rate': rate },
    seed: 1,
    state: 'ok',
    horizonMs: 3_600_000,
    risk: { method: 'adaptive', probability: p, ci95: [p * 0.5, p * 1.6], relativeError: p > 0 ? 0.2 : NaN, monteCarloRuns: p > 0 ? (1 - p) / (p * 0.04) : NaN, effort: { runs, events: runs * 300, cpuMs: 1234, snapshots: runs }, pyramid, repetitions: [p, p], example, excursions: null },
  };
}

/** Three attempts collapsing more often as the load grows; a retry budget that never collapsed but at the highest load. */
function result(): RiskResult {
  return {
    experiment: 'cache-risk',
    description: 'How likely a spontaneous collapse is.',
    seed: 3,
    version: '0.1.0',
    parts: [{ name: 'main', risk: { importance: { metric: 'inFlight' }, collapse: { metric: 'goodput', below: 0.5, forMs: 10_000, windowMs: 1000 }, checkEveryMs: 1000 } }],
    cells: [cell('attempts-3', 1200, 1.2e-6), cell('attempts-3', 1300, 4e-4), cell('attempts-3', 1350, 2.1e-2), cell('budget', 1200, 0, 5000), cell('budget', 1300, 0, 5000), cell('budget', 1350, 3e-7)],
  };
}

describe("risk's report", () => {
  it('says in its finding only what the estimates say, a cell without a collapse as its bound', () => {
    expect(riskFinding(result())).toBe(
      'P(collapse within 1 h) at Arrival rate = 1200 to 1350 operations/s: attempts-3 ~1.2e-6 to ~0.021; budget ~3e-7 at 1350 operations/s, none seen at 1200, 1300 operations/s (below about 1/5,000 = 2e-4).',
    );
    const none = result();
    none.cells = none.cells.filter((c) => c.variant === 'budget' && c.params['workload.rate'] !== 1350);
    expect(riskFinding(none)).toBe('P(collapse within 1 h) at Arrival rate = 1200 to 1300 operations/s: no collapse seen (below about 1/5,000 = 2e-4).');
  });

  it('bounds a cell estimated per excursion where no collapse was seen by its excursions within the horizon, 1 - exp(-m / n)', () => {
    const r = result();
    r.cells = r.cells.filter((c) => c.variant === 'budget' && c.params['workload.rate'] !== 1350);
    for (const c of r.cells) if (c.state === 'ok') c.risk.excursions = { probability: 0, ci95: [0, 0], relativeError: NaN, counted: 40, overMs: 600_000, perHour: 240 };
    // 240 excursions in the hour, none of 5,000 collapsed: 1 - exp(-240/5000) = 0.0469.
    expect(riskFinding(r)).toBe('P(collapse within 1 h) at Arrival rate = 1200 to 1300 operations/s: no collapse seen (below about 0.047: none of 5,000 excursions collapsed, and about 240 start within 1 h).');
  });

  it('gives each part its range and series, saying where a series starts or ends inside it', () => {
    const two = result();
    const other = (c: Cell): Cell => ({ ...c, key: `b/${c.key}`, part: 'b', params: { 'workload.rate': (c.params['workload.rate'] as number) / 10 } });
    const seenLate = (c: Cell): Cell => (c.state === 'ok' && c.params['workload.rate'] === 1200 ? { ...c, risk: { ...c.risk, probability: 0, ci95: [0, 0] } } : c);
    two.parts = [two.parts[0] as RiskResult['parts'][number], { ...(two.parts[0] as RiskResult['parts'][number]), name: 'b' }];
    two.cells = [...two.cells, ...two.cells.filter((c) => c.variant === 'attempts-3').map((c) => other(seenLate(c)))];
    expect(riskFinding(two)).toBe(
      'P(collapse within 1 h) in main at Arrival rate = 1200 to 1350 operations/s: attempts-3 ~1.2e-6 to ~0.021; budget ~3e-7 at 1350 operations/s, none seen at 1200, 1300 operations/s (below about 1/5,000 = 2e-4). ' +
        'In b at Arrival rate = 120 to 135 operations/s: ~4e-4 at 130 operations/s to ~0.021, none seen at 120 operations/s (below about 1/2,000 = 5e-4).',
    );
  });

  it("reads back risk.json's parts (each part's section, every cell's part among them), or names the field that is wrong; one top-level section stands for every part", () => {
    const saved = JSON.parse(JSON.stringify(result())) as Record<string, unknown> & { parts: Array<Record<string, unknown>> };
    const read = riskResultOf(saved);
    expect(typeof read === 'string' ? read : read.parts).toEqual(result().parts);
    expect(riskResultOf({ ...saved, parts: [{ name: 'other', risk: saved.parts[0]?.risk }] })).toBe('cells.0.part "main" is not among parts');
    expect(riskResultOf({ ...saved, parts: [{ name: 'main', risk: { checkEveryMs: 1 } }] })).toMatch(/^parts\.0\.risk is not a valid risk section \(importance: /);
    expect(riskResultOf({ ...saved, parts: [saved.parts[0], saved.parts[0]] })).toBe('parts.1.name repeats "main"');
    const { parts, ...older } = saved;
    expect(riskResultOf(older)).toBe('parts must be a non-empty array (each part\'s name and risk section)');
    const fromOlder = riskResultOf({ ...older, risk: parts[0]?.risk });
    expect(typeof fromOlder === 'string' ? fromOlder : fromOlder.parts).toEqual(result().parts);
  });

  it('asks one question when every part shares its section, and each part its own when they differ', () => {
    const shared = result();
    const section = shared.parts[0]?.risk as RiskResult['parts'][number]['risk'];
    shared.cells = [...shared.cells, { ...(shared.cells[0] as Cell), key: 'other', part: 'other' }];
    shared.parts = [{ name: 'main', risk: section }, { name: 'other', risk: section }];
    expect(riskQuestion(shared)).toBe('The probability that goodput below 0.5 for 10 s (checked every 1 s) within 1 h, estimated by adaptive splitting on inFlight.');
    shared.parts = [{ name: 'main', risk: section }, { name: 'other', risk: { ...section, importance: { metric: 'queued', service: 'db' } } }];
    expect(riskQuestion(shared)).toBe(
      'In part main: The probability that goodput below 0.5 for 10 s (checked every 1 s) within 1 h, estimated by adaptive splitting on inFlight. In part other: The probability that goodput below 0.5 for 10 s (checked every 1 s) within 1 h, estimated by adaptive splitting on queued of db.',
    );
  });

  it('tables a cell where no collapse was seen by its bound, never as an interval [0, 0]', () => {
    const html = renderRiskReport(result(), { version: '0.1.0', date: '2026-01-01T00:00:00Z', runTimeMs: null, quick: false, assets: { mode: 'shared', base: '../assets/' } });
    expect(html.match(/<td class="num">0, no collapse seen<\/td><td class="num">below about 1\/5,000 = 2e-4<\/td>/g)).toHaveLength(2);
    expect(html).not.toContain('[0, 0]');
    expect(html).toContain('<td class="num">1.2e-6</td><td class="num">[6e-7, 1.9e-6]</td>');
  });

  it('draws the probability on a log axis with a line per variant and its intervals, the pyramid, and an example with its threshold and collapse start', () => {
    const charts = riskCharts(result());
    expect(charts.map((c) => c.id)).toEqual(['risk-probability', 'risk-pyramid', 'risk-example']);
    const prob = charts[0]?.spec as { data: { values: Array<Record<string, unknown>> }; layer: Array<{ encoding: { y: { scale?: { type?: string } } } }> };
    expect(prob.layer[0]?.encoding.y.scale?.type).toBe('log');
    // The two cells without a collapse cannot sit on a log axis: left out, and the caption says so.
    expect(prob.data.values.map((r) => [r.series, r.x, r.p])).toEqual([
      ['attempts-3', 1200, 1.2e-6],
      ['attempts-3', 1300, 4e-4],
      ['attempts-3', 1350, 2.1e-2],
      ['budget', 1350, 3e-7],
    ]);
    expect(charts[0]?.caption).toContain('2 cells where no collapse was seen');
    expect(charts[1]?.title).toBe('How far trajectories climb: attempts-3, Arrival rate = 1350 operations/s');
    expect(JSON.stringify(charts[2]?.spec)).toContain('"threshold":0.5');
    expect(JSON.stringify(charts[2]?.spec)).toContain('"start":40');
    expect(JSON.stringify(charts[2]?.spec)).toContain('"title":"Time (s)"');
  });

  describe.skipIf(!HAVE_CHROMIUM)('in headless Chromium', () => {
    let chromium: Awaited<ReturnType<typeof launchChromium>>;
    const pages: string[] = [];
    beforeAll(async () => {
      const dir = tempDir();
      const synthetic = join(dir, 'synthetic.html');
      writeFileSync(synthetic, renderRiskReport(result(), { version: '0.1.0', date: '2026-01-01T00:00:00Z', runTimeMs: 1000, quick: true, assets: { mode: 'inline', scripts: readBundles() } }));
      pages.push(synthetic);
      // A real run's report too: an M/M/1 queue reaching 6 before it empties, at two loads.
      const file = writeExperiment(dir, 'mm1.json', {
        name: 'mm1-ruin',
        scenario: {
          workload: { kind: 'open', rate: 80, durationMs: 600_000 },
          stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
          leaf: { kind: 'server', concurrency: 1, queueLimit: 'unlimited', serviceMs: { dist: 'exponential', mean: 10 } },
          horizonMs: 600_000,
        },
        sweep: { grid: { 'workload.rate': [50, 80] } },
        risk: { importance: { metric: 'inFlight' }, collapse: { metric: 'inFlight', above: 5, forMs: 0 }, checkEveryMs: 0, absorbBelow: 1, particles: 10, repetitions: 3 },
      });
      const r = await cli(['risk', file, '--out', join(dir, 'out'), '--workers', '2', '--quiet']);
      expect(r.code).toBe(0);
      pages.push(join(dir, 'out', 'mm1-ruin', 'index.html'));
      chromium = await launchChromium();
    }, 120_000);
    afterAll(async () => {
      await chromium?.close();
    });

    it('renders every chart without an error, labels its log axes across the data, gives every encoding a legend and draws what the captions name', async () => {
      const drawn: DrawnChart[] = [];
      const problems: string[] = [];
      for (const file of pages) {
        const { page, messages } = await openReport(chromium.context, file);
        for (const e of await page.$$eval('.vis[data-error]', (els) => els.map((x) => `${x.id}: ${x.getAttribute('data-error')}`))) problems.push(`${file}: ${e}`);
        for (const m of messages) problems.push(`${file}: console ${m}`);
        drawn.push(...(await page.evaluate(drawnCharts)));
        await page.close();
      }
      expect(problems).toEqual([]);
      expect(drawn.length).toBeGreaterThanOrEqual(5);
      expect(drawn.filter((c) => c.logAxes.length > 0).length).toBeGreaterThanOrEqual(3);
      expect(chartProblems(drawn)).toEqual([]);
    }, 120_000);
  });
});
