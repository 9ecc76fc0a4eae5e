import type { SimulationResults } from '../model/results.js';
import { formatDuration } from '../policy/formatDuration.js';
import { paramEntries } from '../report/format.js';
import { notApplicable, notApplicableText } from '../report/notApplicable.js';
import { buildReportModel, notApplicableIn } from '../report/reportModel.js';
import type { ReportCell } from '../report/types.js';
import { busiestEdge, busiestEdgeOfCell } from '../report/busiestEdge.js';
import { flattenMetrics } from '../sweep/flattenMetrics.js';
import type { SweepResult } from '../sweep/runSweep.js';
import { fmt, table } from './format.js';

/** A duration for the terminal, in the unit that reads best (`formatDuration`); `-` when there is none. */
function duration(ms: number | null | undefined): string {
  return ms === null || ms === undefined || Number.isNaN(ms) ? '-' : formatDuration(ms);
}

/** What a service graph's leaf calls are, under the tables that show them. */
const GRAPH_LEAF_CALLS = "A service graph's leaf calls are the calls arriving at its services that make no calls (its deepest tier); busiest edge: the one with the most calls per operation.";

/** A readable summary of one run's results; figures that do not apply (no operation measured...) read `n/a (why)`. */
export function formatSingleResults(r: SimulationResults): string {
  const lines: string[] = [];
  const o = r.operations;
  const flat = flattenMetrics(r);
  const mean = (name: string) => flat[name] ?? null;
  const or = (metric: string, text: () => string) => {
    const why = notApplicable(metric, mean);
    return why !== null ? notApplicableText(why) : text();
  };
  const workloads = (r.workloads ?? []).map((w) => w.workload);
  const busiest = busiestEdge(Object.keys(flat), mean, workloads);
  lines.push(
    table([
      ['operations offered', fmt(o.offered)],
      ['succeeded', fmt(o.succeeded)],
      ['failed', fmt(o.failed)],
      ...(o.unfinished > 0 ? [['unfinished', fmt(o.unfinished)]] : []),
      ['leaf calls', fmt(r.leafCalls)],
      ...(r.writes !== undefined ? [['  writes', fmt(r.writes)], ['  reads', fmt(r.reads)]] : []),
      ['amplification (leaf calls / operation)', or('amplification', () => fmt(r.amplification, 4))],
      ...(busiest !== null ? [['busiest edge (calls / operation)', or('amplification', () => `${busiest.caller} -> ${busiest.callee}: ${fmt(busiest.perOperation, 4)}`)]] : []),
      ['goodput (/s)', or('goodputPerSec', () => fmt(r.goodputPerSec))],
      ['completion time', or('completionTimeMs', () => duration(r.completionTimeMs))],
      ...(r.server.utilization !== null ? [['server utilization', fmt(r.server.utilization, 4)]] : []),
      ['wasted server work', duration(r.server.wastedWorkMs)],
      ['max queue', fmt(r.server.maxQueue)],
    ]),
  );
  if (r.edges !== undefined) lines.push(GRAPH_LEAF_CALLS);
  lines.push('');
  const reasons = Object.entries(r.giveUps).filter(([, n]) => n > 0);
  lines.push(table(reasons.map(([k, n]) => [k, fmt(n)]), ['ended by', 'operations']));
  lines.push('');
  lines.push(
    table(
      r.attempts.map((l) => [l.layer, fmt(l.first), fmt(l.retries), fmt(l.first + l.retries)]),
      ['layer', 'first tries', 'retries', 'attempts'],
    ),
  );
  lines.push('');
  const lat = (name: string, prefix: 'latencyMs' | 'operationMs', s: SimulationResults['latencyMs']) => {
    const why = notApplicable(`${prefix}.mean`, mean);
    if (why !== null) return [name, fmt(s.count), notApplicableText(why)];
    return [name, fmt(s.count), duration(s.mean), duration(s.p50), duration(s.p90), duration(s.p99), duration(s.p999)];
  };
  lines.push(
    table([lat('latency (successes)', 'latencyMs', r.latencyMs), lat('operation time (all)', 'operationMs', r.operationMs)], ['time', 'count', 'mean', 'p50', 'p90', 'p99', 'p99.9']),
  );
  lines.push('p50, p90, p99, p99.9: half, 90%, 99% and 99.9% of the operations took at most that long.');
  if (r.clustering.length > 0) {
    lines.push('');
    lines.push(
      table(
        r.clustering.map((c) => [`${formatDuration(c.binMs)} bins`, fmt(c.peakToMean), fmt(c.dispersionIndex), fmt(c.maxBin)]),
        ['leaf arrivals', 'peak/mean', 'dispersion', 'max bin'],
      ),
    );
    lines.push('peak/mean: the largest bin over the mean bin (1 is even); dispersion: variance over mean of the counts per bin (1 for Poisson arrivals); max bin: calls in the largest bin.');
  }
  if (r.truncated) {
    lines.push('');
    lines.push(`TRUNCATED: ${r.truncatedReason}`);
  }
  return lines.join('\n');
}

/** One column of a sweep's table: its header, what it shows of a cell, and what its header means (null: self-explanatory). */
interface SummaryColumn {
  header: string;
  metric: string | null;
  show: (c: ReportCell) => string;
  legend: string | null;
  /** Figures per operation measured, left out when no cell measured an operation. */
  perOperation: boolean;
}

