// Timing for the benchmarks. These machines are shared: wall time includes the time the process
// waits for a core, so rates are computed from the process's CPU time (user + system,
// process.cpuUsage) and the wall time is kept beside it.

/** Start a clock; `stop()` returns { cpuSec, wallSec } since the start. */
export function startClock() {
  const c0 = process.cpuUsage();
  const w0 = process.hrtime.bigint();
  return {
    stop() {
      const c = process.cpuUsage(c0);
      return { cpuSec: (c.user + c.system) / 1e6, wallSec: Number(process.hrtime.bigint() - w0) / 1e9 };
    },
  };
}

/** Median of a list of numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
