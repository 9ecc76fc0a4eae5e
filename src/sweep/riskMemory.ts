// The memory of `retrystorm risk`: a cell holds several copies of a run at once (its estimator's
// snapshots and the trajectory running), so its estimate and its runs' ceilings count them.
import type { ExperimentPlan } from '../experiment/index.js';
import type { RiskSection } from '../experiment/riskSchema.js';
import { riskCopiesAtOnce, type CopiesAtOnce } from '../riskModel/index.js';
import { BASE_MEMORY_BYTES, CLIENT_BYTES, runMemory, type RunMemoryEstimate } from './estimateMemory.js';
import { nominalSpan } from './estimateOutput.js';
import { cacheFindings, DEFAULT_MEMORY_LIMIT_FRACTION, formatBytes, runMemoryShare } from './resourceLimits.js';

/** The cells of a risk plan estimated at once on `workers` threads (one cell a thread at a time). */
export function riskCellsAtOnce(plan: ExperimentPlan, workers: number): number {
  const cells = plan.parts.reduce((n, p) => n + p.cells.length, 0);
  return Math.max(1, Math.min(workers, cells));
}

/**
 * The memory meter's ceiling on each copy of a run in a cell estimated with `risk` (its share of
 * `limitBytes`, src/engine/memoryMeter.ts): the limit shared by the copies of the cells at once,
 * `cellsAtOnce` x the copies `risk`'s estimator holds ({@link riskCopiesAtOnce}).
 */
export function riskCopyCeiling(limitBytes: number, cellsAtOnce: number, risk: RiskSection): number {
  return runMemoryShare(limitBytes, cellsAtOnce * riskCopiesAtOnce(risk).copies);
}

/** The estimated peak memory of estimating a risk plan: the base and the largest cell times the cells at once. */
export interface RiskMemoryEstimate {
  bytes: number;
  /** The largest cell's: its copies at once x its run's bytes. */
  cellBytes: number;
  /** That cell's part, its copies at once (and what drives their number) and one run's estimate. */
  part: string;
  copies: CopiesAtOnce;
  run: RunMemoryEstimate;
  cellsAtOnce: number;
}

/**
 * Peak memory of estimating `plan` on `workers` threads: the process's base ({@link BASE_MEMORY_BYTES})
 * plus, for each cell at once, the copies of a run its estimator holds at once ({@link riskCopiesAtOnce})
 * x a run's memory (`runMemory`, the estimate `run` makes, over the run's nominal span; a service
 * graph's at most the copy's ceiling under `memoryLimitBytes`), the largest cell's.
 */
export function estimateRiskMemory(plan: ExperimentPlan, workers: number, memoryLimitBytes = Infinity): RiskMemoryEstimate {
  const cellsAtOnce = riskCellsAtOnce(plan, workers);
  let largest: Omit<RiskMemoryEstimate, 'bytes' | 'cellsAtOnce'> | null = null;
  for (const p of plan.parts) {
    const risk = p.risk as RiskSection;
    const copies = riskCopiesAtOnce(risk);
    const ceiling = riskCopyCeiling(memoryLimitBytes, cellsAtOnce, risk);
    for (const c of p.cells) {
      const run = runMemory(c.scenario, nominalSpan(c.scenario), ceiling);
      const cellBytes = copies.copies * run.bytes;
      if (largest === null || cellBytes > largest.cellBytes) largest = { cellBytes, part: p.name, copies, run };
    }
  }
  if (largest === null) throw new Error('internal: a risk plan without cells');
  return { bytes: BASE_MEMORY_BYTES + cellsAtOnce * largest.cellBytes, cellsAtOnce, ...largest };
}

/** What drives a risk estimate's memory, in words (`risk`'s warnings and refusals, `validate`'s estimate). */
export function riskMemoryCause(m: RiskMemoryEstimate, manyParts: boolean): string {
  const r = m.run;
  const run =
    r.graphBytes > r.clients * CLIENT_BYTES
      ? `what the service graph's operations in flight and caches can hold, and the series${r.graphCapped ? "; at most a copy's ceiling" : ''}`
      : `${r.clients} client${r.clients === 1 ? '' : 's'} at ${CLIENT_BYTES} bytes each, and the series`;
  const cells = `${m.cellsAtOnce} cell${m.cellsAtOnce > 1 ? 's' : ''} at once (--workers)`;
  return `${m.copies.copies} copies of a run at once in a cell (${manyParts ? `part ${JSON.stringify(m.part)}: ` : ''}${m.copies.drivenBy}) x ${formatBytes(r.bytes)} a run (${run}) x ${cells}, plus the process's ${formatBytes(BASE_MEMORY_BYTES)}`;
}

/** What to change when a risk estimate would not fit. */
function riskMemoryRemedy(m: RiskMemoryEstimate): string {
  const particles = m.copies.particles !== null ? 'fewer particles (risk.particles), ' : '';
  return `use ${particles}fewer workers or a smaller scenario, or pass --force to run it anyway`;
}

/** The memory estimate of a risk plan against the limits: the lines to print as warnings, and the refusals that `--force` overrides. */
export interface RiskLimitFindings {
  memory: RiskMemoryEstimate;
  warnings: string[];
  refusals: string[];
  /** The memory limit of all the cells at once (bytes), which `risk` hands its sweep: each copy of a run stops at its share ({@link riskCopyCeiling}). */
  memoryLimitBytes: number;
}

/**
 * Check a risk plan's estimated memory ({@link estimateRiskMemory}) as `run` checks a plan's: a
 * warning above half of `memoryBytes` (the machine's memory), a refusal above it, and the caches
 * larger than a copy of a run may hold refused; the memory limit, `memoryLimitBytes`, is by default
 * {@link DEFAULT_MEMORY_LIMIT_FRACTION} of the machine's memory.
 */
export function checkRiskLimits(plan: ExperimentPlan, opts: { workers: number; memoryBytes: number; memoryLimitBytes?: number }): RiskLimitFindings {
  const memoryLimitBytes = opts.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_FRACTION * opts.memoryBytes;
  const memory = estimateRiskMemory(plan, opts.workers, memoryLimitBytes);
  const warnings: string[] = [];
  const refusals: string[] = [];
  const cause = riskMemoryCause(memory, plan.parts.length > 1);
  const mem = `the risk estimate would need about ${formatBytes(memory.bytes)} of memory`;
  if (memory.bytes > opts.memoryBytes) refusals.push(`${mem}, more than this machine's ${formatBytes(opts.memoryBytes)}: ${cause} (${riskMemoryRemedy(memory)})`);
  else if (memory.bytes > opts.memoryBytes / 2) warnings.push(`${mem}, over half of this machine's ${formatBytes(opts.memoryBytes)}: ${cause}`);
  const ceilings = plan.parts.map((p) => riskCopyCeiling(memoryLimitBytes, memory.cellsAtOnce, p.risk as RiskSection));
  cacheFindings(plan, Math.min(...ceilings), warnings, refusals);
  return { memory, warnings, refusals, memoryLimitBytes };
}
