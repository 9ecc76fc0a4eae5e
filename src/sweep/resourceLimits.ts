import type { ExperimentPlan } from '../experiment/index.js';
import { CLIENT_BYTES, estimateMemory, type MemoryEstimate } from './estimateMemory.js';
import { estimateOutput, runSpans, type OutputEstimate } from './estimateOutput.js';

/** Results larger than this are announced with a warning (README, "Limits"). */
export const OUTPUT_WARN_BYTES = 100e6;
/** Results larger than this are refused unless `--force` (README, "Limits"). */
export const OUTPUT_REFUSE_BYTES = 1e9;

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
  return `${m.clients} clients at ${CLIENT_BYTES} bytes each and the series, ${formatBytes(m.perRunBytes)} a run x ${m.concurrent} at once, plus ${formatBytes(m.heldBytes)} of series kept for the summary`;
}

/**
 * Check a plan's estimated output (warning above {@link OUTPUT_WARN_BYTES}, refusal above
 * {@link OUTPUT_REFUSE_BYTES}) and memory (warning above half of `memoryBytes`, the machine's memory,
 * refusal above it) before it runs.
 */
export function checkLimits(plan: ExperimentPlan, opts: { workers: number; memoryBytes: number }): LimitFindings {
  const spans = runSpans(plan);
  const output = estimateOutput(plan, spans);
  const memory = estimateMemory(plan, opts.workers, spans);
  const warnings: string[] = [];
  const refusals: string[] = [];
  const out = `the results would take about ${formatBytes(output.bytes)}`;
  if (output.bytes > OUTPUT_REFUSE_BYTES) refusals.push(`${out}, over the limit of ${formatBytes(OUTPUT_REFUSE_BYTES)}: ${outputCause(output)} (widen metrics.timeSeriesBinMs or run fewer replications, or pass --force to write them anyway)`);
  else if (output.bytes > OUTPUT_WARN_BYTES) warnings.push(`${out} (over ${formatBytes(OUTPUT_WARN_BYTES)}): ${outputCause(output)}`);
  const mem = `the run would need about ${formatBytes(memory.bytes)} of memory`;
  if (memory.bytes > opts.memoryBytes) refusals.push(`${mem}, more than this machine's ${formatBytes(opts.memoryBytes)}: ${memoryCause(memory)} (use fewer clients or fewer workers, or pass --force to run it anyway)`);
  else if (memory.bytes > opts.memoryBytes / 2) warnings.push(`${mem}, over half of this machine's ${formatBytes(opts.memoryBytes)}: ${memoryCause(memory)}`);
  return { output, memory, warnings, refusals };
}
