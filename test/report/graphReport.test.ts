import { describe, expect, it } from 'vitest';
import type { ServiceSeries } from '../../src/model/Measurements.js';
import { cascadeFindings, cascadeSentence } from '../../src/report/findings.js';
import { buildReportModel } from '../../src/report/reportModel.js';
import { buildCharts } from '../../src/report/buildCharts.js';
import { chooseCharts } from '../../src/report/selectCharts.js';
import { cascadeSpec } from '../../src/report/specs/cascade.js';
import { serviceSeriesSpec } from '../../src/report/specs/serviceSeries.js';
import type { ReportCell } from '../../src/report/types.js';
import { cell, compileLog, runInfo, scenario, summary } from './helpers.js';

type Row = Record<string, any>;

const graphScenario = (names: string[]) => ({ ...scenario(), graph: { services: names.map((name) => ({ name, fleet: { kind: 'server' } })), entries: [], bulkheads: [] } }) as never;

/** A service's series over n bins: zeros but for what is given. */
function ts(n: number, given: Partial<ServiceSeries>): ServiceSeries {
  const z = () => new Array<number>(n).fill(0);
  const names = ['arrivalsFirst', 'arrivalsRetry', 'answered', 'failed', 'refusedInFlight', 'served', 'shed', 'dropped', 'refused', 'faulted', 'rejected', 'lost', 'crashes', 'wastedWorkMs', 'inFlight', 'queue', 'busy'];
  return { ...(Object.fromEntries(names.map((k) => [k, z()])) as unknown as ServiceSeries), ...given };
}

/** A graph cell: fe calls db; db in trouble at 10 s in all 4 runs and recovered in 1, fe at 12 s in 3 of them. */
function graphCell(variant: string): ReportCell {
  const c = cell({
    variant,
    n: 4,
    scenario: graphScenario(['fe', 'db']),
    metrics: {
      'edges.workload->fe.amplification': 1,
      'edges.workload->fe.calls': 100,
      'edges.workload->fe.retries': 0,
      'edges.fe->db.amplification': 6,
      'edges.fe->db.calls': 600,
      'edges.fe->db.retries': 450,
      'cascade.db.troubleAtMs': 10_000,
      'cascade.fe.troubleAtMs': 12_000,
    },
  });
  c.metrics['cascade.fe.troubleAtMs']!.n = 3;
  c.metrics['cascade.db.recoveredAtMs'] = { n: 1, mean: 50_000, sd: 0, ci95: [50_000, 50_000] };
  c.metrics['cascade.fe.recoveredAtMs'] = { n: 3, mean: 50_000, sd: 0, ci95: [50_000, 50_000] };
  c.graph = {
    services: [
      { service: 'fe', timeSeries: ts(3, { arrivalsFirst: [1, 2, 3], answered: [1, 2, 0], failed: [0, 1, 0], utilization: [0.5, 1, 0] }) },
      { service: 'db', timeSeries: ts(3, { arrivalsFirst: [6, 6, 6], arrivalsRetry: [0, 4, 0], answered: [6, 10, 6], failed: [0, 10, 0] }) },
    ],
    cascade: [
      { service: 'db', event: 'trouble', atMs: 1000 },
      { service: 'fe', event: 'trouble', atMs: 1000 },
      { service: 'db', event: 'crashed', atMs: 1000 },
      { service: 'fe', event: 'recovered', atMs: 2000 },
    ],
  };
  return c;
}

