import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import { flushMarks } from '../../src/report/interventionMarks.js';
import { buildReportModel } from '../../src/report/reportModel.js';
import { buildCharts } from '../../src/report/buildCharts.js';
import { cacheSeries } from '../../src/report/selectCharts.js';
import { flattenSeries, timeSeriesSpec, withHitRatios } from '../../src/report/specs/timeSeries.js';
import { variantColors } from '../../src/report/colors.js';
import type { ReportCell, VlSpec } from '../../src/report/types.js';
import { graphSummary } from '../../src/sweep/runPlan.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';
import { cell, compileLog, runInfo, summary } from './helpers.js';

type Row = Record<string, unknown>;
interface View {
  layer: Array<{ mark: { type: string }; data?: unknown; encoding: Record<string, { field?: string; title?: unknown; scale?: unknown }> }>;
}

/**
 * app calls db through a cache of one key (K = 1), warm, flushed at 20 ms; one client, zero hops and
 * service times, 15 ms between operations: operations at 0, 15, 30 and 45 ms, in the 10 ms bins 0,
 * 1, 3 and 4 (bin 2 has none). Hits at 0 and 15, a miss at 30 (after the flush; it fills), a hit at
 * 45. At 40 ms an operator warms the cache (it already holds the key).
 */
function scriptedCell(): ReportCell {
  const r = resolveScenario({
    workload: { kind: 'closed', clients: 1, thinkMs: 15, durationMs: 50, entry: { service: 'app' } },
    stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
    network: { hopMs: 0 },
    metrics: { timeSeriesBinMs: 10 },
    services: {
      app: {
        fleet: { kind: 'server', concurrency: 10, serviceMs: 0 },
        endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'to-db', policy: { maxAttempts: 1 } }], cache: { capacity: 1, keys: 1, zipf: 0, hitLatencyMs: 0, flushAtMs: [20] } }] }] } },
      },
      db: { fleet: { kind: 'script', script: ['200:0'] }, endpoints: { q: {} } },
    },
    interventions: [{ atMs: 40, set: { 'services.app.endpoints.get.steps.0.calls.0.cache.warm': 1 } }],
  });
  if (!r.ok) throw new Error(r.errors.join('\n'));
  const results = new Model(r.scenario, { seed: 1 }).run();
  const c = cell({ scenario: r.scenario, series: results.timeSeries as never });
  c.graph = graphSummary(results);
  return c;
}

/** The panel of a series chart whose y axis is titled `title` (its line layer). */
function panel(spec: VlSpec, title: RegExp): View['layer'][number] {
  const views = spec.vconcat as View[];
  const line = views.map((v) => v.layer.find((l) => l.mark.type === 'line')).find((l) => title.test(String(l?.encoding.y?.title)));
  if (!line) throw new Error(`no panel ${title}`);
  return line;
}

