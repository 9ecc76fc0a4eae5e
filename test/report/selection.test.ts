import { describe, expect, it } from 'vitest';
import {
  buildCharts,
  buildReportModel,
  chooseCharts,
  compileSpec,
  findingLine,
  findingsTable,
  focusCells,
  metricTitle,
  paramTitle,
  parseReportHints,
  scenarioTriggerWindows,
} from '../../src/report/index.js';
import { cell, runInfo, scenario, series, summary, sweepCells } from './helpers.js';

function kinds(reqs: Array<{ kind: string; metric?: string; x?: string }>): string[] {
  return reqs.map((r) => [r.kind, r.metric, r.x].filter(Boolean).join(' '));
}

const occSource = {
  name: 'exp',
  variants: { none: {}, exponential: {}, 'full-jitter': {} },
  sweep: { grid: { 'workload.clients': [10, 20, 40, 1000] } },
};

describe('buildReportModel', () => {
  it('orders variants as the file lists them and sweep points by value, whatever the summary order', () => {
    const cells = sweepCells().reverse();
    const m = buildReportModel(summary(cells), runInfo({ ...occSource, variants: { 'full-jitter': {}, none: {}, exponential: {} } }));
    const part = m.parts[0]!;
    expect(part.variants).toEqual(['full-jitter', 'none', 'exponential']);
    expect(part.axes).toEqual(['workload.clients']);
    expect(part.axisValues['workload.clients']).toEqual([10, 20, 40, 1000]);
    expect(part.cells.slice(0, 3).map((c) => `${c.variant}@${String(c.params['workload.clients'])}`)).toEqual(['full-jitter@10', 'none@10', 'exponential@10']);
    expect([...m.colors.keys()]).toEqual(['full-jitter', 'none', 'exponential']);
  });

  it('keeps a non-numeric axis in the order the file gives', () => {
    const cells = ['time-seeded', 'shared', 'independent'].map((s) => cell({ params: { 'stack.0.seeding': s }, metrics: { leafCalls: 1 } }));
    const m = buildReportModel(summary(cells), runInfo({ sweep: { grid: { 'stack.0.seeding': ['independent', 'shared', 'time-seeded'] } } }));
    expect(m.parts[0]?.axisValues['stack.0.seeding']).toEqual(['independent', 'shared', 'time-seeded']);
  });

  it('focuses on every variant at the last sweep point, or on the hinted cells', () => {
    const m = buildReportModel(summary(sweepCells()), runInfo(occSource));
    expect(focusCells(m.parts[0]!).map((c) => [c.variant, c.params['workload.clients']])).toEqual([
      ['none', 1000],
      ['exponential', 1000],
      ['full-jitter', 1000],
    ]);
    const hinted = buildReportModel(summary(sweepCells()), runInfo({ ...occSource, report: { cells: [{ params: { 'workload.clients': 20 } }] } }));
    expect(focusCells(hinted.parts[0]!).map((c) => c.params['workload.clients'])).toEqual([20, 20, 20]);
  });

  it('reports invalid hints with their paths and ignores them', () => {
    const m = buildReportModel(summary(sweepCells()), runInfo({ ...occSource, report: { charts: [{ kind: 'metric', metric: 'x' }] } }));
    expect(m.hintErrors).toHaveLength(1);
    expect(m.hintErrors[0]).toMatch(/^report\.charts\.0\.metric must be one of amplification, leafCalls, .* \(got "x"\)$/);
    expect(m.parts[0]?.hints.charts).toBeUndefined();
  });
});

