import { describe, expect, it } from 'vitest';
import { formatSingleResults, printRunSummary } from '../../src/cli/printResults.js';
import { resolveScenario } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import { busiestEdge, busiestEdgeOfCell, busiestEdgeOfPart } from '../../src/report/busiestEdge.js';
import { findingsTable } from '../../src/report/findings.js';
import { isMetricName, metricInfo, metricSubjects } from '../../src/report/metrics.js';
import { buildReportModel } from '../../src/report/reportModel.js';
import type { ReportCell } from '../../src/report/types.js';
import type { CellSummary } from '../../src/sweep/runPlan.js';
import type { SweepResult } from '../../src/sweep/runSweep.js';
import { cell, runInfo, scenario, summary } from './helpers.js';

const graphScenario = (names: string[]) => ({ ...scenario(), graph: { services: names.map((name) => ({ name, fleet: { kind: 'server' } })), entries: [], bulkheads: [] } }) as never;

/** A graph cell whose calls concentrate on api -> db (`perOp` calls per operation), one per entry; with a window `outage` where they concentrate on api -> cache. */
function graphCell(variant: string, perOp: number): ReportCell {
  return cell({
    variant,
    scenario: graphScenario(['api', 'cache', 'db']),
    metrics: {
      'operations.offered': 100,
      'operations.succeeded': 90,
      leafCalls: perOp * 100 + 200,
      amplification: perOp + 2,
      'latencyMs.p99': 200,
      'edges.workload->api.amplification': 1,
      'edges.workload->api.calls': 100,
      'edges.workload->api.retries': 0,
      'edges.api->cache.amplification': 2,
      'edges.api->cache.calls': 200,
      'edges.api->cache.retries': 100,
      'edges.api->db.amplification': perOp,
      'edges.api->db.calls': perOp * 100,
      'edges.api->db.retries': perOp * 50,
      'windows.outage.edges.api->cache.amplification': 9,
      'windows.outage.edges.api->cache.calls': 90,
      'windows.outage.edges.api->cache.retries': 81,
      'windows.outage.edges.api->db.amplification': 1,
      'windows.outage.edges.api->db.calls': 10,
      'windows.outage.edges.api->db.retries': 0,
    },
  });
}

describe('the busiest edge of a graph cell (the most calls per operation)', () => {
  it('is the edge with the most calls per operation, overall or in a window, with the share of retries', () => {
    const c = graphCell('retries', 6);
    expect(busiestEdgeOfCell(c)).toEqual({ edge: 'api->db', caller: 'api', callee: 'db', perOperation: 6, retryShare: 0.5, workloads: [] });
    expect(busiestEdgeOfCell(c, 'outage')).toEqual({ edge: 'api->cache', caller: 'api', callee: 'cache', perOperation: 9, retryShare: 0.9, workloads: [] });
    expect(busiestEdgeOfCell(cell({ metrics: { amplification: 3 } }))).toBeNull();
    // Among equals, the first met.
    expect(busiestEdge(['edges.a->b.amplification', 'edges.b->c.amplification'], () => 2)?.edge).toBe('a->b');
  });

  it('of several cells is the busiest of their busiest edges', () => {
    expect(busiestEdgeOfPart([graphCell('a', 1.5), graphCell('b', 3)])).toBe('api->db');
    expect(busiestEdgeOfPart([graphCell('a', 1.5)])).toBe('api->cache');
    expect(busiestEdgeOfPart([cell({ metrics: { amplification: 3 } })])).toBeNull();
  });
});

describe('the findings table of a graph', () => {
  it('shows the leaf calls per operation and the calls per operation on the busiest edge, not only the entry edge', () => {
    const model = buildReportModel(summary([graphCell('retries', 6), graphCell('budget', 1.5)]), runInfo());
    const t = findingsTable(model.parts[0]!);
    const metrics = t.columns.map((c) => c.metric);
    expect(metrics.slice(0, 3)).toEqual(['leafCalls', 'amplification', 'edges.api->db.amplification']);
    expect(t.columns[2]).toMatchObject({ title: 'Calls on api -> db', unit: 'calls per operation' });
    expect(t.rows.map((r) => [r.label, r.values[1]?.mean, r.values[2]?.mean])).toEqual([
      ['retries', 8, 6],
      ['budget', 3.5, 1.5],
    ]);
  });

  it('of a stack has no edge column', () => {
    const model = buildReportModel(summary([cell({ metrics: { leafCalls: 10, amplification: 1 } })]), runInfo());
    expect(findingsTable(model.parts[0]!).columns.map((c) => c.metric)).toEqual(['leafCalls', 'amplification']);
  });
});

