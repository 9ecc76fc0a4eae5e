import { describe, expect, it } from 'vitest';
import { evaluateAllClaims, evaluateClaim } from '../../src/report/claims.js';
import { difference, verdict } from '../../src/report/compare.js';
import { findingLine, generatedFinding, partFindingLine } from '../../src/report/headline.js';
import { metricCaption } from '../../src/report/selectCharts.js';
import type { ReportCell } from '../../src/report/types.js';
import { reportModelOf, sampledCell } from './helpers.js';

const variants = (...names: string[]) => ({ variants: Object.fromEntries(names.map((n) => [n, {}])) });

describe('paired differences', () => {
  it('pairs replications of one sweep point by index, so a shared random offset cancels out', () => {
    // Each replication moves both variants alike; b is always 2 above a.
    const a = sampledCell('a', {}, { leafCalls: [10, 20, 30, 40] });
    const b = sampledCell('b', {}, { leafCalls: [12, 22, 32, 42] });
    const d = difference(a, b, 'leafCalls');
    expect(d).toEqual({ mean: -2, ci95: [-2, -2], n: 4, paired: true });
    expect(verdict(d, 22)).toBe('lower');
  });

  it('compares cells of different sweep points as independent means', () => {
    const a = sampledCell('a', { x: 1 }, { leafCalls: [10, 20, 30, 40] });
    const b = sampledCell('a', { x: 2 }, { leafCalls: [12, 22, 32, 42] });
    const d = difference(a, b, 'leafCalls');
    expect(d?.paired).toBe(false);
    expect(verdict(d, 27)).toBe('noise');
  });

  it('has no interval with one replication', () => {
    const d = difference(sampledCell('a', {}, { leafCalls: [1] }), sampledCell('b', {}, { leafCalls: [3] }), 'leafCalls');
    expect(d).toEqual({ mean: -2, ci95: null, n: 1, paired: true });
    expect(verdict(d)).toBe('unknown');
  });
});

