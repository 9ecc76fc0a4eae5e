// The retrystorm command line: its commands and options (commander), each command's work in a
// module of its own (runCommand, validateCommand, checkCommand, trace, exportCommand, report,
// tuneCommand, importTelemetryCommand), and the one place where an input problem becomes exit code 2.
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { PRECEDENCE, ValidationError } from '../experiment/index.js';
import { ScenarioError } from '../model/ScenarioError.js';
import { describePresets } from '../policy/describePresets.js';
import { BACKOFF_KINDS } from '../policy/backoff.js';
import { RETRY_ON_NAMES } from '../policy/classify.js';
import { DEADLINE_MODES, IDEMPOTENCY_RULES, RETRY_AFTER_MODES } from '../policy/schema/policySchema.js';
import { VERSION } from '../version.js';
import { mergeRunDirs, MergeError } from '../sweep/merge.js';
import { OutputError } from '../sweep/ResultWriter.js';
import { FINISHED_RUN_FILES, RunDirError, runDirKind } from '../sweep/ResultReader.js';
import { BASE_MEMORY_BYTES } from '../sweep/estimateMemory.js';
import { DEFAULT_MEMORY_LIMIT_FRACTION } from '../sweep/resourceLimits.js';
import { parseShard, ResumeError, type ShardSpec } from '../sweep/runSweep.js';
import { DEFAULT_TRACE_SAMPLE, MAX_TRACED_OPERATIONS, TRACES_DIR } from '../sweep/cellTraces.js';
import { terminalText } from './format.js';
import { UsageError, type CliIO } from './io.js';
import { experimentName, findExperimentFiles } from './loadPlan.js';
import { printJson } from './printJson.js';
import { writeFileAtomic } from './writeFileAtomic.js';
import { lockDir, type DirLock } from './dirLock.js';
import { commitOutput, planOutput, type OutputPlan } from './outputDir.js';
import { ALLOW_IMPORTS_OUTSIDE, ALLOW_IMPORTS_OUTSIDE_HELP } from './readInput.js';
import { fsErrorWords, isFsError, shownPath } from '../sweep/fileErrors.js';
import { reportCommand, ReportInputError, writeReportIndex, writeRiskReport, writeSharedAssets } from './report.js';
import type { IndexEntry } from '../report/index.js';
import { ANSWER_CLASSES, experimentFileJsonSchema } from '../check/index.js';
import { checkCommand, type CheckFlags } from './checkCommand.js';
import { traceCommand, type TraceFlags } from './trace.js';
import { exportCommand, type ExportFlags } from './exportCommand.js';
import { registerTune, runAllTunes } from './tuneCommand.js';
import { runFiles, sameNameProblems, type RunOptions } from './runCommand.js';
import { validateCommand } from './validateCommand.js';
import { DEFAULT_RISK_OUT, riskFile, runAllRisks, type RiskOptions } from './riskCommand.js';
import { mergeRiskDirs } from '../sweep/riskMerge.js';
import { FINISHED_RISK_FILES } from '../sweep/riskRecord.js';
import { registerImportTelemetry } from './importTelemetryCommand.js';

/** The help of `--set`, the same for every command that takes it. */
const SET_HELP = `override a field (repeatable, applied last: ${PRECEDENCE.map((level) => (level === 'set' ? '--set' : level)).join(' < ')}): a path as in variants and sweeps (relative to the scenario; layers[<name>].<path> for every layer of that name), parts.<name>.<path>, or a root field such as seed or replications (every part's own too)`;

export { UsageError, type CliIO } from './io.js';
export { findExperimentFiles, loadExperimentFile, loadExperimentSource, planFromFile } from './loadPlan.js';

function parseIntArg(flag: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n)) throw new UsageError([`${flag} must be an integer (got "${v}")`]);
    return n;
  };
}

function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

function parsePositiveInt(flag: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new UsageError([`${flag} must be a positive integer (got "${v}")`]);
    return n;
  };
}

