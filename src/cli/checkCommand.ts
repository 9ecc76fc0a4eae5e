import { resolve } from 'node:path';
import {
  AWS_SDKS,
  CheckInputError,
  checkExitCode,
  checkStack,
  ANSWER_CLASSES,
  GRPC_IMPLS,
  formatCheckReport,
  formatStormReport,
  loadStacks,
  LOST_NOTE_PREFIX,
  lostNotes,
  simulateStorm,
  type AwsSdk,
  type CheckReport,
  type FailureClass,
  type GrpcImpl,
  type LoadStackOptions,
  type StormReport,
} from '../check/index.js';
import { METHODS } from '../experiment/scenarioSchema.js';
import type { Method } from '../policy/types.js';
import { VERSION } from '../version.js';
import { importReader, readInputText } from './readInput.js';

/** Where `check` writes (the CLI's io object fits). */
export interface CheckIO {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
}

/** The options of `retrystorm check` as commander hands them over (strings, unparsed). */
export interface CheckFlags {
  json?: boolean;
  simulate?: boolean;
  failureRate?: string;
  failureClass?: string;
  part?: string;
  method?: string;
  deadlineMs?: string;
  seed?: string;
  replications?: string;
  profile?: string;
  sdk?: string;
  route?: string;
  service?: string;
  instance?: string;
  env?: string[];
  grpcImpl?: string;
  /** Let imports leave the file's directory (`--allow-imports-outside`). */
  allowImportsOutside?: boolean;
  /** Something a file lists that the model cannot retry (a `lost:` note) is an error: exit 1. */
  strict?: boolean;
}

/** What `check --json` prints. */
export interface CheckJson {
  version: string;
  /** 1 when any stack has an error-level finding, else 0. */
  exitCode: number;
  /** What the files read say that their tools read another way than a reader would expect (also printed on stderr). */
  warnings: string[];
  /** One per stack, in file order: a file of several routes gives one per route, each with its `route`. */
  stacks: Array<CheckReport & { simulation?: StormReport }>;
}

/** The flags checked and converted, or every problem with them. */
function parseFlags(flags: CheckFlags): { problems: string[]; load: LoadStackOptions; failureRate: number; failureClass: FailureClass; seed: number; replications: number } {
  const problems: string[] = [];
  const load: LoadStackOptions = {};
  let failureRate = 0.1;
  if (flags.failureRate !== undefined) {
    const p = Number(flags.failureRate);
    if (flags.failureRate.trim() === '' || !Number.isFinite(p) || p < 0 || p > 1) problems.push(`--failure-rate must be between 0 and 1 (got ${JSON.stringify(flags.failureRate)})`);
    else failureRate = p;
  }
  let failureClass: FailureClass = '503';
  if (flags.failureClass !== undefined) {
    if ((ANSWER_CLASSES as readonly string[]).includes(flags.failureClass)) failureClass = flags.failureClass as FailureClass;
    else problems.push(`--failure-class must be one of ${ANSWER_CLASSES.join(', ')} (got ${JSON.stringify(flags.failureClass)})`);
  }
  if (flags.method !== undefined) {
    const m = flags.method.toUpperCase();
    if ((METHODS as readonly string[]).includes(m)) load.method = m as Method;
    else problems.push(`--method must be one of ${METHODS.join(', ')} (got ${JSON.stringify(flags.method)})`);
  }
  if (flags.deadlineMs !== undefined) {
    const d = Number(flags.deadlineMs);
    if (flags.deadlineMs.trim() === '' || !Number.isFinite(d) || d < 0) problems.push(`--deadline-ms must be a number >= 0 (got ${JSON.stringify(flags.deadlineMs)})`);
    else load.deadlineMs = d;
  }
  let seed = 1;
  if (flags.seed !== undefined) {
    const s = Number(flags.seed);
    if (!Number.isSafeInteger(s)) problems.push(`--seed must be an integer (got ${JSON.stringify(flags.seed)})`);
    else seed = s;
  }
  let replications = 5;
  if (flags.replications !== undefined) {
    const n = Number(flags.replications);
    if (!Number.isInteger(n) || n < 1 || n > 1000) problems.push(`--replications must be an integer from 1 to 1000 (got ${JSON.stringify(flags.replications)})`);
    else replications = n;
  }
  if (flags.sdk !== undefined) {
    if ((AWS_SDKS as readonly string[]).includes(flags.sdk)) load.sdk = flags.sdk as AwsSdk;
    else problems.push(`--sdk must be one of ${AWS_SDKS.join(', ')} (got ${JSON.stringify(flags.sdk)})`);
  }
  if (flags.grpcImpl !== undefined) {
    if ((GRPC_IMPLS as readonly string[]).includes(flags.grpcImpl)) load.grpcImpl = flags.grpcImpl as GrpcImpl;
    else problems.push(`--grpc-impl must be one of ${GRPC_IMPLS.join(', ')} (got ${JSON.stringify(flags.grpcImpl)})`);
  }
  if (flags.part !== undefined) load.part = flags.part;
  if (flags.profile !== undefined) load.profile = flags.profile;
  if (flags.route !== undefined) load.route = flags.route;
  if (flags.service !== undefined) load.service = flags.service;
  if (flags.instance !== undefined) load.instance = flags.instance;
  if (flags.env !== undefined && flags.env.length > 0) load.env = flags.env;
  return { problems, load, failureRate, failureClass, seed, replications };
}

