import { metricMean } from './reportModel.js';
import type { ReportCell } from './types.js';

/** The edge of a service graph where the calls concentrate: the most calls per operation. */
export interface BusiestEdge {
  /** `<caller>-><callee>`, as the metric names write it (`edges.<edge>.amplification`). */
  edge: string;
  caller: string;
  callee: string;
  /** Its calls per operation; with several workloads, the most per operation of one workload. */
  perOperation: number;
  /** The share of its calls that were retries (null when its calls or retries were not measured, or it had none). */
  retryShare: number | null;
  /** With several workloads (and no window), each one's calls on the edge per operation of its own (null: not measured); empty otherwise. */
  workloads: Array<{ workload: string; perOperation: number | null }>;
}

/** Names of the totals' edge amplifications (`edges.a->b.amplification`), the edge in group 1; not a workload's share. */
const EDGE_AMPLIFICATION = /^edges\.(.+)\.amplification$/;

/**
 * The busiest edge among the metrics `names` (their means read by `mean`): the edge with the most
 * calls per operation, the first met among equals; null without any edge. With several
 * `workloads` an operation of one costs what its own path costs, so an edge is ranked by the most
 * calls per operation of one workload (`edges.<edge>.workloads.<w>.amplification`). With `window`,
 * the edges' calls in that metric window (`windows.<window>.edges.<edge>.*`, per operation offered in
 * it, all workloads together).
 */
export function busiestEdge(names: Iterable<string>, mean: (metric: string) => number | null, workloads: readonly string[] = [], window?: string): BusiestEdge | null {
  const prefix = window === undefined ? '' : `windows.${window}.`;
  const several = workloads.length > 1 && window === undefined;
  const perOperation = (edge: string): number | null => {
    if (!several) return mean(`${prefix}edges.${edge}.amplification`);
    const own = workloads.map((w) => mean(`edges.${edge}.workloads.${w}.amplification`)).filter((a): a is number => a !== null);
    return own.length > 0 ? Math.max(...own) : null;
  };
  let top: BusiestEdge | null = null;
  for (const name of names) {
    if (prefix !== '' && !name.startsWith(prefix)) continue;
    const m = EDGE_AMPLIFICATION.exec(name.slice(prefix.length));
    if (!m) continue;
    const edge = m[1] as string;
    // Names hold no ".": a dotted group is a workload's share.
    if (edge.includes('.')) continue;
    const a = perOperation(edge);
    if (a === null || (top !== null && a <= top.perOperation)) continue;
    const calls = mean(`${prefix}edges.${edge}.calls`);
    const retries = mean(`${prefix}edges.${edge}.retries`);
    const arrow = edge.indexOf('->');
    top = {
      edge,
      caller: edge.slice(0, arrow),
      callee: edge.slice(arrow + 2),
      perOperation: a,
      retryShare: calls && retries !== null ? retries / calls : null,
      workloads: several ? workloads.map((w) => ({ workload: w, perOperation: mean(`edges.${edge}.workloads.${w}.amplification`) })) : [],
    };
  }
  return top;
}

/** The workloads of a graph cell's scenario, in file order (empty with one workload). */
export function cellWorkloads(cell: ReportCell): string[] {
  return ((cell.scenario as { graph?: { workloads?: Array<{ name: string }> } } | null)?.graph?.workloads ?? []).map((w) => w.name);
}

/** The busiest edge of a cell ({@link busiestEdge} over its means), overall or in metric window `window`; null without edges. */
export function busiestEdgeOfCell(cell: ReportCell, window?: string): BusiestEdge | null {
  return busiestEdge(Object.keys(cell.metrics), (m) => metricMean(cell, m), cellWorkloads(cell), window);
}

/**
 * The calls on one edge (`caller->callee`) of a cell per operation, as {@link busiestEdge} ranks
 * edges: the mean of `edges.<edge>.amplification`, or with several workloads the most of any one
 * workload's; null when not measured.
 */
export function edgePerOperation(cell: ReportCell, edge: string): number | null {
  const workloads = cellWorkloads(cell);
  if (workloads.length <= 1) return metricMean(cell, `edges.${edge}.amplification`);
  const own = workloads.map((w) => metricMean(cell, `edges.${edge}.workloads.${w}.amplification`)).filter((a): a is number => a !== null);
  return own.length > 0 ? Math.max(...own) : null;
}

/**
 * The busiest edge of a set of cells (a part's, the rows of a table): of each cell's busiest edge
 * ({@link busiestEdgeOfCell}), the one with the most calls per operation, the first cell's among
 * equals; null when no cell has edges.
 */
export function busiestEdgeOfPart(cells: readonly ReportCell[]): string | null {
  let top: BusiestEdge | null = null;
  for (const c of cells) {
    const b = busiestEdgeOfCell(c);
    if (b !== null && (top === null || b.perOperation > top.perOperation)) top = b;
  }
  return top?.edge ?? null;
}
