import { expandExperiment, parseExperimentText, parseScript, ValidationError } from '../experiment/index.js';
import { readExperimentText } from './readInput.js';
import { traceOperation, type TraceResult } from '../model/traceOperation.js';
import { CANCELLED_RESPONSE, LOST_RESPONSE, type CacheTraceWhat, type ServiceTraceEvent, type TraceEvent } from '../model/trace.js';
import { fmt } from './format.js';
import type { Scenario } from '../model/scenario.js';
import { otlpTraces, type OtlpTraces } from '../model/traceOtlp.js';

/** The flags of `retrystorm trace` as commander hands them over (strings, unparsed). */
export interface TraceFlags {
  script?: string;
  draw?: string;
  seed?: number;
  deadlineMs?: string;
  method?: string;
  attempts?: string;
  timeoutMs?: string;
  backoff?: string;
  baseMs?: string;
  capMs?: string;
  multiplier?: string;
  exponentOffset?: string;
  tickMs?: string;
  retryAfter?: string;
  deadlineMode?: string;
  retryOn?: string;
  idempotency?: string;
  workload?: string;
  json?: boolean;
  /** Print the operation as OTLP/JSON spans instead of the timeline. */
  otlp?: boolean;
  /** Let imports leave the experiment file's directory (`--allow-imports-outside`). */
  allowImportsOutside?: boolean;
}

/** Which flag sets which field of the first layer's policy (for messages that name the flag). */
const POLICY_FLAGS: Array<[keyof TraceFlags, string, 'number' | 'attempts' | 'string' | 'list']> = [
  ['attempts', 'maxAttempts', 'attempts'],
  ['timeoutMs', 'perAttemptTimeoutMs', 'number'],
  ['backoff', 'backoff.kind', 'string'],
  ['baseMs', 'backoff.baseMs', 'number'],
  ['capMs', 'backoff.capMs', 'number'],
  ['multiplier', 'backoff.multiplier', 'number'],
  ['exponentOffset', 'backoff.exponentOffset', 'number'],
  ['tickMs', 'tickMs', 'number'],
  ['retryAfter', 'retryAfter', 'string'],
  ['deadlineMode', 'deadlineMode', 'string'],
  ['retryOn', 'retryOn', 'list'],
  ['idempotency', 'idempotency', 'string'],
];

const FLAG_NAMES: Record<string, string> = {
  attempts: '--attempts',
  timeoutMs: '--timeout-ms',
  backoff: '--backoff',
  baseMs: '--base-ms',
  capMs: '--cap-ms',
  multiplier: '--multiplier',
  exponentOffset: '--exponent-offset',
  tickMs: '--tick-ms',
  retryAfter: '--retry-after',
  deadlineMode: '--deadline-mode',
  retryOn: '--retry-on',
  idempotency: '--idempotency',
};

function numberOrRaw(v: string): unknown {
  const n = Number(v);
  return v.trim() !== '' && Number.isFinite(n) ? n : v;
}

function setDotted(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let o = obj;
  for (const p of parts.slice(0, -1)) {
    if (typeof o[p] !== 'object' || o[p] === null) o[p] = {};
    o = o[p] as Record<string, unknown>;
  }
  o[parts[parts.length - 1] as string] = value;
}

/** The script problem's words, for a flag-built scenario: the flags that bound a hung attempt. */
const UNBOUNDED_SCRIPT = '--script has "hang" (or "timeout" without a duration), which never answers: set --timeout-ms or --deadline-ms';

/**
 * Rewrite a validation message about a field a flag set so that it names the flag: every field for
 * a scenario built from the flags alone; for a file, only the fields a flag given set (the others
 * keep the file's path, from the picked workload's place in the file when `--workload` moved it).
 */