/** The table's rows (up to the blank line before its legend), split into columns. */
function rows(text: string): string[][] {
  const lines = text.split('\n');
  const end = lines.indexOf('');
  return lines.slice(0, end < 0 ? undefined : end).map((l) => l.trim().split(/\s{2,}/));
}

describe('the console table printed by run for a graph', () => {
  it("shows each cell's busiest edge and its calls per operation, and says what a graph's leaf calls are", () => {
    const cells = [graphCell('retries', 6), graphCell('budget', 1.5)].map((c): CellSummary => ({ ...c, samples: { replications: [], values: {} } }) as unknown as CellSummary);
    const run: SweepResult = { summary: { experiment: 'e', description: '', seed: 1, version: '0', cells }, single: null, interrupted: false, total: 0, done: 0, errored: [] };
    const text = printRunSummary(run, { variants: { retries: {}, budget: {} } });
    const [header, , a, b] = rows(text);
    const col = (name: string) => (header as string[]).indexOf(name);
    expect(col('busiest edge')).toBe(col('amplif.') + 1);
    expect([(a as string[])[0], (a as string[])[col('busiest edge')]]).toEqual(['retries', 'api -> db: 6']);
    expect([(b as string[])[0], (b as string[])[col('busiest edge')]]).toEqual(['budget', 'api -> cache: 2']);
    expect(text).toContain("\nA service graph's leaf calls are the calls arriving at its services that make no calls (its deepest tier); busiest edge: the one with the most calls per operation.");
  });

  it('of a single graph run shows the calls at its leaf service and its busiest edge', () => {
    const tries = (n: number) => ({ maxAttempts: n, backoff: { kind: 'none' } });
    const r = resolveScenario({
      workload: { kind: 'burst', clients: 10, entry: { service: 'fe' } },
      stack: [{ name: 'app', policy: tries(2) }],
      network: { hopMs: 0 },
      services: {
        fe: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { page: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'fe-db', policy: tries(3) }] }] }] } } },
        db: { fleet: { kind: 'script', script: ['503:1'] }, endpoints: { get: {} } },
      },
    });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    const text = formatSingleResults(new Model(r.scenario, { seed: 1 }).run());
    const line = (name: string) => rows(text).find((row) => row[0] === name)?.[1];
    // 2 tries at fe x 3 at db: 6 calls at db per operation.
    expect(line('leaf calls')).toBe('60');
    expect(line('amplification (leaf calls / operation)')).toBe('6');
    expect(line('busiest edge (calls / operation)')).toBe('fe -> db: 6');
    expect(text).toContain("\nA service graph's leaf calls are the calls arriving at its services that make no calls");
  });
});

describe("the names of a graph's edges in a metric window", () => {
  it('have titles, units and subjects of their own, apart from the window\'s own measures', () => {
    expect(isMetricName('windows.outage.edges.api->db.calls')).toBe(true);
    expect(metricInfo('windows.outage.edges.api->db.amplification')).toMatchObject({ title: 'Calls on api -> db in window outage', unit: 'calls per operation' });
    expect(metricInfo('windows.outage.edges.api->db.retries')).toMatchObject({ title: 'Retries on api -> db in window outage', unit: 'calls' });
    expect(metricInfo('windows.outage.edges.api->db.calls')).toMatchObject({ title: 'Calls on api -> db in window outage', unit: 'calls' });
    expect(metricSubjects('windows.outage.edges.api->db.calls')).toEqual([
      { kind: 'window', name: 'outage' },
      { kind: 'edge', caller: 'api', callee: 'db' },
    ]);
    expect(metricInfo('windows.outage.amplification')).toMatchObject({ title: 'Amplification in window outage', unit: 'leaf calls per operation' });
  });
});
