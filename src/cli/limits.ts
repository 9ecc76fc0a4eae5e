import { availableParallelism, totalmem } from 'node:os';
import type { ExperimentPlan } from '../experiment/index.js';
import { checkLimits, type LimitFindings } from '../sweep/resourceLimits.js';

/**
 * The output and memory estimates of a plan against the limits (src/sweep/resourceLimits.ts): the
 * warnings to print and, unless `force`, the refusals (each prefixed with the file's path). With
 * `force` the refusals are printed as warnings instead. `memoryLimitBytes` is `--memory-limit`
 * (default: a fraction of this machine's memory, `DEFAULT_MEMORY_LIMIT_FRACTION`).
 */
export function planLimits(
  path: string,
  plan: ExperimentPlan,
  opts: { force: boolean; workers?: number | undefined; memoryBytes?: number | undefined; memoryLimitBytes?: number | undefined },
): { findings: LimitFindings; warnings: string[]; refusals: string[] } {
  const findings = checkLimits(plan, {
    workers: opts.workers ?? availableParallelism(),
    memoryBytes: opts.memoryBytes ?? totalmem(),
    ...(opts.memoryLimitBytes !== undefined ? { memoryLimitBytes: opts.memoryLimitBytes } : {}),
  });
  const named = (list: string[]) => list.map((m) => `${path}: ${m}`);
  if (opts.force) return { findings, warnings: named([...findings.refusals, ...findings.warnings]), refusals: [] };
  return { findings, warnings: named(findings.warnings), refusals: named(findings.refusals) };
}
