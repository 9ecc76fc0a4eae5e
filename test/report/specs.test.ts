import { describe, expect, it } from 'vitest';
import {
  amplificationSpec,
  clusteringSpec,
  colorScale,
  coarsenSeries,
  flattenSeries,
  giveUpRows,
  giveUpsSpec,
  layerAttemptsRows,
  metricPoints,
  metricVsParamSpec,
  PALETTE,
  paretoFrontier,
  paretoPoints,
  paretoSpec,
  REASON_COLORS,
  timeSeriesSpec,
  variantColors,
  type VlSpec,
} from '../../src/report/index.js';
import { PLOT_PADDING_PX } from '../../src/report/specs/common.js';
import { encodedChannels } from '../../src/report/specs/encodings.js';
import { cell, compileLog, encodings, scenario, series, sweepCells } from './helpers.js';

const colors = variantColors(['none', 'exponential', 'full-jitter']);
type Layer = { mark: Record<string, unknown> | string; encoding: Record<string, Record<string, unknown>>; params?: unknown[]; transform?: unknown[] };

function layers(spec: VlSpec): Layer[] {
  return spec.layer as Layer[];
}

function lineOf(spec: VlSpec): Layer | undefined {
  return layers(spec).find((l) => (l.mark as { type: string }).type === 'line');
}

