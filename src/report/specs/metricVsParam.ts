import { colorScale, PALETTE, type VariantColors } from '../colors.js';
import { runsLabel } from '../estimates.js';
import { formatValue } from '../format.js';
import { axisTitle, metricInfo, metricTitle, paramLabel, paramTitle, paramUnit } from '../metrics.js';
import type { ReportCell, VlSpec } from '../types.js';
import { allNumbers, categoryLayout, HEIGHT, isFraction, LEGEND_PARAM, legendOpacity, legendParam, MAX_SERIES, numericScale, spansDecades, topLevel, valueAxis, WIDTH } from './common.js';

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
  /** The interval as drawn: clipped at 0 (every metric is a count, time, rate or ratio >= 0), and a fraction's at 1. */
  loDraw: number;
  hiDraw: number;
  n: number;
  /** The replications as the tooltip gives them, said to be few below `FEW_RUNS` (`runsLabel`). */
  runs: string;
}

/** The points of a metric-against-parameter chart: cells that measured the metric and have the parameter. */
export function metricPoints(cells: readonly ReportCell[], metric: string, x: string): MetricPoint[] {
  const rawX = cells.map((c) => c.params[x]);
  const numeric = allNumbers(rawX.filter((v) => v !== undefined));
  const fraction = isFraction(metricInfo(metric).unit);
  const out: MetricPoint[] = [];
  for (const c of cells) {
    const s = c.metrics[metric];
    const xv = c.params[x];
    if (!s || typeof s.mean !== 'number' || !Number.isFinite(s.mean) || xv === undefined) continue;
    const others = othersText(c.params, x);
    const lo = typeof s.ci95[0] === 'number' && Number.isFinite(s.ci95[0]) ? s.ci95[0] : s.mean;
    const hi = typeof s.ci95[1] === 'number' && Number.isFinite(s.ci95[1]) ? s.ci95[1] : s.mean;
    const top = fraction ? 1 : Infinity;
    out.push({
      variant: c.variant,
      others,
      series: seriesName(c.variant, others),
      x: numeric ? (xv as number) : formatValue(xv),
      mean: s.mean,
      lo,
      hi,
      loDraw: Math.min(top, Math.max(0, lo)),
      hiDraw: Math.min(top, Math.max(0, hi)),
      n: s.n,
      runs: runsLabel(s.n),
    });
  }
  return out;
}

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return formatValue(a).localeCompare(formatValue(b));
}

/**
 * The series of the chart in the order they are listed and coloured: by variant (in report order),
 * then by the other swept parameters in numeric order (a spike rate of 70 before 80 before 100).
 */
export function seriesOrder(cells: readonly ReportCell[], points: readonly MetricPoint[], x: string, variants: readonly string[]): string[] {
  const params = new Map<string, { variant: string; rest: Array<[string, unknown]> }>();
  for (const c of cells) {
    const name = seriesName(c.variant, othersText(c.params, x));
    if (params.has(name)) continue;
    params.set(name, { variant: c.variant, rest: Object.entries(c.params).filter(([k]) => k !== x).sort(([a], [b]) => a.localeCompare(b)) });
  }
  const names = [...new Set(points.map((p) => p.series))];
  return names.sort((a, b) => {
    const pa = params.get(a);
    const pb = params.get(b);
    if (!pa || !pb) return 0;
    const dv = variants.indexOf(pa.variant) - variants.indexOf(pb.variant);
    if (dv !== 0) return dv;
    for (let i = 0; i < Math.min(pa.rest.length, pb.rest.length); i++) {
      const d = compareValues(pa.rest[i]?.[1], pb.rest[i]?.[1]);
      if (d !== 0) return d;
    }
    return 0;
  });
}

/** The other swept parameters of a cell (`a = 1, b = 2`), '' when x is the only axis. */
function othersText(params: Record<string, unknown>, x: string): string {
  return Object.entries(params)
    .filter(([k]) => k !== x)
    .map(([k, v]) => `${k} = ${formatValue(v)}`)
    .join(', ');
}

/** The other swept parameters as the documentation names them, with units (`Spike rate = 100 /s`); the value and unit alone when there is one (the legend's title names it). */
function othersLabel(params: Record<string, unknown>, x: string): string {
  const rest = Object.entries(params).filter(([k]) => k !== x);
  const value = (k: string, v: unknown) => `${formatValue(v)}${paramUnit(k) ? ` ${paramUnit(k)}` : ''}`;
  if (rest.length === 1) return value(...(rest[0] as [string, unknown]));
  return rest.map(([k, v]) => `${paramLabel(k)} = ${value(k, v)}`).join(', ');
}

function seriesName(variant: string, others: string): string {
  return others ? `${variant} (${others})` : variant;
}

/** The series split into panels of at most {@link MAX_SERIES} each, of about equal size, keeping a variant's series together where they fit. */
export function seriesPanels(order: readonly string[]): string[][] {
  if (order.length <= MAX_SERIES) return [[...order]];
  const panels = Math.ceil(order.length / MAX_SERIES);
  const size = Math.ceil(order.length / panels);
  const out: string[][] = [];
  for (let i = 0; i < order.length; i += size) out.push(order.slice(i, i + size));
  return out;
}

