import { describe, expect, it } from 'vitest';
import { wilsonInterval } from '../../src/metrics/wilson.js';
import { buildReport, buildReportModel } from '../../src/report/index.js';
import { FEW_RUNS_MARK, fewRunsText } from '../../src/report/estimates.js';
import { formatRange } from '../../src/report/format.js';
import { metricPoints } from '../../src/report/specs/metricVsParam.js';
import type { ReportCell } from '../../src/report/types.js';
import { aggregateMetrics } from '../../src/sweep/aggregate.js';
import { cell, runInfo, summary } from './helpers.js';

/**
 * One replication of a flush at `rate` operations/s: it either kept up (`healed`) or collapsed to
 * the hits. Goodput is successes per second, success rate successes over operations offered.
 */
function replication(rate: number, healed: boolean): Record<string, number> {
  const share = healed ? 0.99 : 0.4;
  return {
    goodputPerSec: rate * share,
    successRate: share,
    'windows.after.goodputPerSec': rate * (healed ? 0.98 : 0.3),
    'windows.after.successRate': healed ? 0.98 : 0.3,
    'windows.after.recovered': healed ? 1 : 0,
    amplification: healed ? 1.1 : 2.7,
  };
}

/** A cell of 2 replications, its statistics as the sweep writes them into summary.json. */
function twoRunCell(variant: string, rate: number, healed: [boolean, boolean]): ReportCell {
  const c = cell({ variant, params: { 'workload.rate': rate }, n: 2 });
  return { ...c, replications: 2, metrics: aggregateMetrics(healed.map((h) => replication(rate, h))) };
}

const RATES = [1100, 1350];
const cells = [
  twoRunCell('retries', 1100, [true, true]),
  twoRunCell('retries', 1350, [true, false]),
  twoRunCell('no-retries', 1100, [true, true]),
  twoRunCell('no-retries', 1350, [false, false]),
];

describe('a 2-replication cell in the report', () => {
  it('draws bands within what is possible: goodput within [0, the offered rate], shares and outcomes within [0, 1]', () => {
    for (const metric of ['goodputPerSec', 'windows.after.goodputPerSec']) {
      const points = metricPoints(cells, metric, 'workload.rate');
      expect(points).toHaveLength(4);
      for (const p of points) {
        const rate = p.x as number;
        expect(RATES).toContain(rate);
        expect(p.loDraw).toBeGreaterThanOrEqual(0);
        expect(p.hiDraw).toBeLessThanOrEqual(rate * (1 + 1e-12));
        expect(p.hi).toBeLessThanOrEqual(rate * (1 + 1e-12));
      }
      // The split cell, whose Student-t band would reach several times its demand, is cut at it.
      const split = points.find((p) => p.variant === 'retries' && p.x === 1350);
      expect(split?.hiDraw).toBeCloseTo(1350, 6);
    }
    for (const metric of ['successRate', 'windows.after.recovered']) {
      for (const p of metricPoints(cells, metric, 'workload.rate')) {
        expect(p.loDraw).toBeGreaterThanOrEqual(0);
        expect(p.hiDraw).toBeLessThanOrEqual(1);
        expect(p.lo).toBeGreaterThanOrEqual(0);
        expect(p.hi).toBeLessThanOrEqual(1);
      }
    }
    const recovered = metricPoints(cells, 'windows.after.recovered', 'workload.rate').find((p) => p.variant === 'retries' && p.x === 1350);
    expect([recovered?.lo, recovered?.hi]).toEqual(wilsonInterval(1, 2));
    expect(recovered?.runs).toBe(`2: the interval ${fewRunsText(2)}`);
  });

  it('shows a 0/1 outcome as k of n runs, a cut interval as its range, and marks intervals over few runs', () => {
    const source = { name: 'flush', report: { findings: { metrics: ['windows.after.recovered', 'successRate', 'amplification'] } } };
    const html = buildReport(summary(cells, 'flush'), runInfo(source), { mode: 'shared', base: '../assets/' }).html;
    const table = html.slice(html.indexOf('<table class="findings">'), html.indexOf('</table>', html.indexOf('<table class="findings">')));
    const rows = [...table.matchAll(/<tr><th scope="row">.*?<\/tr>/g)].map((m) => m[0].replace(/<[^>]+>/g, '|'));
    // The table shows the cells at the focus of the sweep, 1,350/s: one row per variant.
    expect(rows).toHaveLength(2);
    const [retries, none] = rows as [string, string];
    expect(retries).toContain('|retries|');
    // recovered 1 of 2, not "0.5 ± 6"; success rates 0.99 and 0.4 give a t interval past 1, shown cut, as a range.
    expect(retries).toContain('|1 of 2 runs|');
    expect(retries).toContain(`|${formatRange(0, 1)}|`);
    expect(none).toContain('|0 of 2 runs|');
    expect(table).not.toMatch(/± 6/);
    // Every shown interval over 2 runs is marked, and the mark is explained under the table and in the charts' captions.
    expect(table.split(`<span class="few">${FEW_RUNS_MARK}</span>`).length - 1).toBeGreaterThan(0);
    expect(html).toContain(`${FEW_RUNS_MARK} The 95% interval ${fewRunsText(2)}.`);
    expect(html).toContain(`Each 95% interval drawn ${fewRunsText(2)}.`);
  });

  it('keeps the bands of a summary written with unbounded intervals within range', () => {
    const old = cell({ variant: 'a', params: { 'workload.rate': 1350 }, n: 2, metrics: { successRate: [0.7, -2.1, 3.5], amplification: [1.9, -7, 11], 'windows.after.recovered': [0.5, -5.9, 6.9] } });
    const model = buildReportModel(summary([old]), runInfo(null));
    const m = model.parts[0]?.cells[0]?.metrics ?? {};
    expect(m.successRate?.ci95).toEqual([0, 1]);
    expect(m.amplification?.ci95).toEqual([0, 11]);
    expect(m['windows.after.recovered']?.ci95).toEqual([0, 1]);
    expect(m.successRate?.mean).toBe(0.7);
  });
});
