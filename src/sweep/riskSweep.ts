// `retrystorm risk` over a plan: one estimate per cell on the worker pool, streamed to risk.jsonl,
// shardable and resumable like a sweep, then risk.json and risk.csv in cell-key order.
import { availableParallelism } from 'node:os';
import type { Cell, ExperimentPlan } from '../experiment/index.js';
import type { RiskSection } from '../experiment/riskSchema.js';
import { VERSION } from '../version.js';
import { toJson } from './json.js';
import { isRunDir, readRiskDir } from './ResultReader.js';
import { ResultWriter } from './ResultWriter.js';
import { FINISHED_RISK_FILES, RISK_CSV_FILE, RISK_LINES_FILE, RISK_RESULT_FILE, riskCsv, type RiskRecord } from './riskRecord.js';
import { ResumeError, sameManifest, shardCells, SweepPool, type RunManifest, type ShardSpec } from './runSweep.js';
import { planCells } from './runPlan.js';
import type { RiskTask } from './riskCell.js';
import { riskCopyCeiling } from './riskMemory.js';

/** The manifest's `kind` of a risk run (a run's manifest has none). */
export const RISK_RUN_KIND = 'risk';

/** The files of a risk run's directory, for its writer. */
export const RISK_FILES = { lines: RISK_LINES_FILE, endFiles: FINISHED_RISK_FILES };

/** One part of a risk result: its name and the risk section its cells were estimated with. */
export interface RiskPart {
  name: string;
  risk: RiskSection;
}

/** risk.json: what was estimated (the plan's name, seed, and each part's risk section) and every cell's record, by cell key. */
export interface RiskResult {
  experiment: string;
  description: string;
  seed: number;
  version: string;
  /** Every part of the plan in file order, with its risk section (its own, or the file's). */
  parts: RiskPart[];
  /** Every cell in key order: its part, variant, parameters and horizon, and its record. */
  cells: Array<RiskRecord & { horizonMs: number }>;
}

/** The risk section a part's cells were estimated with (the first part's when the part is not listed). */
export function partRisk(result: { parts: readonly RiskPart[] }, part: string): RiskSection {
  const found = result.parts.find((p) => p.name === part) ?? result.parts[0];
  if (found === undefined) throw new Error('a risk result lists no part');
  return found.risk;
}

/** Progress of a risk run, reported as cells finish. */
export interface RiskProgress {
  done: number;
  total: number;
  errored: number;
  /** Cells found already done in risk.jsonl (with --resume). */
  resumed: number;
}

/** How to run a plan's risk estimates. */
export interface RiskSweepOptions {
  /** The output directory (run.json, risk.jsonl, risk.json, risk.csv). */
  outDir: string;
  /** Worker threads (default: the available parallelism); ignored with `pool`. */
  workers?: number;
  pool?: SweepPool;
  /** The memory the cells at once may hold (bytes): each copy of a run stops at its share (src/sweep/riskMemory.ts, riskCopyCeiling) and its cell errs; absent: no limit. */
  memoryLimitBytes?: number;
  shard?: ShardSpec;
  /** Keep the cells an earlier run of the same plan finished and estimate only the others. */
  resume?: boolean;
  /** The run's manifest (`runManifest`); its kind is set here. */
  manifest: Omit<RunManifest, 'shard' | 'kind'>;
  onProgress?: (p: RiskProgress) => void;
  /** Aborting stops scheduling and stops the estimates in flight; what finished is kept. */
  signal?: AbortSignal;
  /** Told of each line of an earlier risk.jsonl that is not a valid record (with --resume); that cell runs again. */
  onWarning?: (text: string) => void;
}

/** Outcome of {@link runRiskSweep}: the result (null when interrupted) and the counts. */
export interface RiskSweepResult {
  result: RiskResult | null;
  interrupted: boolean;
  total: number;
  done: number;
  errored: Array<{ key: string; error: string }>;
}

