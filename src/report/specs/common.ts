import type { VlSpec } from '../types.js';

/** The vega-lite schema the specs are written against (vega-embed reads the mode from it; nothing is fetched). */
export const VL_SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

export const WIDTH = 560;
export const HEIGHT = 260;

/** Name of the parameter bound to a chart's legend: clicking a variant (shift-click for several) keeps it and fades the rest. */
export const LEGEND_PARAM = 'legend_filter';

/** Opacity of marks the legend filtered out. */
export const FILTERED_OPACITY = 0.08;

/** Shared look: fonts Debian's fonts-dejavu-core provides for PNG export, light grid. */
export const CONFIG = {
  font: 'DejaVu Sans, Verdana, Helvetica, Arial, sans-serif',
  axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal', gridColor: '#e6e6e6' },
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
