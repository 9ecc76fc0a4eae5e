/**
 * Reads a sweep's result files back, to resume a run or merge shards. With ResultWriter.ts (which
 * writes them) and src/cli, the only code that touches files.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { fsErrorWords, isFsError, shownPath } from './fileErrors.js';
import { JsonChunkError, JsonChunkParser } from './jsonStream.js';
import type { ReplicationRecord } from './runPlan.js';
import type { RunManifest } from './runSweep.js';
import { RISK_LINES_FILE, riskRecordOf, type RiskRecord } from './riskRecord.js';

/** The manifest of a run directory (what identifies the run). */
export const RUN_FILE = 'run.json';
/** The results of a run directory: one replication record a line. */
export const RESULTS_FILE = 'results.jsonl';
/** The files a run writes when it ends (a sweep's summaries, a single run's results); a new run starts by removing them. */
export const RUN_END_FILES = ['summary.json', 'summary.csv', 'results.json'] as const;
/**
 * The files only a finished run has: its summaries, written once every replication is done (an
 * interrupted single run leaves a partial results.json and no summary). A directory with any of
 * them holds a finished run, which a new run must not erase.
 */
export const FINISHED_RUN_FILES = ['summary.json', 'summary.csv'] as const;

/** Whether `dir` holds a run (has its manifest). */
export function isRunDir(dir: string): boolean {
  return existsSync(`${dir}/${RUN_FILE}`);
}

/** What a run directory holds by its manifest's `kind`: a run's replications or `retrystorm risk`'s estimates (null: no readable manifest). */
export function runDirKind(dir: string): 'run' | 'risk' | null {
  try {
    const m = JSON.parse(readFileSync(`${dir}/${RUN_FILE}`, 'utf8')) as unknown;
    return isPlainObject(m) && m.kind === 'risk' ? 'risk' : 'run';
  } catch {
    return null;
  }
}

/** A run directory whose manifest cannot be read: an input error. */
export class RunDirError extends Error {}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Why a value parsed from a line of results.jsonl is not a replication record, or null when it is
 * one: the fields every record has (state, key, part, variant, params, replication, seed), an
 * `errored` record's error, and an `ok` record's metrics (numbers) and results (with its
 * operations and time series, which the summary reads).
 */
export function recordProblem(v: unknown): string | null {
  if (!isPlainObject(v)) return `not a record (${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v})`;
  if (v.state !== 'ok' && v.state !== 'errored') return 'state must be "ok" or "errored"';
  for (const k of ['key', 'part', 'variant'] as const) if (typeof v[k] !== 'string') return `${k} must be a string`;
  if (!isPlainObject(v.params)) return 'params must be an object';
  if (!Number.isInteger(v.replication) || (v.replication as number) < 0) return 'replication must be a non-negative integer';
  if (typeof v.seed !== 'number') return 'seed must be a number';
  if (v.state === 'errored') return typeof v.error === 'string' ? null : 'error must be a string';
  if (!isPlainObject(v.metrics) || !Object.values(v.metrics).every((x) => typeof x === 'number')) return 'metrics must be an object of numbers';
  const r = v.results;
  if (!isPlainObject(r)) return 'results must be an object';
  if (!isPlainObject(r.operations)) return 'results.operations must be an object';
  if (!isPlainObject(r.timeSeries)) return 'results.timeSeries must be an object';
  return null;
}

/** A run directory's manifest (run.json), or a RunDirError saying why it cannot be read. */
function readManifest(dir: string): RunManifest {
  let manifest: RunManifest;
  try {
    manifest = JSON.parse(readFileSync(`${dir}/${RUN_FILE}`, 'utf8')) as RunManifest;
  } catch (e) {
    throw new RunDirError(`${shownPath(dir)}: not a retrystorm run directory (${RUN_FILE} cannot be read: ${isFsError(e) ? fsErrorWords(e) : (e as Error).message})`);
  }
  if (!isPlainObject(manifest)) throw new RunDirError(`${shownPath(`${dir}/${RUN_FILE}`)}: not a run manifest (an object)`);
  return manifest;
}

/**
 * Read a run directory's manifest and its valid result records. A line that is not a valid record
 * (a line torn by a crash, a `null`, a record missing fields) is left out, so that replication
 * counts as missing, and reported in `problems` with its line number.
 */
