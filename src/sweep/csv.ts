import type { SweepSummary } from './runPlan.js';

/**
 * The first characters that make a spreadsheet read a text cell as a formula (OWASP, "CSV
 * Injection": `=`, `+`, `-`, `@`, tab and carriage return).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text that is a plain decimal number (`-1.5`, `+2e-3`): a spreadsheet reads it as that number, never as a formula. */
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * One CSV field. A text cell that a spreadsheet would take for a formula (it starts with `=`,
 * `+`, `-`, `@`, a tab or a carriage return, and is not a plain number) gets a leading `'` and
 * quotes, as OWASP advises (a variant named `=HYPERLINK(...)` stays text); numbers are written as
 * they are (`-1.5` stays a number). Quoted when it holds a comma, a quote or a line break.
 */
export function csvCell(v: unknown): string {
  if (typeof v === 'number') return String(v);
  const s = typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);
  if (FORMULA_START.test(s) && !PLAIN_NUMBER.test(s)) return `"'${s.replace(/"/g, '""')}"`;
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
