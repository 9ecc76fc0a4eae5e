import { describe, expect, it } from 'vitest';
import type { ReportCell } from '../../src/report/index.js';
import { buildReport } from '../../src/report/index.js';
import { cell, runInfo, scenario, summary } from './helpers.js';

/**
 * A cell of a service graph of `n` services, `a` calling `s1`, the others never called, whose
 * metrics count every read of a metric: an errored run (no metrics) and a finished one (the edges
 * and the services it measured).
 */
function graphCell(n: number, state: 'ok' | 'errored', reads: { n: number }): ReportCell {
  const services = [{ name: 'a' }, ...Array.from({ length: n - 1 }, (_, i) => ({ name: `s${i + 1}` }))];
  const sc = { ...scenario(), graph: { services, entries: [{ service: 'a', endpoint: 'get', weight: 1 }], bulkheads: [] } } as unknown as ReportCell['scenario'];
  const metrics: Record<string, number> = {};
  if (state === 'ok') {
    metrics['edges.workload->a.amplification'] = 1;
    metrics['edges.a->s1.amplification'] = 2;
    for (const s of services) metrics[`services.${s.name}.utilization`] = 0.5;
  }
  const c = cell({ scenario: sc, metrics, series: null });
  const counted = new Proxy(c.metrics, {
    get(target, key, receiver) {
      reads.n++;
      return Reflect.get(target, key, receiver);
    },
  });
  return state === 'ok' ? { ...c, metrics: counted } : { ...c, state, errors: ['replication 0: failed'], metrics: counted };
}

/** Metric reads of building the report of a graph of `n` services. */
function readsFor(n: number, state: 'ok' | 'errored'): number {
  const reads = { n: 0 };
  buildReport(summary([graphCell(n, state, reads)]), runInfo(), { mode: 'shared', base: '../assets/' });
  return reads.n;
}

describe('the report of a large service graph is built in time linear in its services', () => {
  for (const state of ['errored', 'ok'] as const) {
    it(`${state} run: twice the services, at most about twice the metric reads`, () => {
      const small = readsFor(300, state);
      const large = readsFor(600, state);
      // Reading every (caller, callee) pair would read 4x as many at twice the services.
      expect(large).toBeLessThanOrEqual(2.2 * small + 50);
    });
  }

  it('draws the edges the cell measured, and only those', () => {
    const reads = { n: 0 };
    const built = buildReport(summary([graphCell(300, 'ok', reads)]), runInfo(), { mode: 'shared', base: '../assets/' });
    const graph = built.charts.find((c) => c.kind === 'graph');
    const lines = (graph?.spec.layer as Array<{ data: { values: Array<{ caller: string; callee: string }> } }>)[0]?.data.values;
    expect(lines?.map((e) => `${e.caller}->${e.callee}`)).toEqual(['workload->a', 'a->s1']);
  });
});
