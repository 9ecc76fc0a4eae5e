import { describe, expect, it } from 'vitest';
import { evaluateClaim } from '../../src/report/claims.js';
import { cellHealth, COLLAPSE_SUCCESS_RATE, constantRatePerSec } from '../../src/report/collapse.js';
import { DEFAULT_PRACTICAL_DIFFERENCE, difference, verdict } from '../../src/report/compare.js';
import { findingLine, generatedFinding } from '../../src/report/headline.js';
import { parseReportHints, type ClaimHint } from '../../src/report/reportHints.js';
import type { ReportModel, ReportPart } from '../../src/report/reportModel.js';
import { metricCaption } from '../../src/report/selectCharts.js';
import type { ReportCell } from '../../src/report/types.js';
import { reportModelOf, sampledCell, scenario } from './helpers.js';

/** An open loop at 1,350 operations/s for 4 minutes, with a window `after` from 60 s to the end when asked. */
function openScenario(windows = false) {
  const base = scenario({ workload: { kind: 'open', rate: { kind: 'steady', ratePerSec: 1350 }, durationMs: 240_000, clients: 1000 } }) as unknown as Record<string, unknown>;
  return { ...base, metrics: { timeSeriesBinMs: 1000, clusteringBinMs: [10], ...(windows ? { windows: [{ name: 'after', fromMs: 60_000, toMs: 240_000 }] } : {}) } } as never;
}

/** A cell computed from per-replication values, in the open loop unless told. */
const cellOf = (variant: string, params: Record<string, unknown>, values: Record<string, number[]>, sc: unknown = openScenario()): ReportCell => sampledCell(variant, params, values, sc);

const firstPart = (m: ReportModel): ReportPart => m.parts[0] as ReportPart;
const KINDS = ['none', 'constant', 'exponential', 'full-jitter', 'decorrelated-jitter'];
const KIND = 'stack.1.policy.backoff.kind';
const backoffSweep = (report?: unknown) => ({ variants: { none: {}, 'sdk-budget': {} }, sweep: { grid: { [KIND]: KINDS } }, ...(report ? { report } : {}) });