describe('chooseCharts: charts from what the experiment varies and measures', () => {
  it('an OCC sweep with variants: writes and completion time against the axis, Pareto, series, arrivals per bin, layers', () => {
    const m = buildReportModel(summary(sweepCells()), runInfo(occSource));
    expect(kinds(chooseCharts(m.parts[0]!))).toEqual([
      'metric writes workload.clients',
      'metric completionTimeMs workload.clients',
      'pareto',
      'series',
      'clustering clustering.1ms.peakToMean',
      'amplification',
    ]);
  });

  it('an open workload: amplification, p99 latency, goodput and failures against the axis, then give-ups when operations failed', () => {
    const open = scenario({ workload: { kind: 'open', rate: { kind: 'steady', ratePerSec: 10 }, durationMs: 1000, clients: 1 } });
    const cells = [10, 100].flatMap((rate) =>
      ['a', 'b'].map((variant) =>
        cell({
          variant,
          params: { 'workload.rate': rate },
          scenario: open,
          metrics: { amplification: 1.5, 'latencyMs.p99': 100, goodputPerSec: rate, 'operations.failed': 3, 'operations.offered': 100, leafCalls: 150, 'attempts.client.first': 100, 'attempts.client.retries': 50, 'giveUps.deadline': 3, 'giveUps.success': 97 },
        }),
      ),
    );
    const m = buildReportModel(summary(cells), runInfo({ variants: { a: {}, b: {} } }));
    expect(kinds(chooseCharts(m.parts[0]!))).toEqual([
      'metric amplification workload.rate',
      'metric latencyMs.p99 workload.rate',
      'metric goodputPerSec workload.rate',
      'metric operations.failed workload.rate',
      'pareto',
      'series',
      'amplification',
      'giveUps',
    ]);
  });

  it('a swept timer tick adds peak-to-mean against it, with the runs along that axis', () => {
    const cells = [0, 10, 50].map((t) => cell({ params: { 'stack.0.policy.tickMs': t }, metrics: { leafCalls: 100, completionTimeMs: 50, 'clustering.1ms.peakToMean': 3 + t, 'attempts.client.first': 10, 'attempts.client.retries': 0 } }));
    const reqs = chooseCharts(buildReportModel(summary(cells), runInfo(null)).parts[0]!);
    const clustering = reqs.find((r) => r.kind === 'clustering');
    expect(clustering).toMatchObject({ metric: 'clustering.1ms.peakToMean', x: 'stack.0.policy.tickMs' });
    expect(clustering?.cells?.map((c) => c.params['stack.0.policy.tickMs'])).toEqual([0, 10, 50]);
  });

  it('a single run without retries: only its time series', () => {
    const one = cell({ scenario: scenario({ workload: { kind: 'open', rate: { kind: 'steady', ratePerSec: 80 } } }), metrics: { amplification: 1, 'latencyMs.p99': 100, goodputPerSec: 80, 'operations.offered': 10, 'attempts.client.first': 10, 'attempts.client.retries': 0, 'giveUps.success': 10 } });
    expect(kinds(chooseCharts(buildReportModel(summary([one]), runInfo(null)).parts[0]!))).toEqual(['series']);
  });

  it('hints replace the choice: charts in their order, with their metric, axis, log scales and captions', () => {
    const m = buildReportModel(
      summary(sweepCells()),
      runInfo({
        ...occSource,
        report: {
          charts: [
            { kind: 'metric', metric: 'leafCalls', logY: false, caption: 'Look at the gap.' },
            { kind: 'series', cells: [{ variant: 'none', params: { 'workload.clients': 10 } }], panels: ['arrivals'] },
          ],
        },
      }),
    );
    const charts = buildCharts(m);
    expect(charts.map((c) => [c.id, c.kind, c.caption.slice(0, 16)])).toEqual([
      ['01-metric-leafCalls', 'metric', 'Look at the gap.'],
      ['02-series', 'series', 'Replication 0 of'],
    ]);
    expect(charts[1]?.title).toBe('Time series of a typical run at Clients = 10');
    expect((charts[1]?.spec.vconcat as unknown[]).length).toBe(1);
  });

  it('turns hints it cannot follow into warnings naming the chart', () => {
    const warnings: string[] = [];
    const m = buildReportModel(
      summary(sweepCells()),
      runInfo({ ...occSource, report: { charts: [{ kind: 'metric', metric: 'latencyMs.p99' }, { kind: 'metric', metric: 'writes', x: 'workload.rate' }, { kind: 'series', cells: [{ variant: 'nope' }] }] } }),
    );
    expect(buildCharts(m, (w) => warnings.push(w))).toEqual([]);
    expect(warnings).toEqual([
      'report.charts.0 (part main): metric "latencyMs.p99" was not measured in this experiment',
      'report.charts.1 (part main): x "workload.rate" is not swept (swept: workload.clients)',
      'report.charts.2 (part main): no cell matches [{"variant":"nope"}]',
    ]);
  });

  it('gives every part of a multi-part experiment its own charts, with ids prefixed by the part', () => {
    const cells = [
      ...['a', 'b'].map((v) => cell({ part: 'ramp', variant: v, metrics: { leafCalls: 5, completionTimeMs: 5, 'operations.offered': 1, 'attempts.client.first': 1, 'attempts.client.retries': 1 } })),
      cell({ part: 'outage', metrics: { leafCalls: 1, 'operations.offered': 1 }, series: null }),
    ];
    const m = buildReportModel(summary(cells), runInfo({ parts: [{ name: 'ramp', variants: { a: {}, b: {} } }, { name: 'outage' }] }));
    expect(m.parts.map((p) => p.name)).toEqual(['ramp', 'outage']);
    expect(buildCharts(m).map((c) => c.id)).toEqual(['ramp-01-pareto-leafCalls-completionTimeMs', 'ramp-02-series', 'ramp-03-amplification']);
  });

  it('draws every chosen chart with a spec vega-lite compiles without warnings, its legend bound to a filter', () => {
    const open = scenario({ workload: { kind: 'open', rate: { kind: 'spike', ratePerSec: 1, atMs: 500, durationMs: 500, spikeRatePerSec: 5 } } });
    const openCells = ['a', 'b'].flatMap((variant) =>
      [0, 10].map((t) =>
        cell({
          variant,
          params: { 'stack.0.policy.tickMs': t },
          scenario: open,
          metrics: { amplification: 2, 'latencyMs.p99': 9, goodputPerSec: 3, 'operations.failed': 1, 'operations.offered': 10, leafCalls: 20, 'attempts.client.first': 10, 'attempts.client.retries': 10, 'giveUps.deadline': 1, 'clustering.1ms.peakToMean': 4 },
        }),
      ),
    );
    const models = [buildReportModel(summary(sweepCells()), runInfo(occSource)), buildReportModel(summary(openCells), runInfo({ variants: { a: {}, b: {} } }))];
    const seen = new Set<string>();
    for (const m of models) {
      for (const c of buildCharts(m)) {
        seen.add(c.kind);
        const { vega, log } = compileSpec(c.spec);
        expect([c.id, log]).toEqual([c.id, { warnings: [], errors: [] }]);
        expect([c.id, /"name":"[a-z_]+_legend_symbols","interactive":true/.test(JSON.stringify(vega))]).toEqual([c.id, true]);
      }
    }
    expect([...seen].sort()).toEqual(['amplification', 'clustering', 'giveUps', 'metric', 'pareto', 'series']);
  });
});

