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

/**
 * Peak memory of running `plan` on `workers` threads: the base, the largest run times the runs at
 * once (the clients of all its workloads x {@link CLIENT_BYTES}, or for a service graph what its
 * operations in flight and its caches can hold if that is more, at most `runCeilingBytes`, where the
 * memory meter stops a run; plus its series values x {@link RUN_VALUE_BYTES}), and every run's series values x
 * {@link HELD_VALUE_BYTES}, which the main thread keeps for the summary.
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
      const s = seriesShape(c.scenario, spans?.get(c) ?? nominalSpan(c.scenario));
      const values = s.bins * (1 + s.counts + s.gauges + s.serviceSeries);
      const cellClients = scenarioClients(c.scenario);
      let graph = 0;
      if (c.scenario.graph !== undefined) {
        const f = graphFootprint(c.scenario);
        const can = f.perOperationBytes * Math.min(f.operations, operationsAtMost(c.scenario)) + f.cacheBytes;
        graph = Math.min(can, runCeilingBytes);
        if (can > runCeilingBytes) graphCapped = true;
      }
      // A client's bytes count its operation in flight: a graph's operations hold more (their calls downstream).
      const run = Math.max(cellClients * CLIENT_BYTES, graph) + values * RUN_VALUE_BYTES;
      if (run > perRunBytes) {
        perRunBytes = run;
        graphBytes = graph;
      }
      clients = Math.max(clients, cellClients);
      heldBytes += p.replications * values * HELD_VALUE_BYTES;
      runs += p.replications;
    }
  }
  const concurrent = Math.max(1, Math.min(workers, runs));
  return { bytes: BASE_MEMORY_BYTES + concurrent * perRunBytes + heldBytes, clients, perRunBytes, concurrent, heldBytes, graphBytes, graphCapped };
}
