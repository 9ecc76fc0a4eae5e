import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Cell, ExperimentPlan } from '../experiment/index.js';
import type { SimulationResults } from '../model/results.js';
import { VERSION } from '../version.js';
import { summaryCsv } from './csv.js';
import { toJson } from './json.js';
import { isRunDir, readRunDir } from './ResultReader.js';
import { ResultWriter } from './ResultWriter.js';
import { runMemoryShare } from './resourceLimits.js';
import { isInterruptedRecord, planCells, summarizeCell, type CellSummary, type ReplicationRecord, type SweepSummary } from './runPlan.js';
import type { WorkerTask } from './worker.js';
import type { RiskTask } from './riskCell.js';
import type { RiskRecord } from './riskRecord.js';

/** What identifies a run, so that a resume or a merge never mixes different experiments. */
export interface RunManifest {
  experiment: string;
  seed: number;
  version: string;
  /** SHA-256 of the experiment file's text. */
  sourceSha256: string;
  /** The experiment file's text (a merge expands it again). */
  source: string;
  quick: boolean;
  set: Array<[string, unknown]>;
  /** Which slice of the cells this directory holds. */
  shard: { index: number; count: number } | null;
  /** What the directory holds: absent for a run's replications, `risk` for `retrystorm risk`'s estimates. */
  kind?: 'risk';
}

/**
 * The manifest of a run of `plan` from the experiment file's text `source` (as run: imports
 * resolved), in quick mode or not, with its `--set` overrides: what `run` and each round of `tune`
 * write in run.json, and what a resume or a merge compares.
 */
export function runManifest(plan: ExperimentPlan, source: string, quick: boolean, set: Array<[string, unknown]>): Omit<RunManifest, 'shard'> {
  return { experiment: plan.name, seed: plan.seed, version: VERSION, sourceSha256: createHash('sha256').update(source).digest('hex'), source, quick, set };
}

/** A deterministic slice of the cells: cell i (in key order) belongs to shard i mod count. */
export interface ShardSpec {
  index: number;
  count: number;
}

/** Progress of a sweep, reported as replications finish. */
export interface SweepProgress {
  done: number;
  total: number;
  errored: number;
  /** Replications found already done in results.jsonl (with --resume). */
  resumed: number;
}

export interface SweepOptions {
  /** The experiment's output directory (results.jsonl, summary.json, summary.csv, run.json). */
  outDir: string;
  /** Worker threads (default: the available parallelism). */
  workers?: number;
  shard?: ShardSpec;
  /** Keep the records of an earlier run of the same experiment and run only what is missing. */
  resume?: boolean;
  manifest: Omit<RunManifest, 'shard'>;
  onProgress?: (p: SweepProgress) => void;
  /** Aborting stops scheduling new work; work in flight finishes and is recorded. */
  signal?: AbortSignal;
  /** Tests only: make the given replication throw or kill its worker. */
  faultInjection?: (key: string, replication: number) => 'throw' | 'exit' | undefined;
  /**
   * Worker threads to run on, shared with other sweeps (`workers` is then ignored); without it the
   * sweep starts its own and stops them when it ends.
   */
  pool?: SweepPool;
  /** Told of each line of an earlier results.jsonl that is not a valid record (with --resume); that replication runs again. */
  onWarning?: (text: string) => void;
  /**
   * Records of some of these cells' replications made elsewhere (an earlier round of a search over
   * the same cells and seeds): taken as done, written to results.jsonl, not run again.
   */
  prior?: readonly ReplicationRecord[];
  /** The memory the runs at once may hold (bytes): each run stops at its share (src/sweep/resourceLimits.ts, runMemoryShare); absent: no limit. */
  memoryLimitBytes?: number;
}

/**
 * The worker threads of one or more sweeps (piscina). Sweeps that run one after another on a shared
 * pool (`run-all`) start the threads, load the modules and warm up the JIT once instead of once
 * per experiment.
 */
export class SweepPool {
  readonly threads: number;
  /** Started by the first task: runs that need no thread (a single replication) start none. */
  private pool: Piscina | null = null;

  /** `workers` threads (default: the available parallelism). */
  constructor(workers?: number) {
    this.threads = Math.max(1, workers ?? availableParallelism());
  }

  run(task: WorkerTask): Promise<ReplicationRecord> {
    return this.threadPool().run(task) as Promise<ReplicationRecord>;
  }

  /** One cell's risk estimate on a thread (`retrystorm risk`). */
  runRisk(task: RiskTask): Promise<RiskRecord> {
    return this.threadPool().run(task) as Promise<RiskRecord>;
  }