describe('the practical threshold: one rule for sentences, captions and claims', () => {
  // Goodput 1,000/s against 1,004/s in every replication: beyond noise (the paired interval is [4, 4]), but 0.4%.
  const close = [cellOf('a', {}, { goodputPerSec: [1000, 1001, 999] }), cellOf('b', {}, { goodputPerSec: [1004, 1005, 1003] })];

  it('a difference beyond noise but under 5% of the mean compared against is no practical difference', () => {
    const d = difference(close[1] as ReportCell, close[0] as ReportCell, 'goodputPerSec');
    expect(d?.ci95).toEqual([4, 4].map((v) => expect.closeTo(v, 9)));
    expect(DEFAULT_PRACTICAL_DIFFERENCE).toBe(0.05);
    expect(verdict(d, 1000)).toBe('small');
    expect(verdict(d, 1000, 0.001)).toBe('higher');
    expect(verdict(difference(close[0] as ReportCell, close[0] as ReportCell, 'goodputPerSec'), 1000)).toBe('noise');
  });

  it('the headline and the caption say "no practical difference" where they said "beyond noise"', () => {
    const m = reportModelOf(close, { variants: { a: {}, b: {} } });
    expect(findingLine(m)).toBe(
      'Goodput: 1004 ± 2 operations/s with b (highest) against 1000 ± 2 operations/s with a (lowest); no practical difference: it is beyond noise but under 5% of the mean compared against (paired 95% interval of the difference [-4, -4]). Each interval here rests on 3 runs, fewer than 5: read it as rough.',
    );
  });

  it('a sweep where no point differs in practice says so for the metrics it looked at', () => {
    const cells = [10, 20, 40].flatMap((x) => [
      cellOf('a', { 'workload.clients': x }, { amplification: [2, 2.2, 2.4], goodputPerSec: [1000, 1001, 999] }),
      cellOf('b', { 'workload.clients': x }, { amplification: [2.02, 2.22, 2.42], goodputPerSec: [1004, 1005, 1003] }),
    ]);
    const m = reportModelOf(cells, { variants: { a: {}, b: {} } });
    expect(generatedFinding(firstPart(m))).toBe(
      'No practical difference between a and b in amplification and goodput at any of the 3 values of Clients (within noise, or under 5% of the mean compared against). Each interval here rests on 3 runs, fewer than 5: read it as rough.',
    );
    expect(metricCaption(firstPart(m), 'goodputPerSec', 'workload.clients', '3 replications')).toBe(
      'Each line is a variant, its band the 95% confidence interval of the mean over 3 replications. At Clients = 40, goodput: 1004 ± 2 operations/s with b (highest) against 1000 ± 2 operations/s with a (lowest); no practical difference: it is beyond noise but under 5% of the mean compared against (paired 95% interval of the difference [-4, -4]).',
    );
  });

  it('a report hint sets the threshold per metric, for the headline and the claims alike', () => {
    const less: ClaimHint = { metric: 'goodputPerSec', variants: ['a', 'b'], relation: 'less' };
    const plain = reportModelOf(close, { variants: { a: {}, b: {} } });
    expect(evaluateClaim(less, firstPart(plain))).toMatchObject({ status: 'not shown', reason: 'no practical difference at 1 of 1 point compared' });
    const strict = reportModelOf(close, { variants: { a: {}, b: {} }, report: { practicalDifference: { goodputPerSec: 0.001 } } });
    expect(evaluateClaim(less, firstPart(strict))).toMatchObject({ status: 'supported', reason: 'holds beyond noise at the one point compared' });
    expect(findingLine(strict)).toBe(
      'Goodput: 1004 ± 2 operations/s with b (highest) against 1000 ± 2 operations/s with a (lowest); the difference is beyond noise (paired 95% interval of the difference [-4, -4]). Each interval here rests on 3 runs, fewer than 5: read it as rough.',
    );
    // `similar` without a tolerance holds where there is no practical difference.
    expect(evaluateClaim({ ...less, relation: 'similar' }, firstPart(plain))).toMatchObject({
      status: 'supported',
      reason: 'holds at the one point compared: no practical difference (within noise, or under the practical threshold)',
    });
  });

  it('hints name a bad threshold by its path', () => {
    expect(parseReportHints({ practicalDifference: { goodputPerSec: 0.01, leafCalls: 0 } }, 'report')).toMatchObject({ ok: true, hints: { practicalDifference: { goodputPerSec: 0.01, leafCalls: 0 } } });
    expect(parseReportHints({ practicalDifference: { goodputPerSec: -0.1, nope: 0.1, amplification: '5%' } }, 'report')).toEqual({
      ok: false,
      errors: [
        'report.practicalDifference.goodputPerSec must be >= 0, a fraction of the mean compared against (got -0.1)',
        expect.stringMatching(/^report\.practicalDifference\.nope must be one of amplification, .* \(got "nope"\)$/),
        'report.practicalDifference.amplification must be a number (got "5%")',
      ],
    });
  });
});

