// The risk command: P(collapse within the horizon) for every cell of an experiment's plan, by
// splitting on snapshots of a run (src/riskModel), on the worker pool, shardable and resumable like
// run; risk.jsonl, risk.json, risk.csv and the report (index.html) in <out>/<experiment>/.
import { join, relative, resolve } from 'node:path';
import type { ExperimentPlan } from '../experiment/index.js';
import type { IndexEntry } from '../report/index.js';
import { DEFAULT_RISK_METHOD, type RiskSection } from '../experiment/riskSchema.js';
import { formatDuration } from '../policy/formatDuration.js';
import { riskFinding, formatProbability, effortComparison, noCollapseBound } from '../report/riskReport.js';
import { riskProblems } from '../riskModel/index.js';
import { FINISHED_RISK_FILES, RISK_LINES_FILE } from '../sweep/riskRecord.js';
import { planRiskGaps, runRiskSweep, type RiskResult } from '../sweep/riskSweep.js';
import { seriesOf } from '../report/riskCharts.js';
import { runManifest, type ShardSpec } from '../sweep/runSweep.js';
import { lockDir } from './dirLock.js';
import { UsageError, type CliIO } from './io.js';
import { loadPlan, printWarnings, splitBySection, type PlanOptions } from './loadPlan.js';
import type { ReadOptions } from './readInput.js';
import { riskPlanLimits } from './limits.js';
import { commitOutput, planOutput } from './outputDir.js';
import { printJson } from './printJson.js';
import { ProgressReporter } from './progress.js';
import { writeRiskReport } from './report.js';

/** Where `risk` writes unless told (`--out`): beside run's `results`, never in the same directory. */
export const DEFAULT_RISK_OUT = 'risk';

/** The options of `retrystorm risk`. */
export interface RiskOptions extends PlanOptions {
  out: string;
  workers?: number;
  shard?: ShardSpec;
  resume: boolean;
  replace: boolean;
  quiet: boolean;
  json: boolean;
  /** Estimate even when the estimated memory is over the machine's (`--force`). */
  force?: boolean;
  /** `--memory-limit` in bytes: what the cells at once may hold (default: a fraction of this machine's memory). */
  memoryLimit?: number;
  /** The report references ../assets/ instead of inlining the bundles (run-all), and its index entry is collected here. */
  sharedAssets?: boolean;
  reportIndex?: IndexEntry[];
}

/** Whether an experiment file's root has a risk section, its own or a part's (run-all estimates those with `risk` instead of running them). */
export function hasRiskSection(root: Readonly<Record<string, unknown>>): boolean {
  const parts = root.parts;
  return root.risk !== undefined || (Array.isArray(parts) && parts.some((p: unknown) => p !== null && typeof p === 'object' && (p as Record<string, unknown>).risk !== undefined));
}

/** The risk section in brief, as `validate` and `risk` print it. */
export function riskBrief(risk: RiskSection): string {
  const c = risk.collapse;
  const where = c.service ?? c.cache;
  const cond = `${c.metric}${where ? ` of ${where}` : ''} ${c.above !== undefined ? `> ${c.above}` : `< ${c.below}`}${c.forMs > 0 ? ` for ${formatDuration(c.forMs)}` : ''}`;
  const grid = risk.checkEveryMs > 0 ? `every ${formatDuration(risk.checkEveryMs)}` : 'after every event';
  const method = risk.method ?? DEFAULT_RISK_METHOD;
  const how =
    method === 'monte-carlo'
      ? `${risk.runs} plain runs`
      : `${method} splitting on ${risk.importance.metric}${method === 'fixed' ? ` at levels ${(risk.levels ?? []).join(', ')}` : ''}${risk.particles !== undefined ? `, ${risk.particles} particles` : ''}${risk.repetitions !== undefined ? `, ${risk.repetitions} repetitions` : ''}`;
  const perExcursion =
    risk.excursions === undefined ? '' : `, per excursion of ${risk.importance.metric} from ${risk.absorbBelow} (excursions counted over ${formatDuration(risk.excursions.countOverMs)})`;
  return `risk: P(${cond}, checked ${grid}) within each cell's horizon, by ${how}${perExcursion}`;
}

