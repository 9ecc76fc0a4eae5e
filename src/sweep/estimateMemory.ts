import type { Cell, ExperimentPlan } from '../experiment/index.js';
import { graphFootprint } from '../model/graph/graphFootprint.js';
import { scenarioClients, type Scenario } from '../model/scenario.js';
import { estimateWork } from './estimateWork.js';
import { nominalSpan, seriesShape, type SeriesSpan } from './estimateOutput.js';

/**
 * Memory of a process and its workers before any run: 142 MB peak resident for a run of 10^4 closed-loop
 * clients (Node 20, `simulate` in one process, /usr/bin/time's maximum resident size).
 */
export const BASE_MEMORY_BYTES = 150e6;

/**
 * Memory per client: a closed loop of 1000 ms think time over 2 s against a server that never queues
 * (every client with an operation in flight: its random streams, frame, request and events) peaked at
 * 436 MB resident with 10^6 clients and 1050 MB with 3 x 10^6, (1050 - 436) MB / 2 x 10^6 = 307 bytes
 * per client (typed-array columns grow by doubling, so part of it is spare capacity). Open loops hold
 * fewer operations in flight; the same figure is their upper bound.
 */
export const CLIENT_BYTES = 300;

/**
 * Memory per time-series value: 8 bytes of Float64Array while a run measures, 8 in the results'
 * arrays it returns and about as much in its line's JSON text (worker); the main thread keeps every
 * replication's records (8 bytes per parsed number) until it writes the summary.
 */
export const RUN_VALUE_BYTES = 24;
export const HELD_VALUE_BYTES = 8;

/**
 * The operations a run offers at the most: its estimated operations (an open loop's are a Poisson
 * count) plus five standard deviations. No more than these can be in flight at once.
 */
function operationsAtMost(sc: Scenario): number {
  const n = estimateWork(sc).operations;
  return Math.ceil(n + 5 * Math.sqrt(n)) + 1;
}

/** The estimated peak memory of running a plan. */
export interface MemoryEstimate {
  bytes: number;
  /** The most clients of one run (all its workloads together), and the bytes of the largest run. */
  clients: number;
  perRunBytes: number;
  /** Runs at once (workers, at most the runs). */
  concurrent: number;
  /** Series the main thread holds until the summary is written. */
  heldBytes: number;
  /**
   * Service graphs: what the largest run's tables can hold (its operations in flight and its caches,
   * src/model/graph/graphFootprint.ts), at most the memory ceiling of a run; 0 without a graph.
   */
  graphBytes: number;
  /** The graph's operations in flight could hold more than the run's ceiling: the ceiling stops it. */
  graphCapped: boolean;
}

/** What one run of a scenario holds at the most ({@link runMemory}). */
export interface RunMemoryEstimate {
  /** Its bytes: its clients' (or its graph's) and its series values'. */
  bytes: number;
  /** Its clients (all its workloads together). */
  clients: number;
  /** Its series values (bins x series). */
  values: number;
  /** A service graph's operations in flight and caches, at most `runCeilingBytes` (0 without a graph). */
  graphBytes: number;
  /** The graph could hold more than `runCeilingBytes`: the memory meter stops it there. */
  graphCapped: boolean;
}

/**
 * The most one run of `sc` holds: the clients of all its workloads x {@link CLIENT_BYTES}, or for
 * a service graph what its operations in flight and its caches can hold if that is more, at most
 * `runCeilingBytes` (where the memory meter stops a run); plus its series values (over `span`) x
 * {@link RUN_VALUE_BYTES}. The one estimate of a run's memory: `run`'s plans and `risk`'s copies
 * of a run (src/sweep/riskMemory.ts) both use it.
 */
export function runMemory(sc: Scenario, span: SeriesSpan, runCeilingBytes = Infinity): RunMemoryEstimate {
  const s = seriesShape(sc, span);
  const values = s.bins * (1 + s.counts + s.gauges + s.serviceSeries);
  const clients = scenarioClients(sc);
  let graphBytes = 0;
  let graphCapped = false;
  if (sc.graph !== undefined) {
    const f = graphFootprint(sc);
    const can = f.perOperationBytes * Math.min(f.operations, operationsAtMost(sc)) + f.cacheBytes;
    graphBytes = Math.min(can, runCeilingBytes);
    if (can > runCeilingBytes) graphCapped = true;
  }
  // A client's bytes count its operation in flight: a graph's operations hold more (their calls downstream).
  return { bytes: Math.max(clients * CLIENT_BYTES, graphBytes) + values * RUN_VALUE_BYTES, clients, values, graphBytes, graphCapped };
}

/**
 * Peak memory of running `plan` on `workers` threads: the base, the largest run ({@link runMemory})
 * times the runs at once, and every run's series values x {@link HELD_VALUE_BYTES}, which the main
 * thread keeps for the summary.
 */
export function estimateMemory(plan: ExperimentPlan, workers: number, spans?: Map<Cell, SeriesSpan>, runCeilingBytes = Infinity): MemoryEstimate {
  let perRunBytes = 0;
  let graphBytes = 0;
  let graphCapped = false;
  let clients = 0;
  let heldBytes = 0;
  let runs = 0;
  for (const p of plan.parts) {
    for (const c of p.cells) {
      const run = runMemory(c.scenario, spans?.get(c) ?? nominalSpan(c.scenario), runCeilingBytes);
      if (run.graphCapped) graphCapped = true;
      if (run.bytes > perRunBytes) {
        perRunBytes = run.bytes;
        graphBytes = run.graphBytes;
      }
      clients = Math.max(clients, run.clients);
      heldBytes += p.replications * run.values * HELD_VALUE_BYTES;
      runs += p.replications;
    }
  }
  const concurrent = Math.max(1, Math.min(workers, runs));
  return { bytes: BASE_MEMORY_BYTES + concurrent * perRunBytes + heldBytes, clients, perRunBytes, concurrent, heldBytes, graphBytes, graphCapped };
}
