import type { Cell, ExperimentPlan } from '../experiment/index.js';
import { replicationSeed } from '../experiment/index.js';
import { watchInterrupt } from '../engine/interrupt.js';
import { watchRunMemory } from '../engine/memoryMeter.js';
import { Model } from '../model/Model.js';
import type { ServiceResult, SimulationResults, Truncation } from '../model/results.js';
import type { CacheResult } from '../model/graph/CallCache.js';
import type { CascadeEvent } from '../metrics/cascadeTimeline.js';
import { aggregateMetrics, meanSeries, type MetricStats } from './aggregate.js';
import { flattenMetrics } from './flattenMetrics.js';

/** One (cell, replication) run as it is streamed to results.jsonl. */
export type ReplicationRecord =
  | {
      state: 'ok';
      key: string;
      part: string;
      variant: string;
      params: Record<string, unknown>;
      replication: number;
      seed: number;
      metrics: Record<string, number>;
      results: SimulationResults;
    }
  | {
      state: 'errored';
      key: string;
      part: string;
      variant: string;
      params: Record<string, unknown>;
      replication: number;
      seed: number;
      error: string;
    };

/** One cell of summary.json: statistics across replications, the resolved scenario, the series. */
export interface CellSummary {
  key: string;
  part: string;
  variant: string;
  params: Record<string, unknown>;
  state: 'ok' | 'errored';
  replications: number;
  errors: string[];
  metrics: Record<string, MetricStats>;
  scenario: Cell['scenario'];
  /** The series of replication 0 (a typical run) and the mean across replications. */
  timeSeries: { typical: SimulationResults['timeSeries'] | null; mean: Record<string, number[]> | null };
  /** Service graphs only: replication 0's per-service series and cascade timeline (the typical run's, as `timeSeries.typical`). */
  graph?: GraphSummary;
  /**
   * Every metric of every finished replication, in replication order (null where a replication did
   * not measure it), so that two cells of the same sweep point, which share their common random
   * numbers replication by replication, can be compared pair by pair.
   */
  samples: { replications: number[]; values: Record<string, Array<number | null>> };
}

/** What a cell of a service graph keeps of its typical run (replication 0) for the report: each service's series (and its caches' lookups and hits per bin), the cascade timeline. */
export interface GraphSummary {
  services: Array<{ service: string; timeSeries: ServiceResult['timeSeries']; caches?: Record<string, CacheResult['timeSeries']> }>;
  cascade: CascadeEvent[];
  /** The shared cache tiers' lookups and hits per bin, by name (graphs with shared tiers only). */
  caches?: Record<string, CacheResult['timeSeries']>;
}

/** What a summary keeps of a graph run for the report ({@link GraphSummary}); undefined for a run without services. */
export function graphSummary(r: SimulationResults): GraphSummary | undefined {
  if (!r.services) return undefined;
  return {
    services: r.services.map((x) => ({
      service: x.service,
      timeSeries: x.timeSeries,
      ...(x.caches ? { caches: Object.fromEntries(Object.entries(x.caches).map(([name, c]) => [name, c.timeSeries])) } : {}),
    })),
    cascade: r.cascade ?? [],
    ...(r.caches ? { caches: Object.fromEntries(Object.entries(r.caches).map(([name, c]) => [name, c.timeSeries])) } : {}),
  };
}

/** summary.json. */
export interface SweepSummary {
  experiment: string;
  description: string;
  seed: number;
  version: string;
  cells: CellSummary[];
}

/**
 * The `truncated` value of a run stopped by an interrupt (Ctrl-C, SIGTERM): its counts stop where
 * the signal found it. A sweep keeps such a record only for a single run; `--resume` and `merge`
 * treat it as missing.
 */
export const INTERRUPTED: Truncation = 'interrupted';

/** Whether a record holds a run cut short by an interrupt (see {@link INTERRUPTED}). */
export function isInterruptedRecord(rec: ReplicationRecord): boolean {
  return rec.state === 'ok' && rec.results.truncated === INTERRUPTED;
}

/**
 * Run one replication of one cell: the unit of work a sweep schedules. A run that throws becomes an
 * `errored` record. With `interrupt` (a shared flag, see src/engine/interrupt.ts), raising the flag
 * stops the run within a few milliseconds; a run it stopped is returned with `truncated:
 * "interrupted"` ({@link INTERRUPTED}). A run whose tables would grow past `runMemoryBytes` stops
 * there (`truncated: "memory-cap"`, src/engine/memoryMeter.ts).
 */
