import { describe, expect, it } from 'vitest';
import type { ServiceSeries } from '../../src/model/Measurements.js';
import { buildReport, type ReportCell } from '../../src/report/index.js';
import { MAX_CHART_BINS } from '../../src/report/specs/common.js';
import { serviceSeriesSpec } from '../../src/report/specs/serviceSeries.js';
import { cell, runInfo, scenario, series, summary } from './helpers.js';

type Row = { service: string; t: number; value: number; kind?: string };

/** A service's series over n bins, each count given as a function of the bin. */
function ts(n: number, given: Partial<Record<keyof ServiceSeries, (i: number) => number>>): ServiceSeries {
  const names = ['arrivalsFirst', 'arrivalsRetry', 'answered', 'failed', 'refusedInFlight', 'served', 'shed', 'dropped', 'refused', 'faulted', 'rejected', 'lost', 'crashes', 'wastedWorkMs', 'inFlight', 'queue', 'busy', 'utilization'] as const;
  return Object.fromEntries(names.map((k) => [k, Array.from({ length: n }, (_, i) => given[k]?.(i) ?? 0)])) as unknown as ServiceSeries;
}

/** A graph cell whose typical run has `bins` bins of 1 ms, in its series and each of its three services'. */
function longGraphCell(bins: number): ReportCell {
  const sc = { ...scenario(), graph: { services: ['fe', 'api', 'db'].map((name) => ({ name, fleet: { kind: 'server' } })), entries: [], bulkheads: [] } } as never;
  const c = cell({ scenario: sc, series: series(bins, 1, (i) => i % 7, (i) => i % 3), metrics: { 'edges.workload->fe.amplification': 1, 'edges.fe->api.amplification': 2, 'edges.api->db.amplification': 4 } });
  c.graph = {
    services: ['fe', 'api', 'db'].map((service) => ({
      service,
      timeSeries: ts(bins, { arrivalsFirst: (i) => i % 5, arrivalsRetry: (i) => i % 2, answered: () => 4, failed: (i) => i % 3, utilization: (i) => (i % 10) / 10 }),
    })),
    cascade: [],
  };
  return c;
}

describe('a report stays about a megabyte however many bins its runs have', () => {
  it('the report of a graph run of 100,000 bins per series, its bundles shared: under a megabyte', () => {
    const built = buildReport(summary([longGraphCell(100_000)]), runInfo(), { mode: 'shared', base: '../assets/' });
    expect(built.charts.some((c) => c.kind === 'services')).toBe(true);
    expect(built.html.length).toBeLessThan(1e6);
  });

  it('the per-service chart draws at most MAX_CHART_BINS bins a line, merged exactly', () => {
    // 4,000 bins of 10 ms: 5 to a merged bin of 50 ms.
    const t = ts(4000, { arrivalsFirst: (i) => i % 5, arrivalsRetry: () => 1, answered: () => 4, failed: (i) => (i % 5 === 0 ? 4 : 0), utilization: (i) => (i % 5) / 4 });
    const spec = serviceSeriesSpec({ services: [{ service: 'db', timeSeries: t }], binMs: 10, windows: [] });
    const rowsOf = (panel: number) => ((spec.vconcat as Array<{ layer: Array<{ data: { values: Row[] } }> }>)[panel]!.layer.at(-1)!.data.values);
    const [util, errors, arrivals] = [rowsOf(0), rowsOf(1), rowsOf(2)];
    expect(util.length).toBe(MAX_CHART_BINS);
    expect(errors.length).toBe(MAX_CHART_BINS);
    expect(arrivals.length).toBe(2 * MAX_CHART_BINS);
    // Each merged bin: utilisation (0 + 0.25 + 0.5 + 0.75 + 1) / 5, errors 4 of 20 answers, first tries 10 in 50 ms = 200 a second, retries 5 = 100 a second.
    expect(util[1]).toEqual({ service: 'db', t: 0.05, value: 0.5 });
    expect(errors[1]).toEqual({ service: 'db', t: 0.05, value: 0.2 });
    expect(arrivals.slice(2, 4)).toEqual([
      { service: 'db', t: 0.05, value: 200, kind: 'first tries' },
      { service: 'db', t: 0.05, value: 100, kind: 'retries' },
    ]);
  });

  it('a run within MAX_CHART_BINS bins is drawn bin by bin', () => {
    const t = ts(10, { arrivalsFirst: (i) => i });
    const spec = serviceSeriesSpec({ services: [{ service: 'db', timeSeries: t }], binMs: 1000, windows: [] });
    const arrivals = (spec.vconcat as Array<{ layer: Array<{ data: { values: Row[] } }> }>).at(-1)!.layer.at(-1)!.data.values;
    expect(arrivals.filter((r) => r.kind === 'first tries').map((r) => r.value)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
