import { CASCADE_BIN_MS, cascadeTimeline, MAX_SERIES_BINS, type CascadeEvent, type ServiceBins } from '../../metrics/index.js';
import { ServerFarm } from '../leaves/server/ServerFarm.js';
import type { FleetSeriesInput, Measurements } from '../Measurements.js';
import type { MetricWindowResult, WindowEdgeResult } from '../../metrics/MetricWindows.js';
import type { EdgeResult, EdgeWorkloadCalls, SimulationResults, WorkloadResult } from '../results.js';
import type { ServiceLeaf } from './ServiceLeaf.js';
import type { ServiceRuntime } from './ServiceRuntime.js';

// The parts of a graph run's results that its services and call stacks give at the end of the run
// (GraphRun.run): the edges, each fleet's series, the cascade timeline, the totals' layer counters.

/** What service s's fleet gives its series over `bins` bins (null: a fleet without servers). */
export function fleetSeries(s: ServiceRuntime, bins: number): FleetSeriesInput | null {
  const series = s.fleet.series(bins);
  if (series === null) return null;
  const binned = s.fleet instanceof ServerFarm ? s.fleet.binCounts(bins) : null;
  return { queue: series.queue, busy: series.busy, counts: binned?.counts ?? null, workers: binned?.workers ?? null };
}

/**
 * The cascade timeline (docs/experiments.md, "Service graphs"; src/metrics/cascadeTimeline.ts) from each
 * service's 1 s bins over the run: its utilisation (busy workers over workers available), the
 * answers it gave and their failures, and its crashes.
 */
export function cascade(services: readonly ServiceRuntime[], endMs: number): CascadeEvent[] {
  const bins = Math.min(MAX_SERIES_BINS, Math.floor(endMs / CASCADE_BIN_MS) + 1);
  return cascadeTimeline(
    services.map((s): ServiceBins => {
      const fleet = s.fleet instanceof ServerFarm ? s.fleet.timelineBins(bins) : null;
      const answers = s.measure.timelineAnswerBins(bins);
      const zeros = new Array<number>(bins).fill(0);
      return { name: s.name, binMs: CASCADE_BIN_MS, utilisation: fleet?.utilisation ?? zeros, answered: answers.answered, failed: answers.failed, crashes: fleet?.crashes ?? zeros };
    }),
  );
}

/** The totals' layer counters (`total`): every workload's layers (`each`, in order) in turn (the totals' stack). */
export function gatherLayers(total: Measurements, each: readonly Measurements[]): void {
  let k = 0;
  for (const m of each) {
    total.layerFirst.set(m.layerFirst, k);
    total.layerRetries.set(m.layerRetries, k);
    total.layerCancelled.set(m.layerCancelled, k);
    total.layerHedges.set(m.layerHedges, k);
    total.layerGiveUps.set(m.layerGiveUps, k * (m.layerGiveUps.length / m.layerFirst.length));
    k += m.layerFirst.length;
  }
}

/**
 * The edges' counters (docs/experiments.md, "Service graphs"), summed over the stacks of each (caller,
 * callee) pair, in the order first met; with several workloads, each workload's share too.
 * `callers[i]` is the stack named `callerNames[i]` (its workload or calling service).
 */