describe('metricVsParamSpec: a metric against a swept parameter', () => {
  const spec = metricVsParamSpec({ cells: sweepCells(), metric: 'writes', x: 'workload.clients', colors });

  it('draws the 95% interval as a band under one line per variant', () => {
    const [band, line] = layers(spec);
    expect(band?.mark).toMatchObject({ type: 'area' });
    expect(band?.encoding.y).toMatchObject({ field: 'loDraw', type: 'quantitative' });
    expect(band?.encoding.y2).toEqual({ field: 'hiDraw' });
    expect(line?.mark).toMatchObject({ type: 'line', point: { filled: true } });
    expect(line?.encoding.y).toMatchObject({ field: 'mean', title: 'Writes (calls)' });
    expect(line?.encoding.detail).toEqual({ field: 'series', type: 'nominal' });
  });

  it('titles the axes with their units and goes logarithmic when the values span two decades, padded so no point is cut', () => {
    const [, line] = layers(spec);
    // Four swept clients (10 to 1000): the axis ends at the data, padded by a few pixels, a tick at each value, integers printed as integers.
    expect(line?.encoding.x).toMatchObject({ field: 'x', type: 'quantitative', title: 'Clients', scale: { type: 'log', domain: [10, 1000], nice: false, padding: PLOT_PADDING_PX } });
    expect(line?.encoding.x?.axis).toMatchObject({ values: [10, 20, 40, 1000], labelExpr: "format(datum.value, ',')" });
    // Writes 18 to 6600: round 1-2-5 ticks from at or below the smallest to at or beyond the largest, the domain from the first tick to the last.
    expect(line?.encoding.y?.scale).toEqual({ type: 'log', domain: [10, 10000], nice: false, padding: PLOT_PADDING_PX });
    expect(line?.encoding.y?.axis).toMatchObject({ values: [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000] });
    const small = metricVsParamSpec({ cells: sweepCells().filter((c) => c.params['workload.clients'] !== 1000), metric: 'writes', x: 'workload.clients', colors });
    expect(layers(small)[1]?.encoding.x?.scale).toEqual({ zero: false, nice: false, padding: PLOT_PADDING_PX });
    const forced = metricVsParamSpec({ cells: sweepCells(), metric: 'writes', x: 'workload.clients', colors, logX: false, logY: false });
    expect(layers(forced)[1]?.encoding.x?.scale).toEqual({ zero: false, nice: false, padding: PLOT_PADDING_PX });
    expect(layers(forced)[1]?.encoding.y?.scale).toEqual({ zero: false, nice: false, padding: PLOT_PADDING_PX });
    expect(compileLog(spec)).toEqual([]);
  });

  it('colours variants from an explicit domain and range, and binds a filter to the legend', () => {
    const [, line] = layers(spec);
    expect(line?.encoding.color).toMatchObject({
      field: 'variant',
      scale: { domain: ['none', 'exponential', 'full-jitter'], range: [PALETTE[0], PALETTE[1], PALETTE[2]] },
    });
    expect(line?.params).toEqual([{ name: 'legend_filter', select: { type: 'point', fields: ['variant'] }, bind: 'legend' }]);
    expect(line?.encoding.opacity).toEqual({ condition: { param: 'legend_filter', value: 1, empty: true }, value: 0.08 });
  });

  it('shows the exact mean, interval and replications in the tooltip', () => {
    const fields = (layers(spec)[1]?.encoding.tooltip as unknown as Array<{ field: string; title: string; format?: string }>) ?? [];
    expect(fields.map((f) => f.field)).toEqual(['variant', 'x', 'mean', 'lo', 'hi', 'runs']);
    expect(fields.find((f) => f.field === 'mean')?.title).toBe('Writes, mean (calls)');
    expect(fields.every((f) => f.format === undefined)).toBe(true);
  });

  it('keeps the exact interval for tooltips and clips only the drawn band at 0', () => {
    const c = cell({ variant: 'a', params: { x: 1 }, metrics: { leafCalls: [2, -3, 7] } });
    const [p] = metricPoints([c], 'leafCalls', 'x');
    expect(p).toMatchObject({ x: 1, mean: 2, lo: -3, hi: 7, loDraw: 0, n: 5, series: 'a', others: '' });
  });

  it('tells the values of other swept parameters apart by dashes, in numeric order', () => {
    const cells = [100, 70, 80].flatMap((b) => [10, 20].flatMap((a) => ['v', 'w'].map((variant) => cell({ variant, params: { a, b }, metrics: { leafCalls: a * b } }))));
    const s = metricVsParamSpec({ cells, metric: 'leafCalls', x: 'a', colors: variantColors(['v', 'w']) });
    expect(layers(s).find((l) => (l.mark as { type: string }).type === 'line')?.encoding.strokeDash).toEqual({ field: 'othersLabel', type: 'nominal', title: 'B', sort: ['70', '80', '100'] });
    expect(metricPoints(cells, 'leafCalls', 'a').slice(0, 4).map((p) => p.series)).toEqual(['v (b = 100)', 'w (b = 100)', 'v (b = 100)', 'w (b = 100)']);
    expect(compileLog(s)).toEqual([]);
  });

  it('gives each value of another parameter its own colour, in numeric order, when there is one variant', () => {
    const cells = [100, 70, 80].flatMap((b) => [10, 20].map((a) => cell({ variant: 'v', params: { a, b }, metrics: { leafCalls: a * b } })));
    const s = metricVsParamSpec({ cells, metric: 'leafCalls', x: 'a', colors: variantColors(['v']) });
    const line = layers(s).find((l) => (l.mark as { type: string }).type === 'line');
    expect(line?.encoding.color).toMatchObject({ field: 'key', title: 'B', scale: { domain: ['70', '80', '100'], range: [PALETTE[0], PALETTE[1], PALETTE[2]] } });
    expect(line?.encoding.strokeDash).toBeUndefined();
    expect(compileLog(s)).toEqual([]);
  });

  it('splits more than 8 series into panels of at most 8 on shared axes', () => {
    const names = Array.from({ length: 11 }, (_, i) => `v${i + 1}`);
    const cells = names.flatMap((variant, i) => [1, 2, 3].map((x) => cell({ variant, params: { x }, metrics: { leafCalls: x * (i + 1) } })));
    const s = metricVsParamSpec({ cells, metric: 'leafCalls', x: 'x', colors: variantColors(names) });
    const panels = s.vconcat as VlSpec[];
    expect(panels.map((p) => (lineOf(p)?.encoding.color?.scale as { domain: string[] }).domain)).toEqual([names.slice(0, 6), names.slice(6)]);
    expect(s.resolve).toMatchObject({ scale: { x: 'shared', y: 'shared', color: 'independent' } });
    expect(compileLog(s)).toEqual([]);
  });

  it('clips the drawn interval of a fraction to [0, 1] and keeps the exact one for tooltips', () => {
    const c = cell({ variant: 'a', params: { x: 1 }, metrics: { successRate: [0.98, 0.9, 1.06] } });
    expect(metricPoints([c], 'successRate', 'x')[0]).toMatchObject({ lo: 0.9, hi: 1.06, loDraw: 0.9, hiDraw: 1 });
  });

  it('fits a timer-tick axis that includes 0 and spans decades with symlog, a tick at each value', () => {
    const cells = [0, 1, 4, 10, 15.6, 100, 1000].map((t) => cell({ variant: 'a', params: { tickMs: t }, metrics: { leafCalls: 5 + t } }));
    const line = lineOf(metricVsParamSpec({ cells, metric: 'leafCalls', x: 'tickMs', colors }));
    expect(line?.encoding.x).toMatchObject({ scale: { type: 'symlog', domain: [0, 1000], nice: false }, axis: { values: [0, 1, 4, 10, 15.6, 100, 1000], labelExpr: "format(datum.value, ',')" } });
  });

  it('gives an integer parameter with many values integer ticks only', () => {
    const cells = Array.from({ length: 20 }, (_, i) => cell({ variant: 'a', params: { 'stack.0.policy.maxAttempts': i + 1 }, metrics: { leafCalls: i } }));
    const line = lineOf(metricVsParamSpec({ cells, metric: 'leafCalls', x: 'stack.0.policy.maxAttempts', colors }));
    expect(line?.encoding.x?.axis).toEqual({ tickMinStep: 1, format: ',d' });
    expect(line?.encoding.x?.title).toBe('Attempts at layer 0');
  });

  it('draws points with interval bars side by side for a non-numeric parameter, in the file order', () => {
    const cells = ['time-seeded', 'independent', 'shared'].flatMap((mode) =>
      ['none', 'full-jitter'].map((variant) => cell({ variant, params: { seeding: mode }, metrics: { 'clustering.1ms.peakToMean': [5, 4, 6] } })),
    );
    const s = metricVsParamSpec({ cells, metric: 'clustering.1ms.peakToMean', x: 'seeding', colors, xOrder: ['independent', 'shared', 'time-seeded'] });
    const [rule, point] = layers(s);
    expect(rule?.mark).toMatchObject({ type: 'rule' });
    expect(point?.mark).toMatchObject({ type: 'point' });
    expect(point?.encoding.x).toMatchObject({ type: 'nominal', sort: ['independent', 'shared', 'time-seeded'] });
    expect(point?.encoding.xOffset).toMatchObject({ field: 'series' });
    expect(compileLog(s)).toEqual([]);
  });

  it('compiles with vega-lite without a warning', () => {
    expect(compileLog(spec)).toEqual([]);
  });
});