/**
 * A metric against a swept parameter: one line per variant (and per value of any other swept
 * parameter, told apart by dashes; with a single variant each value has its own colour, in numeric
 * order), the 95% confidence interval of the mean as a band (a fraction's within [0, 1]), axes
 * fitted to the data (log when the values span two decades or more, symlog when they include 0 too;
 * a tick at each value when they are few, integer ticks for integers). A non-numeric parameter (a
 * seeding mode, a backoff kind) gives points with interval bars, side by side per variant. More
 * than {@link MAX_SERIES} series are split into panels stacked one above the other, sharing axes.
 */
export function metricVsParamSpec(input: MetricVsParamInput): VlSpec {
  const points = metricPoints(input.cells, input.metric, input.x);
  const pn = input.paramName ?? LEGEND_PARAM;
  const variants = [...new Set(points.map((p) => p.variant))];
  const order = seriesOrder(input.cells, points, input.x, input.scale?.domain ?? [...input.colors.keys(), ...variants]);
  const panels = seriesPanels(order);
  const top = topLevel(`${metricTitle(input.metric)} against ${paramLabel(input.x)}, one line per variant, with 95% confidence intervals`);
  if (panels.length === 1) return { ...top, ...metricPanel(input, points, order, pn) };
  const height = Math.max(120, Math.round((input.height ?? HEIGHT) * 0.7));
  return {
    ...top,
    vconcat: panels.map((names, i) => metricPanel({ ...input, height }, points.filter((p) => names.includes(p.series)), names, `${pn}_${i + 1}`, points)),
    spacing: 16,
    resolve: { scale: { x: 'shared', y: 'shared', color: 'independent', strokeDash: 'independent', shape: 'independent', xOffset: 'independent' } },
  };
}

/** One panel of the chart: the given points, their series in `order`, on axes fitted to `all` the points of the chart (the panels share them). */
function metricPanel(input: MetricVsParamInput, points: readonly MetricPoint[], order: readonly string[], pn: string, all: readonly MetricPoint[] = points): VlSpec {
  const numeric = points.length > 0 && points.every((p) => typeof p.x === 'number');
  const legend = panelLegend(input, points, order);
  const yValues = all.flatMap((p) => [p.mean, p.loDraw, p.hiDraw]);
  const logY = input.logY ?? spansDecades(yValues);
  const { title: mTitle, unit } = metricInfo(input.metric);
  const height = input.height ?? HEIGHT;
  // About 7 pixels per character of a rotated 12 px title: keep each line within the plot's height.
  const yTitle = axisTitle(metricTitle(input.metric), Math.floor(height / 7));
  const { scale: yScale, axis: yAxis } = valueAxis(yValues, logY);
  const tooltip = [
    { field: 'variant', type: 'nominal', title: 'Variant' },
    ...(legend.hasOthers ? [{ field: 'others', type: 'nominal', title: 'Other parameters' }] : []),
    { field: 'x', type: numeric ? 'quantitative' : 'nominal', title: paramLabel(input.x) },
    { field: 'mean', type: 'quantitative', title: `${mTitle}, mean${unit ? ` (${unit})` : ''}` },
    { field: 'lo', type: 'quantitative', title: '95% interval, low' },
    { field: 'hi', type: 'quantitative', title: '95% interval, high' },
    { field: 'runs', type: 'nominal', title: 'Replications' },
  ];
  const parts: PanelParts = {
    ...legend,
    pn,
    height,
    y: (field) => ({ field, type: 'quantitative', title: yTitle, scale: yScale, axis: yAxis }),
    tooltip,
    legendParams: [legendParam(legend.colorField, pn)],
  };
  return numeric ? numericPanel(input, points, all, logY, parts) : categoryPanel(input, points, order, parts);
}

/** How a panel tells its series apart. */
interface PanelLegend {
  /** Whether other parameters than x are swept. */
  hasOthers: boolean;
  colorField: string;
  color: object;
  /** The points with their colour key, their other parameters in words and their colour. */
  colored: object[];
  /** The encoding of the other parameters (dashes, or shapes of points); null when the colour tells the series apart. */
  dashes: object | null;
}

/**
 * The colours of a panel: one per variant; or, with one variant and other parameters swept, one per
 * value of those (in `order`), named as their documentation names them. With several variants, the
 * other parameters are told apart by dashes.
 */
