import { colorScale, type VariantColors } from '../colors.js';
import { formatValue } from '../format.js';
import { axisTitle, metricInfo, metricTitle, paramTitle } from '../metrics.js';
import type { ReportCell, VlSpec } from '../types.js';
import { allNumbers, HEIGHT, LEGEND_PARAM, legendOpacity, legendParam, spansDecades, topLevel, WIDTH } from './common.js';

/** What a metric-against-parameter chart draws. */
export interface MetricVsParamInput {
  /** The cells of one part (every variant and sweep point). */
  cells: readonly ReportCell[];
  /** The metric on the y axis (a name of summary.json, e.g. `completionTimeMs`). */
  metric: string;
  /** The swept path on the x axis. */
  x: string;
  colors: VariantColors;
  /** Order of the x values for a non-numeric axis (default: first appearance). */
  xOrder?: readonly unknown[];
  /** Force (true) or forbid (false) a log axis; by default, log when the data spans two decades or more. */
  logX?: boolean;
  logY?: boolean;
  /** Name of the legend parameter (charts that combine views need distinct names). */
  paramName?: string;
  /** Plot height in pixels (default 260). */
  height?: number;
  /** The colour scale to use instead of the variants' (charts that combine views share one). */
  scale?: { domain: string[]; range: string[] };
}

/** One point of the chart. */
export interface MetricPoint {
  variant: string;
  /** The other swept parameters of the cell (`a = 1, b = 2`), '' when x is the only axis. */
  others: string;
  /** Variant and others: one line per distinct value. */
  series: string;
  x: number | string;
  mean: number;
  lo: number;
  hi: number;
  /** The interval as drawn: clipped at 0 (every metric is a count, time, rate or ratio >= 0). */
  loDraw: number;
  n: number;
}

/** The points of a metric-against-parameter chart: cells that measured the metric and have the parameter. */
export function metricPoints(cells: readonly ReportCell[], metric: string, x: string): MetricPoint[] {
  const rawX = cells.map((c) => c.params[x]);
  const numeric = allNumbers(rawX.filter((v) => v !== undefined));
  const out: MetricPoint[] = [];
  for (const c of cells) {
    const s = c.metrics[metric];
    const xv = c.params[x];
    if (!s || typeof s.mean !== 'number' || !Number.isFinite(s.mean) || xv === undefined) continue;
    const others = Object.entries(c.params)
      .filter(([k]) => k !== x)
      .map(([k, v]) => `${k} = ${formatValue(v)}`)
      .join(', ');
    const lo = typeof s.ci95[0] === 'number' && Number.isFinite(s.ci95[0]) ? s.ci95[0] : s.mean;
    const hi = typeof s.ci95[1] === 'number' && Number.isFinite(s.ci95[1]) ? s.ci95[1] : s.mean;
    out.push({
      variant: c.variant,
      others,
      series: others ? `${c.variant} (${others})` : c.variant,
      x: numeric ? (xv as number) : formatValue(xv),
      mean: s.mean,
      lo,
      hi,
      loDraw: Math.max(0, lo),
      n: s.n,
    });
  }
  return out;
}

/**
 * A metric against a swept parameter: one line per variant (and per value of any other swept
 * parameter, told apart by dashes), the 95% confidence interval of the mean as a band, log axes
 * when the values span two decades or more. A non-numeric parameter (a seeding mode, a backoff
 * kind) gives points with interval bars, side by side per variant.
 */