describe('timeSeriesSpec: binned series of typical runs', () => {
  const runs = [
    { label: 'none', variant: 'none', series: series(40, 250, () => 5, (i) => (i > 10 ? 8 : 0)) },
    { label: 'full-jitter', variant: 'full-jitter', series: series(40, 250, () => 5, () => 1) },
  ];
  const windows = [
    { fromMs: 3000, toMs: 5000, label: 'spike to 200/s', kind: 'workload' as const },
    { fromMs: 6000, toMs: null, label: 'outage (no workers)', kind: 'capacity' as const },
  ];
  const spec = timeSeriesSpec({ runs, windows, colors });
  const views = spec.vconcat as Array<{ layer: Layer[]; height: number }>;

  it('stacks one panel per measure, arrivals first, leaving out panels that are zero everywhere', () => {
    const titles = views.map((v) => v.layer[v.layer.length - 1]?.encoding.y?.title);
    expect(titles).toEqual(['Leaf calls per 250 ms bin', 'Goodput (ops/s)', 'Queue (requests)', 'In flight (ops)', 'Busy (workers)']);
    const quiet = timeSeriesSpec({ runs: [{ label: 'a', variant: 'a', series: { ...series(5, 10), queue: [0, 0, 0, 0, 0] } }], windows: [], colors });
    expect((quiet.vconcat as unknown[]).length).toBe(4);
  });

  it('keeps one row per run and bin, every series a field, plus a row ending the last step', () => {
    const rows = (spec.datasets as { series: Array<Record<string, unknown>> }).series;
    expect(rows).toHaveLength(2 * 41);
    expect(rows[11]).toEqual({ label: 'none', variant: 'none', t: 2.75, 'first tries': 5, retries: 8, v2: 20, v3: 2, v4: 4, v5: 1 });
    expect(rows[40]).toMatchObject({ label: 'none', t: 10, 'first tries': 5 });
    expect(views[0]?.layer[1]?.transform).toEqual([{ fold: ['first tries', 'retries'], as: ['kind', 'value'] }]);
    expect(views[1]?.layer[1]?.encoding.y?.field).toBe('v2');
  });

  it('draws first tries solid and retries dashed, coloured by variant, as steps over the bins', () => {
    const line = views[0]?.layer[1];
    expect(line?.mark).toMatchObject({ type: 'line', interpolate: 'step-after' });
    expect(line?.encoding.strokeDash).toMatchObject({ field: 'kind', scale: { domain: ['first tries', 'retries'], range: [[1, 0], [5, 3]] } });
    expect(line?.encoding.color?.scale).toEqual({ domain: ['none', 'full-jitter'], range: [PALETTE[0], PALETTE[2]] });
    expect(line?.params).toHaveLength(1);
    expect(views[1]?.layer[1]?.params).toBeUndefined();
    expect(views[1]?.layer[1]?.encoding.opacity).toMatchObject({ condition: { param: 'legend_filter' } });
  });

  it('draws one run in its colour without a colour encoding (a legend of one entry, "Variant: default", says nothing)', () => {
    const one = timeSeriesSpec({ runs: [{ label: 'default', variant: 'default', series: series(40, 250, () => 5, () => 1) }], windows, colors });
    const oneViews = one.vconcat as Array<{ layer: Layer[] }>;
    for (const v of oneViews) {
      const line = v.layer[v.layer.length - 1];
      expect(line?.encoding.color).toEqual({ value: colorScale(colors, ['default']).range[0] });
      expect(line?.params).toBeUndefined();
      expect(line?.encoding.opacity).toBeUndefined();
    }
    expect(views[0]?.layer[1]?.encoding.color).not.toHaveProperty('legend');
    expect(encodedChannels(one).every((c) => c.legend)).toBe(true);
    expect(compileLog(one)).toEqual([]);
  });

  it('titles the axes with units and the bin width, in seconds for runs of 10 s or more', () => {
    expect(views[0]?.layer[1]?.encoding.y?.title).toBe('Leaf calls per 250 ms bin');
    expect(views[1]?.layer[1]?.encoding.y?.title).toBe('Goodput (ops/s)');
    expect(views[0]?.layer[1]?.encoding.x).toMatchObject({ title: 'Time (s)', scale: { domain: [0, 10] } });
    const short = timeSeriesSpec({ runs: [{ label: 'a', variant: 'a', series: series(10, 10) }], windows: [], colors });
    expect((short.vconcat as Array<{ layer: Layer[] }>)[0]?.layer[0]?.encoding.x?.title).toBe('Time (ms)');
  });

  it('shades the trigger windows in every panel, an open window to the end of the run', () => {
    for (const v of views) {
      expect(v.layer[0]?.mark).toMatchObject({ type: 'rect' });
      expect(v.layer[0]?.encoding.x2).toEqual({ field: 'to' });
    }
    expect((spec.datasets as { windows: unknown[] }).windows).toEqual([
      { from: 3, to: 5, label: 'spike to 200/s', shade: 'trigger window' },
      { from: 6, to: 10, label: 'outage (no workers)', shade: 'trigger window' },
    ]);
    // The shading has a legend entry of its own.
    expect(views[0]?.layer[0]?.encoding.fill).toMatchObject({ field: 'shade', title: 'Shaded', scale: { domain: ['trigger window'], range: ['#888888'] } });
  });

  it('merges long runs into wider bins: counts add up, means average', () => {
    const long = series(5000, 1, (i) => i % 2, () => 1);
    const c = coarsenSeries(flattenSeries(long), 4);
    expect(c.binMs).toBe(4);
    expect(c.tMs.slice(0, 3)).toEqual([0, 4, 8]);
    expect((c.values.arrivalsFirst ?? []).reduce((a, b) => a + b, 0)).toBe(2500);
    expect(c.values.arrivalsRetry?.[0]).toBe(4);
    expect(c.values.busy?.[0]).toBe(1);
    const s = timeSeriesSpec({ runs: [{ label: 'a', variant: 'a', series: long }], windows: [], colors, maxBins: 1000 });
    const rows = (s.datasets as { series: Array<{ t: number }> }).series;
    expect(rows.length).toBe(1001);
    expect(rows[1]?.t).toBe(5);
  });

  it('adds a panel per retry budget, one for the backends of a pool, and one for any other series', () => {
    const rich = {
      ...series(10, 100),
      budgets: [{ layer: 'sdk', kind: 'token-bucket', values: [5, 4, 3, 2, 1, 0, 0, 1, 2, 3] }],
      fleet: { healthyBackends: Array(10).fill(3), downBackends: Array(10).fill(1), ejectedBackends: Array(10).fill(0), backendBusy: [[1, 2]], backendQueue: [[0, 0]] },
      other: [0, 1, 0, 1, 0, 1, 0, 1, 0, 1],
    };
    const flat = flattenSeries(rich);
    expect(Object.keys(flat.values).filter((k) => /budget|fleet|other/.test(k))).toEqual([
      'budget:sdk:token-bucket',
      'fleet.healthyBackends',
      'fleet.downBackends',
      'fleet.ejectedBackends',
      'other',
    ]);
    const s = timeSeriesSpec({ runs: [{ label: 'a', variant: 'a', series: rich }], windows: [], colors });
    const titles = (s.vconcat as Array<{ layer: Layer[] }>).map((v) => v.layer[0]?.encoding.y?.title);
    expect(titles.slice(5)).toEqual(['Backends (mean)', ['Budget token-bucket at', 'sdk (mean per bin)'], 'other (mean per bin)']);
    const backends = (s.vconcat as Array<{ layer: Layer[] }>)[5]?.layer[0];
    expect(backends?.transform).toEqual([{ fold: ['healthy', 'down', 'ejected'], as: ['kind', 'value'] }]);
    expect(backends?.encoding.strokeDash).toMatchObject({ title: 'Backends', scale: { domain: ['healthy', 'down', 'ejected'] } });
    expect(s.resolve).toEqual({ scale: { strokeDash: 'independent' } });
    expect(compileLog(s)).toEqual([]);
  });

  it('compiles with vega-lite without a warning', () => {
    expect(compileLog(spec)).toEqual([]);
  });
});

