import { metricMean } from './reportModel.js';
import type { ReportCell } from './types.js';

/** The edge of a service graph where a cell's calls concentrate ({@link topEdge}). */
export interface TopEdge {
  /** `caller->callee`, as in the metrics' names (`edges.<caller>-><callee>.amplification`). */
  edge: string;
  /** Calls on the edge per operation: of the operations of the graph, or, with several workloads, the most of any one workload's. */
  perOperation: number;
  /** The share of the edge's calls that were retries, when its calls were counted (null without calls). */
  retryShare: number | null;
  /** With several workloads, each one's calls on the edge per operation of its own (null: not measured); empty with one workload. */
  workloads: Array<{ workload: string; perOperation: number | null }>;
}

/**
 * The busiest edge of a graph cell: the one with the most calls per operation (the mean of
 * `edges.<caller>-><callee>.amplification`, the first in the metrics' order on a tie). With several
 * workloads an operation of one costs what its own path costs, so an edge is ranked by the most calls
 * per operation of any workload (`edges.<edge>.workloads.<w>.amplification`). Null for a cell without
 * edges.
 */
export function topEdge(cell: ReportCell): TopEdge | null {
  const workloads = workloadNames(cell);
  let top: TopEdge | null = null;
  for (const k of Object.keys(cell.metrics)) {
    const m = /^edges\.(.+)\.amplification$/.exec(k);
    if (!m || (m[1] as string).includes('.workloads.')) continue;
    const edge = m[1] as string;
    const a = edgePerOperation(cell, edge);
    if (a === null || (top !== null && a <= top.perOperation)) continue;
    const calls = metricMean(cell, `edges.${edge}.calls`);
    const retries = metricMean(cell, `edges.${edge}.retries`);
    top = {
      edge,
      perOperation: a,
      retryShare: calls && retries !== null ? retries / calls : null,
      workloads: workloads.length > 1 ? workloads.map((w) => ({ workload: w, perOperation: metricMean(cell, `edges.${edge}.workloads.${w}.amplification`) })) : [],
    };
  }
  return top;
}

/** The names of a graph cell's workloads (empty when its scenario lists none). */
function workloadNames(cell: ReportCell): string[] {
  return ((cell.scenario as { graph?: { workloads?: Array<{ name: string }> } } | null)?.graph?.workloads ?? []).map((w) => w.name);
}

/**
 * The calls on one edge (`caller->callee`) per operation, as {@link topEdge} ranks edges: the mean of
 * `edges.<edge>.amplification`, or with several workloads the most of any one workload's; null when
 * not measured.
 */
export function edgePerOperation(cell: ReportCell, edge: string): number | null {
  const workloads = workloadNames(cell);
  if (workloads.length <= 1) return metricMean(cell, `edges.${edge}.amplification`);
  const own = workloads.map((w) => metricMean(cell, `edges.${edge}.workloads.${w}.amplification`)).filter((a): a is number => a !== null);
  return own.length > 0 ? Math.max(...own) : null;
}