describe('findings computed from the data', () => {
  it('a clear winner: the best and the worst variant with their intervals, and the difference beyond noise', () => {
    const cells = [
      sampledCell('none', {}, { leafCalls: [240, 250, 260], completionTimeMs: [5, 5, 5] }),
      sampledCell('jitter', {}, { leafCalls: [100, 101, 102], completionTimeMs: [5, 5, 5] }),
    ];
    expect(findingLine(reportModelOf(cells, variants('none', 'jitter')))).toBe(
      'Leaf calls: 101 ± 2 calls with jitter (lowest) against 250 ± 20 calls with none (highest); the difference is beyond noise (paired 95% interval of the difference [130, 170]). Each interval here rests on 3 runs, fewer than 5: read it as rough.',
    );
  });

  it('a tie within noise is no practical difference, with the interval that includes 0', () => {
    const cells = [sampledCell('a', {}, { leafCalls: [100, 104, 98, 102] }), sampledCell('b', {}, { leafCalls: [100, 102, 98, 101] })];
    expect(findingLine(reportModelOf(cells, variants('a', 'b')))).toBe(
      'Leaf calls: 100 ± 3 calls with b (lowest) against 101 ± 4 calls with a (highest); no practical difference: it is within noise (paired 95% interval of the difference [-0.8, 2.3] includes 0). Each interval here rests on 4 runs, fewer than 5: read it as rough.',
    );
  });

  // At Clients = 2, a is 1 call below b in every replication: beyond noise, but under 5% of b's 22
  // calls, so no practical difference; the lines cross between 1 and 3.
  it('a crossing: where one variant goes from a practical difference below the other to one above it', () => {
    const cells = [1, 2, 3].flatMap((x) => [
      sampledCell('a', { 'workload.clients': x }, { leafCalls: [10 * x, 10 * x + 1, 10 * x + 2] }),
      sampledCell('b', { 'workload.clients': x }, { leafCalls: [21, 22, 23] }),
    ]);
    const m = reportModelOf(cells, variants('a', 'b'));
    const part = m.parts[0] as (typeof m.parts)[number];
    expect(generatedFinding(part)).toBe('b has higher leaf calls than a at Clients = 1 and lower at 3: the difference changes sign at Clients = 3; no practical difference at 2. Each interval here rests on 3 runs, fewer than 5: read it as rough.');
    expect(metricCaption(part, 'leafCalls', 'workload.clients', '3 replications')).toBe(
      'Each line is a variant, its band the 95% confidence interval of the mean over 3 replications. Lines cross (a practical difference on both sides): a has lower leaf calls than b up to Clients = 1 and higher from 3.',
    );
  });

  it('one variant over a numeric axis: how the metric changes from end to end, and one line in the caption', () => {
    const cells = [10, 20, 40].map((x) => sampledCell('default', { 'workload.clients': x }, { leafCalls: [x * 10, x * 10 + 2, x * 10 + 4] }));
    const m = reportModelOf(cells, {});
    const part = m.parts[0] as (typeof m.parts)[number];
    expect(generatedFinding(part)).toBe('Leaf calls rises from 102 ± 5 calls at Clients = 10 to 402 ± 5 calls at 40 (beyond noise). Each interval here rests on 3 runs, fewer than 5: read it as rough.');
    expect(metricCaption(part, 'leafCalls', 'workload.clients', '3 replications')).toBe(
      'The line is the mean over 3 replications, its band the 95% confidence interval. Leaf calls rises from 102 ± 5 calls at Clients = 10 to 402 ± 5 calls at 40 (beyond noise).',
    );
  });

  it('a categorical axis with one variant gets points, not lines', () => {
    const cells = ['none', 'full-jitter'].map((k, i) => sampledCell('default', { 'stack.1.policy.backoff.kind': k }, { leafCalls: [10 + i, 11 + i] }));
    const m = reportModelOf(cells, { sweep: { grid: { 'stack.1.policy.backoff.kind': ['none', 'full-jitter'] } } });
    const part = m.parts[0] as (typeof m.parts)[number];
    expect(metricCaption(part, 'leafCalls', 'stack.1.policy.backoff.kind', '2 replications')).toBe(
      'Each point is the mean at one value of Backoff kind at layer 1 over 2 replications, its bar the 95% confidence interval.',
    );
  });

  it('a categorical axis with one variant: the headline names the best and worst value, not one arbitrary cell', () => {
    const kinds = ['none', 'exponential', 'decorrelated-jitter'];
    const cells = kinds.map((k, i) => sampledCell('default', { 'stack.1.policy.backoff.kind': k }, { leafCalls: [100 + 50 * i, 102 + 50 * i, 104 + 50 * i] }));
    const m = reportModelOf(cells, { sweep: { grid: { 'stack.1.policy.backoff.kind': kinds } } });
    expect(findingLine(m)).toBe(
      'Leaf calls: 102 ± 5 calls with Backoff kind at layer 1 = none (lowest) against 202 ± 5 calls with Backoff kind at layer 1 = decorrelated-jitter (highest); the difference is beyond noise (95% interval of the difference [93, 107]). Each interval here rests on 3 runs, fewer than 5: read it as rough.',
    );
  });

  it('one replication: no interval, and the text says nothing can be called within or beyond noise', () => {
    const cells = [sampledCell('a', {}, { leafCalls: [10] }), sampledCell('b', {}, { leafCalls: [30] })];
    expect(findingLine(reportModelOf(cells, variants('a', 'b')))).toBe(
      'Leaf calls: 10 calls with a (lowest) against 30 calls with b (highest). With one replication per cell there is no interval, so nothing here can be called within or beyond noise.',
    );
  });
});