describe('findings', () => {
  it('a table of the headline numbers for every variant at the focus point', () => {
    const t = findingsTable(buildReportModel(summary(sweepCells()), runInfo(occSource)).parts[0]!);
    expect(t.columns.map((c) => c.metric)).toEqual(['writes', 'amplification', 'completionTimeMs']);
    expect(t.rows.map((r) => [r.label, r.values[0]?.mean])).toEqual([
      ['none', 6000],
      ['exponential', 4000],
      ['full-jitter', 2000],
    ]);
  });

  it('a hinted table: the metrics and cells named', () => {
    const m = buildReportModel(summary(sweepCells()), runInfo({ ...occSource, report: { findings: { metrics: ['leafCalls'], cells: [{ variant: 'none' }] } } }));
    const t = findingsTable(m.parts[0]!);
    expect(t.columns.map((c) => c.title)).toEqual(['Leaf calls']);
    expect(t.rows.map((r) => r.label)).toEqual(['Clients = 10', 'Clients = 20', 'Clients = 40', 'Clients = 1000']);
  });

  it('a finding names the first key metric on which the variants differ, or says they agree', () => {
    const burst = (variant: string, completionTimeMs: number) => cell({ variant, metrics: { leafCalls: 500, completionTimeMs, amplification: 5 } });
    expect(findingLine(buildReportModel(summary([burst('a', 10), burst('b', 30)]), runInfo({ variants: { a: {}, b: {} } })))).toBe(
      'Completion time: 10 ms with a (lowest) against 30 ms with b (highest); the difference is beyond noise (95% interval of the difference [20, 20]).',
    );
    expect(findingLine(buildReportModel(summary([burst('a', 10), burst('b', 10)]), runInfo({ variants: { a: {}, b: {} } })))).toBe('Leaf calls: 500 calls with every variant.');
  });

    it('a one-line finding: the hint, or the lowest and highest variant, or both ends of a sweep, or a single run\'s numbers', () => {
    expect(findingLine(buildReportModel(summary(sweepCells()), runInfo({ ...occSource, report: { finding: 'Jitter halves the work.' } })))).toBe('Jitter halves the work.');
    expect(findingLine(buildReportModel(summary(sweepCells()), runInfo(occSource)))).toBe(
      'full-jitter cuts writes against none by 67% across all 4 values of Clients (from 6000 to 2000 calls at Clients = 1000).',
    );
    const tick = [0, 50].map((t) => cell({ params: { 'stack.0.policy.tickMs': t }, metrics: { leafCalls: 100 + t } }));
    expect(findingLine(buildReportModel(summary(tick), runInfo(null)))).toBe('Leaf calls rises from 100 calls at Timer tick at layer 0 = 0 ms to 150 calls at 50 ms (beyond noise).');
    const one = cell({ scenario: scenario({ workload: { kind: 'open' } }), metrics: { amplification: 1, 'latencyMs.p99': 188.5, goodputPerSec: 80.25 } });
    expect(findingLine(buildReportModel(summary([one]), runInfo(null)))).toBe(
      'Amplification 1 leaf calls per operation, p99 latency of successes 188.5 ms, goodput 80.25 operations/s.',
    );
  });
});

