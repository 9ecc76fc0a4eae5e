// Shared by the benchmark cases (each runs in its own child process, so that one benchmark's
// JIT feedback never slows another): options from argv, and the JSON line a case prints.

/** `--quick` shortens every case; `--runs N` overrides the number of repetitions. */
export function caseOptions(fullRuns, quickRuns) {
  const argv = process.argv.slice(2);
  const quick = argv.includes('--quick');
  const i = argv.indexOf('--runs');
  const runs = i >= 0 ? Number(argv[i + 1]) : quick ? quickRuns : fullRuns;
  return { quick, runs };
}

/**
 * Print the case's result for bench/run.mjs: `rows` of the table, each
 * { benchmark, measured, reference, ratio, target, pass, unit... }, and free-form `details`.
 */
export function emit(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Format a rate with its unit: 12.3 M ev/s. */
export function fmtRate(perSec, unit) {
  if (perSec >= 1e6) return `${(perSec / 1e6).toFixed(2)} M ${unit}/s`;
  if (perSec >= 1e3) return `${(perSec / 1e3).toFixed(1)} k ${unit}/s`;
  return `${perSec.toFixed(1)} ${unit}/s`;
}

/** Format a byte count in MB (10^6 bytes). */
export function fmtMB(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Format a percentage of a ratio. */
export function fmtPct(ratio) {
  return `${(100 * ratio).toFixed(0)}%`;
}