/** `--memory-limit <MB>`: megabytes (10^6 bytes, as every size printed) above the process's base, returned in bytes. */
function parseMemoryLimit(v: string): number {
  const mb = Number(v);
  const base = BASE_MEMORY_BYTES / 1e6;
  if (!Number.isFinite(mb) || mb <= base) throw new UsageError([`--memory-limit must be a number of megabytes above ${base} (what the process takes before any run; got "${v}")`]);
  return mb * 1e6;
}

/** The help of `--memory-limit`: what the option holds, and what happens past a run's share (run and validate: the run stops; risk: the cell errs). */
function memoryLimitHelp(past: string): string {
  return `megabytes the runs at once may hold in their tables; ${past} (default: ${DEFAULT_MEMORY_LIMIT_FRACTION * 100}% of this machine's memory)`;
}

/** The help of `--memory-limit`, shared by run and validate. */
const MEMORY_LIMIT_HELP = memoryLimitHelp('a run whose tables would grow past its share stops, truncated "memory-cap"');

function parseShardArg(v: string): ShardSpec {
  try {
    return parseShard(v);
  } catch (e) {
    throw new UsageError([(e as Error).message]);
  }
}

/** `run`: an experiment file (or a directory of them) run, its results and report written. */
function registerRun(program: Command, io: CliIO, setCode: (code: number) => void): void {
  program
    .command('run')
    .description('run an experiment file (or every experiment file in a directory) and write its results')
    .argument('<file>', 'experiment file (JSON) or directory of them')
    .option('--seed <n>', 'master seed (overrides the file)', parseIntArg('--seed'))
    .option('--out <dir>', 'output directory', 'results')
    .option('--quick', 'apply the file\'s "quick" overrides', false)
    .option('--set <path=value>', SET_HELP, collect, [])
    .option('--workers <n>', `worker threads (default: ${availableParallelism()}, the available parallelism)`, parsePositiveInt('--workers'))
    .option('--shard <k/n>', 'run the k-th of n deterministic slices of the cells (0 <= k < n)', parseShardArg)
    .option('--resume', 'keep the finished replications in the output directory and run only the missing ones', false)
    .option('--replace', 'replace a finished run in the output directory, once the new run is complete (it is written beside it until then)', false)
    .option('--quiet', 'print nothing but errors', false)
    .option('--json', 'print the results JSON (or the sweep summary) to stdout', false)
    .option('--force', 'run even when the estimated results are over 1 GB or the estimated memory over the machine\'s', false)
    .option(ALLOW_IMPORTS_OUTSIDE, ALLOW_IMPORTS_OUTSIDE_HELP, false)
    .option('--memory-limit <MB>', MEMORY_LIMIT_HELP, parseMemoryLimit)
    .addOption(new Option('--traces <format>', `write sampled operations of each cell's replication 0 as OpenTelemetry spans into <out>/<experiment>/${TRACES_DIR}/`).choices(['otlp']))
    .option('--trace-sample <n>', `with --traces: trace every n-th operation (default ${DEFAULT_TRACE_SAMPLE}; at most ${MAX_TRACED_OPERATIONS} per cell)`, parsePositiveInt('--trace-sample'))
    .action(async (file: string, opts: Omit<RunOptions, 'json' | 'quick' | 'resume' | 'quiet'> & { json: boolean; quick: boolean; resume: boolean; quiet: boolean }) => {
      const path = resolve(io.cwd, file);
      let files = [path];
      try {
        if (statSync(path).isDirectory()) {
          files = findExperimentFiles(path);
          if (files.length === 0) throw new UsageError([`${file}: no experiment files (*.json) in this directory`]);
        }
      } catch (e) {
        if (e instanceof UsageError) throw e;
        /* loadExperimentFile reports the unreadable file */
      }
      setCode(await runFiles(io, files, opts));
    });
}