/**
 * `retrystorm check <stack>`: reads the stack file (or experiment file, or a configuration on its
 * own) and the files it imports, checks every stack in it, prints the tables (or `--json`) and,
 * with `--simulate`, a short standard storm beside the closed form. Returns the exit code: 0, 1
 * when any error-level finding is present (or, with `--strict`, when a file lists a condition,
 * status or exception the model cannot retry: an `error:` line each), 2 for input it cannot read (one `error:` line per
 * problem, naming the file and the field).
 */
export function checkCommand(io: CheckIO, file: string, flags: CheckFlags): number {
  const parsed = parseFlags(flags);
  if (parsed.problems.length > 0) {
    for (const p of parsed.problems) io.stderr(`error: ${p}\n`);
    return 2;
  }
  try {
    const path = resolve(io.cwd, file);
    const text = readInputText(path, file);
    const readImport = importReader(file, io.cwd, flags.allowImportsOutside === true ? { allowImportsOutside: true } : {});
    const stacks = loadStacks(text, file, { ...parsed.load, readImport });
    const warnings = [...new Set(stacks.flatMap((s) => s.layers.flatMap((l) => l.warnings ?? [])))];
    for (const w of warnings) io.stderr(`warning: ${w}\n`);
    const options = { failureRate: parsed.failureRate, failureClass: parsed.failureClass };
    const results = stacks.map((stack) => {
      const report = checkStack(stack, options);
      const simulation = flags.simulate
        ? simulateStorm(stack, { ...options, seed: parsed.seed, replications: parsed.replications })
        : undefined;
      return { report, simulation };
    });
    const lost = flags.strict ? [...new Set(stacks.flatMap((s) => s.layers.flatMap((l) => lostNotes(l.notes))))] : [];
    const exitCode = lost.length > 0 ? 1 : checkExitCode(results.map((r) => r.report));
    if (flags.json) {
      const json: CheckJson = {
        version: VERSION,
        exitCode,
        warnings,
        stacks: results.map((r) => (r.simulation !== undefined ? { ...r.report, simulation: r.simulation } : r.report)),
      };
      io.stdout(JSON.stringify(json, null, 2) + '\n');
    } else {
      const blocks = results.map((r) => formatCheckReport(r.report) + (r.simulation !== undefined ? `\n\n${formatStormReport(r.simulation)}` : ''));
      io.stdout(blocks.join('\n\n' + '='.repeat(100) + '\n\n') + '\n');
    }
    for (const l of lost) io.stderr(`error: ${l.slice(LOST_NOTE_PREFIX.length)} (--strict)\n`);
    return exitCode;
  } catch (e) {
    if (!(e instanceof CheckInputError)) throw e;
    for (const p of e.problems) io.stderr(`error: ${p}\n`);
    return 2;
  }
}