function flagMessage(msg: string, given?: TraceFlags): string {
  let m = msg.replace(/^[^:]*: /, '');
  for (const [flag, field] of POLICY_FLAGS) {
    const path = `scenario.stack.0.policy.${field}`;
    if (m.startsWith(path + ' ') && (given === undefined || given[flag] !== undefined)) return `${FLAG_NAMES[flag]} ${m.slice(path.length + 1)}`;
  }
  const workloadFlags: Array<[keyof TraceFlags, string]> = [
    ['deadlineMs', 'deadlineMs'],
    ['method', 'method'],
  ];
  for (const [flag, field] of workloadFlags) {
    const path = `scenario.workload.${field} `;
    if (m.startsWith(path) && (given === undefined || given[flag] !== undefined)) return `--${flag === 'deadlineMs' ? 'deadline-ms' : 'method'} ${m.slice(path.length)}`;
  }
  if (given !== undefined) return msg;
  if (/^scenario\.leaf\.script (contains|has) "hang"/.test(m)) return UNBOUNDED_SCRIPT;
  m = m.replace(/^scenario\.leaf\.script/, '--script');
  return m;
}

/** A file's message, on the file's own paths: a workload `--workload` picked is named where the file has it. */
function fileMessage(msg: string, picked: string | undefined): string {
  if (picked === undefined) return msg;
  const at = `scenario.workloads.${picked}`;
  return msg.replace(/(^|: )scenario\.stack\b/, `$1${at}.stack`).replace(/(^|: )scenario\.workload\b/, `$1${at}`);
}

/** The experiment file as trace reads it: validated, its single scenario kept (variants, sweep and quick dropped). */
function readTracedFile(file: string, flags: TraceFlags): Record<string, unknown> {
  const read = readExperimentText(file, flags.allowImportsOutside === true ? { allowImportsOutside: true } : {});
  if (!read.ok) throw new ValidationError(read.errors);
  const { text } = read;
  const parsed = parseExperimentText(text, file);
  if (!parsed.ok) throw new ValidationError(parsed.errors);
  const raw = JSON.parse(text) as Record<string, unknown>;
  if (raw.parts !== undefined) throw new ValidationError([`${file}: trace needs a file with a single "scenario", not "parts"`]);
  delete raw.variants;
  delete raw.sweep;
  delete raw.quick;
  return raw;
}

/** A placeholder leaf, so that the other flags are validated when the script is missing or bad. */
const PLACEHOLDER_LEAF = { kind: 'script', script: [{ status: 200, durationMs: 0 }] };

/**
 * `--script` as the scenario's leaf. A service graph has no leaf to replace (each service answers
 * with its own fleet): the script is refused, naming the graph's services.
 */
function applyScript(scenario: Record<string, unknown>, file: string | undefined, script: string | undefined, problems: string[]): void {
  const services = scenario.services;
  if (script !== undefined && typeof services === 'object' && services !== null && !Array.isArray(services)) {
    problems.push(
      `--script cannot be used with a service graph: ${file ?? 'the file'} describes services ${Object.keys(services).join(', ')}, each answering with its own fleet; ` +
        `to script one of them, give it "fleet": { "kind": "script", "script": [...] } in the file`,
    );
    return;
  }
  if (script !== undefined) {
    try {
      scenario.leaf = { kind: 'script', script: parseScript(script) };
    } catch (e) {
      problems.push(...(e instanceof ValidationError ? e.problems : [(e as Error).message]).map((m) => (m.startsWith('--script') ? m : `--script: ${m}`)));
      scenario.leaf = PLACEHOLDER_LEAF;
    }
  } else if (!file) {
    scenario.leaf = PLACEHOLDER_LEAF;
    problems.push('--script is required without an experiment file (e.g. --script "503:250,503:250,200:250")');
  }
}

/** `--deadline-ms` and `--method` on the workload (a graph's picked workload included). */
function applyWorkloadFlags(scenario: Record<string, unknown>, flags: TraceFlags): void {
  if (scenario.workloads !== undefined) return;
  const workload = (scenario.workload ?? {}) as Record<string, unknown>;
  scenario.workload = workload;
  if (flags.deadlineMs !== undefined) workload.deadlineMs = numberOrRaw(flags.deadlineMs);
  if (flags.method !== undefined) workload.method = flags.method;
}

