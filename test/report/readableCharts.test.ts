import { describe, expect, it } from 'vitest';
import { buildReportModel } from '../../src/report/reportModel.js';
import { buildChart } from '../../src/report/buildCharts.js';
import { logAxis, logTicks, MAX_LOG_TICKS, numericScale, PLOT_PADDING_PX, valueAxis } from '../../src/report/specs/common.js';
import { captionMismatches, drawsDashes, encodedChannels, encodingWords } from '../../src/report/specs/encodings.js';
import { fittedDomain } from '../../src/report/specs/labels.js';
import { metricVsParamSpec, paretoSpec, timeSeriesSpec, variantColors, type VlSpec } from '../../src/report/index.js';
import { paramTitle } from '../../src/report/metrics.js';
import { seriesCaption } from '../../src/report/specs/timeSeries.js';
import { tuneCharts, type TuneReportInput } from '../../src/report/tuneReport.js';
import { cell, compileLog, encodings, runInfo, series, summary } from './helpers.js';

/** Cells of a sweep of clients 10, 20 ... 190 with two variants, writes growing as in the AWS contention chart (about 50 to 8,000). */
function clientSweep() {
  return Array.from({ length: 19 }, (_, i) => (i + 1) * 10).flatMap((clients) =>
    ['none', 'full-jitter'].map((variant) => cell({ variant, params: { 'workload.clients': clients }, metrics: { writes: variant === 'none' ? 0.22 * clients ** 2 : 9.3 * clients } })),
  );
}

/** The x and y encodings of the line layer of a metric chart. */
function lineAxes(spec: VlSpec): { x: Record<string, unknown>; y: Record<string, unknown> } {
  const line = encodings(spec).find((e) => e.color !== undefined && e.y?.field === 'mean') as Record<string, Record<string, unknown>>;
  return { x: line.x as Record<string, unknown>, y: line.y as Record<string, unknown> };
}

describe('log axes labelled across the whole range of the data', () => {
  it('1-2-5 ticks from at or below the smallest value to at or beyond the largest', () => {
    expect(logTicks(10, 190)).toEqual([10, 20, 50, 100, 200]);
    expect(logTicks(36.6, 8071)).toEqual([20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]);
    expect(logTicks(0.013, 0.5)).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5]);
    // Wide spans thin out to 1-3, then to decades, then to every few decades: at most MAX_LOG_TICKS.
    expect(logTicks(1, 1e5)).toEqual([1, 3, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000]);
    expect(logTicks(1, 1e9)).toEqual([1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]);
    for (const [lo, hi] of [
      [3e-7, 4e12],
      [0.7, 0.9],
      [5, 5],
      [123, 98765],
    ] as Array<[number, number]>) {
      const t = logTicks(lo, hi);
      expect(t.length).toBeLessThanOrEqual(MAX_LOG_TICKS);
      expect(t[0]).toBeLessThanOrEqual(lo);
      expect(t[t.length - 1]).toBeGreaterThanOrEqual(hi);
    }
  });

  it('a metric chart over 19 client counts labels both log axes up to beyond the largest value (the N = 100 story is labelled)', () => {
    const spec = metricVsParamSpec({ cells: clientSweep(), metric: 'writes', x: 'workload.clients', colors: variantColors(['none', 'full-jitter']), logX: true, logY: true });
    const { x, y } = lineAxes(spec);
    expect(x.scale).toEqual({ type: 'log', domain: [10, 200], nice: false, padding: PLOT_PADDING_PX });
    expect((x.axis as { values: number[] }).values).toEqual([10, 20, 50, 100, 200]);
    const ys = (y.axis as { values: number[] }).values;
    const writes = clientSweep().map((c) => c.metrics.writes?.mean as number);
    expect(ys[0]).toBeLessThanOrEqual(Math.min(...writes));
    expect(ys[ys.length - 1]).toBeGreaterThanOrEqual(Math.max(...writes));
    expect((y.scale as { domain: number[] }).domain).toEqual([ys[0], ys[ys.length - 1]]);
    expect(compileLog(spec)).toEqual([]);
  });

  it('the Pareto chart on log axes: its ticks span the points and its domain holds the ticks', () => {
    const cells = [
      { label: 'a', cell: cell({ variant: 'a', metrics: { writes: 3, completionTimeMs: 40 } }) },
      { label: 'b', cell: cell({ variant: 'b', metrics: { writes: 700, completionTimeMs: 9000 } }) },
    ];
    const spec = paretoSpec({ cells, colors: variantColors(['a', 'b']), work: 'writes', time: 'completionTimeMs' });
    const x = encodings(spec).find((e) => e.x?.field === 'work')?.x as { axis: { values: number[] }; scale: { domain: [number, number] } };
    expect(x.axis.values).toEqual([2, 5, 10, 20, 50, 100, 200, 500, 1000]);
    expect(x.scale.domain[0]).toBeLessThan(2);
    expect(x.scale.domain[1]).toBeGreaterThan(1000);
  });
});

