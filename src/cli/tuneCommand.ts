import type { Command } from 'commander';
import { join, relative, resolve } from 'node:path';
import { expandExperiment, parseExperimentText, parseSetArg, patchedRoot } from '../experiment/index.js';
import type { IndexEntry } from '../report/index.js';
import { isDurationMetric } from '../report/metrics.js';
import { MET_LEGEND, MET_WORDS, renderTuneReport, tuneCsv } from '../report/tuneReport.js';
import type { ReplicationRecord } from '../sweep/runPlan.js';
import { readRunDir } from '../sweep/ResultReader.js';
import { runManifest, runSweep, SweepPool } from '../sweep/runSweep.js';
import { formatDurationStats, formatStats, tuneAnswer, type TuneAnswer } from '../tune/tuneAnswer.js';
import { roundName } from '../tune/roundExperiment.js';
import { runTune, TuneInputError, type RoundOutcome, type RoundRequest } from '../tune/runTune.js';
import { prepareTune } from '../tune/prepareTune.js';
import { metricKey, type TuneProblem } from '../tune/tuneProblem.js';
import { VERSION } from '../version.js';
import { UsageError, type CliIO } from './io.js';
import { loadExperimentSource, planFromFile, splitBySection } from './loadPlan.js';
import { recommendedConfiguration } from './tuneConfiguration.js';
import { table } from './format.js';
import { ProgressReporter } from './progress.js';
import { readBundles, ASSETS_DIR, REPORT_FILE, TUNE_FILE } from './report.js';
import { writeFileAtomic } from './writeFileAtomic.js';
import { lockDir } from './dirLock.js';
import { commitOutput, planOutput, type OutputPlan } from './outputDir.js';
import { ALLOW_IMPORTS_OUTSIDE, ALLOW_IMPORTS_OUTSIDE_HELP, type ReadOptions } from './readInput.js';

/** Options of `retrystorm tune`. */
export interface TuneFlags {
  quick: boolean;
  out: string;
  set: string[];
  seed?: number;
  workers?: number;
  candidates?: number;
  maxRuns?: number;
  resume: boolean;
  /** Replace a finished search in the output directory once the new one is complete. */
  replace?: boolean;
  quiet: boolean;
  json: boolean;
  /** Let imports leave the experiment file's directory (`--allow-imports-outside`). */
  allowImportsOutside?: boolean;
}

/** What `run-all` shares with a search it runs: the worker threads, and the report index. */
export interface TuneShared {
  pool?: SweepPool;
  sharedAssets?: boolean;
  reportIndex?: IndexEntry[];
}

/** A search's answer: a directory that has it holds a finished search. */
export { TUNE_FILE };

/** The directory of the rounds' experiment files and sweeps inside a search's output directory. */
export const ROUNDS_DIR = 'rounds';

/** Whether an experiment file's root has a `tune` section (run-all searches those instead of sweeping them). */
export function hasTuneSection(root: Readonly<Record<string, unknown>>): boolean {
  return root.tune !== undefined;
}

/** Load, patch and validate a search: every problem at once, as a UsageError naming the file. */
export function loadTuneProblem(path: string, flags: Pick<TuneFlags, 'quick' | 'set' | 'seed' | 'candidates' | 'maxRuns' | 'allowImportsOutside'>): { problem: TuneProblem; text: string } {
  // The experiment's own validation first (structure, scenarios, the tune section's shape).
  planFromFile(path, flags);
  const { experiment, text } = loadExperimentSource(path, flags);
  const set = flags.set.map((s) => parseSetArg(s));
  if (flags.seed !== undefined) set.push(['seed', flags.seed]);
  const root = patchedRoot(experiment.root, { quick: flags.quick, set });
  const prepared = prepareTune(root, {
    ...(flags.candidates !== undefined ? { candidates: flags.candidates } : {}),
    ...(flags.maxRuns !== undefined ? { maxRuns: flags.maxRuns } : {}),
  });
  if (!prepared.ok) throw new UsageError(prepared.errors.map((e) => `${path}: ${e}`));
  return { problem: prepared.problem, text };
}