function panelLegend(input: MetricVsParamInput, points: readonly MetricPoint[], order: readonly string[]): PanelLegend {
  const variants = [...new Set(points.map((p) => p.variant))];
  const hasOthers = points.some((p) => p.others !== '');
  // One variant with several values of other parameters: each value its own colour, in numeric order.
  const bySeries = hasOthers && variants.length === 1 && !input.scale;
  // With one variant, the legend names the other parameters as their documentation does (title `Spike rate`, entries `100 /s`).
  const keyOf = new Map(input.cells.map((c) => [othersText(c.params, input.x), othersLabel(c.params, input.x)]));
  const key = (p: MetricPoint) => (bySeries ? (keyOf.get(p.others) ?? p.others) : p.variant);
  const keys = bySeries ? order.map((s) => key(points.find((p) => p.series === s) as MetricPoint)) : [];
  const scale = bySeries
    ? { domain: keys, range: keys.map((_, i) => PALETTE[i % PALETTE.length] as string) }
    : (input.scale ?? colorScale(input.colors, variants));
  const colorField = bySeries ? 'key' : 'variant';
  const otherAxes = [...new Set(input.cells.flatMap((c) => Object.keys(c.params).filter((k) => k !== input.x)))];
  const color = { field: colorField, type: 'nominal', title: bySeries ? otherAxes.map(paramLabel).join(', ') : 'Variant', scale };
  const colored = points.map((p) => ({ ...p, key: key(p), othersLabel: keyOf.get(p.others) ?? p.others, color: scale.range[scale.domain.indexOf(key(p))] ?? '#888888' }));
  const othersOrder = [...new Set(order.map((s) => keyOf.get(points.find((p) => p.series === s)?.others ?? '') ?? ''))];
  const dashes = hasOthers && !bySeries ? { field: 'othersLabel', type: 'nominal', title: otherAxes.length === 1 ? paramTitle(otherAxes[0] as string) : 'Other parameters', sort: othersOrder } : null;
  return { hasOthers, colorField, color, colored, dashes };
}

/** What both kinds of panel draw with. */
interface PanelParts extends PanelLegend {
  /** The legend parameter's name. */
  pn: string;
  height: number;
  /** The y encoding of a field. */
  y: (field: string) => object;
  tooltip: object[];
  legendParams: object[];
}

/** A numeric parameter: a line per series, its confidence interval a band (left out where a log axis cannot draw it). */
function numericPanel(input: MetricVsParamInput, points: readonly MetricPoint[], all: readonly MetricPoint[], logY: boolean, parts: PanelParts): VlSpec {
  const { pn, color, dashes, tooltip } = parts;
  const fitted = numericScale(all.map((p) => p.x as number), input.logX);
  const x = { field: 'x', type: 'quantitative', title: paramTitle(input.x), scale: fitted.scale, axis: fitted.axis };
  const bandY = logY ? points.filter((p) => p.loDraw > 0) : points;
  return {
    width: WIDTH,
    height: parts.height,
    data: { values: parts.colored },
    layer: [
      ...(points.some((p) => p.hi > p.lo)
        ? [
            {
              ...(bandY.length !== points.length ? { transform: [{ filter: 'datum.loDraw > 0' }] } : {}),
              mark: { type: 'area', opacity: 0.18, tooltip: false },
              encoding: {
                x,
                y: parts.y('loDraw'),
                y2: { field: 'hiDraw' },
                // The colour straight from the data (no scale, so no second legend that would replace the line's interactive one).
                fill: { field: 'color', type: 'nominal', scale: null },
                detail: { field: 'series', type: 'nominal' },
                opacity: legendOpacity(0.18, pn),
              },
            },
          ]
        : []),
      {
        params: parts.legendParams,
        mark: { type: 'line', point: { filled: true, size: 45 }, strokeWidth: 2 },
        encoding: {
          x,
          y: parts.y('mean'),
          color,
          ...(dashes ? { strokeDash: dashes } : {}),
          detail: { field: 'series', type: 'nominal' },
          opacity: legendOpacity(1, pn),
          tooltip,
        },
      },
    ],
  };
}

/** A non-numeric parameter: a point per series and value with its interval as a bar, side by side in `order`, the values in `xOrder` then as they come. */
function categoryPanel(input: MetricVsParamInput, points: readonly MetricPoint[], order: readonly string[], parts: PanelParts): VlSpec {
  const { pn, color, dashes, tooltip } = parts;
  const xs: string[] = [];
  for (const v of input.xOrder ?? []) {
    const s = formatValue(v);
    if (!xs.includes(s)) xs.push(s);
  }
  for (const p of points) if (!xs.includes(p.x as string)) xs.push(p.x as string);
  const layout = categoryLayout(xs, WIDTH);
  const x = { field: 'x', type: 'nominal', title: paramTitle(input.x), sort: xs, axis: layout.axis };
  const xOffset = { field: 'series', type: 'nominal', sort: [...order] };
  return {
    width: layout.width,
    height: parts.height,
    data: { values: parts.colored },
    layer: [
      {
        mark: { type: 'rule', strokeWidth: 2 },
        encoding: {
          x,
          xOffset,
          y: parts.y('loDraw'),
          y2: { field: 'hiDraw' },
          stroke: { field: 'color', type: 'nominal', scale: null },
          opacity: legendOpacity(1, pn),
          tooltip,
        },
      },
      {
        params: parts.legendParams,
        mark: { type: 'point', filled: true, size: 70 },
        encoding: {
          x,
          xOffset,
          y: parts.y('mean'),
          color,
          ...(dashes ? { shape: { ...dashes } } : {}),
          opacity: legendOpacity(1, pn),
          tooltip,
        },
      },
    ],
  };
}