describe('headlines across a sweep', () => {
  it('the effect at every swept value: "across all values", not one arbitrary cell', () => {
    // none makes 12.3 leaf calls per operation at every backoff kind, sdk-budget 4.79.
    const cells = KINDS.flatMap((k) => [
      cellOf('none', { [KIND]: k }, { amplification: [12.2, 12.3, 12.4] }),
      cellOf('sdk-budget', { [KIND]: k }, { amplification: [4.78, 4.79, 4.8] }),
    ]);
    expect(findingLine(reportModelOf(cells, backoffSweep()))).toBe(
      'sdk-budget cuts amplification from 12.3 with none to 4.79 leaf calls per operation across all 5 values of Backoff kind at layer 1. Each interval here rests on 3 runs, fewer than 5: read it as rough.',
    );
  });

  it('values that change along the sweep: the relative effect at each, and the numbers at the focus point', () => {
    const cells = [10, 20, 40].flatMap((x) => [
      cellOf('none', { 'workload.clients': x }, { amplification: [x, x + 0.1, x + 0.2] }),
      cellOf('jitter', { 'workload.clients': x }, { amplification: [x / 2, x / 2 + 0.1, x / 2 + 0.2] }),
    ]);
    expect(findingLine(reportModelOf(cells, { variants: { none: {}, jitter: {} } }))).toBe(
      'jitter cuts amplification against none by 50% across all 3 values of Clients (from 40.1 to 20.1 leaf calls per operation at Clients = 40). Each interval here rests on 3 runs, fewer than 5: read it as rough.',
    );
  });

  it('where the effect changes sign, and where it is no practical difference', () => {
    // b - a: +5 at 10 clients, +0.1 at 20 (under 5%), -5 at 40.
    const cells = [
      cellOf('a', { 'workload.clients': 10 }, { amplification: [10, 11, 12] }),
      cellOf('b', { 'workload.clients': 10 }, { amplification: [15, 16, 17] }),
      cellOf('a', { 'workload.clients': 20 }, { amplification: [10, 11, 12] }),
      cellOf('b', { 'workload.clients': 20 }, { amplification: [10.1, 11.1, 12.1] }),
      cellOf('a', { 'workload.clients': 40 }, { amplification: [10, 11, 12] }),
      cellOf('b', { 'workload.clients': 40 }, { amplification: [5, 6, 7] }),
    ];
    expect(findingLine(reportModelOf(cells, { variants: { a: {}, b: {} } }))).toBe(
      'b has higher amplification than a at Clients = 10 and lower at 40: the difference changes sign at Clients = 40; no practical difference at 20. Each interval here rests on 3 runs, fewer than 5: read it as rough.',
    );
  });

  it('an effect at some values only says where', () => {
    const cells = KINDS.flatMap((k, i) => [
      cellOf('none', { [KIND]: k }, { amplification: [12.2, 12.3, 12.4] }),
      cellOf('sdk-budget', { [KIND]: k }, { amplification: i < 2 ? [12.2, 12.3, 12.4] : [4.78, 4.79, 4.8] }),
    ]);
    expect(findingLine(reportModelOf(cells, backoffSweep()))).toBe(
      'sdk-budget cuts amplification from 12.3 with none to 4.79 leaf calls per operation at 3 of 5 values of Backoff kind at layer 1 (Backoff kind at layer 1 = exponential, full-jitter and decorrelated-jitter); no practical difference at none and constant. Each interval here rests on 3 runs, fewer than 5: read it as rough.',
    );
  });
});