describe('clusteringSpec: leaf arrivals per bin and peak-to-mean', () => {
  const cells = sweepCells().filter((c) => c.params['workload.clients'] === 40);
  const runs = cells.map((c) => ({ label: c.variant, variant: c.variant, series: series(100, 10, (i) => (i % 10 === 0 ? 30 : 1)), cell: c }));

  it('draws one histogram row per run over pre-binned time, then the metric per run', () => {
    const s = clusteringSpec({ runs, cells, metric: 'clustering.1ms.peakToMean', colors });
    const v = s.vconcat as Array<Record<string, unknown>>;
    expect(v).toHaveLength(4);
    const enc = (v[0] as { encoding: Record<string, Record<string, unknown>> }).encoding;
    expect(enc.x).toMatchObject({ field: 't', bin: 'binned', title: 'Time (ms)' });
    expect(enc.x2).toEqual({ field: 'tEnd' });
    expect(enc.y).toMatchObject({ field: 'arrivals', title: ['Calls per 10', 'ms bin'] });
    expect((v[3] as { layer: Layer[] }).layer[0]?.encoding.y?.field).toBe('mean');
    expect(compileLog(s)).toEqual([]);
  });

  it('puts peak-to-mean against the swept tick when there is one', () => {
    const tick = [0, 10, 100].map((t) => cell({ params: { 'stack.0.policy.tickMs': t }, metrics: { 'clustering.1ms.peakToMean': [t + 2, t + 1, t + 3] } }));
    const r = tick.map((c) => ({ label: `tick ${String(c.params['stack.0.policy.tickMs'])}`, variant: 'default', series: series(30, 5), cell: c }));
    const s = clusteringSpec({ runs: r, cells: tick, metric: 'clustering.1ms.peakToMean', x: 'stack.0.policy.tickMs', colors: variantColors(['default']) });
    const lower = (s.vconcat as Array<{ layer?: Layer[] }>)[1] as { layer: Layer[] };
    expect(lower.layer[1]?.encoding.x).toMatchObject({ title: 'Timer tick at layer 0 (ms)' });
    expect(lower.layer[1]?.params).toEqual([{ name: 'legend_filter_metric', select: { type: 'point', fields: ['variant'] }, bind: 'legend' }]);
    expect(s.resolve).toEqual({ scale: { color: 'independent' } });
    expect(compileLog(s)).toEqual([]);
  });
});