describe('report hints validation', () => {
  it('accepts the documented shape', () => {
    const r = parseReportHints(
      {
        finding: 'One line.',
        cells: [{ variant: 'none', params: { 'workload.clients': 30 } }],
        findings: { metrics: ['writes', 'completionTimeMs'], cells: [{ part: 'main' }] },
        charts: [
          { kind: 'metric', metric: 'writes', x: 'workload.clients', logX: true, logY: false, title: 'T', caption: 'C' },
          { kind: 'series', panels: ['arrivals', 'queue'], cells: [{ variant: 'none' }] },
          { kind: 'clustering', metric: 'clustering.10ms.peakToMean', x: 'stack.0.policy.tickMs' },
          { kind: 'amplification' },
          { kind: 'giveUps' },
          { kind: 'pareto', work: 'writes', time: 'latencyMs.p99' },
        ],
      },
      'report',
    );
    expect(r.ok).toBe(true);
  });

  it('names each problem by its path from the file\'s root', () => {
    const r = parseReportHints(
      { finding: 'two\nlines', charts: [{ kind: 'bar' }, { kind: 'metric' }, { kind: 'pareto', panels: ['goodput'], metrik: 'x' }, { kind: 'series', logX: 'yes' }], findings: { metrics: [] } },
      'parts.1.report',
    );
    expect(r).toEqual({
      ok: false,
      errors: [
        'parts.1.report.finding must be one non-empty line (got "two\\nlines")',
        'parts.1.report.findings.metrics must list at least one metric',
        'parts.1.report.charts.0.kind must be one of metric, series, clustering, amplification, pareto, giveUps, graph, services, cascade (got "bar")',
        'parts.1.report.charts.1.metric is required for kind "metric"',
        'parts.1.report.charts.2 has unknown key "metrik" (known: kind, title, caption, metric, x, logX, logY, cells, panels, work, time)',
        'parts.1.report.charts.2.panels does not apply to kind "pareto" (only to series)',
        'parts.1.report.charts.3.logX must be true or false (got "yes")',
      ],
    });
    expect(parseReportHints([], 'report')).toEqual({ ok: false, errors: ['report must be an object (got [])'] });
  });
});

