/**
 * Colours of a report. Every chart of a report gives a variant the same colour: the palette is
 * assigned once, over the report's variants in order of first appearance, and each chart's colour
 * scale lists an explicit domain and range (the variants it shows and their colours).
 */

/** Tableau 10 (vega's default categorical scheme), then the lighter half of Tableau 20. */
export const PALETTE = [
  '#4c78a8', '#f58518', '#e45756', '#72b7b2', '#54a24b', '#eeca3b', '#b279a2', '#ff9da6', '#9d755d', '#bab0ac',
  '#9ecae9', '#ffbf79', '#ff9d98', '#88d27a', '#f2cf5b', '#d6a5c9', '#fcbfd2', '#d8b5a5', '#79706e', '#439894',
];

/** Variant name -> colour, fixed for a whole report. */
export type VariantColors = ReadonlyMap<string, string>;

/** Assign palette colours to variant names in the order given (duplicates ignored; the palette cycles past 20). */
export function variantColors(variants: readonly string[]): VariantColors {
  const out = new Map<string, string>();
  for (const v of variants) if (!out.has(v)) out.set(v, PALETTE[out.size % PALETTE.length] as string);
  return out;
}

/** A colour scale with an explicit domain and range: the given variants (in report order) and their colours. */
export function colorScale(colors: VariantColors, shown: readonly string[]): { domain: string[]; range: string[] } {
  const set = new Set(shown);
  const domain = [...colors.keys()].filter((v) => set.has(v));
  for (const v of shown) if (!colors.has(v) && !domain.includes(v)) domain.push(v);
  return { domain, range: domain.map((v, i) => colors.get(v) ?? (PALETTE[(colors.size + i) % PALETTE.length] as string)) };
}

/** Colours of the reasons an operation ended, fixed across reports. */
export const REASON_COLORS: Readonly<Record<string, string>> = {
  success: '#54a24b',
  deadline: '#e45756',
  'attempt-limit': '#f58518',
  'not-retryable': '#9d755d',
  'wait-exceeds-deadline': '#b279a2',
  'retry-after-too-long': '#ff9da6',
  'budget-exhausted': '#eeca3b',
  'circuit-open': '#4c78a8',
  throttled: '#72b7b2',
  unfinished: '#bab0ac',
};

/** Neutral colours: trigger windows and the Pareto frontier. */
export const WINDOW_COLOR = '#888888';
export const FRONTIER_COLOR = '#333333';