describe('amplificationSpec: attempts per layer', () => {
  const threeLayers = scenario({ stack: [{ name: 'app' }, { name: 'sdk' }, { name: 'proxy' }] });
  const c = cell({
    variant: 'none',
    scenario: threeLayers,
    metrics: {
      'operations.offered': 100,
      'attempts.app.first': 100,
      'attempts.app.retries': 200,
      'attempts.sdk.first': 300,
      'attempts.sdk.retries': 600,
      'attempts.proxy.first': 900,
      'attempts.proxy.retries': 1800,
    },
  });

  it('gives each layer, top first, its first tries and retries per operation offered', () => {
    const rows = layerAttemptsRows([{ label: 'none', cell: c }]);
    expect(rows.map((r) => [r.layer, r.kind, r.perOperation])).toEqual([
      ['app', 'first tries', 1],
      ['app', 'retries', 2],
      ['sdk', 'first tries', 3],
      ['sdk', 'retries', 6],
      ['proxy', 'first tries', 9],
      ['proxy', 'retries', 18],
    ]);
  });

  it('stacks the bars, solid first tries under light retries, coloured by variant', () => {
    const other = { ...c, variant: 'full-jitter', key: 'k2' };
    const s = amplificationSpec({ cells: [{ label: 'none', cell: c }, { label: 'full-jitter', cell: other }], colors });
    const enc = s.encoding as Record<string, Record<string, unknown>>;
    expect(enc.x).toMatchObject({ field: 'layer', sort: ['app', 'sdk', 'proxy'] });
    expect(enc.xOffset).toMatchObject({ field: 'label', sort: ['none', 'full-jitter'] });
    expect(enc.y).toMatchObject({ field: 'perOperation', stack: 'zero' });
    expect(enc.fillOpacity).toMatchObject({ field: 'kind', scale: { domain: ['first tries', 'retries'], range: [1, 0.4] } });
    expect(enc.color?.scale).toEqual({ domain: ['none', 'full-jitter'], range: [PALETTE[0], PALETTE[2]] });
    expect(compileLog(s)).toEqual([]);
  });
});

