import type { VlSpec } from '../types.js';

/** The vega-lite schema the specs are written against (vega-embed reads the mode from it; nothing is fetched). */
export const VL_SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

export const WIDTH = 560;
export const HEIGHT = 260;

/**
 * Bins a chart over time draws per line at the most: longer series are merged into wider bins (the
 * data files keep every bin), so that a report stays about a megabyte whatever the run (README,
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

/**
 * Scale and axis of a numeric swept parameter, fitted to its values: log when they span two
 * decades or more, symlog when they also include 0 (timer ticks of 0, 1, 4, 10 ... 1000 ms), both
 * ending at the data (no round decade beyond it); linear otherwise. A few values get a tick each,
 * at the values swept; integer parameters get integer ticks only.
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
  const scale = kind === 'linear' ? { zero: false } : { type: kind, domain: [kind === 'log' ? (positive[0] ?? 1) : min, max], nice: false };
  const axis: Record<string, unknown> =
    distinct.length <= MAX_VALUE_TICKS
      ? // Each value as written (15.6, not 20 or 1.56e+1), with thousands separated.
        { values: kind === 'log' ? positive : distinct, labelExpr: "format(datum.value, ',')", labelOverlap: 'greedy', labelSeparation: 4 }
      : integers
        ? { tickMinStep: 1, format: ',d' }
        : {};
  return { scale, axis, kind };
}

/** Whether a metric is a fraction (a success rate, a utilisation...): its intervals are drawn within [0, 1]. */
export function isFraction(unit: string): boolean {
  return unit.startsWith('fraction');
}

/**
 * The y scale of a metric: log fitted to the data (no round decade beyond it) when asked, else
 * linear without forcing 0 (a fraction's values are clipped to [0, 1] before, so its axis ends at 1 at most).
 */
export function valueScale(values: readonly number[], log: boolean): Record<string, unknown> {
  if (log) {
    const positive = values.filter((v) => Number.isFinite(v) && v > 0);
    return positive.length > 0 ? { type: 'log', domain: [Math.min(...positive), Math.max(...positive)], nice: false } : { type: 'log' };
  }
  return { zero: false };
}