describe('no mark is cut by the plot', () => {
  it('pads every continuous axis of a metric chart, linear and log, by a few pixels', () => {
    const linear = metricVsParamSpec({ cells: clientSweep(), metric: 'writes', x: 'workload.clients', colors: variantColors(['none', 'full-jitter']), logX: false, logY: false });
    for (const axis of Object.values(lineAxes(linear))) expect(axis.scale).toMatchObject({ padding: PLOT_PADDING_PX });
    expect(valueAxis([0, 1], false).scale).toEqual({ zero: false, nice: false, padding: PLOT_PADDING_PX });
    expect(logAxis([3, 400]).scale).toMatchObject({ padding: PLOT_PADDING_PX });
    expect(numericScale([1, 2, 3]).scale).toMatchObject({ padding: PLOT_PADDING_PX });
  });

  it('fits a Pareto domain beyond the extreme points (below 0 when a point is at 0)', () => {
    const [lo, hi] = fittedDomain([0, 21], false, 560);
    expect(lo).toBeLessThan(0);
    expect(hi).toBeGreaterThan(21);
    // A point at 0 is drawn 8 px in from the plot's edge.
    expect(((0 - lo) / (hi - lo)) * 560).toBeCloseTo(PLOT_PADDING_PX, 9);
  });
});

/** A search over attempts (an integer), backoff base (log) and backoff kind (a choice), with a recommendation, a preset and dropped candidates. */
function tuneInput(): TuneReportInput {
  const stats = (mean: number) => ({ n: 4, mean, sd: 0.1, ci95: [mean - 0.1, mean + 0.1] as [number, number] });
  const candidate = (rank: number, attempts: number, status: string, feasibility: string, preset = false) => ({
    rank,
    id: `c${rank}`,
    label: `attempts=${attempts}`,
    origin: preset ? 'preset' : 'hypercube',
    values: { 'stack.1.policy.maxAttempts': attempts, 'stack.1.policy.backoff.baseMs': 10 * rank, 'stack.1.policy.backoff.kind': rank % 2 ? 'full-jitter' : 'none' },
    preset: preset ? { layer: '1', name: 'aws' } : null,
    replications: 4,
    status,
    reason: status === 'survivor' ? null : 'halved',
    droppedInRound: status === 'survivor' ? null : 1,
    feasibility,
    objectives: [stats(1 + attempts / 2)],
    constraints: [{ ...stats(0.99), met: 'yes' as const }],
  });
  return {
    experiment: 'e',
    seed: 1,
    headline: 'h',
    status: 'recommended',
    stopReason: null,
    totalRuns: 20,
    maxRuns: 100,
    space: [
      { path: 'stack.1.policy.maxAttempts', dimension: { kind: 'int', min: 1, max: 5 } },
      { path: 'stack.1.policy.backoff.baseMs', dimension: { kind: 'log', min: 10, max: 1000 } },
      { path: 'stack.1.policy.backoff.kind', dimension: { kind: 'choice', values: ['none', 'full-jitter'] } },
    ],
    objectives: [{ label: 'amplification', goal: 'minimize', tolerance: null }],
    constraints: ['successRate >= 0.99'],
    rounds: [{ index: 1, replications: 4, entered: ['c1', 'c2'], runs: 8, totalRuns: 8, leader: 'c1', dropped: [{ id: 'c3', reason: 'halved' }], added: [] }],
    ranking: [candidate(1, 1, 'survivor', 'feasible'), candidate(2, 2, 'survivor', 'feasible', true), candidate(3, 4, 'dropped', 'unknown'), candidate(4, 5, 'dropped', 'infeasible')],
    recommendation: { id: 'c1', label: 'attempts=1', overrides: {}, setFlags: [], indistinguishableFrom: [], notSeparatedFrom: [] },
    front: [],
    closest: [],
    presets: [{ id: 'c2', layer: '1', name: 'aws', rank: 2 }],
  };
}

describe("tune's charts", () => {
  const charts = tuneCharts(tuneInput());

  it('give colour and shape one legend (same field, same title), never a shape without one', () => {
    for (const c of charts) {
      const channels = encodedChannels(c.spec as VlSpec);
      expect(channels.length, c.id).toBeGreaterThan(0);
      expect(channels.every((ch) => ch.legend && ch.title !== ''), c.id).toBe(true);
      const shape = channels.find((ch) => ch.channel === 'shape');
      const color = channels.find((ch) => ch.channel === 'color');
      if (shape) expect([shape.field, shape.title]).toEqual([color?.field, color?.title]);
    }
    expect(charts.filter((c) => encodedChannels(c.spec as VlSpec).some((ch) => ch.channel === 'shape')).length).toBe(4);
  });

  it('put integer ticks on an integer parameter, log ticks spanning a log one, and pad every numeric axis', () => {
    const x = (id: string) => ((charts.find((c) => c.id === id)?.spec as { encoding: Record<string, Record<string, unknown>> }).encoding.x ?? {}) as { axis?: Record<string, unknown>; scale?: Record<string, unknown> };
    const attempts = x('param-0');
    // Attempts 1, 2, 4, 5: whole numbers only.
    expect(attempts.axis).toEqual({ tickMinStep: 1, format: ',d' });
    expect(attempts.scale).toMatchObject({ padding: PLOT_PADDING_PX });
    // Backoff bases 10 to 40 ms drawn from a log range: round ticks spanning them, not a tick at each candidate's value.
    const base = x('param-1');
    expect(base.scale).toMatchObject({ type: 'log', domain: [10, 50], padding: PLOT_PADDING_PX });
    expect(base.axis?.values).toEqual([10, 20, 50]);
    const rounds = charts.find((c) => c.id === 'rounds')?.spec as { encoding: { y: { axis: Record<string, unknown> } } };
    expect(rounds.encoding.y.axis).toMatchObject({ tickMinStep: 1, format: ',d' });
    for (const c of charts) expect(compileLog(c.spec as VlSpec), c.id).toEqual([]);
  });
});