/** `risk`: P(collapse within the horizon) in every cell of an experiment file's plan, its results and report written. */
function registerRisk(program: Command, io: CliIO, setCode: (code: number) => void): void {
  program
    .command('risk')
    .description('estimate the probability of collapse within the horizon in every cell (the file\'s risk section), by splitting on snapshots of a run')
    .argument('<file>', 'experiment file (JSON) with a risk section')
    .option('--seed <n>', 'master seed (overrides the file)', parseIntArg('--seed'))
    .option('--out <dir>', 'output directory (the estimates go to <out>/<experiment>)', DEFAULT_RISK_OUT)
    .option('--quick', 'apply the file\'s "quick" overrides', false)
    .option('--set <path=value>', SET_HELP, collect, [])
    .option('--workers <n>', `worker threads (default: ${availableParallelism()}, the available parallelism)`, parsePositiveInt('--workers'))
    .option('--shard <k/n>', 'estimate the k-th of n deterministic slices of the cells (0 <= k < n); merge combines them', parseShardArg)
    .option('--resume', 'keep the cells already estimated in the output directory and estimate only the others', false)
    .option('--replace', 'replace finished estimates in the output directory, once the new ones are complete', false)
    .option('--quiet', 'print nothing but errors', false)
    .option('--json', 'print risk.json (the plan\'s risk section and every cell\'s estimate) to stdout', false)
    .option('--force', 'estimate even when the estimated memory (each cell\'s copies of a run at once) is over the machine\'s', false)
    .option(ALLOW_IMPORTS_OUTSIDE, ALLOW_IMPORTS_OUTSIDE_HELP, false)
    .option('--memory-limit <MB>', memoryLimitHelp('a cell holds several copies of a run at once (its snapshots), each held to its share: a copy whose tables would grow past it stops its cell, recorded as errored'), parseMemoryLimit)
    .action(async (file: string, opts: RiskOptions) => {
      setCode(await riskFile(io, resolve(io.cwd, file), opts));
    });
}

/** `run-all`: every shipped experiment run (quick into reports/, or --full into reports/full/), each report replaced once complete, then the index. */
function registerRunAll(program: Command, io: CliIO, setCode: (code: number) => void): void {
  program
    .command('run-all')
    .description('run every shipped experiment (quick mode into reports/, or --full into reports/full/): risk for a file with a risk section, tune for one with a tune section')
    .option('--dir <dir>', 'directory of experiment files', 'experiments')
    .option('--full', 'publication-size replications (no quick overrides)', false)
    .option('--out <dir>', 'output directory (default reports, or reports/full with --full)')
    .option('--workers <n>', 'worker threads (default: the available parallelism)', parsePositiveInt('--workers'))
    .option('--quiet', 'print nothing but errors', false)
    .option(ALLOW_IMPORTS_OUTSIDE, ALLOW_IMPORTS_OUTSIDE_HELP, false)
    .action(async (opts: { dir: string; full: boolean; out?: string; workers?: number; quiet: boolean; allowImportsOutside: boolean }) => {
      const all = findExperimentFiles(resolve(io.cwd, opts.dir));
      if (all.length === 0) throw new UsageError([`${opts.dir}: no experiment files (*.json) in this directory`]);
      const out = opts.out ?? (opts.full ? join('reports', 'full') : 'reports');
      const reportIndex: IndexEntry[] = [];
      const read = { allowImportsOutside: opts.allowImportsOutside };
      const { files: notSearched, tunes } = runAllTunes.split(all, !opts.full, read);
      const { files, risks } = runAllRisks.split(notSearched, !opts.full, read, { workers: opts.workers, memoryBytes: io.memoryBytes });
      // Runs, estimates and searches all write into <out>/<name>: a shared name is refused before anything runs.
      const clashes = sameNameProblems(io, [...files, ...risks, ...tunes].flatMap((f) => experimentName(f, read)));
      if (clashes.length > 0) throw new UsageError(clashes);
      let code = await runFiles(io, files, {
        quick: !opts.full,
        out,
        set: [],
        json: false,
        resume: false,
        // Regenerating the reports replaces them, each only once its new run is complete.
        replace: true,
        quiet: opts.quiet,
        ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
        sharedAssets: true,
        reportIndex,
        ...read,
      });
      // An interrupted run-all (exit 130) starts no estimate and no search.
      if (code !== 130) code = Math.max(code, await runAllRisks.run(io, risks, { quick: !opts.full, out, quiet: opts.quiet, ...(opts.workers !== undefined ? { workers: opts.workers } : {}), reportIndex, ...read }));
      if (code !== 130) code = Math.max(code, await runAllTunes.run(io, tunes, { quick: !opts.full, out, quiet: opts.quiet, ...(opts.workers !== undefined ? { workers: opts.workers } : {}), reportIndex, ...read }));
      if (reportIndex.length > 0) {
        writeSharedAssets(resolve(io.cwd, out));
        const index = writeReportIndex(resolve(io.cwd, out), reportIndex);
        if (!opts.quiet) io.stdout(`\nreports: ${relative(io.cwd, index) || index}\n`);
      }
      setCode(code);
    });
}

