import { availableParallelism, totalmem } from 'node:os';
import type { ExperimentPlan } from '../experiment/index.js';
import { checkLimits, type LimitFindings } from '../sweep/resourceLimits.js';
import { checkRiskLimits, type RiskLimitFindings } from '../sweep/riskMemory.js';

/** The options of {@link planLimits} and {@link riskPlanLimits}: `--force`, `--workers`, the machine's memory and `--memory-limit`. */
export interface LimitOptions {
  force: boolean;
  workers?: number | undefined;
  memoryBytes?: number | undefined;
  memoryLimitBytes?: number | undefined;
}

/** The findings' warnings and refusals prefixed with the file's path; with `force` the refusals are warnings. */
function named<F extends { warnings: string[]; refusals: string[] }>(path: string, findings: F, force: boolean): { findings: F; warnings: string[]; refusals: string[] } {
  const prefixed = (list: string[]) => list.map((m) => `${path}: ${m}`);
  if (force) return { findings, warnings: prefixed([...findings.refusals, ...findings.warnings]), refusals: [] };
  return { findings, warnings: prefixed(findings.warnings), refusals: prefixed(findings.refusals) };
}

/** The machine the limits are checked against: `--workers` (default: the available parallelism) and its memory (default: `os.totalmem()`). */
function machine(opts: LimitOptions): { workers: number; memoryBytes: number; memoryLimitBytes?: number } {
  return {
    workers: opts.workers ?? availableParallelism(),
    memoryBytes: opts.memoryBytes ?? totalmem(),
    ...(opts.memoryLimitBytes !== undefined ? { memoryLimitBytes: opts.memoryLimitBytes } : {}),
  };
}

/**
 * The output and memory estimates of a plan against the limits (src/sweep/resourceLimits.ts): the
 * warnings to print and, unless `force`, the refusals (each prefixed with the file's path). With
 * `force` the refusals are printed as warnings instead. `memoryLimitBytes` is `--memory-limit`
 * (default: a fraction of this machine's memory, `DEFAULT_MEMORY_LIMIT_FRACTION`).
 */
export function planLimits(path: string, plan: ExperimentPlan, opts: LimitOptions): { findings: LimitFindings; warnings: string[]; refusals: string[] } {
  return named(path, checkLimits(plan, machine(opts)), opts.force);
}

/**
 * The memory estimate of a risk plan against the limits (src/sweep/riskMemory.ts: each cell's
 * copies of a run at once), as {@link planLimits} for `run`: warnings, and refusals unless `force`,
 * each prefixed with the file's path.
 */
export function riskPlanLimits(path: string, plan: ExperimentPlan, opts: LimitOptions): { findings: RiskLimitFindings; warnings: string[]; refusals: string[] } {
  return named(path, checkRiskLimits(plan, machine(opts)), opts.force);
}
