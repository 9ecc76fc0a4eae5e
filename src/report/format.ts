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

/** A duration for the header: ms, s, min or h. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`;
}