  private threadPool(): Piscina {
    if (this.pool === null) {
      const { filename, execArgv } = workerFile();
      this.pool = new Piscina({ filename, execArgv, minThreads: this.threads, maxThreads: this.threads, idleTimeout: 60_000 });
    }
    return this.pool;
  }

  /** Stop the threads, if any started. */
  async destroy(): Promise<void> {
    await this.pool?.destroy();
    this.pool = null;
  }
}

/** Outcome of {@link runSweep}. */
export interface SweepResult {
  /** Null when the sweep was interrupted before it finished. */
  summary: SweepSummary | null;
  /** The results of a plan with a single cell and replication. */
  single: SimulationResults | null;
  interrupted: boolean;
  total: number;
  done: number;
  /** Cells with at least one errored replication, with their messages. */
  errored: Array<{ key: string; errors: string[] }>;
}


/** Parse `k/n` (0 <= k < n). */
export function parseShard(text: string): ShardSpec {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !(count >= 1) || !(index < count)) {
    throw new RangeError(`--shard must be k/n with 0 <= k < n (got "${text}")`);
  }
  return { index, count };
}

/** Cells sorted by key; the shard keeps those whose position modulo count is its index. */
export function shardCells<T extends { cell: Cell }>(cells: T[], shard: ShardSpec | undefined): T[] {
  const sorted = [...cells].sort((a, b) => (a.cell.key < b.cell.key ? -1 : a.cell.key > b.cell.key ? 1 : 0));
  if (!shard) return sorted;
  return sorted.filter((_, i) => i % shard.count === shard.index);
}

function sameManifest(a: RunManifest, b: RunManifest): string | null {
  if ((a.kind ?? 'run') !== (b.kind ?? 'run')) return `one holds ${a.kind === 'risk' ? 'risk estimates' : 'a run'} and the other ${b.kind === 'risk' ? 'risk estimates' : 'a run'}`;
  if (a.experiment !== b.experiment) return `experiment "${a.experiment}" is not "${b.experiment}"`;
  if (a.sourceSha256 !== b.sourceSha256) return 'the experiment file changed';
  if (a.seed !== b.seed) return `seed ${a.seed} is not ${b.seed}`;
  if (a.version !== b.version) return `retrystorm version ${a.version} is not ${b.version}`;
  if (a.quick !== b.quick) return 'one was run with --quick and the other without';
  if (JSON.stringify(a.set) !== JSON.stringify(b.set)) return 'the --set overrides differ';
  return null;
}

export { sameManifest };

/** Build the summary of the given cells from their records (last record per replication wins). */
export function buildSummary(
  plan: ExperimentPlan,
  cells: Array<{ cell: Cell; replications: number }>,
  records: Map<string, ReplicationRecord>,
): SweepSummary {
  const summaries: CellSummary[] = [];
  for (const { cell, replications } of cells) {
    const recs: ReplicationRecord[] = [];
    for (let r = 0; r < replications; r++) {
      const rec = records.get(recordId(cell.key, r));
      if (rec) recs.push(rec);
    }
    summaries.push(summarizeCell(cell, recs));
  }
  summaries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { experiment: plan.name, description: plan.description, seed: plan.seed, version: VERSION, cells: summaries };
}

function recordId(key: string, replication: number): string {
  return `${replication}\u0000${key}`;
}

function workerFile(): { filename: string; execArgv: string[] } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    // Running from source (tests): workers load TypeScript through tsx.
    return { filename: new URL('./worker.ts', here).href, execArgv: ['--require', 'tsx/cjs'] };
  }
  return { filename: fileURLToPath(new URL('./worker.js', here)), execArgv: [] };
}

/**
 * Run every (cell, replication) of a plan on a pool of worker threads (piscina), streaming each
 * record to results.jsonl as it finishes, then write summary.json and summary.csv ordered by cell
 * key (never by finishing order) with statistics computed in replication order, so the bytes do
 * not depend on the number of workers, on sharding, or on interruptions and resumes.
 *
 * A replication that throws is recorded as errored and the sweep goes on; a worker that dies is
 * replaced by the pool and its replication is recorded as errored. Aborting `signal` stops
 * scheduling: the work in flight finishes and is recorded, results.jsonl stays valid, and a later
 * run with `resume` does only what is missing.
 */
