import type { SweepSummary } from './runPlan.js';

/** One CSV field: quoted when it holds a comma, a quote or a line break. */
export function csvCell(v: unknown): string {
  const s = typeof v === 'string' ? v : v === undefined || v === null ? '' : typeof v === 'number' ? String(v) : JSON.stringify(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * summary.csv: the summary as one long table for spreadsheets and pandas, one row per cell and
 * metric: part, variant, one column per swept parameter, metric, n, mean, sd, ci95_low, ci95_high.
 * Rows follow the summary's order (by cell key), metrics sorted by name.
 */
export function summaryCsv(summary: SweepSummary): string {
  const paramNames = [...new Set(summary.cells.flatMap((c) => Object.keys(c.params)))].sort();
  const header = ['part', 'variant', ...paramNames, 'state', 'metric', 'n', 'mean', 'sd', 'ci95_low', 'ci95_high'];
  const rows = [header.map(csvCell).join(',')];
  for (const c of summary.cells) {
    const lead = [c.part, c.variant, ...paramNames.map((p) => c.params[p]), c.state];
    for (const [name, s] of Object.entries(c.metrics)) {
      rows.push([...lead, name, s.n, s.mean, s.sd, s.ci95[0], s.ci95[1]].map(csvCell).join(','));
    }
  }
  return rows.join('\n') + '\n';
}