export function edgeResults(
  callers: readonly ServiceLeaf[],
  callerNames: readonly string[],
  offered: number,
  workloads: WorkloadResult[] | undefined,
): EdgeResult[] {
  const out = new Map<string, EdgeResult>();
  callers.forEach((leaf, i) => {
    leaf.targets.forEach((tg, j) => {
      const caller = callerNames[i] as string;
      const key = `${caller}\u0000${tg.service.name}`;
      const e = leaf.edges[j] as ServiceLeaf['edges'][number];
      const row = out.get(key) ?? { caller, callee: tg.service.name, calls: 0, retries: 0, ownRetries: 0, amplification: 0 };
      row.calls += e.calls;
      row.retries += e.retries;
      row.ownRetries += e.ownRetries;
      if (leaf.bulkhead !== null) row.bulkheadFull = (row.bulkheadFull ?? 0) + e.bulkheadFull;
      if (workloads !== undefined) {
        const by = (row.workloads ??= Object.fromEntries(workloads.map((w) => [w.workload, { calls: 0, retries: 0, ownRetries: 0, amplification: 0 } as EdgeWorkloadCalls])));
        workloads.forEach((w, k) => {
          const c = leaf.workloadEdge(j, k);
          const into = by[w.workload] as EdgeWorkloadCalls;
          into.calls += c.calls;
          into.retries += c.retries;
          into.ownRetries += c.ownRetries;
        });
      }
      out.set(key, row);
    });
  });
  const rows = [...out.values()];
  for (const r of rows) {
    r.amplification = offered > 0 ? r.calls / offered : 0;
    for (const w of workloads ?? []) {
      const c = (r.workloads as Record<string, EdgeWorkloadCalls>)[w.workload] as EdgeWorkloadCalls;
      c.amplification = w.operations.offered > 0 ? c.calls / w.operations.offered : 0;
    }
  }
  return rows;
}

/**
 * Each window's calls per edge (`windows.<name>.edges`), summed over the stacks of each (caller,
 * callee) pair as {@link edgeResults} sums the totals, in the same order; amplification per
 * operation offered in the window. The callers counted in the windows ({@link ServiceLeaf.countInWindows}).
 */
export function windowEdges(callers: readonly ServiceLeaf[], callerNames: readonly string[], windows: MetricWindowResult[]): void {
  windows.forEach((w, k) => {
    const out = new Map<string, WindowEdgeResult>();
    callers.forEach((leaf, i) => {
      const tallies = leaf.windowTallies;
      if (tallies === null) throw new Error('internal: a graph with metric windows has a stack that did not count in them');
      leaf.targets.forEach((tg, j) => {
        const caller = callerNames[i] as string;
        const key = `${caller}\u0000${tg.service.name}`;
        const row = out.get(key) ?? { caller, callee: tg.service.name, calls: 0, retries: 0, amplification: 0 };
        const t = (tallies[j] as NonNullable<ServiceLeaf['windowTallies']>[number]).tally(k);
        row.calls += t.count;
        row.retries += t.retries;
        out.set(key, row);
      });
    });
    const rows = [...out.values()];
    for (const r of rows) r.amplification = w.offered > 0 ? r.calls / w.offered : 0;
    w.edges = rows;
  });
}

/**
 * A graph's leaf calls (docs/experiments.md, "Service graphs"): the calls arriving at its leaf services (`leaves`,
 * those that make no calls: {@link leafServices}), summed over the edges into them, each an attempt
 * as a leaf's request is; amplification: those per operation. Sets them in the totals, in each
 * window (from its edges, {@link windowEdges}) and for each workload (from its share of the edges).
 */
export function graphLeafCalls(results: SimulationResults, leaves: readonly string[]): void {
  const isLeaf = (e: { callee: string }) => leaves.includes(e.callee);
  const edges = (results.edges ?? []).filter(isLeaf);
  results.leafCalls = edges.reduce((n, e) => n + e.calls, 0);
  results.amplification = results.operations.offered > 0 ? results.leafCalls / results.operations.offered : 0;
  for (const w of results.windows ?? []) {
    w.leafCalls = (w.edges ?? []).filter(isLeaf).reduce((n, e) => n + e.calls, 0);
    w.amplification = w.offered > 0 ? w.leafCalls / w.offered : 0;
  }
  for (const w of results.workloads ?? []) {
    w.leafCalls = edges.reduce((n, e) => n + (e.workloads?.[w.workload]?.calls ?? 0), 0);
    w.amplification = w.operations.offered > 0 ? w.leafCalls / w.operations.offered : 0;
  }
}
