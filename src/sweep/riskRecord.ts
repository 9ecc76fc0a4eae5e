// One cell's record of `retrystorm risk` as risk.jsonl holds it: its check when read back (the file
// is untrusted), the numbers JSON cannot hold restored, and risk.csv.
import { RISK_METHODS, riskSchema, type RiskSection } from '../experiment/riskSchema.js';
import type { CellRisk } from '../riskModel/index.js';
import { csvCell } from './csv.js';
import type { RiskResult } from './riskSweep.js';

/** The lines file of a risk run: one {@link RiskRecord} a line, as cells finish. */
export const RISK_LINES_FILE = 'risk.jsonl';
/** The plan and every cell's estimate, written when every cell is done. */
export const RISK_RESULT_FILE = 'risk.json';
/** One row per cell, written when every cell is done. */
export const RISK_CSV_FILE = 'risk.csv';
/** The files only a finished risk run has: a new run starts by removing them, and does not erase a directory holding them unless asked. */
export const FINISHED_RISK_FILES = [RISK_RESULT_FILE, RISK_CSV_FILE] as const;

/** Where a cell sits in the plan, as every record names it. */
interface RiskCellId {
  key: string;
  part: string;
  variant: string;
  params: Record<string, unknown>;
  /** The estimate's master seed (the cell's replication-0 seed). */
  seed: number;
}

/** One cell of a risk run: its estimate, or why it failed. */
export type RiskRecord = (RiskCellId & { state: 'ok'; risk: CellRisk }) | (RiskCellId & { state: 'errored'; error: string });

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** JSON writes NaN as null and leaves an infinite number out (`src/sweep/json.ts`): a number, or what it stood for. */
function numberOr(v: unknown, missing: number): number | null {
  if (v === undefined || v === null) return missing;
  return typeof v === 'number' ? v : null;
}

/** `v` as an array of numbers (null items as NaN), or null when it is not one. */
function numbers(v: unknown): number[] | null {
  if (!Array.isArray(v)) return null;
  const out = v.map((x) => numberOr(x, NaN));
  return out.every((x): x is number => x !== null) ? out : null;
}

/** The pyramid read back (its last level, the collapse, is Infinity, which JSON leaves out), or why not. */
function pyramidOf(v: unknown): CellRisk['pyramid'] | string {
  if (!Array.isArray(v)) return 'risk.pyramid must be an array';
  const out: CellRisk['pyramid'] = [];
  for (const [i, l] of v.entries()) {
    if (!isPlainObject(l)) return `risk.pyramid.${i} must be an object`;
    const level = numberOr(l.level, Infinity);
    const [trajectories, probability, conditional] = [l.trajectories, l.probability, l.conditional].map((x) => numberOr(x, NaN));
    if (level === null || trajectories == null || probability == null || conditional == null) return `risk.pyramid.${i} must hold numbers (level, trajectories, probability, conditional)`;
    out.push({ level, trajectories, probability, conditional });
  }
  return out;
}

/** The example trajectory read back, or why not. */
function exampleOf(v: unknown): CellRisk['example'] | string {
  if (v === null || v === undefined) return null;
  if (!isPlainObject(v)) return 'risk.example must be an object or null';
  const [tMs, importance, collapseMetric] = [numbers(v.tMs), numbers(v.importance), numbers(v.collapseMetric)];
  const collapseAtMs = numberOr(v.collapseAtMs, NaN);
  if (tMs === null || importance === null || collapseMetric === null || collapseAtMs === null) return 'risk.example must hold tMs, importance and collapseMetric (arrays of numbers) and collapseAtMs';
  if (importance.length !== tMs.length || collapseMetric.length !== tMs.length) return 'risk.example: tMs, importance and collapseMetric must have the same length';
  return { tMs, importance, collapseMetric, collapseAtMs };
}

/** The per-excursion part read back (null without excursions), or why not. */
function excursionsOf(v: unknown): CellRisk['excursions'] | string {
  if (v === null || v === undefined) return null;
  if (!isPlainObject(v)) return 'risk.excursions must be an object or null';
  const ci95 = numbers(v.ci95);
  const [probability, relativeError, counted, overMs, perHour] = [v.probability, v.relativeError, v.counted, v.overMs, v.perHour].map((x) => numberOr(x, NaN));
  if (ci95 === null || ci95.length !== 2 || probability == null || relativeError == null || counted == null || overMs == null || perHour == null) {
    return 'risk.excursions must hold probability, ci95 (two numbers), relativeError, counted, overMs and perHour';
  }
  return { probability, ci95: [ci95[0] as number, ci95[1] as number], relativeError, counted, overMs, perHour };
}

