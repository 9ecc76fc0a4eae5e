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

/** Read a run directory's manifest and its valid result records (a torn last line is ignored). */
export function readRunDir(dir: string): { manifest: RunManifest; records: ReplicationRecord[] } {
  const manifest = JSON.parse(readFileSync(`${dir}/${RUN_FILE}`, 'utf8')) as RunManifest;
  const records: ReplicationRecord[] = [];
  if (existsSync(`${dir}/${RESULTS_FILE}`)) {
    for (const line of readFileSync(`${dir}/${RESULTS_FILE}`, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        records.push(JSON.parse(line) as ReplicationRecord);
      } catch {
        /* a line cut short by a crash: that replication runs again */
      }
    }
  }
  return { manifest, records };
}

