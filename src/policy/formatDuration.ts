/**
 * How a duration is written for people, everywhere the project prints one: `check`'s messages and
 * tables, the command line's result tables and progress line, and the report's tables, sentences,
 * titles and header. It lives beside the policies because every area that prints a duration may
 * import `src/policy`, and `src/policy` imports nothing. Machine outputs (JSON, CSV, summaries)
 * keep their milliseconds.
 */

/** A unit a duration may be written in: its name and its length in milliseconds. */
export interface DurationUnit {
  unit: 'ms' | 's' | 'min' | 'h';
  ms: number;
}

/**
 * The units of durations for people, smallest first, each with the value (in that unit) from which
 * the next one reads better: milliseconds below a second, seconds below two minutes (`90 s` rather
 * than `1.5 min`), minutes below two hours, then hours.
 */
export const DURATION_UNITS: ReadonlyArray<DurationUnit & { below: number }> = [
  { unit: 'ms', ms: 1, below: 1000 },
  { unit: 's', ms: 1000, below: 120 },
  { unit: 'min', ms: 60_000, below: 120 },
  { unit: 'h', ms: 3_600_000, below: Infinity },
];

/**
 * The unit a duration of `ms` reads best in: the smallest whose value, as `shown` writes it, stays
 * below the next unit's threshold, so that rounding never writes `1000 ms` or `120 min` where
 * `1 s` or `2 h` is meant. `shown` is the rounding the caller prints with ({@link roundForPeople}
 * by default); a value it writes with digit grouping or an exponent is past every threshold but
 * the last's. Non-finite values get milliseconds.
 */
export function durationUnit(ms: number, shown: (x: number) => string = roundForPeople): DurationUnit {
  const last = DURATION_UNITS[DURATION_UNITS.length - 1] as DurationUnit;
  if (!Number.isFinite(ms)) return DURATION_UNITS[0] as DurationUnit;
  for (const u of DURATION_UNITS) {
    const written = Number(shown(Math.abs(ms) / u.ms));
    if (Number.isFinite(written) && written < u.below) return { unit: u.unit, ms: u.ms };
  }
  return { unit: last.unit, ms: last.ms };
}

/**
 * A duration for people: `250 ms`, `1.5 s`, `15 min`, `2.1 h` (the unit by {@link durationUnit},
 * so `999.7 ms` is `1 s`); `unbounded` for +Infinity, `?` for NaN.
 */
export function formatDuration(ms: number): string {
  if (Number.isNaN(ms)) return '?';
  if (!Number.isFinite(ms)) return 'unbounded';
  const u = durationUnit(ms);
  return `${roundForPeople(ms / u.ms)} ${u.unit}`;
}

/**
 * A duration someone set (a swept timeout, a timer tick) in the unit that reads best, without
 * rounding, so that two settings never read alike: `15.6 ms`, `3 s`, `12.345 s`, `5 min`.
 */
export function formatSetDuration(ms: number): string {
  if (!Number.isFinite(ms)) return formatDuration(ms);
  const u = durationUnit(ms, (x) => String(Number(x.toPrecision(12))));
  return `${Number((ms / u.ms).toPrecision(12))} ${u.unit}`;
}

/** A number as people read it: whole numbers as they are, 100 and above without decimals, else 3 significant digits. */
export function roundForPeople(x: number): string {
  if (Number.isInteger(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 100) return x.toFixed(0);
  return String(Number(x.toPrecision(3)));
}