/** The policy flags on the first layer of the stack. */
function applyPolicyFlags(scenario: Record<string, unknown>, flags: TraceFlags): void {
  const layer0 = (scenario.stack as Array<Record<string, unknown>> | undefined)?.[0];
  if (!layer0) return;
  const policy = (layer0.policy ?? {}) as Record<string, unknown>;
  layer0.policy = policy;
  for (const [flag, field, kind] of POLICY_FLAGS) {
    const v = flags[flag];
    if (typeof v !== 'string') continue;
    const value = kind === 'list' ? v.split(',').map((x) => x.trim()).filter((x) => x) : kind === 'string' || (kind === 'attempts' && v === 'unlimited') ? v : numberOrRaw(v);
    setDotted(policy, field, value);
  }
}

/** `--draw`: a fraction from 0 to 1, or undefined. */
function readDraw(draw: string | undefined, problems: string[]): number | undefined {
  if (draw === undefined) return undefined;
  const d = Number(draw);
  if (draw.trim() === '' || !Number.isFinite(d) || d < 0 || d > 1) {
    problems.push(`--draw must be between 0 and 1 (got ${JSON.stringify(draw)})`);
    return undefined;
  }
  return d;
}

/** Every problem once, in the order found. */
function distinct(problems: string[]): string[] {
  return [...new Set(problems)];
}

/** The traced experiment validated into its one cell and seed; throws every problem at once, each in the user's terms. */
function tracedCell(raw: Record<string, unknown>, file: string | undefined, flags: TraceFlags, picked: string | undefined, problems: string[]): { scenario: Scenario; seed: number } {
  const say = (m: string) => (file ? fileMessage(flagMessage(m, flags), picked) : flagMessage(m));
  const parsed = parseExperimentText(JSON.stringify(raw), file ?? 'trace');
  if (!parsed.ok) throw new ValidationError(distinct([...problems, ...parsed.errors.map(say)]));
  if (problems.length > 0) throw new ValidationError(distinct(problems));
  const expanded = expandExperiment(parsed.experiment, { quick: false });
  if (!expanded.ok) throw new ValidationError(distinct(expanded.errors.map(say)));
  const cell = expanded.plan.parts[0]?.cells[0];
  if (!cell) throw new ValidationError(['nothing to trace']);
  return { scenario: cell.scenario, seed: flags.seed ?? expanded.plan.seed };
}

/** A traced scenario, ready to run: its seed, its fixed jitter draw (`--draw`), and how its model's problems are said in the user's terms. */
export interface TracedScenario {
  scenario: Scenario;
  seed: number;
  fixedDraw?: number;
  say: (m: string) => string;
}

/**
 * The experiment trace runs: an experiment file (its stack; its leaf unless --script is given) or
 * the flags alone (one layer named "client"), with the flags applied, validated into one scenario.
 * Throws ValidationError with one message per problem, naming the flag or the field.
 */
export function tracedScenario(file: string | undefined, flags: TraceFlags): TracedScenario {
  const problems: string[] = [];
  const raw = file ? readTracedFile(file, flags) : { name: 'trace', scenario: { workload: { kind: 'burst', clients: 1 }, stack: [{ name: 'client', policy: {} }] } };
  const scenario = raw.scenario as Record<string, unknown>;
  applyScript(scenario, file, flags.script, problems);
  const picked = pickWorkload(scenario, flags.workload, problems);
  applyWorkloadFlags(scenario, flags);
  applyPolicyFlags(scenario, flags);
  const fixedDraw = readDraw(flags.draw, problems);
  const cell = tracedCell(raw, file, flags, picked, problems);
  return { ...cell, ...(fixedDraw !== undefined ? { fixedDraw } : {}), say: (m) => (file ? fileMessage(flagMessage(m, flags), picked) : flagMessage(m)) };
}