describe('claims', () => {
  const cells = [
    sampledCell('jitter', {}, { leafCalls: [100, 101, 102], completionTimeMs: [50, 52, 48] }),
    sampledCell('none', {}, { leafCalls: [240, 250, 260], completionTimeMs: [49, 51, 50] }),
  ];
  const part = () => reportModelOf(cells, variants('jitter', 'none')).parts[0] as ReturnType<typeof reportModelOf>['parts'][number];

  it('supported: the paired interval lies on the claimed side of 0', () => {
    const r = evaluateClaim({ metric: 'leafCalls', variants: ['jitter', 'none'], relation: 'less' }, part());
    expect([r.text, r.status, r.reason]).toEqual(['Leaf calls: jitter lower than none', 'supported', 'holds beyond noise at the one point compared']);
    expect(r.evidence[0]?.difference?.ci95).toEqual([-171.4, -126.6].map((v) => expect.closeTo(v, 1)));
  });

  it('contradicted: the interval lies on the other side', () => {
    const r = evaluateClaim({ metric: 'leafCalls', variants: ['jitter', 'none'], relation: 'greater', text: 'Jitter does more work.' }, part());
    expect([r.text, r.status, r.reason]).toEqual(['Jitter does more work.', 'contradicted', 'contradicted at 1 of 1 point compared']);
  });

  it('not shown: within noise, one replication, or no matching cells', () => {
    expect(evaluateClaim({ metric: 'completionTimeMs', variants: ['jitter', 'none'], relation: 'less' }, part()).status).toBe('not shown');
    expect(evaluateClaim({ metric: 'completionTimeMs', variants: ['jitter', 'none'], relation: 'less' }, part()).reason).toBe('no practical difference at 1 of 1 point compared');
    expect(evaluateClaim({ metric: 'leafCalls', variants: ['jitter', 'exponential'], relation: 'less' }, part())).toMatchObject({ status: 'not shown', reason: 'no cells of this run match it' });
    const single = reportModelOf([sampledCell('a', {}, { leafCalls: [1] }), sampledCell('b', {}, { leafCalls: [3] })], variants('a', 'b')).parts[0] as ReturnType<typeof reportModelOf>['parts'][number];
    expect(evaluateClaim({ metric: 'leafCalls', variants: ['a', 'b'], relation: 'less' }, single)).toMatchObject({ status: 'not shown', reason: 'one replication per cell: no interval to tell' });
  });

  it('similar: the interval includes 0, or lies within the tolerance', () => {
    expect(evaluateClaim({ metric: 'completionTimeMs', variants: ['jitter', 'none'], relation: 'similar' }, part()).status).toBe('supported');
    expect(evaluateClaim({ metric: 'leafCalls', variants: ['jitter', 'none'], relation: 'similar' }, part()).status).toBe('contradicted');
    expect(evaluateClaim({ metric: 'completionTimeMs', variants: ['jitter', 'none'], relation: 'similar', tolerance: 0.2 }, part()).status).toBe('supported');
    expect(evaluateClaim({ metric: 'completionTimeMs', variants: ['jitter', 'none'], relation: 'similar', tolerance: 0.001 }, part()).status).toBe('not shown');
  });

  it('a contradicted claim keeps the file\'s finding out of the headline, which is then computed from the data', () => {
    const source = { ...variants('jitter', 'none'), report: { finding: 'Jitter does more work.', claims: [{ metric: 'leafCalls', variants: ['jitter', 'none'], relation: 'greater' }] } };
    const m = reportModelOf(cells, source);
    expect(evaluateAllClaims(m).map((c) => c.status)).toEqual(['contradicted']);
    expect(findingLine(m)).toBe(
      'Leaf calls: 101 ± 2 calls with jitter (lowest) against 250 ± 20 calls with none (highest); the difference is beyond noise (paired 95% interval of the difference [130, 170]). Each interval here rests on 3 runs, fewer than 5: read it as rough. Not supported by this run\'s data, which contradicts a claim it rests on (see Claims): the file\'s finding "Jitter does more work."',
    );
    const agreeing = { ...source, report: { ...source.report, finding: 'Jitter does less work.', claims: [{ metric: 'leafCalls', variants: ['jitter', 'none'], relation: 'less' }] } };
    expect(findingLine(reportModelOf(cells, agreeing))).toBe('Jitter does less work.');
  });

  // Two parts, each with its own finding: quick's "a" contradicts its finding's claim, "b" supports its own.
  const inPart = (part: string, c: ReportCell): ReportCell => ({ ...c, part, key: JSON.stringify({ params: c.params, part, variant: c.variant }) });
  const twoParts = [
    inPart('a', sampledCell('jitter', {}, { leafCalls: [100, 103, 99] })),
    inPart('a', sampledCell('none', {}, { leafCalls: [240, 250, 260] })),
    inPart('b', sampledCell('jitter', {}, { leafCalls: [100, 103, 99] })),
    inPart('b', sampledCell('none', {}, { leafCalls: [240, 250, 260] })),
  ];
  const greater = { metric: 'leafCalls', variants: ['jitter', 'none'], relation: 'greater' };
  const less = { metric: 'leafCalls', variants: ['jitter', 'none'], relation: 'less' };
  const partsSource = (top: Record<string, unknown> | undefined) => ({
    ...(top ? { report: top } : {}),
    parts: [
      { name: 'a', variants: { jitter: {}, none: {} }, report: { finding: 'In a, jitter does more work.', claims: [greater] } },
      { name: 'b', variants: { jitter: {}, none: {} }, report: { finding: 'In b, jitter does less work.', claims: [less] } },
    ],
  });

  // jitter 100.67 ± 4.303 x 2.08 / sqrt(3) = ± 5.2; none - jitter = [140, 147, 161]: 149.3 ± 4.303 x 10.69 / sqrt(3) = ± 26.6.
  it('a part whose claim is contradicted shows the computed finding and marks its own as not supported; the other part keeps its own', () => {
    const m = reportModelOf(twoParts, partsSource(undefined));
    const [a, b] = m.parts;
    expect(evaluateAllClaims(m).map((c) => [c.part, c.status])).toEqual([['a', 'contradicted'], ['b', 'supported']]);
    expect(partFindingLine(m, a as NonNullable<typeof a>)).toBe(
      'Leaf calls: 101 ± 5 calls with jitter (lowest) against 250 ± 20 calls with none (highest); the difference is beyond noise (paired 95% interval of the difference [120, 180]). Each interval here rests on 3 runs, fewer than 5: read it as rough. Not supported by this run\'s data, which contradicts a claim it rests on (see Claims): the file\'s finding "In a, jitter does more work."',
    );
    expect(partFindingLine(m, b as NonNullable<typeof b>)).toBe('In b, jitter does less work.');
    // The report's own line (the first part's finding when the file has none at the top) is checked too.
    expect(findingLine(m)).toBe(partFindingLine(m, a as NonNullable<typeof a>));
  });

  it('a finding whose claims this run cannot show (one replication) is kept, and says so', () => {
    const single = [sampledCell('jitter', {}, { leafCalls: [100] }), sampledCell('none', {}, { leafCalls: [250] })];
    const source = { ...variants('jitter', 'none'), report: { finding: 'Jitter does less work.', claims: [less] } };
    expect(evaluateAllClaims(reportModelOf(single, source)).map((c) => c.status)).toEqual(['not shown']);
    expect(findingLine(reportModelOf(single, source))).toBe("Jitter does less work. (This run's data cannot show the claims it rests on, with one replication per cell; see Claims.)");
    // Within noise rather than one replication: the same note without the reason.
    const noisy = [sampledCell('jitter', {}, { leafCalls: [100, 300, 200] }), sampledCell('none', {}, { leafCalls: [250, 150, 210] })];
    expect(findingLine(reportModelOf(noisy, source))).toBe("Jitter does less work. (This run's data cannot show the claims it rests on; see Claims.)");
    // Without claims the finding is the file's, as written.
    expect(findingLine(reportModelOf(single, { ...variants('jitter', 'none'), report: { finding: 'Jitter does less work.' } }))).toBe('Jitter does less work.');
  });

  it('a top-level finding of a multi-part experiment is not repeated when a claim of any part is contradicted', () => {
    const m = reportModelOf(twoParts, partsSource({ finding: 'Jitter always does less work.', claims: [{ ...greater, part: 'b' }] }));
    expect(evaluateAllClaims(m).filter((c) => c.status === 'contradicted').map((c) => c.part)).toEqual(['b', 'a']);
    expect(findingLine(m)).toMatch(/^Leaf calls: .* Not supported by this run's data, which contradicts 2 claims it rests on \(see Claims\): the file's finding "Jitter always does less work."$/);
    const fine = reportModelOf(twoParts, { ...partsSource({ finding: 'Jitter always does less work.', claims: [{ ...less, part: 'b' }] }), parts: partsSource(undefined).parts.map((p) => ({ ...p, report: { ...p.report, claims: [less] } })) });
    expect(findingLine(fine)).toBe('Jitter always does less work.');
    expect(partFindingLine(fine, fine.parts[0] as NonNullable<(typeof fine.parts)[0]>)).toBe('In a, jitter does more work.');
  });
});

