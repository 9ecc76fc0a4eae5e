import { describe, expect, it } from 'vitest';
import { buildCharts, buildReportModel } from '../../src/report/index.js';
import { focusNote, seriesDemandEndMs, seriesFocus, timeSeriesSpec } from '../../src/report/specs/timeSeries.js';
import { variantColors } from '../../src/report/colors.js';
import { cell, runInfo, scenario, series, summary } from './helpers.js';

const open60s = scenario({ workload: { kind: 'open', rate: { kind: 'steady', ratePerSec: 900 }, durationMs: 60_000, clients: 1, method: 'GET', permanentErrorFraction: 0 } });
/** `bins` 1 s bins: first tries for the first 60, operations ending in every bin (a long drain). */
const draining = (bins: number) => series(bins, 1000, (i) => (i < 60 ? 900 : 0));
function endingIn(s: ReturnType<typeof series>, lastBin: number) {
  return { ...s, successes: s.successes.map((_, i) => (i <= lastBin ? 1 : 0)) };
}

describe('time series focused on where things happen', () => {
  it('an open loop that drains for 940 s after 60 s of demand is cut at 66 s, and says so', () => {
    const s = endingIn(draining(1000), 999);
    expect(seriesDemandEndMs(open60s, s)).toBe(60_000);
    const focus = seriesFocus([{ series: s, demandEndMs: 60_000 }]);
    expect(focus).toEqual({ demandEndMs: 60_000, cutMs: 66_000, endMs: 1_000_000 });
    expect(focusNote(focus as NonNullable<typeof focus>)).toBe('The drain from 66 s to 16.7 min is not shown (the demand ended at 60 s).');
    const spec = timeSeriesSpec({ runs: [{ label: 'a', variant: 'a', series: s }], windows: [{ fromMs: 20_000, toMs: 500_000, label: 'dip', kind: 'capacity' }], colors: variantColors(['a']), focus }) as Record<string, any>;
    const rows = spec.datasets.series as Array<{ t: number }>;
    // 66 bins and the row that ends the last step; 1 s bins stay 1 s bins (no merging for the drain).
    expect(rows.length).toBe(67);
    expect(Math.max(...rows.map((r) => r.t))).toBe(66);
    expect(spec.vconcat[0].layer[1].encoding.x.scale.domain).toEqual([0, 66]);
    expect(spec.datasets.windows).toEqual([{ from: 20, to: 66, label: 'dip', shade: 'trigger window' }]);
  });

  it('a drain no longer than the demand is not cut', () => {
    const s = endingIn(draining(120), 119);
    expect(seriesFocus([{ series: s, demandEndMs: 60_000 }])).toBeNull();
    const spec = timeSeriesSpec({ runs: [{ label: 'a', variant: 'a', series: s }], windows: [], colors: variantColors(['a']), focus: null }) as Record<string, any>;
    expect(spec.vconcat[0].layer[0].encoding.x.scale.domain).toEqual([0, 120]);
  });

  it('a burst: its demand lasts until its last operation ended, read from the series', () => {
    const burst = scenario({ workload: { kind: 'burst', clients: 10, startMs: 0, method: 'GET', permanentErrorFraction: 0 } });
    // 100 ms bins; operations end in bins 0-9 (the last by 1 s); the server works for nobody until 10 s.
    const s = endingIn(series(100, 100), 9);
    expect(seriesDemandEndMs(burst, s)).toBe(1000);
    expect(seriesFocus([{ series: s, demandEndMs: 1000 }])).toEqual({ demandEndMs: 1000, cutMs: 1100, endMs: 10_000 });
    // Several runs: the latest demand decides, and a run without a scenario leaves the chart whole.
    expect(seriesFocus([{ series: s, demandEndMs: 1000 }, { series: s, demandEndMs: 4000 }])).toEqual({ demandEndMs: 4000, cutMs: 4400, endMs: 10_000 });
    expect(seriesDemandEndMs(null, s)).toBeNull();
    expect(seriesFocus([{ series: s, demandEndMs: 1000 }, { series: s, demandEndMs: null }])).toBeNull();
  });

  it('the chart of a report cuts the drain and its caption says what is not shown', () => {
    const c = cell({ scenario: open60s, series: endingIn(draining(1000), 999) });
    const charts = buildCharts(buildReportModel(summary([c]), runInfo(null))).filter((x) => x.kind === 'series');
    expect(charts.length).toBe(1);
    expect(charts[0]?.caption).toMatch(/ The drain from 66 s to 16\.7 min is not shown \(the demand ended at 60 s\)\.$/);
    const short = cell({ scenario: open60s, series: endingIn(draining(100), 99) });
    const whole = buildCharts(buildReportModel(summary([short]), runInfo(null))).filter((x) => x.kind === 'series');
    expect(whole[0]?.caption).not.toMatch(/not shown/);
  });
});
