import type { SimulationResults } from '../model/results.js';
import { paramEntries } from '../report/format.js';
import { buildReportModel } from '../report/reportModel.js';
import type { SweepResult } from '../sweep/runSweep.js';
import { fmt, table } from './format.js';

/** A readable summary of one run's results. */
export function formatSingleResults(r: SimulationResults): string {
  const lines: string[] = [];
  const o = r.operations;
  lines.push(
    table([
      ['operations offered', fmt(o.offered)],
      ['succeeded', fmt(o.succeeded)],
      ['failed', fmt(o.failed)],
      ...(o.unfinished > 0 ? [['unfinished', fmt(o.unfinished)]] : []),
      ['leaf calls', fmt(r.leafCalls)],
      ...(r.writes !== undefined ? [['  writes', fmt(r.writes)], ['  reads', fmt(r.reads)]] : []),
      ['amplification (leaf calls / operation)', fmt(r.amplification, 4)],
      ['goodput (/s)', fmt(r.goodputPerSec)],
      ['completion time (ms)', fmt(r.completionTimeMs)],
      ...(r.server.utilization !== null ? [['server utilization', fmt(r.server.utilization, 4)]] : []),
      ['wasted server work (ms)', fmt(r.server.wastedWorkMs)],
      ['max queue', fmt(r.server.maxQueue)],
    ]),
  );
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
  const lat = (name: string, s: SimulationResults['latencyMs']) => [
    name,
    fmt(s.count),
    fmt(s.mean),
    fmt(s.p50),
    fmt(s.p90),
    fmt(s.p99),
    fmt(s.p999),
  ];
  lines.push(
    table([lat('latency (successes)', r.latencyMs), lat('operation time (all)', r.operationMs)], [
      'ms',
      'count',
      'mean',
      'p50',
      'p90',
      'p99',
      'p99.9',
    ]),
  );
  if (r.clustering.length > 0) {
    lines.push('');
    lines.push(
      table(
        r.clustering.map((c) => [`${c.binMs} ms bins`, fmt(c.peakToMean), fmt(c.dispersionIndex), fmt(c.maxBin)]),
        ['leaf arrivals', 'peak/mean', 'dispersion', 'max bin'],
      ),
    );
  }
  if (r.truncated) {
    lines.push('');
    lines.push(`TRUNCATED: ${r.truncatedReason}`);
  }
  return lines.join('\n');
}

/**
 * A readable summary of a plan's run: the single results, or one row per cell, in the order of the
 * report (parts and variants in file order, swept values ascending, others in file order; the
 * summary files keep their cell-key order). `source` is the experiment file's JSON, for those orders.
 */
export function printRunSummary(run: SweepResult, source: unknown = null): string {
  if (run.single) return formatSingleResults(run.single);
  if (!run.summary) return `interrupted after ${run.done} of ${run.total} replications`;
  const model = buildReportModel(run.summary, { source, quick: false, set: [], date: null, runTimeMs: null, reportVersion: '' });
  const cells = model.parts.flatMap((p) => p.cells);
  const rows = cells.map((c) => {
    const m = (k: string) => c.metrics[k]?.mean ?? undefined;
    const params = paramEntries(c.params, true)
      .map((e) => `${e.name}=${e.value}`)
      .join(' ');
    return [
      [c.part !== 'main' ? c.part : '', c.variant !== 'default' ? c.variant : '', params].filter((s) => s).join(' ') || 'default',
      c.state === 'ok' ? String(c.replications) : 'ERRORED',
      fmt(m('operations.offered')),
      fmt(m('operations.succeeded')),
      fmt(m('leafCalls')),
      fmt(m('amplification'), 4),
      fmt(m('latencyMs.p99')),
      fmt(m('completionTimeMs')),
    ];
  });
  const lines = [
    table(rows, ['cell', 'reps', 'offered', 'succeeded', 'leaf calls', 'amplif.', 'p99 ms', 'completion ms']),
  ];
  for (const c of run.summary.cells) for (const e of c.errors) lines.push(`errored: ${c.key}: ${e}`);
  const truncated = run.summary.cells.filter((c) => (c.metrics['truncated']?.mean ?? 0) > 0);
  if (truncated.length > 0) {
    lines.push(
      `TRUNCATED: ${truncated.length} of ${run.summary.cells.length} cells have runs stopped by their horizon, event cap, in-flight cap or memory ceiling (metric "truncated" is the fraction of runs)`,
    );
  }
  return lines.join('\n');
}