export function runReplication(
  cell: Cell,
  replication: number,
  masterSeed: number,
  injectFault = false,
  interrupt: Int32Array | null = null,
  runMemoryBytes = Infinity,
): ReplicationRecord {
  const seed = replicationSeed(masterSeed, cell.part, cell.params, replication);
  try {
    if (injectFault) throw new Error(`injected fault in ${cell.key} replication ${replication}`);
    watchInterrupt(interrupt);
    watchRunMemory(runMemoryBytes);
    let raw: SimulationResults;
    try {
      raw = new Model(cell.scenario, { seed }).run();
    } finally {
      watchInterrupt(null);
      watchRunMemory(Infinity);
    }
    // The engine ends an interrupted run as a stop (which the model reports as its in-flight cap).
    if (interrupt !== null && Atomics.load(interrupt, 0) !== 0 && raw.truncated === 'in-flight-cap') {
      const unfinished = raw.operations.unfinished;
      raw.truncated = INTERRUPTED;
      raw.truncatedReason = `interrupted at ${raw.simulatedMs.toFixed(1)} ms with ${unfinished} operations unfinished`;
    }
    // Version, master seed, replication and its seed first, then the run's fields in the run's order.
    // Spreading the whole run keeps version and seed in their places (the spread rewrites version with
    // the same value and seed with the derived one; the master seed is put back below), and costs half
    // of copying the run without those two first.
    const results: SimulationResults = {
      version: raw.version,
      seed: masterSeed,
      replication,
      replicationSeed: seed,
      ...(raw as Omit<SimulationResults, 'version' | 'seed'>),
    };
    results.seed = masterSeed;
    const metrics = flattenMetrics(results);
    return { state: 'ok', key: cell.key, part: cell.part, variant: cell.variant, params: cell.params, replication, seed, metrics, results };
  } catch (e) {
    const error = (e as Error).message;
    return { state: 'errored', key: cell.key, part: cell.part, variant: cell.variant, params: cell.params, replication, seed, error };
  }
}

/** The series of a run's results that a cell's summary averages over its replications (`timeSeries.mean`). */
export const SERIES_KEYS = ['arrivalsFirst', 'arrivalsRetry', 'successes', 'failures', 'goodputPerSec', 'queue', 'inFlight', 'busy', 'writes'] as const;

/** Summarise one cell from its replication records (any order in; replication order used). */
export function summarizeCell(cell: Cell, records: ReplicationRecord[]): CellSummary {
  const sorted = [...records].sort((a, b) => a.replication - b.replication);
  const ok = sorted.filter((r): r is Extract<ReplicationRecord, { state: 'ok' }> => r.state === 'ok');
  const errors = sorted.filter((r) => r.state === 'errored').map((r) => `replication ${r.replication}: ${(r as { error: string }).error}`);
  const first = ok.find((r) => r.replication === 0)?.results;
  const typical = first?.timeSeries ?? null;
  let mean: Record<string, number[]> | null = null;
  if (ok.length > 0) {
    mean = {};
    for (const k of SERIES_KEYS) {
      const s = ok.map((r) => r.results.timeSeries[k]).filter((x): x is number[] => Array.isArray(x));
      if (s.length > 0) mean[k] = meanSeries(s);
    }
  }
  const metrics = aggregateMetrics(ok.map((r) => r.metrics));
  return {
    key: cell.key,
    part: cell.part,
    variant: cell.variant,
    params: cell.params,
    state: errors.length > 0 ? 'errored' : 'ok',
    replications: ok.length,
    errors,
    metrics,
    scenario: cell.scenario,
    timeSeries: { typical, mean },
    ...(first?.services ? { graph: graphSummary(first) } : {}),
    samples: {
      replications: ok.map((r) => r.replication),
      values: Object.fromEntries(Object.keys(metrics).map((k) => [k, ok.map((r) => r.metrics[k] ?? null)])),
    },
  };
}

/** Every cell of the plan, in plan order, with its replication count. */
export function planCells(plan: ExperimentPlan): Array<{ cell: Cell; replications: number }> {
  return plan.parts.flatMap((p) => p.cells.map((cell) => ({ cell, replications: p.replications })));
}