describe('collapse comes first', () => {
  // After the trigger (window `after`), success 34% and goodput 459/s against 1,350/s offered, in no run back by the end.
  const collapsed = { 'windows.after.recovered': [0, 0, 0], 'windows.after.successRate': [0.33, 0.34, 0.35], 'windows.after.goodputPerSec': [446, 459, 472] };

  it('both variants collapsed at every value: said before the effect on the charted metric', () => {
    const cells = KINDS.flatMap((k) => [
      cellOf('none', { [KIND]: k }, { amplification: [12.2, 12.3, 12.4], ...collapsed }, openScenario(true)),
      cellOf('sdk-budget', { [KIND]: k }, { amplification: [4.78, 4.79, 4.8], ...collapsed }, openScenario(true)),
    ]);
    expect(findingLine(reportModelOf(cells, backoffSweep()))).toBe(
      'Both variants collapsed at all 5 values of Backoff kind at layer 1: success 34%, goodput 459/s against a demand of 1350/s from 60 s to 4 min (window after); no run recovered. sdk-budget cuts amplification from 12.3 with none to 4.79 leaf calls per operation across all 5 values of Backoff kind at layer 1. Each interval here rests on 3 runs, fewer than 5: read it as rough.',
    );
  });

  it('one variant collapsed, another did not recover in every run, a third is healthy', () => {
    const some = { 'windows.after.recovered': [1, 0, 1], 'windows.after.successRate': [0.9, 0.5, 0.88], 'windows.after.goodputPerSec': [1215, 675, 1188] };
    const fine = { 'windows.after.recovered': [1, 1, 1], 'windows.after.successRate': [0.99, 0.99, 0.99], 'windows.after.goodputPerSec': [1336, 1337, 1338] };
    const cells = [
      cellOf('retries', {}, { amplification: [3, 3, 3], ...collapsed }, openScenario(true)),
      cellOf('budget', {}, { amplification: [1.5, 1.6, 1.7], ...some }, openScenario(true)),
      cellOf('no-retries', {}, { amplification: [1, 1, 1], ...fine }, openScenario(true)),
    ];
    const m = reportModelOf(cells, { variants: { retries: {}, budget: {}, 'no-retries': {} } });
    expect(cellHealth(cells[0] as ReportCell)).toMatchObject({ state: 'collapsed', recovered: { runs: 0, of: 3 }, demandPerSec: 1350 });
    expect(cellHealth(cells[1] as ReportCell)).toMatchObject({ state: 'unrecovered', recovered: { runs: 2, of: 3 } });
    expect(cellHealth(cells[2] as ReportCell).state).toBe('healthy');
    expect(findingLine(m)).toBe(
      'retries collapsed: success 34%, goodput 459/s against a demand of 1350/s from 60 s to 4 min (window after); no run recovered. budget did not recover in every run: success 76%, goodput 1030/s against a demand of 1350/s from 60 s to 4 min (window after); 2 of 3 runs recovered. Amplification: 1 leaf calls per operation with no-retries (lowest) against 3 leaf calls per operation with retries (highest); the difference is beyond noise (paired 95% interval of the difference [2, 2]). Each interval here rests on 3 runs, fewer than 5: read it as rough.',
    );
  });

  it('a few variants collapsed at one point: each with its own success and goodput', () => {
    const worse = { 'windows.after.recovered': [0, 0, 0], 'windows.after.successRate': [0.001, 0.001, 0.001], 'windows.after.goodputPerSec': [0, 0, 0] };
    const fine = { 'windows.after.recovered': [1, 1, 1], 'windows.after.successRate': [0.99, 0.99, 0.99], 'windows.after.goodputPerSec': [1336, 1337, 1338] };
    const cells = [
      cellOf('every-tier', {}, { amplification: [1, 1, 1], ...worse }, openScenario(true)),
      cellOf('one-tier', {}, { amplification: [1, 1, 1], ...collapsed }, openScenario(true)),
      cellOf('no-retries', {}, { amplification: [1, 1, 1], ...fine }, openScenario(true)),
    ];
    expect(generatedFinding(firstPart(reportModelOf(cells, { variants: { 'every-tier': {}, 'one-tier': {}, 'no-retries': {} } })))).toBe(
      'every-tier (success 0.1%, goodput 0/s) and one-tier (success 34%, goodput 459/s) collapsed from 60 s to 4 min (window after), against a demand of 1350/s; no run recovered. Amplification: 1 leaf calls per operation with every variant. Each interval here rests on 3 runs, fewer than 5: read it as rough.',
    );
  });

  it('without windows, an open loop whose operations mostly fail has collapsed; a closed loop is not judged on its success rate', () => {
    const failing = { amplification: [3, 3, 3], successRate: [0.2, 0.2, 0.2], goodputPerSec: [270, 270, 270] };
    expect(COLLAPSE_SUCCESS_RATE).toBe(0.5);
    expect(findingLine(reportModelOf([cellOf('default', {}, failing)], {}))).toBe(
      'The runs collapsed: success 20%, goodput 270/s against a demand of 1350/s over the run. Amplification 3 leaf calls per operation, goodput 270 operations/s. Each interval here rests on 3 runs, fewer than 5: read it as rough.',
    );
    const closed = scenario({ workload: { kind: 'closed', clients: 10 } });
    expect(cellHealth(cellOf('default', {}, failing, closed)).state).toBe('healthy');
  });
});

