/**
 * Reads a sweep's result files back, to resume a run or merge shards. With ResultWriter.ts (which
 * writes them) and src/cli, the only code that touches files.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { ReplicationRecord } from './runPlan.js';
import type { RunManifest } from './runSweep.js';

/** The manifest of a run directory (what identifies the run). */
export const RUN_FILE = 'run.json';
/** The results of a run directory: one replication record a line. */
export const RESULTS_FILE = 'results.jsonl';

/** Whether `dir` holds a run (has its manifest). */
export function isRunDir(dir: string): boolean {
  return existsSync(`${dir}/${RUN_FILE}`);
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

/**
 * Read a run directory's manifest and its valid result records. A line that is not a valid record
 * (a line torn by a crash, a `null`, a record missing fields) is left out, so that replication
 * counts as missing, and reported in `problems` with its line number.
 */
export function readRunDir(dir: string): { manifest: RunManifest; records: ReplicationRecord[]; problems: string[] } {
  let manifest: RunManifest;
  try {
    manifest = JSON.parse(readFileSync(`${dir}/${RUN_FILE}`, 'utf8')) as RunManifest;
  } catch (e) {
    throw new RunDirError(`${dir}: not a retrystorm run directory (${RUN_FILE} cannot be read: ${(e as Error).message})`);
  }
  if (!isPlainObject(manifest)) throw new RunDirError(`${dir}/${RUN_FILE}: not a run manifest (an object)`);
  const records: ReplicationRecord[] = [];
  const problems: string[] = [];
  if (existsSync(`${dir}/${RESULTS_FILE}`)) {
    const lines = readFileSync(`${dir}/${RESULTS_FILE}`, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        // The last line cut short by a crash is expected; it runs again without a word.
        if (i < lines.length - 1) problems.push(`${RESULTS_FILE} line ${i + 1}: not valid JSON`);
        return;
      }
      const why = recordProblem(value);
      if (why === null) records.push(value as ReplicationRecord);
      else problems.push(`${RESULTS_FILE} line ${i + 1}: ${why}`);
    });
  }
  return { manifest, records, problems };
}