describe("a cache's hit ratio on the time series, its flushes and the interventions marked", () => {
  const c = scriptedCell();

  it("keeps each cache's lookups and hits per bin of the typical run in the summary, named as the chart names them", () => {
    expect(c.graph?.services.find((s) => s.service === 'app')?.caches).toEqual({ db: { lookups: [1, 1, 0, 1, 1], hits: [1, 1, 0, 0, 1] } });
    expect(c.graph?.services.find((s) => s.service === 'db')?.caches).toBeUndefined();
    expect(cacheSeries(c)).toEqual([{ name: 'db at app', lookups: [1, 1, 0, 1, 1], hits: [1, 1, 0, 0, 1] }]);
  });

  it('hits / lookups per bin, a bin without lookups left out; merged bins add their counts before dividing', () => {
    const flat = withHitRatios(flattenSeries(c.timeSeries.typical as never, cacheSeries(c)));
    expect(flat.values['hitRatio:db at app']).toEqual([1, 1, NaN, 0, 1]);
    const spec = timeSeriesSpec({ runs: [{ label: 'default', variant: 'default', series: c.timeSeries.typical as never, caches: cacheSeries(c) }], windows: [], colors: variantColors(['default']), panels: ['hitRatio'] });
    const line = panel(spec, /^Hit ratio of db at app/);
    const field = line.encoding.y?.field as string;
    const rows = (spec.datasets as { series: Row[] }).series;
    // One row per bin and one ending the last step; bin 2 has no value.
    expect(rows.map((r) => [r.t, r[field]])).toEqual([[0, 1], [10, 1], [20, undefined], [30, 0], [40, 1], [50, 1]]);
    expect(line.encoding.y?.scale).toEqual({ domain: [0, 1] });
    // Two bins merged into one of 20 ms: (1 + 1) / 2, (0 + 0) / (0 + 1), 1 / 1.
    const merged = timeSeriesSpec({ runs: [{ label: 'default', variant: 'default', series: c.timeSeries.typical as never, caches: cacheSeries(c) }], windows: [], colors: variantColors(['default']), panels: ['hitRatio'], maxBins: 3 });
    const mf = panel(merged, /^Hit ratio/).encoding.y?.field as string;
    expect((merged.datasets as { series: Row[] }).series.map((r) => [r.t, r[mf]])).toEqual([[0, 1], [20, 0], [40, 1], [60, 1]]);
  });

  it('the report picks the hit ratio for a graph with a cache, after goodput, and marks the flush and the intervention at their moments', () => {
    expect(flushMarks(c.scenario as never)).toEqual([{ atMs: 20, label: '20 ms: cache db at app flushed' }]);
    const charts = buildCharts(buildReportModel(summary([c]), runInfo()));
    const chart = charts.find((x) => x.kind === 'series');
    if (!chart) throw new Error('no series chart');
    const views = chart.spec.vconcat as View[];
    const titles = views.map((v) => String(v.layer.find((l) => l.mark.type === 'line')?.encoding.y?.title));
    expect(titles.findIndex((t) => t.startsWith('Hit ratio'))).toBe(titles.findIndex((t) => t.startsWith('Goodput')) + 1);
    expect((chart.spec.datasets as Record<string, unknown>).interventions).toEqual([
      { at: 20, label: '20 ms: cache db at app flushed' },
      { at: 40, label: '40 ms: cache db at app warmed with its 1 most popular keys' },
    ]);
    for (const v of views) {
      const rule = v.layer.find((l) => l.mark.type === 'rule');
      expect(rule?.data).toEqual({ name: 'interventions' });
      expect(rule?.encoding.stroke).toMatchObject({ field: 'label', title: 'Flush or intervention' });
    }
    expect(chart.caption).toContain('Dashed vertical rules mark the cache flushes and the timed interventions (their legend says what each does).');
    expect(compileLog(chart.spec)).toEqual([]);
  });

  it('a series chart may name hitRatio in its panels; another name is refused with the names allowed, exit code 2', async () => {
    const dir = tempDir();
    const body = (panels: string[]) => ({
      name: 'panels',
      scenario: { workload: { kind: 'burst', clients: 2 }, stack: [{ name: 'client', policy: { maxAttempts: 2 } }], leaf: { kind: 'server', serviceMs: 5 } },
      report: { charts: [{ kind: 'series', panels }] },
    });
    const good = await cli(['validate', writeExperiment(dir, 'good.json', body(['goodput', 'hitRatio', 'budget:client:sre-ratio', 'goodputPerSec']))]);
    expect(good.code).toBe(0);
    const file = writeExperiment(dir, 'bad.json', body(['goodput', 'hit-ratio']));
    const bad = await cli(['run', file, '--out', dir]);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(
      `error: ${file}: report.charts.0.panels.1 must be one of arrivals, goodput, queue, inFlight, busy, successes, failures, writes, backends, hitRatio, budget:<layer>:<kind>, arrivalsFirst, arrivalsRetry, goodputPerSec, fleet.healthyBackends, fleet.downBackends, fleet.ejectedBackends (got "hit-ratio")\n`,
    );
  });
});
