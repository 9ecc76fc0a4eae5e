import { durationUnit, type DurationUnit } from '../policy/formatDuration.js';
import { formatCount, groupThousands } from '../policy/groupThousands.js';

/** A number for tables and captions: 4 significant digits, no exponent for everyday sizes. */
export function formatNumber(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e15 || a < 1e-4) return v.toExponential(3).replace(/\.?0+e/, 'e');
  if (a >= 1e4) return formatCount(Math.round(v));
  const digits = Math.max(0, 3 - Math.floor(Math.log10(a)));
  return Number(v.toFixed(Math.min(digits, 6))).toString();
}

/** The unit a duration of `ms` reads best in, as {@link formatNumber} writes it (`durationUnit`): `1,330,000,000 ms` is `369.7 h`. */
export function shownDurationUnit(ms: number): DurationUnit {
  return durationUnit(ms, formatNumber);
}

/**
 * A mean and the half-width of its 95% interval, to the precision the interval supports: the
 * half-width to one significant digit (two when it starts with a 1), the mean to the same decimal
 * place (`1863 ± 13`, `796.5 ± 1.5`, `0.9405 ± 0.0012`). An interval narrower than a billionth of
 * the mean is rounding noise of equal values, not an interval: the mean alone (`1002`, never
 * `1002 ± 1.137e-13`), as is a missing one.
 */
export function formatEstimate(mean: number | null | undefined, half: number | null | undefined): string {
  if (mean === null || mean === undefined || !Number.isFinite(mean)) return '–';
  if (half === null || half === undefined || !Number.isFinite(half) || half <= 1e-9 * Math.abs(mean) || half <= 0) return formatNumber(mean);
  const f = intervalFormatter(mean, half);
  return f ? `${f(mean)} ± ${f(half)}` : `${formatNumber(mean)} ± ${formatNumber(half)}`;
}

/** An interval `[lo, hi]` to the precision its width supports (as {@link formatEstimate}): `[-0.8, 2.3]`. */
export function formatRange(lo: number, hi: number): string {
  const f = intervalFormatter((lo + hi) / 2, (hi - lo) / 2);
  return f ? `[${f(lo)}, ${f(hi)}]` : `[${formatNumber(lo)}, ${formatNumber(hi)}]`;
}

/** Rounds values to the decimal place of a half-width's leading digit (the next one when it is a 1); null for sizes printed with exponents or no width. */
function intervalFormatter(mean: number, half: number): ((v: number) => string) | null {
  const a = Math.max(Math.abs(mean), half);
  if (!(half > 1e-9 * Math.abs(mean)) || a >= 1e15 || half < 1e-4) return null;
  const e = Math.floor(Math.log10(half));
  const lead = Math.floor(half / 10 ** e);
  const decimals = Math.max(0, -e + (lead < 2 ? 1 : 0));
  const step = 10 ** Math.max(0, e - (lead < 2 ? 1 : 0));
  const round = (v: number) => (decimals > 0 ? v : Math.round(v / step) * step);
  return (v: number) => {
    const r = round(v);
    return a >= 1e4 ? groupThousands(r.toFixed(decimals)) : r.toFixed(decimals);
  };
}

/** A parameter value for labels: numbers and strings as written, anything else as compact JSON. */
export function formatValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  if (v === undefined) return '';
  return JSON.stringify(v);
}

/**
 * The swept parameters of a cell, each changed field named once: paths that differ only in their
 * list indices and have the same value are one entry (`stack.*.policy.maxAttempts = 2` for a zip of
 * four layers' attempts); `short` names each entry by the last segments that tell it apart from the
 * others (`maxAttempts=2`), for the command line's rows.
 */
export function paramEntries(params: Record<string, unknown>, short = false): Array<{ name: string; value: string }> {
  const groups: Array<{ pattern: string; paths: string[]; value: string }> = [];
  for (const [path, v] of Object.entries(params)) {
    const pattern = path.split('.').map((s) => (/^\d+$/.test(s) ? '*' : s)).join('.');
    const value = formatValue(v);
    const g = groups.find((x) => x.pattern === pattern && x.value === value);
    if (g) g.paths.push(path);
    else groups.push({ pattern, paths: [path], value });
  }
  const full = groups.map((g) => (g.paths.length > 1 ? g.pattern : (g.paths[0] as string)));
  if (!short) return groups.map((g, i) => ({ name: full[i] as string, value: g.value }));
  const segs = full.map((n) => n.split('.'));
  return groups.map((g, i) => {
    const mine = segs[i] as string[];
    let k = 1;
    const suffix = (s: string[], n: number) => s.slice(-n).join('.');
    while (k < mine.length && segs.some((o, j) => j !== i && suffix(o, k) === suffix(mine, k))) k++;
    return { name: suffix(mine, k), value: g.value };
  });
}

/** `path = value, path = value` for a cell's swept parameters ('' without any), each changed field once. */
export function formatParams(params: Record<string, unknown>): string {
  return paramEntries(params)
    .map((e) => `${e.name} = ${e.value}`)
    .join(', ');
}