export async function runSweep(plan: ExperimentPlan, opts: SweepOptions): Promise<SweepResult> {
  const allCells = planCells(plan);
  const cells = shardCells(allCells, opts.shard);
  const manifest: RunManifest = { ...opts.manifest, shard: opts.shard ?? null };
  const writer = new ResultWriter(opts.outDir);
  const { records, resumed } = startRecords(cells, manifest, writer, opts);
  const tasks = pendingTasks(cells, records);
  const total = cells.reduce((n, c) => n + c.replications, 0);
  const progress: SweepProgress = { done: resumed, total, errored: 0, resumed };
  opts.onProgress?.({ ...progress });
  const record = (rec: ReplicationRecord) => {
    records.set(recordId(rec.key, rec.replication), rec);
    writer.appendJson(rec);
    progress.done++;
    if (rec.state === 'errored') progress.errored++;
    opts.onProgress?.({ ...progress });
  };
  const isSingle = allCells.length === 1 && allCells[0]?.replications === 1;
  const interruptedRun = await runTasks(plan, tasks, isSingle, record, writer, opts);
  return finishSweep(plan, cells, records, { total, done: progress.done, isSingle, interruptedRun }, writer, opts);
}

/** A plan's cells as the sweep runs them (its shard's). */
type SweepCells = ReturnType<typeof planCells>;

/**
 * The records the sweep starts from, written to a fresh results.jsonl: with `resume`, the valid
 * records of the same run's wanted replications (a different manifest or shard refuses); then the
 * `prior` records given by the caller (tune's earlier rounds). `resumed` counts the successful ones.
 */
function startRecords(cells: SweepCells, manifest: RunManifest, writer: ResultWriter, opts: SweepOptions): { records: Map<string, ReplicationRecord>; resumed: number } {
  const records = new Map<string, ReplicationRecord>();
  const wanted = () => new Set(cells.flatMap(({ cell, replications }) => Array.from({ length: replications }, (_, r) => recordId(cell.key, r))));
  let resumed = 0;
  if (opts.resume && isRunDir(opts.outDir)) {
    const prior = readRunDir(opts.outDir);
    for (const p of prior.problems) opts.onWarning?.(`${opts.outDir}/${p}; that replication runs again`);
    const why = sameManifest(prior.manifest, manifest);
    if (why) throw new ResumeError(`cannot resume ${opts.outDir}: ${why}`);
    if (JSON.stringify(prior.manifest.shard) !== JSON.stringify(manifest.shard)) {
      throw new ResumeError(`cannot resume ${opts.outDir}: it holds a different shard`);
    }
    const ids = wanted();
    for (const rec of prior.records) {
      const id = recordId(rec.key, rec.replication);
      if (ids.has(id) && !isInterruptedRecord(rec)) records.set(id, rec);
    }
    // Rewrite the file with the records kept (valid lines only), then append.
    writer.start(toJson(manifest, 2), [...records.values()]);
    for (const rec of records.values()) if (rec.state === 'ok') resumed++;
  } else {
    writer.start(toJson(manifest, 2), []);
  }
  if (opts.prior && opts.prior.length > 0) {
    const ids = wanted();
    for (const rec of opts.prior) {
      const id = recordId(rec.key, rec.replication);
      if (rec.state !== 'ok' || !ids.has(id) || records.get(id)?.state === 'ok') continue;
      records.set(id, rec);
      writer.appendJson(rec);
      resumed++;
    }
  }
  return { records, resumed };
}

/** One replication of one cell to run. */
interface SweepTask {
  cell: Cell;
  replication: number;
}

/** The replications without a successful record, in cell then replication order. */
function pendingTasks(cells: SweepCells, records: ReadonlyMap<string, ReplicationRecord>): SweepTask[] {
  const tasks: SweepTask[] = [];
  for (const { cell, replications } of cells) {
    for (let r = 0; r < replications; r++) {
      const prev = records.get(recordId(cell.key, r));
      if (prev && prev.state === 'ok') continue;
      tasks.push({ cell, replication: r });
    }
  }
  return tasks;
}

/**
 * Runs the tasks on the worker pool (the caller's, or one of its own), two in flight per thread,
 * each finished record passed to `record`. Every replication runs in a worker thread, so that the
 * main thread stays free to receive a signal; aborting raises the flag the workers' run loops
 * watch, and the runs in flight stop. Returns the run the interrupt cut short when the plan is
 * that single run (kept and written), else null.
 */