describe('paretoSpec: total work against time with the Pareto frontier', () => {
  it('keeps the points nothing beats on both axes', () => {
    const pts = [
      { x: 1, y: 10, id: 'a' },
      { x: 2, y: 5, id: 'b' },
      { x: 3, y: 7, id: 'c' },
      { x: 4, y: 1, id: 'd' },
      { x: 4, y: 2, id: 'e' },
      { x: 1, y: 12, id: 'f' },
    ];
    expect(paretoFrontier(pts).map((p) => p.id)).toEqual(['a', 'b', 'd']);
    expect(paretoFrontier([])).toEqual([]);
  });

  const cells = sweepCells().filter((c) => c.params['workload.clients'] === 20).map((c) => ({ label: c.variant, cell: c }));

  it('marks each point on or off the frontier and joins the frontier with a dashed line', () => {
    const pts = paretoPoints(cells, 'writes', 'completionTimeMs');
    expect(pts.map((p) => [p.label, p.work, p.time, p.onFrontier])).toEqual([
      ['none', 120, 200, true],
      ['exponential', 80, 400, true],
      ['full-jitter', 40, 600, true],
    ]);
    const s = paretoSpec({ cells, colors, work: 'writes', time: 'completionTimeMs' });
    const [frontier, points] = layers(s) as [Layer & { data: { values: unknown[] } }, { layer: Layer[] }];
    expect(frontier.mark).toMatchObject({ type: 'line', strokeDash: [6, 4] });
    expect(frontier.data.values).toHaveLength(3);
    const point = points.layer.find((l) => (l.mark as { type: string }).type === 'point');
    expect(point?.encoding.x).toMatchObject({ field: 'work', title: 'Writes (calls)' });
    expect(point?.encoding.y).toMatchObject({ field: 'time', title: 'Completion time (ms)' });
    // The shape legend says in words which points are on the frontier (not "true" / "false").
    expect(point?.encoding.shape).toMatchObject({ field: 'standing', title: 'Pareto frontier', scale: { domain: ['on the frontier', 'dominated'] } });
    const drawn = (points as unknown as { data: { values: Array<{ label: string; standing: string }> } }).data.values;
    expect(drawn.map((p) => [p.label, p.standing])).toEqual([
      ['none', 'on the frontier'],
      ['exponential', 'on the frontier'],
      ['full-jitter', 'on the frontier'],
    ]);
    expect(compileLog(s)).toEqual([]);
  });
});

