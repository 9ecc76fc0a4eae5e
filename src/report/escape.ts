/** Escape text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * JSON for a `<script type="application/json">` element: every `<`, `>` and `&` becomes a JSON
 * unicode escape, so no text inside (a `</script>`, a `<!--`) can end or change the element; the
 * line separators U+2028/U+2029 are escaped too. `JSON.parse` reads it back unchanged.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * The chart specs of a page for a `<script type="application/json">` element ({@link jsonForScript}),
 * with every U+2028/U+2029 inside a string written as the six characters of its escape (`\u2028`).
 * vega-lite turns labels (a custom sort order, a legend filter) into vega expressions, and vega's
 * expression parser (vega-expression 6, ES5 rules) reads a raw line separator inside a string
 * literal as the end of the line ("Unexpected token ILLEGAL"): the chart would not render. The
 * same text is used in data and in sort orders alike, so they still match each other.
 */
export function chartsForScript(charts: unknown): string {
  return jsonForScript(mapStrings(charts, (s) => s.replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`)));
}

/** `value` with `f` applied to every string in it, keys included (plain JSON values only). */
function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) Object.defineProperty(out, f(k), { value: mapStrings(v, f), enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * JavaScript source for an inline `<script>` element: the source map comment is removed (the map
 * is not shipped), and `</script` and `<!--` are broken up (`<\/script`, `<\!--`) so that the HTML
 * parser cannot end the element early. Both rewrites keep the meaning of the code where those
 * sequences can legally appear (strings, regular expressions, comments).
 */
export function inlineScript(source: string): string {
  return stripSourceMap(source)
    .replace(/<\/(script)/gi, '<\\/$1')
    .replace(/<!--/g, '<\\!--');
}

/** Remove `//# sourceMappingURL=...` (and the old `//@` form) comments. */
export function stripSourceMap(source: string): string {
  return source.replace(/\n?\/\/[#@] sourceMappingURL=[^\n]*\n?/g, '\n').replace(/\n+$/, '\n');
}