/** `report`: a results directory's report rebuilt without running. */
function registerReport(program: Command, io: CliIO, setCode: (code: number) => void): void {
  program
    .command('report')
    .description('rebuild the HTML report of a results directory (or of every one inside it, plus an index) without re-running')
    .argument('<dir>', 'an experiment\'s output directory (summary.json + run.json, or results.json), or a directory of them')
    .option('--png', 'also write each chart as PNG into <dir>/png/', false)
    .option('--shared-assets', 'load vega from ../assets/ (written once) instead of inlining it into every report', false)
    .action(async (dir: string, opts: { png: boolean; sharedAssets: boolean }) => {
      try {
        setCode(await reportCommand(io, dir, opts));
      } catch (e) {
        if (!(e instanceof ReportInputError)) throw e;
        io.stderr(`error: ${e.message}\n`);
        setCode(2);
      }
    });
}

/** `merge`: the shards of one sweep combined into one summary (the output locked, and replaced only once complete). */
function registerMerge(program: Command, io: CliIO): void {
  program
    .command('merge')
    .description('combine the output directories of the shards of one sweep (or of one risk run) into one summary')
    .argument('<dirs...>', 'shard output directories (each holds run.json and results.jsonl, or risk.jsonl)')
    .option('--out <dir>', 'output directory (the merged results go to <out>/<experiment>)', 'results')
    .option('--replace', 'replace a finished run in the output directory (once the merged one is complete)', false)
    .option('--json', 'print the merged summary', false)
    .action((dirs: string[], opts: { out: string; json: boolean; replace: boolean }) => {
      const abs = dirs.map((d) => resolve(io.cwd, d));
      // The output directory is known once the shards are read (it is named after their experiment):
      // it is locked and checked then, and the merged run takes its place when complete.
      let lock: DirLock | null = null;
      let output: OutputPlan | null = null;
      try {
        const risk = abs.length > 0 && runDirKind(abs[0] as string) === 'risk';
        const place = (experiment: string) => {
          const final = resolve(io.cwd, opts.out, experiment);
          const shown = relative(io.cwd, final) || '.';
          lock = lockDir(final, shown, 'merge');
          output = planOutput(final, shown, risk ? FINISHED_RISK_FILES : FINISHED_RUN_FILES, { replace: opts.replace, resume: false, kind: risk ? 'risk' : 'run' });
          return output.work;
        };
        const startedMs = Date.now();
        const merged = risk ? mergeRiskDirs(abs, place) : mergeRunDirs(abs, place);
        // Risk estimates have a report of their own, written with the merged files.
        if ('result' in merged) writeRiskReport(merged.outDir, relative(io.cwd, merged.outDir) || '.', merged.result, { quick: merged.quick, runTimeMs: Date.now() - startedMs });
        const done = output as OutputPlan | null;
        if (done) commitOutput(done);
        const [name, cells, json] = 'result' in merged ? [merged.result.experiment, merged.result.cells.length, merged.result] : [merged.plan.name, merged.summary.cells.length, merged.summary];
        if (opts.json) printJson(io.stdout, json);
        else io.stdout(`merged ${dirs.length} shard${dirs.length > 1 ? 's' : ''} of ${name}: ${cells} cells, written to ${done ? relative(io.cwd, done.final) || '.' : opts.out}\n`);
      } finally {
        (lock as DirLock | null)?.release();
      }
    });
}