const METHODS: ReadonlyArray<CellRisk['method']> = RISK_METHODS;

/** A cell's estimate read back from a file, or why it is not one. */
export function cellRiskOf(v: unknown): CellRisk | string {
  if (!isPlainObject(v)) return 'risk must be an object';
  if (!METHODS.includes(v.method as CellRisk['method'])) return `risk.method must be one of ${METHODS.join(', ')}`;
  const probability = v.probability;
  if (typeof probability !== 'number' || !(probability >= 0 && probability <= 1)) return 'risk.probability must be a number from 0 to 1';
  const ci95 = numbers(v.ci95);
  if (ci95 === null || ci95.length !== 2) return 'risk.ci95 must be two numbers';
  const [relativeError, monteCarloRuns] = [numberOr(v.relativeError, NaN), numberOr(v.monteCarloRuns, NaN)];
  if (relativeError === null || monteCarloRuns === null) return 'risk.relativeError and risk.monteCarloRuns must be numbers (or null)';
  const e = v.effort;
  if (!isPlainObject(e) || !['runs', 'events', 'cpuMs', 'snapshots'].every((k) => typeof e[k] === 'number')) return 'risk.effort must hold runs, events, cpuMs and snapshots (numbers)';
  const pyramid = pyramidOf(v.pyramid);
  if (typeof pyramid === 'string') return pyramid;
  const repetitions = numbers(v.repetitions);
  if (repetitions === null) return 'risk.repetitions must be an array of numbers';
  const example = exampleOf(v.example);
  if (typeof example === 'string') return example;
  const excursions = excursionsOf(v.excursions);
  if (typeof excursions === 'string') return excursions;
  const effort = { runs: e.runs as number, events: e.events as number, cpuMs: e.cpuMs as number, snapshots: e.snapshots as number };
  return { method: v.method as CellRisk['method'], probability, ci95: [ci95[0] as number, ci95[1] as number], relativeError, monteCarloRuns, effort, pyramid, repetitions, example, excursions };
}

/**
 * A line of risk.jsonl read back: the record (NaN and Infinity restored where JSON could not hold
 * them, so a record read back writes the same bytes as the one first written), or why it is not one.
 */
export function riskRecordOf(v: unknown): RiskRecord | string {
  if (!isPlainObject(v)) return `not a record (${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v})`;
  for (const k of ['key', 'part', 'variant'] as const) if (typeof v[k] !== 'string') return `${k} must be a string`;
  if (!isPlainObject(v.params)) return 'params must be an object';
  if (typeof v.seed !== 'number') return 'seed must be a number';
  const id: RiskCellId = { key: v.key as string, part: v.part as string, variant: v.variant as string, params: v.params, seed: v.seed };
  if (v.state === 'errored') return typeof v.error === 'string' ? { ...id, state: 'errored', error: v.error } : 'error must be a string';
  if (v.state !== 'ok') return 'state must be "ok" or "errored"';
  const risk = cellRiskOf(v.risk);
  return typeof risk === 'string' ? risk : { ...id, state: 'ok', risk };
}

/** The per-excursion columns of risk.csv: empty without excursions. */
function excursionCells(e: CellRisk['excursions']): Array<number | string> {
  const num = (x: number) => (Number.isFinite(x) ? x : '');
  return e === null ? ['', '', '', ''] : [e.probability, num(e.ci95[0]), num(e.ci95[1]), num(e.perHour)];
}

/**
 * risk.csv: one row per cell in the order given (by cell key): part, variant, one column per swept
 * parameter, state, method, probability, ci95_low, ci95_high, relative_error, mc_runs (plain Monte
 * Carlo runs for the same relative error), runs, events, snapshots, and with `excursions` the
 * per-excursion probability, its interval and the excursions per hour (empty without). A number JSON cannot hold (NaN:
 * no collapse seen) is an empty field. Only computed numbers: the measured CPU time is left to
 * risk.json, so the same file and seed give the same bytes (the quick reports' risk.csv is
 * committed and compared byte for byte, as summary.csv is).
 */