export function metricVsParamSpec(input: MetricVsParamInput): VlSpec {
  const points = metricPoints(input.cells, input.metric, input.x);
  const pn = input.paramName ?? LEGEND_PARAM;
  const numeric = points.length > 0 && points.every((p) => typeof p.x === 'number');
  const variants = [...new Set(points.map((p) => p.variant))];
  const scale = input.scale ?? colorScale(input.colors, variants);
  const color = { field: 'variant', type: 'nominal', title: 'Variant', scale };
  const colored = points.map((p) => ({ ...p, color: scale.range[scale.domain.indexOf(p.variant)] ?? '#888888' }));
  const hasOthers = points.some((p) => p.others !== '');
  const yValues = points.flatMap((p) => [p.mean, p.loDraw, p.hi]);
  const logY = input.logY ?? spansDecades(yValues);
  const { title: mTitle, unit } = metricInfo(input.metric);
  const height = input.height ?? HEIGHT;
  // About 7 pixels per character of a rotated 12 px title: keep each line within the plot's height.
  const yTitle = axisTitle(metricTitle(input.metric), Math.floor(height / 7));
  const yScale = logY ? { type: 'log' } : { zero: false };
  const tooltip = [
    { field: 'variant', type: 'nominal', title: 'Variant' },
    ...(hasOthers ? [{ field: 'others', type: 'nominal', title: 'Other parameters' }] : []),
    { field: 'x', type: numeric ? 'quantitative' : 'nominal', title: input.x },
    { field: 'mean', type: 'quantitative', title: `${mTitle}, mean${unit ? ` (${unit})` : ''}` },
    { field: 'lo', type: 'quantitative', title: '95% interval, low' },
    { field: 'hi', type: 'quantitative', title: '95% interval, high' },
    { field: 'n', type: 'quantitative', title: 'Replications' },
  ];
  const base = {
    ...topLevel(`${metricTitle(input.metric)} against ${input.x}, one line per variant, with 95% confidence intervals`),
    width: WIDTH,
    height,
    data: { values: colored },
  };
  if (numeric) {
    const logX = input.logX ?? spansDecades(points.map((p) => p.x as number));
    const x = { field: 'x', type: 'quantitative', title: paramTitle(input.x), scale: logX ? { type: 'log' } : { zero: false } };
    const bandY = logY ? points.filter((p) => p.loDraw > 0) : points;
    return {
      ...base,
      layer: [
        ...(points.some((p) => p.hi > p.lo)
          ? [
              {
                ...(bandY.length !== points.length ? { transform: [{ filter: 'datum.loDraw > 0' }] } : {}),
                mark: { type: 'area', opacity: 0.18, tooltip: false },
                encoding: {
                  x,
                  y: { field: 'loDraw', type: 'quantitative', title: yTitle, scale: yScale },
                  y2: { field: 'hi' },
                  // The colour straight from the data (no scale, so no second legend that would replace the line's interactive one).
                  fill: { field: 'color', type: 'nominal', scale: null },
                  detail: { field: 'series', type: 'nominal' },
                  opacity: legendOpacity(0.18, pn),
                },
              },
            ]
          : []),
        {
          params: [legendParam('variant', pn)],
          mark: { type: 'line', point: { filled: true, size: 45 }, strokeWidth: 2 },
          encoding: {
            x,
            y: { field: 'mean', type: 'quantitative', title: yTitle, scale: yScale },
            color,
            ...(hasOthers ? { strokeDash: { field: 'others', type: 'nominal', title: 'Other parameters' } } : {}),
            detail: { field: 'series', type: 'nominal' },
            opacity: legendOpacity(1, pn),
            tooltip,
          },
        },
      ],
    };
  }
  const order: string[] = [];
  for (const v of input.xOrder ?? []) {
    const s = formatValue(v);
    if (!order.includes(s)) order.push(s);
  }
  for (const p of points) if (!order.includes(p.x as string)) order.push(p.x as string);
  const x = { field: 'x', type: 'nominal', title: paramTitle(input.x), sort: order, axis: { labelAngle: 0 } };
  const xOffset = { field: 'series', type: 'nominal', sort: [...new Set(points.map((p) => p.series))] };
  return {
    ...base,
    layer: [
      {
        mark: { type: 'rule', strokeWidth: 2 },
        encoding: {
          x,
          xOffset,
          y: { field: 'loDraw', type: 'quantitative', title: yTitle, scale: yScale },
          y2: { field: 'hi' },
          stroke: { field: 'color', type: 'nominal', scale: null },
          opacity: legendOpacity(1, pn),
          tooltip,
        },
      },
      {
        params: [legendParam('variant', pn)],
        mark: { type: 'point', filled: true, size: 70 },
        encoding: {
          x,
          xOffset,
          y: { field: 'mean', type: 'quantitative', title: yTitle, scale: yScale },
          color,
          ...(hasOthers ? { shape: { field: 'others', type: 'nominal', title: 'Other parameters' } } : {}),
          opacity: legendOpacity(1, pn),
          tooltip,
        },
      },
    ],
  };
}
