import { colorScale, variantColors, type VariantColors } from '../colors.js';
import { formatNumber } from '../format.js';
import { runsLabel } from '../estimates.js';
import { axisTitle, metricInfo, metricTitle } from '../metrics.js';
import type { ReportCell, VlSpec } from '../types.js';
import { categoryLayout, legendOpacity, legendParam, topLevel, WIDTH } from './common.js';
import { metricVsParamSpec } from './metricVsParam.js';
import { coarsenSeries, flattenSeries, type SeriesRun } from './timeSeries.js';

/** A typical run and the cell it belongs to. */
export interface ClusteringRun extends SeriesRun {
  cell: ReportCell;
}

/** What a clustering chart draws. */
export interface ClusteringInput {
  /** Typical runs whose leaf arrivals per bin are drawn (one row each). */
  runs: readonly ClusteringRun[];
  /** The cells of the part, for the clustering metric against the swept parameter. */
  cells: readonly ReportCell[];
  /** The clustering metric, e.g. `clustering.1ms.peakToMean`. */
  metric: string;
  /** The swept tick or seeding parameter; without it the metric is drawn per run. */
  x?: string;
  xOrder?: readonly unknown[];
  colors: VariantColors;
  logX?: boolean;
  logY?: boolean;
  maxBins?: number;
}

const METRIC_PARAM = 'legend_filter_metric';

/**
 * Clustering of leaf arrivals: a histogram of the arrivals per time bin of each typical run, one
 * row per run on its own time axis (first tries and retries together; tall isolated bars are
 * synchronised retries), above the clustering
 * metric (peak-to-mean by default) against the swept timer tick or seeding mode, one line per
 * variant with its 95% interval, or one bar per run when nothing is swept.
 */
export function clusteringSpec(input: ClusteringInput): VlSpec {
  const maxBins = input.maxBins ?? 280;
  const byVariant = new Set(input.runs.map((r) => r.variant)).size === input.runs.length;
  const field = byVariant ? 'variant' : 'label';
  const scale = byVariant
    ? colorScale(input.colors, [...input.runs.map((r) => r.variant), ...input.cells.map((c) => c.variant)])
    : colorScale(variantColors(input.runs.map((r) => r.label)), input.runs.map((r) => r.label));
  const color = { field, type: 'nominal', title: byVariant ? 'Variant' : 'Run', scale };
  const rows: Array<Record<string, unknown>> = [];
  let binMs = 0;
  for (const r of input.runs) {
    const s = coarsenSeries(flattenSeries(r.series), Math.ceil(r.series.tMs.length / maxBins));
    binMs = Math.max(binMs, s.binMs);
    s.tMs.forEach((t, i) => {
      const first = s.values.arrivalsFirst?.[i] ?? 0;
      const retry = s.values.arrivalsRetry?.[i] ?? 0;
      rows.push({ label: r.label, variant: r.variant, t, tEnd: t + s.binMs, arrivals: first + retry, first, retry });
    });
  }
  const yTitle = axisTitle(`Calls per ${formatNumber(binMs)} ms bin`, 12);
  const histograms = input.runs.map((r, i) => ({
    title: { text: r.label, fontSize: 12, fontWeight: 'normal' },
    data: { values: rows.filter((row) => row.label === r.label) },
    ...(i === 0 ? { params: [legendParam(field)] } : {}),
    // Narrow bins drawn without gaps, or the gap would swallow them.
    mark: { type: 'bar', binSpacing: rows.filter((row) => row.label === r.label).length > 140 ? 0 : 1 },
    width: WIDTH,
    height: input.runs.length > 3 ? 70 : 100,
    encoding: {
      x: { field: 't', type: 'quantitative', bin: 'binned', title: 'Time (ms)', scale: { nice: false } },
      x2: { field: 'tEnd' },
      y: { field: 'arrivals', type: 'quantitative', title: yTitle },
      color,
      opacity: legendOpacity(),
      tooltip: [
        { field: 'label', type: 'nominal', title: 'Run' },
        { field: 't', type: 'quantitative', title: 'Bin start (ms)' },
        { field: 'arrivals', type: 'quantitative', title: 'Leaf arrivals' },
        { field: 'first', type: 'quantitative', title: 'of which first tries' },
        { field: 'retry', type: 'quantitative', title: 'of which retries' },
      ],
    },
  }));
  const lower = input.x !== undefined ? metricPanel(input, byVariant ? scale : undefined) : perRunPanel(input, color);
  return {
    ...topLevel(`Leaf arrivals per bin, and ${metricTitle(input.metric)}`),
    vconcat: byVariant ? [...histograms, lower] : [{ vconcat: histograms, spacing: 18 }, lower],
    spacing: 18,
    // Runs coloured by label (several runs of one variant) and the metric panel's variants need separate scales.
    ...(byVariant ? {} : { resolve: { scale: { color: 'independent' } } }),
  };
}

function metricPanel(input: ClusteringInput, scale: { domain: string[]; range: string[] } | undefined): VlSpec {
  const spec = metricVsParamSpec({
    ...(scale ? { scale } : {}),
    cells: input.cells,
    metric: input.metric,
    x: input.x as string,
    colors: input.colors,
    paramName: METRIC_PARAM,
    height: 180,
    ...(input.xOrder ? { xOrder: input.xOrder } : {}),
    ...(input.logX !== undefined ? { logX: input.logX } : {}),
    ...(input.logY !== undefined ? { logY: input.logY } : {}),
  });
  // A view inside a concatenation takes no top-level properties.
  const { $schema: _s, config: _c, background: _b, padding: _p, description: _d, ...view } = spec;
  return view;
}

function perRunPanel(input: ClusteringInput, color: Record<string, unknown>): VlSpec {
  const { title, unit } = metricInfo(input.metric);
  const values = input.runs.flatMap((r) => {
    const s = r.cell.metrics[input.metric];
    if (!s || typeof s.mean !== 'number' || !Number.isFinite(s.mean)) return [];
    const lo = s.ci95[0] ?? s.mean;
    return [{ label: r.label, variant: r.variant, mean: s.mean, lo, loDraw: Math.max(0, lo), hi: s.ci95[1] ?? s.mean, n: s.n, runs: runsLabel(s.n) }];
  });
  const y = { field: 'mean', type: 'quantitative', title: axisTitle(metricTitle(input.metric), 22), ...(input.logY ? { scale: { type: 'log' } } : {}) };
  const layout = categoryLayout(values.map((v) => v.label), WIDTH);
  const x = { field: 'label', type: 'nominal', title: null, sort: values.map((v) => v.label), axis: layout.axis };
  return {
    data: { values },
    width: layout.width,
    height: 160,
    layer: [
      {
        params: [legendParam(color.field as string, METRIC_PARAM)],
        mark: { type: 'bar' },
        encoding: {
          x,
          y,
          color,
          opacity: legendOpacity(1, METRIC_PARAM),
          tooltip: [
            { field: 'label', type: 'nominal', title: 'Run' },
            { field: 'mean', type: 'quantitative', title: `${title}, mean${unit ? ` (${unit})` : ''}` },
            { field: 'lo', type: 'quantitative', title: '95% interval, low' },
            { field: 'hi', type: 'quantitative', title: '95% interval, high' },
            { field: 'runs', type: 'nominal', title: 'Replications' },
          ],
        },
      },
      { mark: { type: 'rule', color: '#333333' }, encoding: { x, y: { field: 'loDraw', type: 'quantitative' }, y2: { field: 'hi' } } },
    ],
  };
}