/**
 * Why the plan cannot be estimated, prefixed with the file: no risk section, a part without one
 * while another has one (`planRiskGaps`), or each part's section against each of its cells'
 * scenarios (each message once, naming the section where it is written).
 */
export function planRiskProblems(file: string, plan: ExperimentPlan): string[] {
  const gaps = planRiskGaps(plan);
  if (gaps.length > 0) return gaps.map((g) => `${file}: ${g}`);
  const seen = new Set<string>();
  for (const part of plan.parts) {
    const risk = part.risk as RiskSection;
    for (const cell of part.cells) for (const p of riskProblems(cell.scenario, risk, part.riskPath)) seen.add(`${file}: ${p}`);
  }
  return [...seen];
}

/** Each distinct risk section of the plan in brief: one line, or one per part when the parts' sections differ. */
export function planRiskBriefs(plan: ExperimentPlan): string[] {
  const parts = plan.parts.filter((p) => p.risk !== undefined);
  const briefs = parts.map((p) => riskBrief(p.risk as RiskSection));
  if (new Set(briefs).size <= 1) return briefs.slice(0, 1);
  return parts.map((p, i) => `part ${p.name}: ${briefs[i] as string}`);
}

/** The table `risk` prints: one line per cell, then the finding. */
function printedResult(result: RiskResult): string {
  const manyParts = new Set(result.cells.map((c) => c.part)).size > 1;
  const lines = result.cells.map((c) => {
    const name = `${seriesOf(c, manyParts)}${Object.keys(c.params).length > 0 ? ` ${Object.entries(c.params).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')}` : ''}`;
    if (c.state === 'errored') return `  ${name}: errored: ${c.error}`;
    const r = c.risk;
    const p = r.probability > 0 ? `P = ${formatProbability(r.probability)} [${formatProbability(r.ci95[0])}, ${formatProbability(r.ci95[1])}]` : `P = 0 (no collapse seen: ${noCollapseBound([c])})`;
    const cmp = effortComparison(c);
    return `  ${name}: ${p}, ${r.effort.runs} runs, ${formatDuration(r.effort.cpuMs)} CPU${cmp === '–' ? '' : ` (${cmp} than plain Monte Carlo for the same relative error)`}`;
  });
  return [...lines, riskFinding(result)].join('\n');
}

/** Estimate every cell of the file's plan and write the results and the report; returns the exit code. */
export async function riskFile(io: CliIO, file: string, opts: RiskOptions): Promise<number> {
  const shownFile = relative(io.cwd, file) || file;
  const { plan, text, set, warnings } = loadPlan(file, opts);
  const problems = planRiskProblems(shownFile, plan);
  if (problems.length > 0) throw new UsageError(problems);
  const limits = riskPlanLimits(shownFile, plan, { force: opts.force ?? false, workers: opts.workers, memoryBytes: io.memoryBytes, memoryLimitBytes: opts.memoryLimit });
  if (limits.refusals.length > 0) throw new UsageError(limits.refusals);
  const final = resolve(io.cwd, opts.out, plan.name);
  const shown = relative(io.cwd, final) || '.';
  const lock = lockDir(final, shown, 'risk');
  try {
    const output = planOutput(final, shown, FINISHED_RISK_FILES, { replace: opts.replace, resume: opts.resume, kind: 'risk' });
    printWarnings(io, [...warnings, ...limits.warnings]);
    if (!opts.quiet && !opts.json) for (const brief of planRiskBriefs(plan)) io.stderr(`${plan.name}: ${brief}\n`);
    const ac = new AbortController();
    const removeHandlers = io.onInterrupt?.(() => ac.abort()) ?? (() => {});
    const progress = opts.quiet || opts.json ? null : new ProgressReporter(io, plan.name, undefined, undefined, 'cells');
    const startedMs = Date.now();
    let res;
    try {
      res = await runRiskSweep(plan, {
        outDir: output.work,
        ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
        ...(opts.shard ? { shard: opts.shard } : {}),
        memoryLimitBytes: limits.findings.memoryLimitBytes,
        resume: opts.resume,
        manifest: runManifest(plan, text, opts.quick, set),
        signal: ac.signal,
        onWarning: (t) => io.stderr(`warning: ${t}\n`),
        ...(progress ? { onProgress: (p: Parameters<ProgressReporter['update']>[0]) => progress.update(p) } : {}),
      });
    } finally {
      progress?.stop();
      removeHandlers();
    }
    const where = relative(io.cwd, output.work) || '.';
    if (res.interrupted || res.result === null) {
      const kept = output.staged ? `; ${shown} still holds the earlier finished estimates` : '';
      io.stderr(`interrupted: ${res.done} of ${res.total} cells are in ${join(where, RISK_LINES_FILE)}${kept}; run again with ${output.staged ? '--replace --resume' : '--resume'} to finish\n`);
      return 130;
    }
    if (!opts.shard) {
      const entry = writeRiskReport(output.work, where, res.result, { quick: opts.quick, runTimeMs: Date.now() - startedMs, sharedAssets: opts.sharedAssets ?? false, publishedDir: output.final });
      opts.reportIndex?.push(entry);
    }
    commitOutput(output);
    if (opts.json) printJson(io.stdout, res.result);
    else if (!opts.quiet) io.stdout(`\n${plan.name} (${shownFile})\n${printedResult(res.result)}\nwritten to ${shown}\n`);
    if (res.errored.length === 0) return 0;
    io.stderr(`${res.errored.length} cell${res.errored.length > 1 ? 's' : ''} errored:\n${res.errored.map((e) => `  ${e.key}: ${e.error}\n`).join('')}`);
    return 1;
  } finally {
    lock.release();
  }
}

/** What `run-all` does with the files that have a risk section: estimate them with `risk` instead of running them. */
export const runAllRisks = {
  /**
   * The files to run and the files to estimate (`hasRiskSection`), the estimates validated now
   * (`splitBySection`, in quick mode or not), their memory estimates included (`riskPlanLimits` on
   * `machine`'s workers and memory: a refusal is a problem; the warnings are printed when the file runs).
   */
  split(files: string[], quick: boolean, read: ReadOptions = {}, machine: { workers?: number | undefined; memoryBytes?: number | undefined } = {}): { files: string[]; risks: string[] } {
    const split = splitBySection(files, read, hasRiskSection, (f) => {
      const { plan } = loadPlan(f, { quick, set: [], ...read });
      const problems = planRiskProblems(f, plan);
      return problems.length > 0 ? problems : riskPlanLimits(f, plan, { force: false, ...machine }).refusals;
    });
    return { files: split.without, risks: split.with };
  },

  /** Estimate each file into `<out>/<name>/` (replacing what is there once complete) with shared assets, adding each report to the index; stops at an interrupt (130). */
  async run(io: CliIO, risks: string[], opts: { quick: boolean; out: string; quiet: boolean; workers?: number; reportIndex: IndexEntry[] } & ReadOptions): Promise<number> {
    let code = 0;
    for (const f of risks) {
      const flags: RiskOptions = {
        quick: opts.quick,
        out: opts.out,
        set: [],
        resume: false,
        replace: true,
        quiet: opts.quiet,
        json: false,
        sharedAssets: true,
        reportIndex: opts.reportIndex,
        ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
        ...(opts.allowImportsOutside === true ? { allowImportsOutside: true } : {}),
      };
      const one = await riskFile(io, resolve(io.cwd, f), flags);
      if (one === 130) return 130;
      code = Math.max(code, one);
    }
    return code;
  },
};
