/**
 * How a duration is written for people, everywhere the project prints one: `check`'s messages and
 * tables, the report's header and the command line's progress line. It lives beside the policies
 * because every area that prints a duration may import `src/policy`, and `src/policy` imports nothing.
 */

/** A duration for people: `250 ms`, `1.5 s`, `15 min`, `2.1 h`; `unbounded` for +Infinity, `?` for NaN. */
export function formatDuration(ms: number): string {
  if (Number.isNaN(ms)) return '?';
  if (!Number.isFinite(ms)) return 'unbounded';
  const a = Math.abs(ms);
  if (a < 1000) return `${roundForPeople(ms)} ms`;
  if (a < 120_000) return `${roundForPeople(ms / 1000)} s`;
  if (a < 7_200_000) return `${roundForPeople(ms / 60_000)} min`;
  return `${roundForPeople(ms / 3_600_000)} h`;
}

/** A number as people read it: whole numbers as they are, 100 and above without decimals, else 3 significant digits. */
export function roundForPeople(x: number): string {
  if (Number.isInteger(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 100) return x.toFixed(0);
  return String(Number(x.toPrecision(3)));
}
