import { colorScale, type VariantColors } from '../colors.js';
import type { ReportCell, VlSpec } from '../types.js';
import { HEIGHT, legendOpacity, legendParam, topLevel, WIDTH } from './common.js';

/** A cell and its label in the chart. */
export interface LabelledCell {
  label: string;
  cell: ReportCell;
}

/** One bar segment: a layer's first tries or retries per operation offered, in one cell. */
export interface LayerAttemptsRow {
  label: string;
  variant: string;
  layer: string;
  /** Position of the layer from the top of the stack. */
  depth: number;
  kind: 'first tries' | 'retries';
  /** Mean attempts of this kind over replications. */
  attempts: number;
  /** Mean operations offered. */
  operations: number;
  /** attempts / operations. */
  perOperation: number;
}

/** Layers of a cell from the top of the stack down: the scenario's order, else the order of the metric names. */
function layersOf(cell: ReportCell): string[] {
  const stack = cell.scenario?.stack;
  if (Array.isArray(stack) && stack.length > 0) return stack.map((l) => l.name);
  const names: string[] = [];
  for (const k of Object.keys(cell.metrics)) {
    const m = /^attempts\.(.+)\.(first|retries)$/.exec(k);
    if (m && !names.includes(m[1] as string)) names.push(m[1] as string);
  }
  return names;
}

/** The bar segments of the amplification chart. */
export function layerAttemptsRows(cells: readonly LabelledCell[]): LayerAttemptsRow[] {
  const rows: LayerAttemptsRow[] = [];
  for (const { label, cell } of cells) {
    const ops = cell.metrics['operations.offered']?.mean;
    if (typeof ops !== 'number' || !(ops > 0)) continue;
    layersOf(cell).forEach((layer, depth) => {
      for (const [suffix, kind] of [['first', 'first tries'], ['retries', 'retries']] as const) {
        const m = cell.metrics[`attempts.${layer}.${suffix}`]?.mean;
        if (typeof m !== 'number' || !Number.isFinite(m)) continue;
        rows.push({ label, variant: cell.variant, layer, depth, kind, attempts: m, operations: ops, perOperation: m / ops });
      }
    });
  }
  return rows;
}

/**
 * Amplification per layer: for each layer of the stack (top to bottom), the attempts it made per
 * operation offered, split into first tries (solid) and retries (light), one bar per cell coloured
 * by variant. The bottom layer's bar is the leaf calls per operation: each retrying layer
 * multiplies what reaches the layers below.
 */
export function amplificationSpec(input: { cells: readonly LabelledCell[]; colors: VariantColors }): VlSpec {
  const rows = layerAttemptsRows(input.cells);
  const labels = input.cells.map((c) => c.label);
  const byVariant = new Set(input.cells.map((c) => c.cell.variant)).size === input.cells.length;
  const layers: string[] = [];
  for (const r of [...rows].sort((a, b) => a.depth - b.depth)) if (!layers.includes(r.layer)) layers.push(r.layer);
  const several = input.cells.length > 1;
  return {
    ...topLevel('Attempts per operation at each layer, first tries and retries'),
    width: Math.max(WIDTH, layers.length * input.cells.length * 28),
    height: HEIGHT,
    data: { values: rows },
    params: [legendParam('variant')],
    mark: { type: 'bar', stroke: 'white', strokeWidth: 0.5 },
    encoding: {
      x: { field: 'layer', type: 'nominal', title: 'Layer (top of the stack first)', sort: layers, axis: { labelAngle: 0 } },
      ...(several ? { xOffset: { field: 'label', type: 'nominal', sort: labels, title: byVariant ? 'Variant' : 'Cell' } } : {}),
      y: { field: 'perOperation', type: 'quantitative', title: ['Attempts per operation', '(calls to the next hop', 'per operation offered)'], stack: 'zero' },
      color: { field: 'variant', type: 'nominal', title: 'Variant', scale: colorScale(input.colors, input.cells.map((c) => c.cell.variant)) },
      fillOpacity: { field: 'kind', type: 'ordinal', title: 'Attempts', sort: ['first tries', 'retries'], scale: { domain: ['first tries', 'retries'], range: [1, 0.4] } },
      order: { field: 'kind', sort: 'ascending' },
      opacity: legendOpacity(),
      tooltip: [
        { field: 'label', type: 'nominal', title: byVariant ? 'Variant' : 'Cell' },
        { field: 'layer', type: 'nominal', title: 'Layer' },
        { field: 'kind', type: 'nominal', title: 'Attempts' },
        { field: 'perOperation', type: 'quantitative', title: 'Per operation' },
        { field: 'attempts', type: 'quantitative', title: 'Attempts (mean)' },
        { field: 'operations', type: 'quantitative', title: 'Operations offered (mean)' },
      ],
    },
  };
}