describe('paretoSpec with more variants than one panel shows', () => {
  // 16 variants (as fleet-cascade's single cluster), on a front: work 10 * (i + 1), time 1000 / (i + 1).
  const names = Array.from({ length: 16 }, (_, i) => `variant-${i + 1}`);
  const many = variantColors(names);
  const cells16 = names.map((v, i) => ({ label: v, cell: cell({ variant: v, metrics: { writes: [10 * (i + 1), 10 * (i + 1) - 2, 10 * (i + 1) + 2], completionTimeMs: 1000 / (i + 1) } }) }));
  const s = paretoSpec({ cells: cells16, colors: many, work: 'writes', time: 'completionTimeMs' });
  type Panel = { height: number; layer: [Layer & { data: { values: unknown[] } }, { data: { values: Array<{ variant: string; labelX?: number }> }; layer: Layer[] }] };
  const panels = (s.vconcat ?? []) as Panel[];

  it('splits them into panels of at most 8 variants, each in distinct colours, on shared axes', () => {
    expect(s.layer).toBeUndefined();
    expect(panels).toHaveLength(2);
    const variantsOf = (p: Panel) => p.layer[1].data.values.map((v) => v.variant);
    expect(panels.map(variantsOf)).toEqual([names.slice(0, 8), names.slice(8)]);
    for (const p of panels) {
      const point = p.layer[1].layer.find((l) => (l.mark as { type: string }).type === 'point') as Layer;
      const scale = point.encoding.color?.scale as { domain: string[]; range: string[] };
      expect(scale.domain).toEqual(variantsOf(p));
      expect(new Set(scale.range).size).toBe(scale.domain.length);
      // The same fitted domains in every panel, and the whole frontier drawn in each.
      expect(point.encoding.x?.scale).toEqual((panels[0] as Panel).layer[1].layer.find((l) => (l.mark as { type: string }).type === 'point')?.encoding.x?.scale);
      expect(p.layer[0].data.values).toHaveLength(16);
    }
    expect(s.resolve).toMatchObject({ scale: { x: 'shared', y: 'shared', color: 'independent' } });
    expect(compileLog(s)).toEqual([]);
  });

  it('places each panel\'s labels among its own points, and keeps one legend filter per panel', () => {
    const labelled = panels.map((p) => p.layer[1].data.values.filter((v) => v.labelX !== undefined).length);
    expect(labelled.every((n) => n > 0)).toBe(true);
    const params = panels.map((p) => (p.layer[1].layer.find((l) => l.params)?.params?.[0] as { name: string }).name);
    expect(params).toEqual(['legend_filter_1', 'legend_filter_2']);
  });

  it('keeps one panel for up to 8 variants', () => {
    const eight = paretoSpec({ cells: cells16.slice(0, 8), colors: many, work: 'writes', time: 'completionTimeMs' });
    expect(eight.vconcat).toBeUndefined();
    expect(layers(eight)).toHaveLength(2);
  });
});

