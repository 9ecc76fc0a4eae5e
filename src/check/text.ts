/** Small text helpers for `check`'s messages and tables. */
import { formatDuration, roundForPeople } from '../policy/formatDuration.js';

/** A duration for people (the project's one formatter, under `check`'s short name). */
export const fmtMs: (ms: number) => string = formatDuration;

/** A number with up to 3 significant digits (whole numbers as they are); `unbounded` for +Infinity. */
export function fmtNum(x: number): string {
  if (Number.isNaN(x)) return '?';
  if (!Number.isFinite(x)) return 'unbounded';
  if (Number.isInteger(x)) return String(x);
  return roundForPeople(x);
}

/** A multiple: `27x`, `1.11x`. */
export function fmtX(x: number): string {
  return Number.isFinite(x) ? `${fmtNum(x)}x` : 'unbounded';
}

/** A fraction as a percentage: `10%`, `0.1%`. */
export function fmtPct(x: number): string {
  if (Number.isNaN(x)) return '?';
  const v = x * 100;
  if (v !== 0 && Math.abs(v) < 0.001) return `${v.toExponential(1)}%`;
  return `${Number(v.toPrecision(3))}%`;
}

/** `a`, `a and b`, `a, b and c`. */
export function listAnd(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** A product of attempts: `11 x 3 x 2`. */
export function fmtProduct(factors: readonly number[]): string {
  return factors.map(fmtNum).join(' x ');
}

/** Columns: the first left-aligned, the others left-aligned too unless `right` lists them; two spaces between. */
export function table(rows: string[][], header: string[], right: readonly number[] = []): string {
  const all = [header, ...rows];
  const widths: number[] = [];
  for (const r of all) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  const line = (r: string[]) => r.map((c, i) => (right.includes(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