/** Run `f` on a traced scenario, its model's problems (a ScenarioError) said in the user's terms. */
export function withTracedProblems<T>(traced: TracedScenario, f: () => T): T {
  try {
    return f();
  } catch (e) {
    const problems = (e as { problems?: string[] }).problems;
    if (problems) throw new ValidationError(distinct(problems.map(traced.say)));
    throw e;
  }
}

/**
 * Build the traced scenario ({@link tracedScenario}) and run one operation.
 * Throws ValidationError with one message per problem, naming the flag or the field.
 */
export function traceScenario(file: string | undefined, flags: TraceFlags): TraceResult {
  const traced = tracedScenario(file, flags);
  const { scenario, seed, fixedDraw } = traced;
  return withTracedProblems(traced, () => traceOperation(scenario, { seed, ...(fixedDraw !== undefined ? { fixedDraw } : {}) }));
}

/**
 * A graph with several `workloads` is traced through one of them (`--workload`, default the first):
 * the scenario is rewritten with that workload as its `workload` (its entry kept) and its stack as the
 * scenario's `stack`, so the flags apply to it as to any scenario's.
 */
function pickWorkload(scenario: Record<string, unknown>, name: string | undefined, problems: string[]): string | undefined {
  const workloads = scenario.workloads;
  if (typeof workloads !== 'object' || workloads === null || Array.isArray(workloads)) {
    if (name !== undefined) problems.push(`--workload needs a scenario with several workloads (scenario.workloads); this one has ${workloads === undefined ? 'none' : 'no valid workloads object'}`);
    return undefined;
  }
  const names = Object.keys(workloads);
  const pick = name ?? names[0];
  if (pick === undefined) return undefined; // scenario.workloads is empty: validation says so.
  if (!Object.hasOwn(workloads, pick)) {
    problems.push(`--workload must name one of scenario.workloads (got ${JSON.stringify(pick)}; the workloads are ${names.join(', ')})`);
    return undefined;
  }
  const chosen = (workloads as Record<string, unknown>)[pick];
  if (typeof chosen !== 'object' || chosen === null || Array.isArray(chosen)) return undefined; // validation names the field
  const { stack, ...workload } = chosen as Record<string, unknown>;
  delete scenario.workloads;
  scenario.workload = workload;
  scenario.stack = stack;
  return pick;
}

function ms(v: number): string {
  return Number.isFinite(v) ? `${fmt(v)} ms` : 'none';
}

/** A cache's line, in words. */
const CACHE_WORDS: Record<CacheTraceWhat, (key: number) => string> = {
  hit: (k) => `key ${k} hit`,
  miss: (k) => `key ${k} missed, calls`,
  waits: (k) => `key ${k} missed, waits for its call in flight`,
  filled: (k) => `key ${k} filled`,
  late: (k) => `key ${k} not filled (the success came after the call stopped waiting)`,
};

/** A service's line of a graph's timeline (its handler at its level). */
function formatServiceEvent(t: string, e: ServiceTraceEvent): string {
  const name = `${'  '.repeat(e.level)}${e.service}.${e.endpoint}`;
  switch (e.event) {
    case 'handler':
      return `${t}${name}: request received, handler starts`;
    case 'step':
      return e.kind === 'work' ? `${t}${name}: step ${e.step + 1}: work` : `${t}${name}: step ${e.step + 1}: calls ${e.calls.join(', ')} (join ${e.join})`;
    case 'join':
      return `${t}${name}: step ${e.step + 1}: join ${e.join} decides ${e.decision}${e.degraded ? ' (degraded)' : ''}`;
    case 'answer':
      return `${t}${name}: answers ${e.outcome}`;
    case 'lost':
      return `${t}${name}: request lost, nobody answers`;
    case 'cache':
      return `${t}${name}: cache ${e.cache}: ${CACHE_WORDS[e.what](e.key)}`;
    case 'request':
      return `${t}${name}: request received by the fleet`;
    case 'response':
      return e.outcome === LOST_RESPONSE ? `${t}${name}: request lost, nobody answers` : e.outcome === CANCELLED_RESPONSE ? `${t}${name}: request withdrawn by its caller` : `${t}${name}: fleet answers ${e.outcome}`;
  }
}