describe('captions say what is drawn', () => {
  const model = (cells: ReturnType<typeof cell>[]) => buildReportModel(summary(cells), runInfo({ variants: { default: {} } }));

  it('a knife-edge chart of one variant and several spike rates calls its lines colours, not dash patterns', () => {
    const cells = [70, 80, 100].flatMap((rate) =>
      [3000, 5000, 8000].map((d) => cell({ params: { 'workload.rate.durationMs': d, 'workload.rate.spikeRatePerSec': rate }, metrics: { 'windows.after.recovered': [d < 5000 ? 1 : 0.5, 0.2, 1] } })),
    );
    const m = model(cells);
    const part = m.parts[0] as (typeof m.parts)[number];
    const chart = buildChart(m, part, { kind: 'metric', metric: 'windows.after.recovered', x: 'workload.rate.durationMs' }, 'k');
    expect(drawsDashes(chart.spec)).toBe(false);
    expect(chart.caption).toMatch(/^Each line is one spike rate \(colour\), its band the 95% confidence interval/);
    expect(captionMismatches(chart.caption, chart.spec)).toEqual([]);
    // The axis and legend name the field as what it is: the spike's duration, not a duration of a rate.
    const { x } = lineAxes(chart.spec);
    expect(x.title).toBe('Spike duration (ms)');
    expect(paramTitle('workload.rate.atMs')).toBe('Step or spike at (ms)');
    expect(paramTitle('workload.rate.spikeRatePerSec')).toBe('Spike rate (/s)');
    expect(paramTitle('workload.rate.ratePerSec')).toBe('Arrival rate (/s)');
  });

  it('names variants and a second parameter by colour and dash pattern when both are drawn', () => {
    const cells = ['a', 'b'].flatMap((variant) => [1, 2].flatMap((k) => [10, 20].map((x) => cell({ variant, params: { x, k }, metrics: { leafCalls: x * k } }))));
    const spec = metricVsParamSpec({ cells, metric: 'leafCalls', x: 'x', colors: variantColors(['a', 'b']) });
    expect(encodingWords(spec)).toBe('variant (colour) and k (dash pattern)');
    expect(captionMismatches('Each dash pattern is one k.', spec)).toEqual([]);
  });

  it('finds a caption speaking of dashes or shapes a chart does not draw', () => {
    const solid: VlSpec = { mark: 'line', encoding: { color: { field: 'v', type: 'nominal' } } };
    expect(captionMismatches('Each dash pattern is one spike rate.', solid)).toEqual(['dashes']);
    expect(captionMismatches('Retries are dashed; each shape a status.', solid)).toEqual(['dashes', 'shapes']);
    expect(captionMismatches('Each colour is one spike rate.', solid)).toEqual([]);
    expect(captionMismatches('The dashed line is the frontier.', { mark: { type: 'line', strokeDash: [6, 4] } })).toEqual([]);
  });

  it('a time series caption mentions retries dashed only when a dash encoding is drawn', () => {
    expect(seriesCaption(false, false)).not.toMatch(/dash/);
    expect(seriesCaption(true, false)).not.toMatch(/dash/);
    expect(seriesCaption(false, true)).toMatch(/retries \(dashed\)/);
  });
});

describe('every encoding has a legend', () => {
  it('a single run is drawn in one colour without a colour encoding; several runs get a colour legend', () => {
    const one = timeSeriesSpec({ runs: [{ label: 'default', variant: 'default', series: series(20, 100) }], windows: [], colors: variantColors(['default']) });
    const two = timeSeriesSpec({
      runs: ['a', 'b'].map((v) => ({ label: v, variant: v, series: series(20, 100) })),
      windows: [],
      colors: variantColors(['a', 'b']),
    });
    expect(encodedChannels(one).filter((c) => c.channel === 'color')).toEqual([]);
    expect(encodedChannels(two).filter((c) => c.channel === 'color')).toEqual([{ channel: 'color', field: 'variant', title: 'Variant', legend: true }]);
    for (const s of [one, two]) expect(encodedChannels(s).every((c) => c.legend)).toBe(true);
  });
});
