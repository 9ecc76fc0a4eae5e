import type { VlSpec } from '../types.js';

/** The vega-lite schema the specs are written against (vega-embed reads the mode from it; nothing is fetched). */
export const VL_SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

export const WIDTH = 560;
export const HEIGHT = 260;

/**
 * Bins a chart over time draws per line at the most: longer series are merged into wider bins (the
 * data files keep every bin), so that a report stays about a megabyte whatever the run (docs/cli.md,
 * "Limits"): a run's series may have up to 10^6 bins.
 */
export const MAX_CHART_BINS = 800;

/** Name of the parameter bound to a chart's legend: clicking a variant (shift-click for several) keeps it and fades the rest. */
export const LEGEND_PARAM = 'legend_filter';

/** Opacity of marks the legend filtered out. */
export const FILTERED_OPACITY = 0.08;

/** Shared look: fonts Debian's fonts-dejavu-core provides for PNG export, light grid. */
export const CONFIG = {
  font: 'DejaVu Sans, Verdana, Helvetica, Arial, sans-serif',
  axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal', gridColor: '#e6e6e6', labelSeparation: 4 },
  legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 260 },
  title: { fontSize: 14, anchor: 'start' },
  view: { stroke: '#dddddd' },
};

/** The top level every spec starts from. */
export function topLevel(description: string): VlSpec {
  return { $schema: VL_SCHEMA, description, config: CONFIG, background: 'white', padding: 8 };
}

/** A point selection over `fields`, bound to the legend (the interactive legend). */
export function legendParam(field: string, name = LEGEND_PARAM): VlSpec {
  return { name, select: { type: 'point', fields: [field] }, bind: 'legend' };
}

/** Marks of the selected legend entries stay opaque (all of them when nothing is selected). */
export function legendOpacity(full = 1, name = LEGEND_PARAM): VlSpec {
  return { condition: { param: name, value: full, empty: true }, value: FILTERED_OPACITY };
}

/** Whether values span enough decades (ratio >= 100, all positive) to want a log axis. */
export function spansDecades(values: readonly number[]): boolean {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length < 2 || finite.some((v) => v <= 0)) return false;
  return Math.max(...finite) / Math.min(...finite) >= 100;
}

/** Whether every value is a finite number. */
export function allNumbers(values: readonly unknown[]): values is number[] {
  return values.length > 0 && values.every((v) => typeof v === 'number' && Number.isFinite(v));
}

/** Most series one panel draws; beyond it a chart is split into panels (metric charts) or keeps the first ones (time series), and its caption says so. */
export const MAX_SERIES = 8;

/**
 * Approximate width in pixels of a text in DejaVu Sans, the font the charts name: its advance
 * averages about 0.62 em over letters and digits, a little wide for most other fonts, so a layout
 * that fits by this estimate fits in them too.
 */
export function textWidth(text: string, fontSize = 11): number {
  return text.length * fontSize * 0.62;
}

/** Largest plot width a chart grows to so that its category labels stay horizontal. */
const MAX_CATEGORY_WIDTH = 980;

/**
 * The plot width and x axis of a chart with one band per category: horizontal labels when each
 * fits its band (the plot grows up to 980 px for them), otherwise labels turned upright, whose
 * boxes are one line high and never run into their neighbours.
 */
export function categoryLayout(labels: readonly string[], width: number): { width: number; axis: Record<string, unknown> } {
  const n = Math.max(1, labels.length);
  const widest = Math.max(0, ...labels.map((l) => textWidth(l)));
  const needed = n * (widest + 12);
  if (needed <= Math.max(width, MAX_CATEGORY_WIDTH)) return { width: Math.max(width, Math.ceil(needed)), axis: { labelAngle: 0, labelLimit: 0 } };
  return { width: Math.max(width, n * 18), axis: { labelAngle: -90, labelAlign: 'right', labelBaseline: 'middle', labelLimit: 200, labelOverlap: 'greedy' } };
}

/** Swept values at most this many get a tick each, at the values themselves. */
const MAX_VALUE_TICKS = 12;

/** Most ticks a log axis labels: 1-2-5 per decade while they fit, then 1-3, then one per decade (or every few decades). */
export const MAX_LOG_TICKS = 12;

/** Pixels left free at each end of a continuous axis, so that a mark at the data's extreme (a point of 70 px², a line's end) is drawn whole inside the plot. */
export const PLOT_PADDING_PX = 8;

/** Mantissas of a log axis' ticks, finest first: 1-2-5 per decade, then 1-3, then decades alone. */
const LOG_MANTISSAS: readonly (readonly number[])[] = [[1, 2, 5], [1, 3], [1]];

/**
 * Ticks of a log axis that label the data's whole range `lo`..`hi` (both > 0): round values (1-2-5
 * per decade while at most {@link MAX_LOG_TICKS} fit, then 1-3, then powers of ten, every few
 * decades if need be) from the largest at or below `lo` to the smallest at or beyond `hi`, so
 * that the first tick is at or below the smallest value and the last at or beyond the largest.
 */
