// The run and run-all commands' runs: every file loaded and checked against the limits before
// anything runs, then each experiment's sweep, its printed summary and its report.
import { basename, join, relative, resolve } from 'node:path';
import type { ExperimentPlan } from '../experiment/index.js';
import type { IndexEntry } from '../report/index.js';
import { FINISHED_RUN_FILES } from '../sweep/ResultReader.js';
import { OutputError } from '../sweep/ResultWriter.js';
import { runManifest, runSweep, SweepPool, type ShardSpec } from '../sweep/runSweep.js';
import { DEFAULT_TRACE_SAMPLE, traceCell, traceFileName, TRACES_DIR } from '../sweep/cellTraces.js';
import { planCells } from '../sweep/runPlan.js';
import { writeFileAtomic } from './writeFileAtomic.js';
import { lockDir, type DirLock } from './dirLock.js';
import { UsageError, type CliIO } from './io.js';
import { planLimits } from './limits.js';
import { loadPlan, printWarnings } from './loadPlan.js';
import { printJson } from './printJson.js';
import { commitOutput, planOutput, type OutputPlan } from './outputDir.js';
import { printRunSummary } from './printResults.js';
import { ProgressReporter } from './progress.js';
import { writeRunReport } from './report.js';

/** The experiment file's JSON (already validated), or null. */
function parseJsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export interface RunOptions {
  quick: boolean;
  out: string;
  set: string[];
  seed?: number;
  json: boolean;
  workers?: number;
  shard?: ShardSpec;
  resume: boolean;
  /** Replace a finished run in the output directory once the new one is complete (run-all always does). */
  replace?: boolean;
  quiet: boolean;
  /** Run even when the estimated output or memory is over its limit. */
  force?: boolean;
  /** `--memory-limit` in bytes: what the runs at once may hold (default: a fraction of this machine's memory). */
  memoryLimit?: number;
  /** Reports reference ../assets/ instead of inlining the bundles (run-all); each report's index entry is collected. */
  sharedAssets?: boolean;
  reportIndex?: IndexEntry[];
  /** Let imports leave the experiment file's directory (`--allow-imports-outside`). */
  allowImportsOutside?: boolean;
  /** `--traces otlp`: write sampled operations as OpenTelemetry spans (docs/cli.md, "Command line", the bullet "Simulated requests as traces"). */
  traces?: 'otlp';
  /** `--trace-sample N`: every N-th operation is traced (default DEFAULT_TRACE_SAMPLE). */
  traceSample?: number;
}

/** What keeps `--traces` from running: a sharded run, a sample without traces. */
function traceProblems(opts: RunOptions): string[] {
  if (opts.traces === undefined) return opts.traceSample !== undefined ? ['--trace-sample needs --traces otlp'] : [];
  if (opts.shard) return ['--traces cannot be combined with --shard (trace the whole plan in one run)'];
  return [];
}

/**
 * `--traces otlp`: each cell's sampled operations as OTLP/JSON, in `traces/cell-<index>.otlp.json`
 * of the output directory (names from the plan's indices only). A cell whose traced run fails is
 * skipped with a warning (its replications already say why).
 */
function writeTraces(io: CliIO, plan: ExperimentPlan, outDir: string, every: number): void {
  planCells(plan).forEach(({ cell }, i) => {
    const path = join(outDir, TRACES_DIR, traceFileName(i));
    let traces;
    try {
      traces = traceCell(cell, i, plan.seed, every);
    } catch (e) {
      io.stderr(`warning: no traces for cell ${i} (${cell.key}): ${(e as Error).message}\n`);
      return;
    }
    writeFileAtomic(path, JSON.stringify(traces) + '\n', { shown: relative(io.cwd, path) || path });
  });
}

/** Experiments of one run (or of one `run-all`: runs, estimates and searches) that share a name would write into one directory, one losing its results. */
export function sameNameProblems(io: CliIO, named: ReadonlyArray<{ file: string; name: string }>): string[] {
  const first = new Map<string, string>();
  const problems: string[] = [];
  for (const { file, name } of named) {
    const other = first.get(name);
    const show = (f: string) => relative(io.cwd, f) || f;
    if (other === undefined) first.set(name, file);
    else problems.push(`${show(other)} and ${show(file)} are both named "${name}": their results would overwrite each other (give each experiment its own name)`);
  }
  return problems;
}

