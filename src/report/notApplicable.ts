/**
 * Figures that do not apply to a cell because what they divide by, or describe, is empty: calls
 * per operation, the success rate, goodput and the completion time when no operation was measured,
 * latencies without a success, a hit ratio without a lookup. The results hold 0 (or nothing) for
 * them; people are shown "n/a" with the reason instead ({@link notApplicableText}), and the report
 * leaves them out of its charts and comparisons.
 */

/** The reason a figure per operation does not apply: no operation was measured (offered after the warm-up). */
export const NO_OPERATIONS = 'no operations';
/** The reason a latency of successes does not apply. */
export const NO_SUCCESSES = 'no successes';
/** The reason the time of ended operations does not apply. */
export const NO_OPERATIONS_ENDED = 'no operation ended';
/** The reason a cache's hit ratio does not apply. */
export const NO_LOOKUPS = 'no lookups';

/** The latency statistics a histogram gives (`latencyMs.<stat>`, `operationMs.<stat>`), its count aside. */
const LATENCY_STATS = ['mean', 'p50', 'p90', 'p99', 'p999', 'max'] as const;

/** Figures of a run (or of one workload of it) that are per operation measured, or about operations that ended. */
const PER_OPERATION = ['amplification', 'successRate', 'goodputPerSec', 'completionTimeMs'] as const;

/**
 * Why `metric` does not apply, given the means of a cell's (or a run's) metrics by name (`mean`
 * returns null for a metric not measured), or null when it applies (or its denominator is not
 * known). The denominators: `operations.offered` for {@link PER_OPERATION} figures and the calls
 * per operation on an edge; `workloads.<w>.operations.offered` for a workload's own; the counts of
 * the latency histograms for their statistics; `lookups` for a cache's `hitRatio`. A metric window's
 * figures are not judged here: summary.json does not keep what a window offered.
 */
export function notApplicable(metric: string, mean: (name: string) => number | null): string | null {
  const none = (name: string) => mean(name) === 0;
  if ((PER_OPERATION as readonly string[]).includes(metric)) return none('operations.offered') ? NO_OPERATIONS : null;
  let m = /^workloads\.([^.]+)\.(amplification|successRate|goodputPerSec|completionTimeMs)$/.exec(metric);
  if (m) return none(`workloads.${m[1]}.operations.offered`) ? NO_OPERATIONS : null;
  m = /^edges\..+\.workloads\.([^.]+)\.amplification$/.exec(metric);
  if (m) return none(`workloads.${m[1]}.operations.offered`) ? NO_OPERATIONS : null;
  if (/^edges\..+\.amplification$/.test(metric)) return none('operations.offered') ? NO_OPERATIONS : null;
  m = /^(workloads\.[^.]+\.)?(latencyMs|operationMs)\.([a-z0-9]+)$/.exec(metric);
  if (m && (LATENCY_STATS as readonly string[]).includes(m[3] as string)) {
    return none(`${m[1] ?? ''}${m[2]}.count`) ? (m[2] === 'latencyMs' ? NO_SUCCESSES : NO_OPERATIONS_ENDED) : null;
  }
  m = /^(services\.[^.]+\.caches\..+)\.hitRatio$/.exec(metric);
  if (m) return none(`${m[1]}.lookups`) ? NO_LOOKUPS : null;
  return null;
}

/** How a figure that does not apply is shown: `n/a (no operations)`. */
export function notApplicableText(reason: string): string {
  return `n/a (${reason})`;
}
