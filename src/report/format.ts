/** A number for tables and captions: 4 significant digits, no exponent for everyday sizes. */
export function formatNumber(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e15 || a < 1e-4) return v.toExponential(3).replace(/\.?0+e/, 'e');
  if (a >= 1e4) return Math.round(v).toLocaleString('en-US');
  const digits = Math.max(0, 3 - Math.floor(Math.log10(a)));
  return Number(v.toFixed(Math.min(digits, 6))).toString();
}

/** A parameter value for labels: numbers and strings as written, anything else as compact JSON. */
export function formatValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  if (v === undefined) return '';
  return JSON.stringify(v);
}

/** `path = value, path = value` for a cell's swept parameters ('' without any). */
export function formatParams(params: Record<string, unknown>): string {
  return Object.entries(params)
    .map(([k, v]) => `${k} = ${formatValue(v)}`)
    .join(', ');
}