describe('giveUpsSpec: give-up reasons as stacked bars', () => {
  const c = cell({ variant: 'a', metrics: { 'operations.offered': 100, 'giveUps.success': 60, 'giveUps.deadline': 30, 'giveUps.attempt-limit': 10, 'giveUps.throttled': 0, 'operations.unfinished': 0 } });

  it('stacks the operations that did not succeed by reason, with a share of those offered', () => {
    expect(giveUpRows([{ label: 'a', cell: c }])).toEqual([
      { label: 'a', variant: 'a', reason: 'deadline', operations: 30, share: 0.3 },
      { label: 'a', variant: 'a', reason: 'attempt-limit', operations: 10, share: 0.1 },
    ]);
    const s = giveUpsSpec({ cells: [{ label: 'a', cell: c }] });
    const enc = s.encoding as Record<string, Record<string, unknown>>;
    expect(enc.y).toMatchObject({ field: 'operations', stack: 'zero', title: 'Operations (mean per run)' });
    expect(enc.color?.scale).toEqual({ domain: ['deadline', 'attempt-limit'], range: [REASON_COLORS.deadline, REASON_COLORS['attempt-limit']] });
    expect(s.params).toEqual([{ name: 'legend_filter', select: { type: 'point', fields: ['reason'] }, bind: 'legend' }]);
    expect(compileLog(s)).toEqual([]);
  });
});

describe('every spec', () => {
  it('names a vega-lite schema and puts a tooltip on its data marks', () => {
    const cells = sweepCells();
    const focus = cells.filter((c) => c.params['workload.clients'] === 40);
    const labelled = focus.map((c) => ({ label: c.variant, cell: c }));
    const specs = [
      metricVsParamSpec({ cells, metric: 'writes', x: 'workload.clients', colors }),
      timeSeriesSpec({ runs: focus.map((c) => ({ label: c.variant, variant: c.variant, series: series(10, 100) })), windows: [], colors }),
      amplificationSpec({ cells: labelled, colors }),
      paretoSpec({ cells: labelled, colors, work: 'writes', time: 'completionTimeMs' }),
    ];
    for (const s of specs) {
      expect(s.$schema).toBe('https://vega.github.io/schema/vega-lite/v6.json');
      expect(encodings(s).some((e) => Array.isArray(e.tooltip))).toBe(true);
    }
  });
});
