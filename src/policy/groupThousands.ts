/**
 * How a large number's digits are grouped for people, everywhere the project prints one (schema
 * messages, the report's tables and captions): commas between groups of three digits of the
 * integer part, as `toLocaleString('en-US')` groups them. Written out rather than asked of `Intl`
 * because any locale-aware formatting loads the ICU data, about 8 MB of memory, and the schemas
 * format their bounds as they are built, at import. The digits themselves come from `toFixed` (the
 * exact binary value rounded, ECMA-262 Number.prototype.toFixed), as for numbers printed without
 * grouping; `Intl` would round the shortest decimal that reads back as the value instead (12345.005
 * to two decimals, exactly 12345.00499...: `toFixed` 12,345.00, `Intl` 12,345.01). It lives in
 * `src/policy` for the reason `formatDuration.ts` does.
 */

/**
 * A number as written by `toFixed` (`-12345.50`, `1000000`), its integer part's digits grouped by
 * three (`-12,345.50`, `1,000,000`).
 */
export function groupThousands(fixed: string): string {
  const dot = fixed.indexOf('.');
  const whole = dot < 0 ? fixed : fixed.slice(0, dot);
  const fraction = dot < 0 ? '' : fixed.slice(dot);
  return whole.replace(/\B(?=(\d{3})+$)/g, ',') + fraction;
}

/** A whole number (below 1e21) with its digits grouped by three: `10,000,000`. */
export function formatCount(n: number): string {
  return groupThousands(n.toFixed(0));
}