describe('reports of service graphs', () => {
  it('says which service got in trouble first, which did not recover, and where the calls concentrate', () => {
    expect(cascadeSentence(graphCell('retries'), 'retries')).toBe(
      'retries: db (10 s) got in trouble first, then fe (12 s in 3 of 4 runs); db (in 3 of 4 runs) was still in trouble at the end; the calls concentrate on fe -> db (6 per operation, 75% of them retries).',
    );
    const calm = cell({ scenario: graphScenario(['fe']), metrics: { 'edges.workload->fe.amplification': 1 } });
    expect(cascadeSentence(calm, 'calm')).toBe('calm: no service got in trouble; the calls concentrate on workload -> fe (1 per operation).');
    expect(cascadeSentence(cell({}), 'not a graph')).toBeNull();
  });

  it("with several workloads, says each workload's own calls per operation on the busiest edge and its own success rate", () => {
    const sc = { ...(graphScenario(['api', 'reports', 'db']) as object), graph: { services: ['api', 'reports', 'db'].map((name) => ({ name })), workloads: [{ name: 'web' }, { name: 'batch' }], entries: [], bulkheads: [] } };
    const metrics = {
      'edges.web->api.amplification': 0.5,
      'edges.batch->reports.amplification': 1,
      'edges.api->db.amplification': 0.6,
      'edges.api->db.workloads.web.amplification': 1.2,
      'edges.api->db.workloads.batch.amplification': 0,
      // The most calls per operation of all operations is api -> db's 0.6 against 0.55 here, but a batch operation makes 4.4.
      'edges.reports->db.amplification': 0.55,
      'edges.reports->db.calls': 1000,
      'edges.reports->db.retries': 900,
      'edges.reports->db.workloads.web.amplification': 0,
      'edges.reports->db.workloads.batch.amplification': 4.4,
      'workloads.web.successRate': 0.40123,
      'workloads.batch.successRate': 0.1,
      'cascade.db.troubleAtMs': 60_000,
    };
    const c = cell({ variant: 'noisy', n: 1, scenario: sc as never, metrics });
    c.metrics['cascade.db.recoveredAtMs'] = { n: 1, mean: 80_000, sd: 0, ci95: [80_000, 80_000] };
    expect(cascadeSentence(c, 'noisy')).toBe(
      'noisy: db (60 s) got in trouble first; every one got out of trouble; the calls concentrate on reports -> db (none per web operation and 4.4 per batch operation, 90% of them retries); web succeeds in 40.12% of its operations and batch 10%.',
    );
  });

  it('draws the per-service series: utilisation where measured, error rate where answered, arrivals with retries dashed', () => {
    const c = graphCell('retries');
    const spec = serviceSeriesSpec({ services: c.graph!.services, binMs: 1000, windows: [{ fromMs: 1000, toMs: 2000, label: 'db: capacity dip', kind: 'capacity' }] });
    const panels = spec.vconcat as Array<{ layer: Array<{ data: { values: Row[] } }> }>;
    expect(panels).toHaveLength(3);
    const rows = (k: number) => panels[k]!.layer[1]!.data.values;
    expect(rows(0).map((r) => [r.service, r.t, r.value])).toEqual([['fe', 0, 0.5], ['fe', 1, 1], ['fe', 2, 0]]);
    // Bins without answers have no error rate.
    expect(rows(1).map((r) => [r.service, r.t, r.value])).toEqual([['fe', 0, 0], ['fe', 1, 0.5], ['db', 0, 0], ['db', 1, 1], ['db', 2, 0]]);
    expect(rows(2).filter((r) => r.service === 'db' && r.kind === 'retries').map((r) => r.value)).toEqual([0, 4, 0]);
    expect(panels[0]!.layer[0]!.data.values).toEqual([{ from: 1, to: 2, label: 'db: capacity dip' }]);
    expect(compileLog(spec)).toEqual([]);
  });

  it('draws the cascade timeline: a bar from trouble to recovery or the end, a tick at a crash', () => {
    const spec = cascadeSpec({ runs: [{ label: 'retries', events: graphCell('retries').graph!.cascade, endMs: 3000 }] });
    const [bars, ticks] = spec.layer as Array<{ data: { values: Row[] } }>;
    expect(bars!.data.values).toEqual([
      { row: 'retries: db', run: 'retries', service: 'db', from: 1, to: 3, status: 'in trouble at the end' },
      { row: 'retries: fe', run: 'retries', service: 'fe', from: 1, to: 2, status: 'recovered' },
    ]);
    expect(ticks!.data.values).toEqual([{ row: 'retries: db', run: 'retries', service: 'db', at: 1 }]);
    expect(compileLog(spec)).toEqual([]);
  });

  it('picks the cascade timeline and per-service charts for graph parts, and lists the cascade findings', () => {
    const model = buildReportModel(summary([graphCell('retries'), graphCell('budget')]), runInfo());
    const part = model.parts[0]!;
    const kinds = chooseCharts(part).map((r) => `${r.kind}:${(r.cells ?? []).map((c) => c.variant).join('+')}`);
    expect(kinds.filter((k) => /^(graph|cascade|services)/.test(k))).toEqual(['graph:retries', 'graph:budget', 'cascade:retries+budget', 'services:retries', 'services:budget']);
    expect(cascadeFindings(part)).toHaveLength(2);
    for (const c of buildCharts(model).filter((c) => c.kind === 'services' || c.kind === 'cascade')) expect(compileLog(c.spec)).toEqual([]);
    // Not for other parts.
    const plain = buildReportModel(summary([cell({ variant: 'a' }), cell({ variant: 'b' })]), runInfo());
    expect(chooseCharts(plain.parts[0]!).some((r) => r.kind === 'cascade' || r.kind === 'services')).toBe(false);
    expect(cascadeFindings(plain.parts[0]!)).toEqual([]);
  });
});
