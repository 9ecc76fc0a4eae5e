/**
 * Timer granularity: real timers fire on ticks (1 ms Node timers, 4 or 10 ms kernel ticks,
 * 15.6 ms Windows, whole seconds in Retry-After headers). A wake-up at `tMs` is rounded up to the
 * next multiple of `tickMs` on absolute tick boundaries aligned to t = 0, as a timer wheel does.
 * A tick of 0 means no rounding. Guards against floating-point overshoot (e.g. 3 * 15.6 / 15.6
 * evaluating to just above 3), so a time already on a boundary stays there.
 */
export function quantizeUpMs(tMs: number, tickMs: number): number {
  if (!(tickMs > 0)) return tMs;
  const k = Math.ceil(tMs / tickMs);
  const below = (k - 1) * tickMs;
  return below >= tMs ? below : k * tickMs;
}