/**
 * One timeline line, indented by its level: the workload's layer k at k; in a service graph a
 * handler below the stack that called it, a call's layers below their handler, named with the call.
 */
export function formatTraceEvent(e: TraceEvent, layerNames: string[]): string {
  const t = `t=${fmt(e.tMs)}`.padEnd(12);
  if ('service' in e) return formatServiceEvent(t, e);
  const site = e.site;
  const name =
    site === undefined
      ? `${'  '.repeat(e.layer)}${layerNames[e.layer] ?? `layer${e.layer}`}`
      : `${'  '.repeat(site.level + e.layer)}${site.layers[e.layer] ?? `layer${e.layer}`} (${site.caller} -> ${site.callee}.${site.endpoint})`;
  switch (e.event) {
    case 'call':
      return `${t}${name}: call received (deadline ${Number.isFinite(e.deadlineAtMs) ? `at ${fmt(e.deadlineAtMs)} ms` : 'none'})`;
    case 'attempt':
      return `${t}${name}: attempt ${e.attempt} starts, timeout ${ms(e.timeoutMs)}`;
    case 'outcome':
      return `${t}${name}: attempt ${e.attempt} -> ${e.outcome}${e.retryAfterMs !== undefined ? ` (Retry-After ${fmt(e.retryAfterMs)} ms)` : ''}`;
    case 'wait':
      return e.fits
        ? `${t}${name}: backoff for retry ${e.retry}: ceiling ${fmt(e.ceilingMs)} ms, drawn ${fmt(e.backoffMs)} ms, wait ${fmt(e.waitMs)} ms until t=${fmt(e.wakeAtMs)}`
        : `${t}${name}: backoff for retry ${e.retry}: wait ${fmt(e.waitMs)} ms (ceiling ${fmt(e.ceilingMs)} ms) does not fit before the deadline`;
    case 'give-up':
      return `${t}${name}: ends: ${e.reason} after ${e.attempts} attempt${e.attempts === 1 ? '' : 's'} (returns ${e.outcome})`;
  }
}

/** The OTLP/JSON spans of a traced operation (`trace --otlp`): one trace, its id led by 0 and the seed. */
export function traceOtlp(traced: TracedScenario, r: TraceResult): OtlpTraces {
  const sc = traced.scenario;
  return otlpTraces(r.timeline, { layers: sc.stack.map((l) => l.name), entryServices: sc.graph?.entries.map((e) => e.service) ?? [], traceIdPrefix: 0, seed: traced.seed });
}

/** `retrystorm trace`: the text timeline, the JSON with --json, or OTLP/JSON spans with --otlp. */
export function traceCommand(file: string | undefined, flags: TraceFlags): string {
  const traced = tracedScenario(file, flags);
  const { scenario, seed, fixedDraw } = traced;
  const r = withTracedProblems(traced, () => traceOperation(scenario, { seed, ...(fixedDraw !== undefined ? { fixedDraw } : {}) }));
  if (flags.otlp) return JSON.stringify(traceOtlp(traced, r), null, 2);
  if (flags.json) {
    const { timeline: _timeline, ...rest } = r;
    return JSON.stringify(rest, null, 2);
  }
  const names = r.layers.map((l) => l.layer);
  // A leaf service's fleet answering shows in its caller's attempt (its request and response events are for the OTLP spans).
  const lines = r.timeline.filter((e) => !('service' in e) || (e.event !== 'request' && e.event !== 'response')).map((e) => formatTraceEvent(e, names));
  lines.push(`outcome: ${r.outcome} after ${r.attempts} attempt${r.attempts === 1 ? '' : 's'} at t=${fmt(r.endMs)} ms`);
  return lines.join('\n');
}