describe('units and trigger windows', () => {
  it('titles carry units', () => {
    expect(metricTitle('completionTimeMs')).toBe('Completion time (ms)');
    expect(metricTitle('latencyMs.p999')).toBe('p99.9 latency of successes (ms)');
    expect(metricTitle('attempts.sdk.retries')).toBe('Retries at sdk (attempts)');
    expect(metricTitle('clustering.10ms.dispersionIndex')).toBe('Index of dispersion of leaf arrivals in 10 ms bins (variance / mean)');
    expect(paramTitle('stack.0.policy.backoff.capMs')).toBe('Backoff cap at layer 0 (ms)');
    expect(paramTitle('workload.clients')).toBe('Clients');
    expect(paramTitle('stack.0.policy.backoff.kind')).toBe('Backoff kind at layer 0');
    expect(paramTitle('leaf.concurrency')).toBe('Server workers');
    expect(paramTitle('stack.1.policy.maxAttempts')).toBe('Attempts at layer 1');
  });

  it('shades spikes, ramps, steps, capacity dips, outages and fault windows', () => {
    const s = scenario({
      workload: { kind: 'open', rate: { kind: 'spike', ratePerSec: 10, atMs: 1000, durationMs: 500, spikeRatePerSec: 90 } },
      leaf: {
        kind: 'server',
        capacity: [{ atMs: 2000, durationMs: 100, concurrency: 0 }, { atMs: 3000, durationMs: 100, concurrency: 2 }],
        faults: [{ fromMs: 0, probability: 0.25, status: 503 }],
      },
    });
    expect(scenarioTriggerWindows(s)).toEqual([
      { fromMs: 1000, toMs: 1500, label: 'spike to 90/s', kind: 'workload' },
      { fromMs: 2000, toMs: 2100, label: 'outage (no workers)', kind: 'capacity' },
      { fromMs: 3000, toMs: 3100, label: 'capacity dip to 2 workers', kind: 'capacity' },
      { fromMs: 0, toMs: null, label: 'faults: 503 to 25% of requests', kind: 'fault' },
    ]);
    const ramp = scenario({ workload: { kind: 'open', rate: { kind: 'ramp', points: [{ atMs: 100, ratePerSec: 1 }, { atMs: 900, ratePerSec: 9 }] } } });
    expect(scenarioTriggerWindows(ramp)).toEqual([{ fromMs: 100, toMs: 900, label: 'ramp', kind: 'workload' }]);
    const step = scenario({ workload: { kind: 'open', rate: { kind: 'step', ratePerSec: 1, atMs: 500, toRatePerSec: 9 } } });
    expect(scenarioTriggerWindows(step)).toEqual([{ fromMs: 500, toMs: null, label: 'step from 1/s to 9/s', kind: 'workload' }]);
  });

  it('a time series without a scenario or series still builds', () => {
    const c = cell({ scenario: null, series: series(3, 10), metrics: { leafCalls: 1 } });
    expect(buildCharts(buildReportModel(summary([c]), runInfo(null))).map((x) => x.kind)).toEqual(['series']);
  });
});