/**
 * Why `retrystorm risk` cannot estimate a plan, each naming where: no risk section at all, or a part
 * without one (neither its own nor the file's) while another part has one; none when every part has one.
 */
export function planRiskGaps(plan: ExperimentPlan): string[] {
  if (plan.parts.every((p) => p.risk === undefined)) return ['has no risk section (what retrystorm risk estimates: docs/risk.md)'];
  const withOne = plan.parts.findIndex((p) => p.risk !== undefined);
  const other = `parts.${withOne} (${JSON.stringify(plan.parts[withOne]?.name)})`;
  return plan.parts.flatMap((p, i) =>
    p.risk !== undefined ? [] : [`parts.${i} (${JSON.stringify(p.name)}) has no risk section while ${other} has one: give it its own risk, or give the file a top-level risk section, which every part without its own takes`],
  );
}

/** Every part's risk section in file order (the command line refuses a plan with gaps, `planRiskGaps`, before it gets here). */
export function planRiskParts(plan: ExperimentPlan): RiskPart[] {
  const gaps = planRiskGaps(plan);
  if (gaps.length > 0) throw new Error(`${plan.name}: ${gaps.join('; ')}`);
  return plan.parts.map((p) => ({ name: p.name, risk: p.risk as RiskSection }));
}

/**
 * Estimate every cell of a plan (its shard's) on the worker pool, one estimate per cell
 * (`runRiskCell`), each record appended to risk.jsonl as it finishes; when every cell is done,
 * risk.json and risk.csv in cell-key order, so the bytes do not depend on the workers, the shards or
 * interruptions (but for the measured `cpuMs`). With `resume`, the cells an earlier run of the same
 * plan finished are kept. With `memoryLimitBytes`, each copy of a run is held to its share of it
 * (`riskCopyCeiling`): a copy that outgrows it ends its cell as errored with the reason. Aborting `signal` stops the estimates in flight (they are not recorded)
 * and writes no result.
 */
export async function runRiskSweep(plan: ExperimentPlan, opts: RiskSweepOptions): Promise<RiskSweepResult> {
  const parts = planRiskParts(plan);
  const cells = shardCells(planCells(plan), opts.shard).map((c) => c.cell);
  const manifest: RunManifest = { ...opts.manifest, kind: RISK_RUN_KIND, shard: opts.shard ?? null };
  const writer = new ResultWriter(opts.outDir, RISK_FILES);
  const records = startRiskRecords(cells, manifest, writer, opts);
  const progress: RiskProgress = { done: records.size, total: cells.length, errored: 0, resumed: records.size };
  opts.onProgress?.({ ...progress });
  const pending = cells.filter((c) => !records.has(c.key));
  try {
    await runRiskTasks(plan.seed, parts, pending, opts, (rec) => {
      records.set(rec.key, rec);
      writer.appendJson(rec);
      progress.done++;
      if (rec.state === 'errored') progress.errored++;
      opts.onProgress?.({ ...progress });
    });
  } catch (e) {
    writer.close();
    throw e;
  }
  const errored = [...records.values()].flatMap((r) => (r.state === 'errored' ? [{ key: r.key, error: r.error }] : []));
  if (progress.done < cells.length) {
    writer.close();
    return { result: null, interrupted: true, total: cells.length, done: progress.done, errored };
  }
  const result = riskResult(plan, parts, cells, records);
  writer.writeJsonFile(RISK_RESULT_FILE, result, 2);
  writer.writeFile(RISK_CSV_FILE, riskCsv(result.cells));
  writer.close();
  return { result, interrupted: false, total: cells.length, done: progress.done, errored };
}

