import { describe, expect, it } from 'vitest';
import { estimateText, findingsTable } from '../../src/report/findings.js';
import { generatedFinding } from '../../src/report/headline.js';
import { buildReport } from '../../src/report/index.js';
import { notApplicable } from '../../src/report/notApplicable.js';
import { buildReportModel, metricMean } from '../../src/report/reportModel.js';
import { cell, runInfo, summary } from './helpers.js';

const shared = { mode: 'shared' as const, base: '../assets/' };
const source = { variants: { retries: {}, 'no-ops': {} }, report: { findings: { metrics: ['amplification', 'server.wastedWorkMs', 'latencyMs.p99'] } } };

/** A cell that wasted 1,330,818,740 ms of server work (about 370 h), and one whose operations all fell in the warm-up. */
function cells() {
  return [
    cell({
      variant: 'retries',
      metrics: {
        'operations.offered': 1000,
        leafCalls: 2800,
        amplification: 2.8,
        'server.wastedWorkMs': [1_330_818_740, 1_293_844_566, 1_367_792_914],
        'latencyMs.count': 900,
        'latencyMs.p99': [2500, 2400, 2600],
      },
    }),
    cell({ variant: 'no-ops', metrics: { 'operations.offered': 0, leafCalls: 10_000, amplification: 0, 'server.wastedWorkMs': 0, 'latencyMs.count': 0 } }),
  ];
}

describe('durations in the report', () => {
  it('shows a duration column of the findings table in the unit that reads best for its largest value, with the unit in the header', () => {
    const model = buildReportModel(summary(cells()), runInfo(source));
    const table = findingsTable(model.parts[0]!);
    const wasted = table.columns.find((c) => c.metric === 'server.wastedWorkMs');
    expect(wasted).toMatchObject({ unit: 'h', perUnit: 3_600_000 });
    expect(table.columns.find((c) => c.metric === 'latencyMs.p99')).toMatchObject({ unit: 's', perUnit: 1000 });
    const html = buildReport(summary(cells()), runInfo(source), shared).html;
    expect(html).toContain('Wasted server work <span class="unit">(h)</span>');
    expect(html).toContain('>370 <span class="ci">± 10</span></td>');
    expect(html).not.toContain('1,330,000,000');
  });

  it('writes a duration in a sentence in the unit that reads best for it', () => {
    const model = buildReportModel(summary(cells()), runInfo(source));
    const [retries] = model.parts[0]!.cells;
    expect(estimateText(retries!, 'server.wastedWorkMs')).toBe('370 ± 10 h');
    expect(estimateText(retries!, 'latencyMs.p99')).toBe('2.50 ± 0.10 s');
  });

  it('writes a swept duration in the unit that reads best, exactly', () => {
    const swept = [3000, 12_345].map((d) => cell({ params: { 'workload.durationMs': d }, metrics: { leafCalls: d / 10 } }));
    const model = buildReportModel(summary(swept), runInfo(null));
    expect(generatedFinding(model.parts[0]!)).toBe('Leaf calls rises from 300 calls at Duration = 3 s to 1235 calls at 12.345 s (beyond noise).');
  });
});

describe('figures over no operations in the report', () => {
  it('says n/a with the reason in the findings table, never 0, and leaves the figure out of comparisons', () => {
    const model = buildReportModel(summary(cells()), runInfo(source));
    const part = model.parts[0]!;
    const table = findingsTable(part);
    const row = table.rows.find((r) => r.variant === 'no-ops')!;
    const at = (metric: string) => table.columns.findIndex((c) => c.metric === metric);
    expect(row.notApplicable[at('amplification')]).toBe('no operations');
    expect(row.notApplicable[at('latencyMs.p99')]).toBe('no successes');
    expect(row.values[at('amplification')]).toBeNull();
    expect(row.notApplicable[at('server.wastedWorkMs')]).toBeNull();
    const noOps = part.cells.find((c) => c.variant === 'no-ops')!;
    expect(metricMean(noOps, 'amplification')).toBeNull();
    expect(estimateText(noOps, 'amplification')).toBe('n/a (no operations)');
    const html = buildReport(summary(cells()), runInfo(source), shared).html;
    expect(html).toContain('<td class="num na">n/a (no operations)</td>');
    expect(html).toContain('<td class="num na">n/a (no successes)</td>');
  });

  it('judges each ratio by its own denominator', () => {
    const means: Record<string, number> = {
      'operations.offered': 0,
      'latencyMs.count': 3,
      'operationMs.count': 0,
      'workloads.read.operations.offered': 5,
      'workloads.write.operations.offered': 0,
      'services.db.caches.users.lookups': 0,
    };
    const mean = (name: string) => means[name] ?? null;
    const cases: Array<[string, string | null]> = [
      ['amplification', 'no operations'],
      ['successRate', 'no operations'],
      ['goodputPerSec', 'no operations'],
      ['completionTimeMs', 'no operations'],
      ['edges.api->db.amplification', 'no operations'],
      ['edges.api->db.calls', null],
      ['latencyMs.p99', null],
      ['operationMs.p99', 'no operation ended'],
      ['workloads.read.amplification', null],
      ['workloads.write.amplification', 'no operations'],
      ['edges.api->db.workloads.write.amplification', 'no operations'],
      ['services.db.caches.users.hitRatio', 'no lookups'],
      ['leafCalls', null],
      ['windows.during.amplification', null],
    ];
    expect(cases.map(([m]) => notApplicable(m, mean))).toEqual(cases.map(([, why]) => why));
  });
});