export async function runFiles(io: CliIO, files: string[], opts: RunOptions): Promise<number> {
  const problems: string[] = [];
  const loaded: Array<{ file: string; memoryLimitBytes?: number } & ReturnType<typeof loadPlan>> = [];
  for (const f of files) {
    try {
      loaded.push({ file: f, ...loadPlan(f, opts) });
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      problems.push(...e.problems);
    }
  }
  problems.push(...sameNameProblems(io, loaded.map((l) => ({ file: l.file, name: l.plan.name }))));
  problems.push(...traceProblems(opts));
  for (const l of loaded) {
    const limits = planLimits(relative(io.cwd, l.file) || l.file, l.plan, { force: opts.force ?? false, workers: opts.workers, memoryBytes: io.memoryBytes, memoryLimitBytes: opts.memoryLimit });
    l.memoryLimitBytes = limits.findings.memoryLimitBytes;
    problems.push(...limits.refusals);
    l.warnings.push(...limits.warnings);
  }
  // Each output directory is locked and checked before anything runs: a finished run in it is not
  // erased unless --replace (or --resume) says so.
  const locks: DirLock[] = [];
  const outputs: OutputPlan[] = [];
  if (problems.length === 0) {
    for (const l of loaded) {
      const final = resolve(io.cwd, opts.out, l.plan.name);
      const shown = relative(io.cwd, final) || '.';
      try {
        locks.push(lockDir(final, shown, 'run'));
        outputs.push(planOutput(final, shown, FINISHED_RUN_FILES, { replace: opts.replace ?? false, resume: opts.resume, kind: 'run' }));
      } catch (e) {
        if (e instanceof OutputError) problems.push(e.message);
        else if (e instanceof UsageError) problems.push(...e.problems);
        else {
          for (const l of locks) l.release();
          throw e;
        }
      }
    }
  }
  try {
    // Every file's problems at once, before anything runs.
    if (problems.length > 0) throw new UsageError(problems);
    // Several experiments run one after another on the same worker threads (started and warmed up once).
    const pool = loaded.length > 1 ? new SweepPool(opts.workers) : null;
    try {
      return await runLoaded(io, loaded.map((l, i) => ({ ...l, output: outputs[i] as OutputPlan })), opts, pool);
    } finally {
      await pool?.destroy();
    }
  } finally {
    for (const l of locks) l.release();
  }
}

async function runLoaded(
  io: CliIO,
  loaded: Array<{ file: string; output: OutputPlan; memoryLimitBytes?: number } & ReturnType<typeof loadPlan>>,
  opts: RunOptions,
  pool: SweepPool | null,
): Promise<number> {
  let status = 0;
  for (const { file, plan, text, set, warnings, output, memoryLimitBytes } of loaded) {
    printWarnings(io, warnings);
    const outDir = output.work;
    const ac = new AbortController();
    const removeHandlers = io.onInterrupt?.(() => ac.abort()) ?? (() => {});
    const progress = opts.quiet || opts.json ? null : new ProgressReporter(io, plan.name);
    let res;
    const startedMs = Date.now();
    try {
      res = await runSweep(plan, {
        outDir,
        ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
        ...(pool ? { pool } : {}),
        ...(memoryLimitBytes !== undefined ? { memoryLimitBytes } : {}),
        ...(opts.shard ? { shard: opts.shard } : {}),
        resume: opts.resume,
        manifest: runManifest(plan, text, opts.quick, set),
        signal: ac.signal,
        onWarning: (text: string) => io.stderr(`warning: ${text}\n`),
        ...(progress ? { onProgress: (p: Parameters<ProgressReporter['update']>[0]) => progress.update(p) } : {}),
      });
    } finally {
      progress?.stop();
      removeHandlers();
    }
    const where = relative(io.cwd, outDir) || '.';
    const final = relative(io.cwd, output.final) || '.';
    if (res.interrupted) {
      io.stderr(interruptedMessage(res, where, output.staged ? final : null));
      return 130;
    }
    if (opts.json) printJson(io.stdout, res.single ? { experiment: plan.name, ...res.single } : res.summary);
    else if (!opts.quiet) {
      io.stdout(`\n${plan.name} (${relative(io.cwd, file) || basename(file)})\n`);
      io.stdout(printRunSummary(res, parseJsonOrNull(text)) + '\n');
      io.stdout(`written to ${final}\n`);
    }
    if (res.errored.length > 0) {
      io.stderr(`${res.errored.length} cell${res.errored.length > 1 ? 's' : ''} errored:\n`);
      for (const e of res.errored) io.stderr(`  ${e.key}: ${e.errors.join('; ')}\n`);
      status = 1;
    }
    if (res.summary && !opts.shard) {
      const entry = writeRunReport(io, { dir: outDir, publishedDir: output.final, summary: res.summary, source: text, quick: opts.quick, set, runTimeMs: Date.now() - startedMs, sharedAssets: opts.sharedAssets ?? false, print: !opts.quiet && !opts.json });
      if (entry) opts.reportIndex?.push(entry);
      else status = 1;
    }
    if (opts.traces === 'otlp') writeTraces(io, plan, outDir, opts.traceSample ?? DEFAULT_TRACE_SAMPLE);
    // The run is complete (its summary written, its report tried): it takes the finished run's place.
    commitOutput(output);
  }
  return status;
}

/** What an interrupted run left, and how to finish it. */
function interruptedMessage(res: { single: unknown; done: number; total: number }, where: string, replacing: string | null): string {
  const kept = replacing === null ? '' : `; ${replacing} still holds the earlier finished run`;
  if (res.single !== null) {
    return `interrupted: the partial run (truncated: "interrupted") is in ${join(where, 'results.json')}${kept}; run again${replacing === null ? '' : ' with --replace'} to get the whole run\n`;
  }
  return `interrupted: ${res.done} of ${res.total} replications are in ${join(where, 'results.jsonl')}${kept}; run again with ${replacing === null ? '--resume to finish' : '--replace --resume to finish replacing it'}\n`;
}