describe('intervals in tables and sentences', () => {
  it('print to the precision the interval supports, and rounding noise of equal values as no interval', async () => {
    const { formatEstimate, formatRange } = await import('../../src/report/format.js');
    expect(formatEstimate(1002, 1.137e-13)).toBe('1002');
    expect(formatEstimate(1863.2, 13.4)).toBe('1863 ± 13');
    expect(formatEstimate(796.5, 1.5)).toBe('796.5 ± 1.5');
    expect(formatEstimate(0.94051, 0.0012)).toBe('0.9405 ± 0.0012');
    expect(formatEstimate(123456, 1234)).toBe('123,500 ± 1,200');
    expect(formatRange(-0.7735, 2.273)).toBe('[-0.8, 2.3]');
  });
});

describe('claims in the report hints', () => {
  it('accept two variants or two cells, and reject a claim that gives both, neither, or a tolerance not for similar', async () => {
    const { parseReportHints } = await import('../../src/report/reportHints.js');
    expect(parseReportHints({ claims: [{ metric: 'writes', variants: ['a', 'b'], relation: 'less' }] }, 'report').ok).toBe(true);
    expect(parseReportHints({ claims: [{ metric: 'writes', relation: 'less' }, { metric: 'writes', variants: ['a', 'b'], relation: 'less', tolerance: 0.1 }, { metric: 'writes', variants: ['a'], relation: 'bigger' }] }, 'report')).toEqual({
      ok: false,
      errors: [
        'report.claims.0.variants a claim compares either two variants or two cells (give variants or cells, not both or neither)',
        'report.claims.1.tolerance applies only to relation "similar" (got "less")',
        'report.claims.2.variants must be a list of two (got ["a"])',
        'report.claims.2.relation must be one of less, greater, similar (got "bigger")',
      ],
    });
  });
});