/**
 * `retrystorm tune FILE`: search the file's `tune` space on the worker pool, one sweep per round
 * written to `<out>/<name>/rounds/` (each round's experiment file beside it, so a round can be
 * run with --shard elsewhere and merged there), then write the answer (tune.json), the ranking
 * (summary.csv) and the report (index.html). Returns the exit code (130 when interrupted).
 */
export async function tuneCommand(io: CliIO, file: string, flags: TuneFlags, shared: TuneShared = {}): Promise<number> {
  const path = resolve(io.cwd, file);
  const { problem } = loadTuneProblem(path, flags);
  const final = resolve(io.cwd, flags.out, problem.name);
  const shown = relative(io.cwd, final) || '.';
  const lock = lockDir(final, shown, 'tune');
  try {
    const output = planOutput(final, shown, [TUNE_FILE], { replace: flags.replace ?? false, resume: flags.resume });
    return await searchInto(io, path, problem, output, flags, shared);
  } finally {
    lock.release();
  }
}

/** The search itself, written into `output.work` and put in place when complete. */
async function searchInto(io: CliIO, path: string, problem: TuneProblem, output: OutputPlan, flags: TuneFlags, shared: TuneShared): Promise<number> {
  const outDir = output.work;
  const roundsDir = join(outDir, ROUNDS_DIR);
  const own = shared.pool ? null : new SweepPool(flags.workers);
  const pool = (shared.pool ?? own) as SweepPool;
  const ac = new AbortController();
  const removeHandlers = io.onInterrupt?.(() => ac.abort()) ?? (() => {});
  const startedMs = Date.now();

  const evaluate = async (req: RoundRequest): Promise<RoundOutcome> => {
    const text = JSON.stringify(req.experiment, null, 2) + '\n';
    writeFileAtomic(join(roundsDir, `round-${req.index}.json`), text);
    const parsed = parseExperimentText(text, `round-${req.index}.json`);
    if (!parsed.ok) throw new UsageError(parsed.errors);
    const expanded = expandExperiment(parsed.experiment, { quick: false });
    if (!expanded.ok) throw new UsageError(expanded.errors);
    const plan = expanded.plan;
    const dir = join(roundsDir, roundName(problem.name, req.index));
    const progress = flags.quiet || flags.json ? null : new ProgressReporter(io, `${problem.name} round ${req.index}`);
    let res;
    try {
      res = await runSweep(plan, {
        outDir: dir,
        pool,
        resume: flags.resume,
        prior: req.prior,
        manifest: runManifest(plan, text, false, []),
        signal: ac.signal,
        ...(progress ? { onProgress: (p: Parameters<ProgressReporter['update']>[0]) => progress.update(p) } : {}),
      });
    } finally {
      progress?.stop();
    }
    if (res.interrupted) return { interrupted: true };
    const records: ReplicationRecord[] = readRunDir(dir).records;
    return { interrupted: false, records };
  };

  let outcome;
  try {
    outcome = await runTune(problem, evaluate);
  } catch (e) {
    if (e instanceof TuneInputError) throw new UsageError(e.problems.map((p) => `${path}: ${p}`));
    throw e;
  } finally {
    removeHandlers();
    await own?.destroy();
  }
  const where = relative(io.cwd, output.final) || '.';
  if (outcome.interrupted) {
    const rounds = join(relative(io.cwd, outDir) || '.', ROUNDS_DIR);
    io.stderr(output.staged
      ? `interrupted: the finished runs are in ${rounds}; ${where} still holds the earlier finished search; run again with --replace --resume to continue\n`
      : `interrupted: the finished runs are in ${rounds}; run again with --resume to continue\n`);
    return 130;
  }
  const answer = tuneAnswer(problem, outcome);
  if (answer.recommendation !== null) answer.recommendation.configuration = recommendedConfiguration(problem, answer);
  writeFileAtomic(join(outDir, TUNE_FILE), JSON.stringify(answer, null, 2) + '\n');
  writeFileAtomic(join(outDir, 'summary.csv'), tuneCsv(answer));
  const keys = { objectives: problem.objectives.map((o) => metricKey(o.metric, o.window)), constraints: problem.constraints.map((c) => metricKey(c.metric, c.window)) };
  const html = renderTuneReport(answer, {
    keys,
    description: problem.description,
    version: VERSION,
    date: new Date().toISOString(),
    runTimeMs: Date.now() - startedMs,
    assets: shared.sharedAssets ? { mode: 'shared', base: `../${ASSETS_DIR}/` } : { mode: 'inline', scripts: readBundles() },
  });
  writeFileAtomic(join(outDir, REPORT_FILE), html);
  commitOutput(output);
  shared.reportIndex?.push({ name: problem.name, description: problem.description, finding: answer.headline, href: `${problem.name}/index.html`, date: new Date().toISOString() });
  if (flags.json) io.stdout(JSON.stringify(answer, null, 2) + '\n');
  else if (!flags.quiet) {
    io.stdout(`\n${formatTuneAnswer(answer, keys)}\n`);
    io.stdout(`written to ${where}\n`);
  }
  return 0;
}