export function logTicks(lo: number, hi: number): number[] {
  if (!(lo > 0) || !(hi >= lo) || !Number.isFinite(hi)) return [];
  const e0 = Math.floor(Math.log10(lo));
  const e1 = Math.ceil(Math.log10(hi));
  const ladder = (mantissas: readonly number[], every: number): number[] => {
    const all: number[] = [];
    for (let e = e0 - every; e <= e1 + every; e++) {
      if ((e - e0) % every !== 0) continue;
      for (const m of mantissas) all.push(Number((m * 10 ** e).toPrecision(12)));
    }
    const tol = 1e-9;
    const first = all.filter((v) => v <= lo * (1 + tol)).pop() ?? all[0];
    const last = all.find((v) => v >= hi * (1 - tol)) ?? all[all.length - 1];
    return all.filter((v) => v >= (first as number) && v <= (last as number));
  };
  for (const m of LOG_MANTISSAS) {
    const ticks = ladder(m, 1);
    if (ticks.length <= MAX_LOG_TICKS) return ticks;
  }
  const every = Math.ceil((e1 - e0 + 1) / (MAX_LOG_TICKS - 1));
  return ladder([1], every);
}

/** The scale and axis of a log axis over `values` (those > 0): its domain from the first to the last of {@link logTicks}, padded, a label at each. */
export function logAxis(values: readonly number[]): { scale: Record<string, unknown>; axis: Record<string, unknown> } {
  const positive = values.filter((v) => Number.isFinite(v) && v > 0);
  if (positive.length === 0) return { scale: { type: 'log', padding: PLOT_PADDING_PX }, axis: {} };
  const ticks = logTicks(Math.min(...positive), Math.max(...positive));
  return {
    scale: { type: 'log', domain: [ticks[0], ticks[ticks.length - 1]], nice: false, padding: PLOT_PADDING_PX },
    axis: { values: ticks, labelExpr: "format(datum.value, ',')", labelOverlap: 'greedy', labelSeparation: 4 },
  };
}

/**
 * Scale and axis of a numeric swept parameter, fitted to its values: log when they span two
 * decades or more, symlog when they also include 0 (timer ticks of 0, 1, 4, 10 ... 1000 ms); linear
 * otherwise; every domain padded by {@link PLOT_PADDING_PX} so no point is cut. A few values get a
 * tick each, at the values swept; more on a log axis get round ticks from at or below the smallest
 * to at or beyond the largest ({@link logAxis}); integer parameters get integer ticks only.
 */
export function numericScale(values: readonly number[], log?: boolean): { scale: Record<string, unknown>; axis: Record<string, unknown>; kind: 'log' | 'symlog' | 'linear' } {
  const distinct = [...new Set(values.filter((v) => Number.isFinite(v)))].sort((a, b) => a - b);
  const positive = distinct.filter((v) => v > 0);
  const min = distinct[0] ?? 0;
  const max = distinct[distinct.length - 1] ?? 1;
  const kind =
    log === false
      ? 'linear'
      : log === true || spansDecades(distinct)
        ? 'log'
        : min === 0 && positive.length >= 2 && spansDecades(positive)
          ? 'symlog'
          : 'linear';
  const integers = distinct.every((v) => Number.isInteger(v));
  const few = distinct.length <= MAX_VALUE_TICKS;
  if (kind === 'log' && !few) return { ...logAxis(positive), kind };
  const scale =
    kind === 'linear'
      ? { zero: false, nice: false, padding: PLOT_PADDING_PX }
      : { type: kind, domain: [kind === 'log' ? (positive[0] ?? 1) : min, max], nice: false, padding: PLOT_PADDING_PX };
  const axis: Record<string, unknown> = few
    ? // Each value as written (15.6, not 20 or 1.56e+1), with thousands separated.
      { values: kind === 'log' ? positive : distinct, labelExpr: "format(datum.value, ',')", labelOverlap: 'greedy', labelSeparation: 4 }
    : integers
      ? INTEGER_AXIS
      : {};
  return { scale, axis, kind };
}

/** The axis of an integer quantity (attempts, replications, clients): whole numbers only, thousands separated. */
export const INTEGER_AXIS: Readonly<Record<string, unknown>> = { tickMinStep: 1, format: ',d' };

/** Whether a metric is a fraction (a success rate, a utilisation...): its intervals are drawn within [0, 1]. */
export function isFraction(unit: string): boolean {
  return unit.startsWith('fraction');
}

/**
 * The y scale and axis of a metric: log with round ticks labelling the data's whole range when
 * asked ({@link logAxis}), else linear without forcing 0 (a fraction's values are clipped to [0,
 * 1] before, so its axis ends at 1 at most); padded either way so that no point is cut.
 */
export function valueAxis(values: readonly number[], log: boolean): { scale: Record<string, unknown>; axis: Record<string, unknown> } {
  if (log) return logAxis(values);
  return { scale: { zero: false, nice: false, padding: PLOT_PADDING_PX }, axis: {} };
}
