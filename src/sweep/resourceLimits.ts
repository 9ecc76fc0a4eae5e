import type { ExperimentPlan } from '../experiment/index.js';
import { WARM_REQUESTS_PER_ENTRY } from '../model/graph/CallCache.js';
import { graphFootprint } from '../model/graph/graphFootprint.js';
import { formatCount } from '../policy/groupThousands.js';
import { BASE_MEMORY_BYTES, CLIENT_BYTES, estimateMemory, type MemoryEstimate } from './estimateMemory.js';
import { estimateOutput, runSpans, type OutputEstimate } from './estimateOutput.js';

/** Results larger than this are announced with a warning (docs/cli.md, "Limits"). */
export const OUTPUT_WARN_BYTES = 100e6;
/** Results larger than this are refused unless `--force` (docs/cli.md, "Limits"). */
export const OUTPUT_REFUSE_BYTES = 1e9;

/**
 * The default memory limit of a run (`run --memory-limit`): this fraction of the machine's memory,
 * shared by the runs at once. Under half, so that a run stopped at its ceiling leaves the machine
 * room (and the estimate of a plan whose runs reach it stays under the warning at half).
 */
export const DEFAULT_MEMORY_LIMIT_FRACTION = 0.4;

/** The least a run may hold whatever the limit (its tables start at about this much). */
export const MIN_RUN_MEMORY_BYTES = 1e6;

/**
 * A warm start that replays more requests than this before each run is announced: a cache of
 * 10^7 entries replays 2 x 10^8 (20 per entry), about 100 s of work before the run starts
 * ({@link WARM_REQUEST_NS}).
 */
export const CACHE_WARM_WARN_REQUESTS = 1e7;
/** Time one replayed request of a warm start takes: 2 x 10^8 took 114 s (Node 20, one core here). */
export const WARM_REQUEST_NS = 570;

/**
 * The bytes of tables each run may hold under a memory limit of `limitBytes` for `concurrent` runs
 * at once (the process's base taken off first): the ceiling the memory meter stops a run at
 * (src/engine/memoryMeter.ts).
 */
export function runMemoryShare(limitBytes: number, concurrent: number): number {
  return Math.max(MIN_RUN_MEMORY_BYTES, (limitBytes - BASE_MEMORY_BYTES) / Math.max(1, concurrent));
}

/** The runs of a plan at once on `workers` threads. */
export function concurrentRuns(plan: ExperimentPlan, workers: number): number {
  const runs = plan.parts.reduce((n, p) => n + p.cells.length * p.replications, 0);
  return Math.max(1, Math.min(workers, runs));
}

/** Bytes in decimal units (1 MB = 10^6 bytes), with two significant digits under 10 of a unit. */
export function formatBytes(n: number): string {
  const units: Array<[number, string]> = [
    [1e12, 'TB'],
    [1e9, 'GB'],
    [1e6, 'MB'],
    [1e3, 'KB'],
  ];
  for (const [size, unit] of units) {
    if (n >= size) {
      const v = n / size;
      return `${v < 10 ? v.toFixed(1) : v.toFixed(0)} ${unit}`;
    }
  }
  return `${Math.round(n)} bytes`;
}

/** What an estimate found: lines to print as warnings, and refusals that `--force` overrides. */
export interface LimitFindings {
  output: OutputEstimate;
  memory: MemoryEstimate;
  warnings: string[];
  refusals: string[];
  /** The memory limit of all runs at once (bytes), which `run` hands the sweep: each run stops at its share ({@link runMemoryShare}). */
  memoryLimitBytes: number;
}

/** What makes the output large: the longest series, or the number of runs' lines. */
function outputCause(o: OutputEstimate): string {
  const l = o.largest;
  if (l !== null && o.seriesBytes >= o.bytes / 2) {
    return `time series of ${l.bins} bins a run (metrics.timeSeriesBinMs ${l.binMs} ms over ${l.spanField} ${Math.round(l.spanMs)} ms) x ${l.series} series x ${o.runs} runs`;
  }
  return `${o.runs} runs (cells x replications) of about ${formatBytes(o.bytes / Math.max(1, o.runs))} each`;
}