/** risk.json of the given cells (sorted by key) from their records, with each part's risk section. */
export function riskResult(plan: ExperimentPlan, parts: RiskPart[], cells: readonly Cell[], records: ReadonlyMap<string, RiskRecord>): RiskResult {
  const sorted = [...cells].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const out = sorted.flatMap((c) => {
    const rec = records.get(c.key);
    // Where the cell sits is the plan's, never what a file read back says.
    return rec ? [{ ...rec, key: c.key, part: c.part, variant: c.variant, params: c.params, horizonMs: c.scenario.horizonMs }] : [];
  });
  return { experiment: plan.name, description: plan.description, seed: plan.seed, version: VERSION, parts, cells: out };
}

/**
 * The records the run starts from, written to a fresh risk.jsonl: with `resume`, the `ok` records
 * of the same run's cells (a different manifest or shard refuses); an errored cell runs again.
 */
function startRiskRecords(cells: readonly Cell[], manifest: RunManifest, writer: ResultWriter, opts: RiskSweepOptions): Map<string, RiskRecord> {
  const records = new Map<string, RiskRecord>();
  if (opts.resume && isRunDir(opts.outDir)) {
    const prior = readRiskDir(opts.outDir);
    for (const p of prior.problems) opts.onWarning?.(`${opts.outDir}/${p}; that cell runs again`);
    const why = sameManifest(prior.manifest, manifest);
    if (why) throw new ResumeError(`cannot resume ${opts.outDir}: ${why}`);
    if (JSON.stringify(prior.manifest.shard) !== JSON.stringify(manifest.shard)) throw new ResumeError(`cannot resume ${opts.outDir}: it holds a different shard`);
    const wanted = new Set(cells.map((c) => c.key));
    for (const rec of prior.records) if (rec.state === 'ok' && wanted.has(rec.key)) records.set(rec.key, rec);
  }
  writer.start(toJson(manifest, 2), [...records.values()]);
  return records;
}

/**
 * Runs the cells on the worker pool (the caller's or one of its own), two in flight per thread.
 * Aborting raises the flag the estimates watch: they stop and are not recorded. A failure to
 * record stops scheduling and is thrown once the cells in flight are back.
 */
async function runRiskTasks(masterSeed: number, parts: readonly RiskPart[], cells: readonly Cell[], opts: RiskSweepOptions, record: (rec: RiskRecord) => void): Promise<void> {
  if (cells.length === 0 || opts.signal?.aborted) return;
  const interrupt = new Int32Array(new SharedArrayBuffer(4));
  const raise = () => Atomics.store(interrupt, 0, 1);
  opts.signal?.addEventListener('abort', raise, { once: true });
  const own = opts.pool ? null : new SweepPool(Math.min(opts.workers ?? availableParallelism(), cells.length));
  const pool = (opts.pool ?? own) as SweepPool;
  const threads = Math.min(pool.threads, cells.length);
  const limit = opts.memoryLimitBytes;
  let failure: unknown = null;
  let next = 0;
  const runOne = async (): Promise<void> => {
    while (next < cells.length && !opts.signal?.aborted && failure === null) {
      const cell = cells[next++] as Cell;
      const risk = partRisk({ parts }, cell.part);
      const task: RiskTask = { kind: 'risk', cell, risk, masterSeed, interrupt, ...(limit !== undefined ? { runMemoryBytes: riskCopyCeiling(limit, threads, risk) } : {}) };
      let rec: RiskRecord;
      try {
        rec = await pool.runRisk(task);
      } catch (e) {
        if (opts.signal?.aborted) continue;
        rec = { key: cell.key, part: cell.part, variant: cell.variant, params: cell.params, seed: 0, state: 'errored', error: `worker failed: ${(e as Error).message}` };
      }
      // A cell that ended before the interrupt is a whole estimate: it is kept.
      if (failure !== null) continue;
      try {
        record(rec);
      } catch (e) {
        failure = e;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: threads * 2 }, runOne));
  } finally {
    opts.signal?.removeEventListener('abort', raise);
    await own?.destroy();
  }
  if (failure !== null) throw failure;
}