export function riskCsv(records: readonly RiskRecord[]): string {
  const paramNames = [...new Set(records.flatMap((r) => Object.keys(r.params)))].sort();
  const header = ['part', 'variant', ...paramNames, 'state', 'method', 'probability', 'ci95_low', 'ci95_high', 'relative_error', 'mc_runs', 'runs', 'events', 'snapshots', 'per_excursion', 'per_excursion_ci95_low', 'per_excursion_ci95_high', 'excursions_per_hour'];
  const num = (x: number) => (Number.isFinite(x) ? x : '');
  const rows = [header.map(csvCell).join(',')];
  for (const r of records) {
    const lead = [r.part, r.variant, ...paramNames.map((p) => r.params[p]), r.state];
    if (r.state === 'errored') {
      rows.push([...lead, ...header.slice(lead.length).map(() => '')].map(csvCell).join(','));
      continue;
    }
    const x = r.risk;
    rows.push([...lead, x.method, x.probability, num(x.ci95[0]), num(x.ci95[1]), num(x.relativeError), num(x.monteCarloRuns), x.effort.runs, x.effort.events, x.effort.snapshots, ...excursionCells(x.excursions)].map(csvCell).join(','));
  }
  return rows.join('\n') + '\n';
}

/** risk.json read back (`report` rebuilds the page from it): the result, or why it is not one, naming the field. */
export function riskResultOf(v: unknown): RiskResult | string {
  if (!isPlainObject(v)) return 'not a risk result (an object)';
  for (const k of ['experiment', 'description', 'version'] as const) if (typeof v[k] !== 'string') return `${k} must be a string`;
  if (typeof v.seed !== 'number') return 'seed must be a number';
  if (!Array.isArray(v.cells)) return 'cells must be an array';
  const cells: RiskResult['cells'] = [];
  for (const [i, c] of v.cells.entries()) {
    const rec = riskRecordOf(c);
    if (typeof rec === 'string') return `cells.${i}: ${rec}`;
    const horizonMs = isPlainObject(c) ? c.horizonMs : undefined;
    if (typeof horizonMs !== 'number' || !(horizonMs > 0)) return `cells.${i}.horizonMs must be a number > 0`;
    cells.push({ ...rec, horizonMs });
  }
  const parts = riskPartsOf(v, cells);
  if (typeof parts === 'string') return parts;
  return { experiment: v.experiment as string, description: v.description as string, seed: v.seed, version: v.version as string, parts, cells };
}

/** A risk section read back, or why it is not one (naming `where` and the first problem's field). */
function sectionOf(v: unknown, where: string): RiskSection | string {
  const risk = riskSchema.safeParse(v);
  if (risk.success) return risk.data;
  return `${where} is not a valid risk section (${risk.error.issues[0]?.path.join('.') ?? ''}: ${risk.error.issues[0]?.message ?? ''})`;
}

/**
 * risk.json's parts read back (each a unique name and a valid section, every cell's part among
 * them), or why not. A risk.json with one `risk` section for every part (as written before a part
 * could carry its own) gives each cell's part that section.
 */
function riskPartsOf(v: Record<string, unknown>, cells: RiskResult['cells']): RiskResult['parts'] | string {
  const parts: RiskResult['parts'] = [];
  if (v.parts === undefined && v.risk !== undefined) {
    const risk = sectionOf(v.risk, 'risk');
    if (typeof risk === 'string') return risk;
    for (const name of new Set(cells.map((c) => c.part))) parts.push({ name, risk });
    return parts;
  }
  if (!Array.isArray(v.parts) || v.parts.length === 0) return 'parts must be a non-empty array (each part\'s name and risk section)';
  for (const [i, p] of v.parts.entries()) {
    if (!isPlainObject(p) || typeof p.name !== 'string') return `parts.${i}.name must be a string`;
    if (parts.some((q) => q.name === p.name)) return `parts.${i}.name repeats ${JSON.stringify(p.name)}`;
    const risk = sectionOf(p.risk, `parts.${i}.risk`);
    if (typeof risk === 'string') return risk;
    parts.push({ name: p.name, risk });
  }
  const stray = cells.findIndex((c) => !parts.some((p) => p.name === c.part));
  return stray < 0 ? parts : `cells.${stray}.part ${JSON.stringify(cells[stray]?.part)} is not among parts`;
}