/** `validate`: an experiment file checked, its plan and estimates printed. */
function registerValidate(program: Command, io: CliIO): void {
  program
    .command('validate')
    .description('check an experiment file and print its parts, cells, replications and an estimate of the work')
    .argument('<file>', 'experiment file (JSON)')
    .option('--quick', 'apply the file\'s "quick" overrides', false)
    .option('--set <path=value>', SET_HELP, collect, [])
    .option('--workers <n>', 'worker threads the memory estimate counts (default: the available parallelism)', parsePositiveInt('--workers'))
    .option('--force', 'exit 0 even when the estimated results or memory are over their limits (as run --force runs)', false)
    .option(ALLOW_IMPORTS_OUTSIDE, ALLOW_IMPORTS_OUTSIDE_HELP, false)
    .option('--memory-limit <MB>', MEMORY_LIMIT_HELP, parseMemoryLimit)
    .action((file: string, opts: { quick: boolean; set: string[]; workers?: number; force: boolean; allowImportsOutside: boolean; memoryLimit?: number }) => {
      validateCommand(io, resolve(io.cwd, file), opts);
    });
}

/** `trace`: one operation through a stack against a scripted leaf. */
function registerTrace(program: Command, io: CliIO): void {
  program
    .command('trace')
    .description('one operation through a stack against a scripted leaf, printed as a timeline')
    .argument('[file]', 'experiment file whose stack to use (default: one layer from the flags)')
    .option('--script <entries>', 'scripted leaf: status:durationMs[:ra=ms][*n], comma-separated')
    .option('--draw <fraction>', 'fix every jitter draw to this fraction of its range (0 to 1)')
    .option('--seed <n>', 'seed for the jitter draws', parseIntArg('--seed'))
    .option('--deadline-ms <ms>', 'total deadline of the operation')
    .addOption(new Option('--method <method>', 'request method').choices(['GET', 'HEAD', 'POST', 'PUT', 'DELETE']))
    .option('--attempts <n>', 'maximum attempts (a positive integer or "unlimited")')
    .option('--timeout-ms <ms>', 'per-attempt timeout')
    .option('--backoff <kind>', BACKOFF_KINDS.join('|'))
    .option('--base-ms <ms>', 'backoff base')
    .option('--cap-ms <ms>', 'backoff cap')
    .option('--multiplier <x>', 'backoff multiplier')
    .option('--exponent-offset <n>', 'exponent offset of the backoff ceiling')
    .option('--tick-ms <ms>', 'timer tick (wake-ups rounded up to it)')
    .option('--retry-after <mode>', RETRY_AFTER_MODES.join('|'))
    .option('--deadline-mode <mode>', DEADLINE_MODES.join('|'))
    .option('--retry-on <classes>', `comma-separated retryable classes or groups (${RETRY_ON_NAMES.join(', ')})`)
    .option('--idempotency <rule>', IDEMPOTENCY_RULES.join('|'))
    .option('--workload <name>', "a service graph's workload to follow (default: the first of scenario.workloads)")
    .option('--json', 'print {outcome, attempts, endMs, attemptTimeoutsMs, ceilingsMs, waitsMs, ...}', false)
    .option('--otlp', 'print the operation as OpenTelemetry spans (OTLP/JSON) instead of the timeline', false)
    .option(ALLOW_IMPORTS_OUTSIDE, ALLOW_IMPORTS_OUTSIDE_HELP, false)
    .action((file: string | undefined, flags: TraceFlags) => {
      const out = traceCommand(file ? resolve(io.cwd, file) : undefined, flags);
      io.stdout(out + '\n');
    });
}