/** What the ranked table's columns and words mean, printed under it. */
function tuneTableLegend(a: TuneAnswer): string {
  const parts = [
    'Each figure is the mean over the candidate\'s replications (reps) with its 95% interval [low, high]',
    ...(a.objectives.length > 0 ? ['min / max: the objective is minimised / maximised'] : []),
    ...(a.constraints.length > 0 ? [MET_LEGEND] : []),
    'status: a survivor is still in the search; a dropped candidate says why and in which round',
  ];
  return `${parts.join('. ')}.`;
}

/**
 * The answer as text: the headline, the recommendation and its flags, the ranked table, the
 * presets. `keys` name the metric each objective and constraint reads (`metricKey`), so that a
 * duration's column is written in the unit that reads best, with its unit.
 */
export function formatTuneAnswer(a: TuneAnswer, keys: { objectives: readonly string[]; constraints: readonly string[] } = { objectives: [], constraints: [] }): string {
  const stats = (key: string | undefined) => (key !== undefined && isDurationMetric(key) ? formatDurationStats : formatStats);
  const lines: string[] = [`${a.experiment}: ${a.headline}`];
  lines.push(`${a.totalRuns} runs in ${a.rounds.length} rounds (at most ${a.maxRuns}); stopped: ${a.stopReason === 'converged' ? 'the survivors are told apart' : a.stopReason === 'max-runs' ? 'the next round would pass --max-runs' : 'no candidate left'}`);
  if (a.recommendation) {
    lines.push('', 'recommended overrides:', JSON.stringify(a.recommendation.overrides[Object.keys(a.recommendation.overrides)[0] as string] ?? {}));
    lines.push('as flags:', `  ${a.recommendation.setFlags.join(' ')}`);
    for (const l of a.recommendation.configuration ?? []) {
      const warned = l.exports.map((e) => (e.warnings.length > 0 ? `${e.format} (${e.warnings.length} warning${e.warnings.length > 1 ? 's' : ''})` : e.format));
      lines.push(`as configuration of ${l.layer} at ${l.layers.join(', ')} (in tune.json and the report): ${warned.join(', ')}`);
    }
  }
  if (a.front.length > 0) lines.push('', `Pareto front: ${a.front.join(', ')}`);
  if (a.closest.length > 0) lines.push('', `closest candidates: ${a.closest.join(', ')}`);
  const header = ['rank', 'candidate', ...a.objectives.map((o) => `${o.goal === 'minimize' ? 'min' : 'max'} ${o.label}`), ...a.constraints, 'reps', 'status'];
  const rows = a.ranking.map((r) => [
    String(r.rank),
    `${r.id}: ${r.label}`,
    ...r.objectives.map((o, i) => stats(keys.objectives[i])(o)),
    ...r.constraints.map((c, i) => `${stats(keys.constraints[i])(c)} ${MET_WORDS[c.met]}`),
    String(r.replications),
    r.status === 'survivor' ? 'survivor' : `${r.reason ?? ''} (round ${r.droppedInRound})`,
  ]);
  lines.push('', table(rows, header));
  lines.push(tuneTableLegend(a));
  if (a.presets.length > 0) lines.push('', `presets: ${a.presets.map((p) => `${p.id} ranks ${p.rank} of ${a.ranking.length}`).join('; ')}`);
  return lines.join('\n');
}