export function readRunDir(dir: string): { manifest: RunManifest; records: ReplicationRecord[]; problems: string[] } {
  const manifest = readManifest(dir);
  const records: ReplicationRecord[] = [];
  const problems: string[] = [];
  if (existsSync(`${dir}/${RESULTS_FILE}`)) {
    forEachJsonLine(`${dir}/${RESULTS_FILE}`, (parse, lineNo, last) => {
      let value: unknown;
      try {
        value = parse();
      } catch {
        // The last line cut short by a crash is expected; it runs again without a word.
        if (!last) problems.push(`${RESULTS_FILE} line ${lineNo}: not valid JSON`);
        return;
      }
      if (value === BLANK) return;
      const why = recordProblem(value);
      if (why === null) records.push(value as ReplicationRecord);
      else problems.push(`${RESULTS_FILE} line ${lineNo}: ${why}`);
    });
  }
  return { manifest, records, problems };
}

/**
 * Read a risk run's directory (`retrystorm risk`): its manifest and the valid records of
 * risk.jsonl. A line that is not a valid record is left out, so that cell counts as not done, and
 * reported in `problems` with its line number (a last line cut short by a crash, silently).
 */
export function readRiskDir(dir: string): { manifest: RunManifest; records: RiskRecord[]; problems: string[] } {
  const manifest = readManifest(dir);
  const records: RiskRecord[] = [];
  const problems: string[] = [];
  if (existsSync(`${dir}/${RISK_LINES_FILE}`)) {
    forEachJsonLine(`${dir}/${RISK_LINES_FILE}`, (parse, lineNo, last) => {
      let value: unknown;
      try {
        value = parse();
      } catch {
        if (!last) problems.push(`${RISK_LINES_FILE} line ${lineNo}: not valid JSON`);
        return;
      }
      if (value === BLANK) return;
      const rec = riskRecordOf(value);
      if (typeof rec === 'string') problems.push(`${RISK_LINES_FILE} line ${lineNo}: ${rec}`);
      else records.push(rec);
    });
  }
  return { manifest, records, problems };
}

/** Texts up to this many bytes are decoded into one string and given to JSON.parse; longer ones are parsed in chunks. */
const ONE_STRING_BYTES = 256 * 1024 * 1024;
/** Bytes read at a time. */
const READ_BYTES = 16 * 1024 * 1024;
/** What a line of only whitespace parses to (it is skipped). */
export const BLANK: unique symbol = Symbol('blank line');

/** Parse the bytes of `parts` (in order) as one JSON value, in one string when short enough. */
function parseBytes(parts: Buffer[], total: number, oneString: number): unknown {
  if (total <= oneString) {
    const text = (parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, total)).toString('utf8');
    if (text.trim() === '') return BLANK;
    return JSON.parse(text) as unknown;
  }
  let i = 0;
  return new JsonChunkParser(() => (i < parts.length ? (parts[i++] as Buffer) : null)).parse();
}

/**
 * Call `each` for every line of a file (lines of any length, read in chunks): `parse()` gives the
 * line's JSON value (or {@link BLANK}) and throws on invalid JSON; `last` is true for text after
 * the final newline.
 */
export function forEachJsonLine(path: string, each: (parse: () => unknown, lineNo: number, last: boolean) => void, oneString = ONE_STRING_BYTES): void {
  const fd = openSync(path, 'r');
  try {
    let parts: Buffer[] = [];
    let total = 0;
    let lineNo = 1;
    for (;;) {
      const buf = Buffer.allocUnsafe(READ_BYTES);
      const n = readSync(fd, buf, 0, READ_BYTES, null);
      if (n === 0) break;
      let start = 0;
      for (;;) {
        const nl = buf.indexOf(0x0a, start);
        if (nl < 0 || nl >= n) break;
        const piece = buf.subarray(start, nl);
        const line = [...parts, piece];
        const size = total + piece.length;
        each(() => parseBytes(line, size, oneString), lineNo++, false);
        parts = [];
        total = 0;
        start = nl + 1;
      }
      if (start < n) {
        parts.push(buf.subarray(start, n));
        total += n - start;
      }
    }
    if (total > 0) each(() => parseBytes(parts, total, oneString), lineNo, true);
  } finally {
    closeSync(fd);
  }
}

/** A JSON file of any size: one string and JSON.parse when it is short enough, parsed in chunks when not. */
export function readJsonFile(path: string, oneString = ONE_STRING_BYTES): unknown {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size <= oneString) return JSON.parse(readFileSync(fd, 'utf8')) as unknown;
    const parser = new JsonChunkParser(() => {
      const buf = Buffer.allocUnsafe(READ_BYTES);
      const n = readSync(fd, buf, 0, READ_BYTES, null);
      return n === 0 ? null : buf.subarray(0, n);
    });
    try {
      return parser.parse();
    } catch (e) {
      if (e instanceof JsonChunkError) throw new SyntaxError(`${e.why} (at byte ${e.offset})`, { cause: e });
      throw e;
    }
  } finally {
    closeSync(fd);
  }
}