function memoryCause(m: MemoryEstimate): string {
  const graph = m.graphBytes > 0 ? ` (or, when more, what a service graph's operations in flight and caches can hold: ${formatBytes(m.graphBytes)}${m.graphCapped ? ', at most the memory limit of a run' : ''})` : '';
  return `${m.clients} clients at ${CLIENT_BYTES} bytes each${graph} and the series, ${formatBytes(m.perRunBytes)} a run x ${m.concurrent} at once, plus ${formatBytes(m.heldBytes)} of series kept for the summary`;
}

/** The warnings and refusals of a plan's caches: a warm start long enough to announce, caches larger than a run may hold (`runCeilingBytes`). */
export function cacheFindings(plan: ExperimentPlan, runCeilingBytes: number, warnings: string[], refusals: string[]): void {
  let warm = 0;
  let bytes = 0;
  for (const p of plan.parts) {
    for (const c of p.cells) {
      if (c.scenario.graph === undefined) continue;
      const f = graphFootprint(c.scenario);
      warm = Math.max(warm, f.warmRequests);
      bytes = Math.max(bytes, f.cacheBytes);
    }
  }
  if (warm > CACHE_WARM_WARN_REQUESTS) {
    warnings.push(`the caches that start warm replay ${formatCount(warm)} requests before each run starts (${WARM_REQUESTS_PER_ENTRY} per entry of capacity), about ${Math.round((warm * WARM_REQUEST_NS) / 1e9)} s a run before its first event (a smaller capacity, or initial "empty", starts at once)`);
  }
  if (bytes > runCeilingBytes) {
    refusals.push(`the caches take about ${formatBytes(bytes)} (their entries, key index and key popularity), more than the ${formatBytes(runCeilingBytes)} a run may hold under the memory limit: every run would stop at its start (use smaller caches, or raise --memory-limit, or pass --force to run it anyway)`);
  }
}

/**
 * Check a plan's estimated output (warning above {@link OUTPUT_WARN_BYTES}, refusal above
 * {@link OUTPUT_REFUSE_BYTES}) and memory (warning above half of `memoryBytes`, the machine's memory,
 * refusal above it; a service graph's runs counted at most at their share of `memoryLimitBytes`,
 * by default {@link DEFAULT_MEMORY_LIMIT_FRACTION} of the machine's memory) and its caches (a long
 * warm start announced, caches larger than a run may hold refused) before it runs.
 */
export function checkLimits(plan: ExperimentPlan, opts: { workers: number; memoryBytes: number; memoryLimitBytes?: number }): LimitFindings {
  const spans = runSpans(plan);
  const output = estimateOutput(plan, spans);
  const memoryLimitBytes = opts.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_FRACTION * opts.memoryBytes;
  const runCeiling = runMemoryShare(memoryLimitBytes, concurrentRuns(plan, opts.workers));
  const memory = estimateMemory(plan, opts.workers, spans, runCeiling);
  const warnings: string[] = [];
  const refusals: string[] = [];
  const out = `the results would take about ${formatBytes(output.bytes)}`;
  if (output.bytes > OUTPUT_REFUSE_BYTES) refusals.push(`${out}, over the limit of ${formatBytes(OUTPUT_REFUSE_BYTES)}: ${outputCause(output)} (widen metrics.timeSeriesBinMs or run fewer replications, or pass --force to write them anyway)`);
  else if (output.bytes > OUTPUT_WARN_BYTES) warnings.push(`${out} (over ${formatBytes(OUTPUT_WARN_BYTES)}): ${outputCause(output)}`);
  const mem = `the run would need about ${formatBytes(memory.bytes)} of memory`;
  if (memory.bytes > opts.memoryBytes) refusals.push(`${mem}, more than this machine's ${formatBytes(opts.memoryBytes)}: ${memoryCause(memory)} (use fewer clients or fewer workers, or pass --force to run it anyway)`);
  else if (memory.bytes > opts.memoryBytes / 2) warnings.push(`${mem}, over half of this machine's ${formatBytes(opts.memoryBytes)}: ${memoryCause(memory)}`);
  cacheFindings(plan, runCeiling, warnings, refusals);
  return { output, memory, warnings, refusals, memoryLimitBytes };
}
