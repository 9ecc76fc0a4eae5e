import { PALETTE, REASON_COLORS } from '../colors.js';
import type { VlSpec } from '../types.js';
import type { LabelledCell } from './amplification.js';
import { categoryLayout, HEIGHT, legendOpacity, legendParam, topLevel, WIDTH } from './common.js';

/** One stacked segment: the operations of a cell that ended for one reason. */
export interface GiveUpRow {
  label: string;
  variant: string;
  reason: string;
  /** Mean operations over replications. */
  operations: number;
  /** Share of the operations offered. */
  share: number;
}

/** Operations that did not succeed, by reason (`giveUps.*` except success, plus `unfinished`). */
export function giveUpRows(cells: readonly LabelledCell[], includeSuccess = false): GiveUpRow[] {
  const rows: GiveUpRow[] = [];
  for (const { label, cell } of cells) {
    const offered = cell.metrics['operations.offered']?.mean ?? 0;
    const add = (reason: string, v: number | null | undefined) => {
      if (typeof v !== 'number' || !(v > 0)) return;
      rows.push({ label, variant: cell.variant, reason, operations: v, share: typeof offered === 'number' && offered > 0 ? v / offered : 0 });
    };
    for (const [k, s] of Object.entries(cell.metrics)) {
      const m = /^giveUps\.(.+)$/.exec(k);
      if (!m || (m[1] === 'success' && !includeSuccess)) continue;
      add(m[1] as string, s.mean);
    }
    add('unfinished', cell.metrics['operations.unfinished']?.mean);
  }
  return rows;
}

/**
 * Give-up reasons as stacked bars: for each cell (one per variant by default), the operations that
 * did not succeed, stacked by the reason they ended (deadline, attempt limit, not retryable, wait
 * exceeds deadline, budget exhausted, circuit open, throttled, unfinished), each reason with a
 * fixed colour. The legend filters reasons.
 */
export function giveUpsSpec(input: { cells: readonly LabelledCell[]; includeSuccess?: boolean }): VlSpec {
  const rows = giveUpRows(input.cells, input.includeSuccess ?? false);
  const reasons: string[] = [];
  for (const r of [...Object.keys(REASON_COLORS), ...rows.map((r) => r.reason)]) if (rows.some((x) => x.reason === r) && !reasons.includes(r)) reasons.push(r);
  let extra = 0;
  const range = reasons.map((r) => REASON_COLORS[r] ?? (PALETTE[10 + (extra++ % 10)] as string));
  const labels = input.cells.map((c) => c.label);
  const layout = categoryLayout(labels, Math.min(WIDTH, Math.max(200, labels.length * 70)));
  return {
    ...topLevel('Operations that did not succeed, by the reason they ended'),
    width: layout.width,
    height: HEIGHT,
    data: { values: rows },
    params: [legendParam('reason')],
    mark: { type: 'bar' },
    encoding: {
      x: { field: 'label', type: 'nominal', title: null, sort: labels, axis: layout.axis },
      y: { field: 'operations', type: 'quantitative', title: 'Operations (mean per run)', stack: 'zero' },
      color: { field: 'reason', type: 'nominal', title: 'Ended by', scale: { domain: reasons, range } },
      order: { field: 'reason', sort: 'ascending' },
      opacity: legendOpacity(),
      tooltip: [
        { field: 'label', type: 'nominal', title: 'Cell' },
        { field: 'reason', type: 'nominal', title: 'Ended by' },
        { field: 'operations', type: 'quantitative', title: 'Operations (mean)' },
        { field: 'share', type: 'quantitative', title: 'Share of offered', format: '.3~%' },
      ],
    },
  };
}