/** Why no operation was measured in these cells: their operations all started in the warm-up, or none was offered. */
function noOperationsWhy(cells: readonly ReportCell[]): string {
  const warmups = cells.map((c) => (c.scenario as { warmupMs?: number } | null)?.warmupMs ?? 0);
  if (warmups.every((w) => w > 0)) {
    const longest = Math.max(...warmups);
    return `their operations all started in the warm-up (warmupMs: the first ${formatDuration(longest)}${warmups.some((w) => w !== longest) ? ' at most' : ''}), which is not measured; leaf calls count the calls after it`;
  }
  return 'no operation was offered';
}

/**
 * A readable summary of a plan's run: the single results, or one row per cell, in the order of the
 * report (parts and variants in file order, swept values ascending, others in file order; the
 * summary files keep their cell-key order). `source` is the experiment file's JSON, for those orders.
 * Durations are in the unit that reads best; a figure that does not apply to a cell (amplification
 * without operations) reads `n/a (why)`; a legend under the table says what its short headers mean.
 */
export function printRunSummary(run: SweepResult, source: unknown = null): string {
  if (run.single) return formatSingleResults(run.single);
  if (!run.summary) return `interrupted after ${run.done} of ${run.total} replications`;
  const model = buildReportModel(run.summary, { source, quick: false, set: [], date: null, runTimeMs: null, reportVersion: '' });
  const cells = model.parts.flatMap((p) => p.cells);
  const m = (c: ReportCell, k: string) => c.metrics[k]?.mean ?? undefined;
  const value = (metric: string, text: (v: number | undefined) => string) => (c: ReportCell) => {
    const why = notApplicableIn(c, metric);
    return why !== null ? notApplicableText(why) : text(m(c, metric));
  };
  // A service graph's cells: their leaf calls are at its leaf services, and the busiest edge is shown beside them.
  const graph = cells.some((c) => busiestEdgeOfCell(c) !== null);
  const columns: SummaryColumn[] = [
    { header: 'reps', metric: null, show: (c) => (c.state === 'ok' ? String(c.replications) : 'ERRORED'), legend: 'replications', perOperation: false },
    { header: 'offered', metric: 'operations.offered', show: value('operations.offered', (v) => fmt(v)), legend: 'operations started after the warm-up (if any)', perOperation: true },
    { header: 'succeeded', metric: 'operations.succeeded', show: value('operations.succeeded', (v) => fmt(v)), legend: null, perOperation: true },
    { header: 'leaf calls', metric: 'leafCalls', show: value('leafCalls', (v) => fmt(v)), legend: null, perOperation: false },
    { header: 'amplif.', metric: 'amplification', show: value('amplification', (v) => fmt(v, 4)), legend: 'leaf calls per operation', perOperation: true },
    ...(graph
      ? [
          {
            header: 'busiest edge',
            metric: 'amplification',
            show: (c: ReportCell) => {
              const why = notApplicableIn(c, 'amplification');
              const b = busiestEdgeOfCell(c);
              return why !== null ? notApplicableText(why) : b === null ? '-' : `${b.caller} -> ${b.callee}: ${fmt(b.perOperation, 4)}`;
            },
            legend: null,
            perOperation: true,
          },
        ]
      : []),
    { header: 'p99', metric: 'latencyMs.p99', show: value('latencyMs.p99', duration), legend: '99% of the successful operations took at most this long', perOperation: true },
    { header: 'completion', metric: 'completionTimeMs', show: value('completionTimeMs', duration), legend: 'when the last operation ended', perOperation: true },
  ];
  const ok = cells.filter((c) => c.state === 'ok');
  const noneMeasured = ok.length > 0 && ok.every((c) => m(c, 'operations.offered') === 0);
  const shown = columns.filter((col) => !(noneMeasured && col.perOperation));
  const rows = cells.map((c) => {
    const params = paramEntries(c.params, true)
      .map((e) => `${e.name}=${e.value}`)
      .join(' ');
    const label = [c.part !== 'main' ? c.part : '', c.variant !== 'default' ? c.variant : '', params].filter((s) => s).join(' ') || 'default';
    return [label, ...shown.map((col) => col.show(c))];
  });
  const lines = [table(rows, ['cell', ...shown.map((col) => col.header)]), ''];
  const legend = shown.filter((col) => col.legend !== null).map((col) => `${col.header}: ${col.legend}`);
  lines.push(`${legend.join('; ')}; the other figures are means over the replications.`);
  if (graph && shown.some((col) => col.header === 'busiest edge')) lines.push(GRAPH_LEAF_CALLS);
  if (noneMeasured) {
    lines.push(`No operation was measured in any cell: ${noOperationsWhy(ok)}. Figures per operation (offered, succeeded, amplification, latency, completion time) do not apply and are left out.`);
  } else {
    const empty = ok.filter((c) => m(c, 'operations.offered') === 0);
    if (empty.length > 0) lines.push(`n/a (no operations): ${empty.length} of ${cells.length} cells measured no operation, so figures per operation do not apply to them: ${noOperationsWhy(empty)}.`);
  }
  for (const c of run.summary.cells) for (const e of c.errors) lines.push(`errored: ${c.key}: ${e}`);
  const truncated = run.summary.cells.filter((c) => (c.metrics['truncated']?.mean ?? 0) > 0);
  if (truncated.length > 0) {
    lines.push(
      `TRUNCATED: ${truncated.length} of ${run.summary.cells.length} cells have runs stopped by their horizon, event cap, in-flight cap or memory ceiling (metric "truncated" is the fraction of runs)`,
    );
  }
  return lines.join('\n');
}