/** `check`: a retry stack linted without simulating. */
function registerCheck(program: Command, io: CliIO, setCode: (code: number) => void): void {
  program
    .command('check')
    .description('lint a retry stack without simulating: worst cases, load multiples, first waits and findings (exit 1 on an error-level finding)')
    .argument('<stack>', 'stack file (YAML or JSON), experiment file, or a gRPC service config, Envoy route or AWS config on its own')
    .option('--json', 'print the report as JSON', false)
    .option('--simulate', 'also run a short standard storm and print amplification and goodput beside the closed form', false)
    .option('--failure-rate <p>', 'leaf failure rate of the expected load multiple and of --simulate (default 0.1)')
    .option('--failure-class <class>', `how the leaf fails: ${ANSWER_CLASSES.join('|')} (default 503)`)
    .option('--method <method>', "the operation's method, overriding the file (default GET)")
    .option('--deadline-ms <ms>', "the operation's deadline, overriding the file")
    .option('--part <name>', 'only this part of an experiment file with parts')
    .option('--seed <n>', 'master seed of --simulate (default 1)')
    .option('--replications <n>', 'runs per failure rate of --simulate (default 5)')
    .option('--profile <name>', 'an AWS config on its own: the profile (default "default")')
    .option('--sdk <sdk>', 'an AWS config on its own: js or python (default js)')
    .option('--route <name>', 'a configuration of several routes on its own (Envoy, Istio, Gateway API, Envoy Gateway, Linkerd; a gRPC service config: pkg.Service/Method): only this route (default: every route, one report each)')
    .option('--service <name>', 'a gRPC service config on its own: pkg.Service or pkg.Service/Method')
    .option('--instance <name>', 'a resilience4j configuration or an appsettings.json on its own: the retry instance or section')
    .option('--env <KEY=value>', 'an AWS config on its own: AWS_RETRY_MODE or AWS_MAX_ATTEMPTS over the profile (repeatable)', collect, [])
    .option('--grpc-impl <impl>', 'a gRPC service config on its own: go, java or js, whose retry delay to model (default: the 2024 formula of go and java)')
    .option('--strict', 'a condition, status or exception the file lists that the model cannot retry is an error (exit 1)', false)
    .option(ALLOW_IMPORTS_OUTSIDE, ALLOW_IMPORTS_OUTSIDE_HELP, false)
    .action((stack: string, opts: CheckFlags) => {
      setCode(checkCommand(io, resolve(io.cwd, stack), opts));
    });
}

/** `export`: a layer's policy written in a configuration format. */
function registerExport(program: Command, io: CliIO, setCode: (code: number) => void): void {
  program
    .command('export')
    .description("write a layer's policy as an Envoy route, gRPC service config, Istio VirtualService, Linkerd annotations, Gateway API route, AWS config profile or resilience4j block")
    .argument('<format>', 'envoy-route|grpc-service-config|istio|linkerd|gateway-api|aws-config|resilience4j')
    .argument('[file]', 'experiment file, stack file, or a configuration check reads')
    .option('--layer <name>', 'the layer to export (default: the only one)')
    .option('--preset <name>', 'export a preset instead of a file')
    .option('--part <name>', 'only this part of an experiment file with parts')
    .option('--route <name>', 'a configuration of several routes: the route to export (a gRPC service config: pkg.Service/Method)')
    .option('--name <name>', 'the name of the route, service, profile or instance written (default: the layer name)')
    .option('--sdk <sdk>', 'aws-config: js or python (default js)')
    .option('--strict', 'a field or class the format cannot express, or a class the imported file lists that the model lost, is an error (exit 1)', false)
    .option('--out <file>', 'write to a file instead of stdout (a regular file or a new one; never the input)')
    .option(ALLOW_IMPORTS_OUTSIDE, ALLOW_IMPORTS_OUTSIDE_HELP, false)
    .action((format: string, file: string | undefined, opts: ExportFlags) => {
      setCode(exportCommand(io, format, file, opts));
    });
}