function positiveInt(flag: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new UsageError([`${flag} must be a positive integer (got "${v}")`]);
    return n;
  };
}

/** Registers `retrystorm tune` on the command line; `setCode` receives its exit code. */
export function registerTune(program: Command, io: CliIO, setCode: (code: number) => void): void {
  program
    .command('tune')
    .description("search an experiment file's `tune` space for the best retry policy that meets its constraints, with confidence")
    .argument('<file>', 'experiment file (JSON) with a `tune` section')
    .option('--candidates <n>', 'Latin-hypercube candidates of round 0 (default: the file\'s, or 32)', positiveInt('--candidates'))
    .option('--max-runs <n>', 'stop before a round that would start more runs in all (default: the file\'s, or 4000)', positiveInt('--max-runs'))
    .option('--seed <n>', 'master seed (overrides the file)', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n)) throw new UsageError([`--seed must be an integer (got "${v}")`]);
      return n;
    })
    .option('--out <dir>', 'output directory', 'results')
    .option('--quick', 'apply the file\'s "quick" overrides', false)
    .option('--set <path=value>', 'override any field by dotted path (repeatable)', (v: string, prev: string[]) => [...prev, v], [])
    .option('--workers <n>', 'worker threads (default: the available parallelism)', positiveInt('--workers'))
    .option('--resume', 'keep the finished runs of the rounds in the output directory and run only the missing ones', false)
    .option('--replace', 'replace a finished search in the output directory, once the new one is complete (it is written beside it until then)', false)
    .option('--quiet', 'print nothing but errors', false)
    .option('--json', 'print the answer (tune.json) to stdout', false)
    .option(ALLOW_IMPORTS_OUTSIDE, ALLOW_IMPORTS_OUTSIDE_HELP, false)
    .action(async (file: string, flags: TuneFlags) => {
      setCode(await tuneCommand(io, file, flags));
    });
}

/** How `run-all` treats experiment files with a `tune` section: searched (quick or full), not swept. */
export const runAllTunes = {
  /** The files to sweep and the files to search, the searches validated now (`splitBySection`, in quick mode or not). */
  split(files: string[], quick: boolean, read: ReadOptions = {}): { files: string[]; tunes: string[] } {
    const split = splitBySection(files, read, hasTuneSection, (f) => {
      loadTuneProblem(f, { quick, set: [], ...read });
      return [];
    });
    return { files: split.without, tunes: split.with };
  },

  /** Search each file into `<out>/<name>/` with shared assets, adding each report to the index. */
  async run(io: CliIO, tunes: string[], opts: { quick: boolean; out: string; quiet: boolean; workers?: number; reportIndex: IndexEntry[] } & ReadOptions): Promise<number> {
    let code = 0;
    for (const f of tunes) {
      const flags: TuneFlags = {
        quick: opts.quick,
        out: opts.out,
        set: [],
        resume: false,
        replace: true,
        quiet: opts.quiet,
        json: false,
        ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
        ...(opts.allowImportsOutside === true ? { allowImportsOutside: true } : {}),
      };
      code = Math.max(code, await tuneCommand(io, f, flags, { sharedAssets: true, reportIndex: opts.reportIndex }));
    }
    return code;
  },
};
