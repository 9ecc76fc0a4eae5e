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