async function runTasks(
  plan: ExperimentPlan,
  tasks: readonly SweepTask[],
  isSingle: boolean,
  record: (rec: ReplicationRecord) => void,
  writer: ResultWriter,
  opts: SweepOptions,
): Promise<ReplicationRecord | null> {
  const interrupt = new Int32Array(new SharedArrayBuffer(4));
  const raise = () => Atomics.store(interrupt, 0, 1);
  if (opts.signal?.aborted) raise();
  opts.signal?.addEventListener('abort', raise, { once: true });
  let interruptedRun: ReplicationRecord | null = null;
  if (tasks.length === 0 || opts.signal?.aborted) {
    opts.signal?.removeEventListener('abort', raise);
    return null;
  }
  const own = opts.pool ? null : new SweepPool(Math.min(opts.workers ?? availableParallelism(), tasks.length));
  const pool = (opts.pool ?? own) as SweepPool;
  const threads = Math.min(pool.threads, tasks.length);
  const runMemoryBytes = opts.memoryLimitBytes === undefined ? Infinity : runMemoryShare(opts.memoryLimitBytes, threads);
  // A failure to record (an unwritable or full output) stops scheduling; the tasks in flight are
  // awaited before an own pool is destroyed, then the failure is thrown.
  let failure: unknown = null;
  try {
    let next = 0;
    const runOne = async (): Promise<void> => {
      while (next < tasks.length && !opts.signal?.aborted && failure === null) {
        const t = tasks[next++] as SweepTask;
        const fault = opts.faultInjection?.(t.cell.key, t.replication);
        const task: WorkerTask = { cell: t.cell, replication: t.replication, masterSeed: plan.seed, interrupt, runMemoryBytes, ...(fault ? { fault } : {}) };
        let rec: ReplicationRecord;
        try {
          rec = await pool.run(task);
        } catch (e) {
          if (opts.signal?.aborted) continue;
          rec = {
            state: 'errored',
            key: t.cell.key,
            part: t.cell.part,
            variant: t.cell.variant,
            params: t.cell.params,
            replication: t.replication,
            seed: 0,
            error: `worker failed: ${(e as Error).message}`,
          };
        }
        if (failure !== null) continue;
        // A run the interrupt cut short is kept only when it is the whole plan (a single run);
        // in a sweep it runs again with --resume.
        try {
          if (!isInterruptedRecord(rec)) record(rec);
          else if (isSingle) {
            interruptedRun = rec;
            writer.appendJson(rec);
          }
        } catch (e) {
          failure = e;
        }
      }
    };
    // Two tasks in flight per thread keeps every worker busy without queueing the whole sweep.
    await Promise.all(Array.from({ length: threads * 2 }, runOne));
  } finally {
    opts.signal?.removeEventListener('abort', raise);
    await own?.destroy();
  }
  if (failure !== null) {
    writer.close();
    throw failure;
  }
  return interruptedRun;
}

/**
 * The end of a sweep: an interrupted one keeps its records (and a single run cut short its
 * results.json) and writes no summary; a finished one writes summary.json and summary.csv (and a
 * single run's results.json). The writer is closed either way.
 */
function finishSweep(
  plan: ExperimentPlan,
  cells: SweepCells,
  records: Map<string, ReplicationRecord>,
  run: { total: number; done: number; isSingle: boolean; interruptedRun: ReplicationRecord | null },
  writer: ResultWriter,
  opts: SweepOptions,
): SweepResult {
  const { total, done, isSingle, interruptedRun } = run;
  const interrupted = done < total && (opts.signal?.aborted ?? false);
  const errored: Array<{ key: string; errors: string[] }> = [];
  if (interrupted || interruptedRun !== null) {
    let single: SimulationResults | null = null;
    if (interruptedRun !== null) {
      single = (interruptedRun as Extract<ReplicationRecord, { state: 'ok' }>).results;
      writer.writeJsonFile('results.json', { experiment: plan.name, ...single }, 2);
    }
    writer.close();
    return { summary: null, single, interrupted: true, total, done, errored };
  }
  const summary = buildSummary(plan, cells, records);
  for (const c of summary.cells) if (c.state === 'errored') errored.push({ key: c.key, errors: c.errors });
  writer.writeJsonFile('summary.json', summary, 2);
  writer.writeFile('summary.csv', summaryCsv(summary));
  let single: SimulationResults | null = null;
  if (isSingle && cells.length === 1) {
    const only = cells[0] as { cell: Cell };
    const rec = records.get(recordId(only.cell.key, 0));
    if (rec && rec.state === 'ok') {
      single = rec.results;
      writer.writeJsonFile('results.json', { experiment: plan.name, ...single }, 2);
    }
  }
  writer.close();
  return { summary, single, interrupted: false, total, done, errored };
}

/** A resume that would mix different runs. */
export class ResumeError extends Error {}