/** `presets`: the presets of real retry libraries. */
function registerPresets(program: Command, io: CliIO): void {
  program
    .command('presets')
    .description('list the presets of real retry libraries with their parameters and sources')
    .option('--json', 'print them as JSON', false)
    .action((opts: { json: boolean }) => {
      const rows = describePresets();
      if (opts.json) io.stdout(JSON.stringify(rows, null, 2) + '\n');
      else for (const r of rows) io.stdout(`${r.name}\n  ${r.parameters}\n  describes: ${r.version}\n  source: ${r.source}\n`);
    });
}

/** `schema`: the JSON Schema of experiment files. */
function registerSchema(program: Command, io: CliIO): void {
  program
    .command('schema')
    .description('write the JSON Schema of experiment files (for editors)')
    .argument('[file]', 'where to write it (default: stdout)')
    .action((file: string | undefined) => {
      const text = JSON.stringify(experimentFileJsonSchema(), null, 2) + '\n';
      if (file) writeFileAtomic(resolve(io.cwd, file), text, { option: 'the schema file', shown: file });
      else io.stdout(text);
    });
}

/**
 * The retrystorm command line. Returns the exit code: 0 success, 1 a run failed, 2 bad input
 * (one clear message per problem, no stack trace).
 */
export async function runCli(argv: string[], terminal: CliIO): Promise<number> {
  // Names read from files reach the terminal in many messages (results, errors, check, trace):
  // their control characters are escaped here, once, for everything printed.
  const io: CliIO = { ...terminal, stdout: (s) => terminal.stdout(terminalText(s)), stderr: (s) => terminal.stderr(terminalText(s)) };
  const program = new Command();
  let code = 0;
  program
    .name('retrystorm')
    .description('Discrete-event simulator of retry storms and cascading failure')
    .version(VERSION)
    .exitOverride()
    .showHelpAfterError(false)
    .configureOutput({
      writeOut: (s) => io.stdout(s),
      writeErr: (s) => io.stderr(s),
      outputError: (s, write) => write(s),
    });

  const setCode = (c: number) => (code = c);
  registerRun(program, io, setCode);
  registerRunAll(program, io, setCode);
  registerRisk(program, io, setCode);
  registerTune(program, io, setCode);
  registerReport(program, io, setCode);
  registerMerge(program, io);
  registerValidate(program, io);
  registerTrace(program, io);
  registerCheck(program, io, setCode);
  registerExport(program, io, setCode);
  registerImportTelemetry(program, io);
  registerPresets(program, io);
  registerSchema(program, io);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    return exitCodeOf(e, io);
  }
}

/**
 * The exit code of what a command threw, its message printed: 0 for help and version, 2 for bad
 * input (one `error:` line per problem, no stack trace: usage, validation, scenario, merge, resume,
 * output and results-directory errors, and a file the system refused, said on the user's path).
 * Anything else is a defect and is thrown on.
 */
function exitCodeOf(e: unknown, io: CliIO): number {
  if (e instanceof CommanderError) {
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
    return 2;
  }
  if (e instanceof UsageError || e instanceof ValidationError || e instanceof ScenarioError) {
    for (const p of e.problems) io.stderr(`error: ${p}\n`);
    return 2;
  }
  if (e instanceof MergeError || e instanceof ResumeError || e instanceof OutputError || e instanceof RunDirError) {
    io.stderr(`error: ${e.message}\n`);
    return 2;
  }
  if (isFsError(e)) {
    // Node's message repeats the path (twice for a rename, one of them a temporary file's): say what failed, on the user's path.
    io.stderr(`error: ${e.path !== undefined ? `${shownPath(e.path)}: ` : ''}${fsErrorWords(e)}${e.syscall !== undefined ? ` (${e.syscall})` : ''}\n`);
    return 2;
  }
  throw e;
}