describe('the demand a collapse is told against', () => {
  it("of a graph with several workloads is the sum of their rates, whose goodput is counted together", () => {
    const failing = { successRate: [0.34, 0.34, 0.34], goodputPerSec: [272, 272, 272] };
    const open = (ratePerSec: number) => ({ kind: 'open', rate: ratePerSec, clients: 100, durationMs: 60_000 });
    const withWorkloads = (workloads: unknown[]) => ({ ...(openScenario() as object), workload: open(400), graph: { workloads } }) as never;
    const two = withWorkloads([{ name: 'web', workload: open(400) }, { name: 'batch', workload: open(400) }]);
    expect(cellHealth(cellOf('noisy', {}, failing, two))).toMatchObject({ state: 'collapsed', demandPerSec: 800 });
    const oneClosed = withWorkloads([{ name: 'web', workload: open(400) }, { name: 'batch', workload: { kind: 'closed', clients: 10 } }]);
    expect(cellHealth(cellOf('noisy', {}, failing, oneClosed)).demandPerSec).toBeNull();
  });

  it("is the open loop's rate where it is one number over the span, and unknown where it changes", () => {
    expect(constantRatePerSec(500, 0, 60_000)).toBe(500);
    expect(constantRatePerSec({ kind: 'steady', ratePerSec: 40 }, 90_000, 300_000)).toBe(40);
    const spike = { kind: 'spike', ratePerSec: 40, atMs: 20_000, durationMs: 8000, spikeRatePerSec: 80 };
    expect([constantRatePerSec(spike, 0, 20_000), constantRatePerSec(spike, 21_000, 27_000), constantRatePerSec(spike, 28_000, 60_000), constantRatePerSec(spike, 0, 60_000)]).toEqual([40, 80, 40, null]);
    const step = { kind: 'step', ratePerSec: 9000, atMs: 10_000, toRatePerSec: 10_100 };
    expect([constantRatePerSec(step, 0, 10_000), constantRatePerSec(step, 10_000, 20_000), constantRatePerSec(step, 5000, 20_000)]).toEqual([9000, 10_100, null]);
    const ramp = { kind: 'ramp', points: [{ atMs: 20_000, ratePerSec: 40 }, { atMs: 80_000, ratePerSec: 90 }] };
    expect([constantRatePerSec(ramp, 0, 20_000), constantRatePerSec(ramp, 90_000, 300_000), constantRatePerSec(ramp, 30_000, 40_000)]).toEqual([40, 90, null]);
  });
});

describe('the headline of a service graph', () => {
  const graph = () => {
    const base = openScenario() as unknown as Record<string, unknown>;
    return { ...base, graph: { services: ['fe', 'users', 'db'].map((name) => ({ name })), entries: [], bulkheads: [] } } as never;
  };
  const edges = (db: number, retries: number) => ({
    amplification: [1, 1, 1],
    'edges.workload->fe.amplification': [1, 1, 1],
    'edges.workload->fe.calls': [1000, 1000, 1000],
    'edges.workload->fe.retries': [0, 0, 0],
    'edges.fe->users.amplification': [1.5, 1.5, 1.5],
    'edges.fe->users.calls': [1500, 1500, 1500],
    'edges.fe->users.retries': [500, 500, 500],
    'edges.users->db.amplification': [db, db, db],
    'edges.users->db.calls': [db * 1000, db * 1000, db * 1000],
    'edges.users->db.retries': [retries, retries, retries],
  });

  it('names its busiest edge, with its calls per operation in the variants with the most and the fewest', () => {
    const cells = [cellOf('every-tier', {}, edges(9.96, 7968), graph()), cellOf('no-retries', {}, edges(1.08, 0), graph())];
    expect(findingLine(reportModelOf(cells, { variants: { 'every-tier': {}, 'no-retries': {} } }))).toBe(
      'Amplification: 1 leaf calls per operation with every variant. The busiest edge is users -> db: 9.96 calls per operation with every-tier (80% of them retries), against 1.08 with no-retries. Each interval here rests on 3 runs, fewer than 5: read it as rough.',
    );
  });
});
