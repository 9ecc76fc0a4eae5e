import { formatNumber, formatParams } from './format.js';
import { metricInfo } from './metrics.js';
import { cellLabel, focusCells, hasMetric, metricMean, selectCells, type ReportModel, type ReportPart } from './reportModel.js';
import { clusteringMetric, defaultX, isClusteringAxis, keyMetrics, workAndTime } from './selectCharts.js';
import { allNumbers } from './specs/common.js';
import type { ReportCell, ReportMetricStats } from './types.js';

/** The headline numbers of one part: a row per cell, a column per metric. */
export interface FindingsTable {
  part: string;
  columns: Array<{ metric: string; title: string; unit: string }>;
  rows: Array<{ label: string; variant: string; state: 'ok' | 'errored'; values: Array<ReportMetricStats | null> }>;
}

/** The metrics of the findings table: work, amplification, time, goodput, failures, wasted work (those measured). */
export function findingsMetrics(part: ReportPart): string[] {
  if (part.hints.findings?.metrics) return part.hints.findings.metrics;
  const { work, time } = workAndTime(part);
  const wanted = [work, 'amplification', time, 'goodputPerSec', 'operations.failed', 'server.wastedWorkMs'];
  const key = keyMetrics(part);
  const out: string[] = [];
  for (const m of [...wanted, ...key]) {
    if (out.includes(m) || !hasMetric(part.cells, m)) continue;
    if ((m === 'operations.failed' || m === 'server.wastedWorkMs') && !part.cells.some((c) => (metricMean(c, m) ?? 0) > 0)) continue;
    out.push(m);
  }
  return out;
}

/** The rows of the findings table: the hinted cells; else the focus cells with several variants; else every sweep point (up to 24). */
export function findingsCells(part: ReportPart): ReportCell[] {
  if (part.hints.findings?.cells) {
    const chosen = selectCells(part, part.hints.findings.cells);
    if (chosen.length > 0) return chosen;
  }
  if (part.variants.length >= 2) return focusCells(part);
  return part.cells.length <= 24 ? part.cells : focusCells(part);
}

/** The findings table of a part. */
export function findingsTable(part: ReportPart): FindingsTable {
  const metrics = findingsMetrics(part);
  const cells = findingsCells(part);
  return {
    part: part.name,
    columns: metrics.map((metric) => ({ metric, ...metricInfo(metric) })),
    rows: cells.map((c) => ({
      label: cellLabel(c, cells),
      variant: c.variant,
      state: c.state,
      values: metrics.map((m) => {
        const s = c.metrics[m];
        return s && typeof s.mean === 'number' && Number.isFinite(s.mean) ? s : null;
      }),
    })),
  };
}

/** A value and its unit in a sentence; a ratio's explanation (`largest bin / mean bin`) is left to the axis. */
function withUnit(v: number, unit: string): string {
  return unit && !unit.includes(' / ') ? `${formatNumber(v)} ${unit}` : formatNumber(v);
}

/**
 * The one-line finding of a report: the hint's, else a sentence computed from the first part's
 * first key metric: with several variants, the lowest and the highest variant at the focus point;
 * with one variant and a numeric sweep, the values at both ends of the sweep; with a single cell,
 * its first key metrics.
 */
export function findingLine(model: ReportModel): string {
  if (model.hints.finding) return model.hints.finding;
  const part = model.parts[0];
  if (!part) return 'No results.';
  if (part.hints.finding) return part.hints.finding;
  // A swept timer tick or seeding mode is judged by the clustering of leaf arrivals too.
  const cm = part.axes.some(isClusteringAxis) ? clusteringMetric(part) : null;
  const key = [...keyMetrics(part), ...(cm ? [cm] : [])];
  const first = key[0];
  const focus = focusCells(part).filter((c) => Object.keys(c.metrics).length > 0);
  if (first === undefined || focus.length === 0) return `${model.parts.reduce((n, p) => n + p.cells.length, 0)} cells; no key metric was measured.`;
  const f0 = focus[0] as ReportCell;
  const samePoint = Object.keys(f0.params).length > 0 && focus.every((c) => formatParams(c.params) === formatParams(f0.params));
  const at = samePoint ? `At ${formatParams(f0.params)}, ` : '';
  if (focus.length >= 2) {
    const rank = (m: string) =>
      focus
        .map((c) => ({ c, v: metricMean(c, m) }))
        .filter((r): r is { c: ReportCell; v: number } => r.v !== null)
        .sort((a, b) => a.v - b.v);
    // The first key metric on which the cells differ (as printed); else the first, the same for all.
    const differs = key.find((m) => {
      const r = rank(m);
      return r.length >= 2 && formatNumber((r[0] as { v: number }).v) !== formatNumber((r[r.length - 1] as { v: number }).v);
    });
    const m = differs ?? first;
    const info = metricInfo(m);
    const name = at ? info.title.toLowerCase() : info.title;
    const ranked = rank(m);
    const lo = ranked[0];
    const hi = ranked[ranked.length - 1];
    if (lo && hi && differs) {
      return `${at}${name}: ${withUnit(lo.v, info.unit)} with ${cellLabel(lo.c, focus)} (lowest), ${withUnit(hi.v, info.unit)} with ${cellLabel(hi.c, focus)} (highest).`;
    }
    if (lo) return `${at}${name}: ${withUnit(lo.v, info.unit)} with every ${part.variants.length >= 2 ? 'variant' : 'cell'}.`;
  }
  const x = defaultX(part);
  const values = x !== undefined ? (part.axisValues[x] ?? []) : [];
  if (part.variants.length === 1 && x !== undefined && values.length >= 2 && allNumbers(values)) {
    const endsOf = (m: string) =>
      [values[0], values[values.length - 1]].map((xv) => {
        const cell = part.cells.find((c) => c.params[x] === xv && metricMean(c, m) !== null);
        return cell ? { xv: xv as number, v: metricMean(cell, m) as number } : null;
      });
    // The first key metric that changes along the sweep (as printed); else the first.
    const m = key.find((k) => {
      const [a, b] = endsOf(k);
      return a && b && formatNumber(a.v) !== formatNumber(b.v);
    }) ?? first;
    const info = metricInfo(m);
    const ends = endsOf(m);
    if (ends[0] && ends[1]) return `${info.title}: ${ends.map((e) => `${withUnit((e as { v: number }).v, info.unit)} at ${x} = ${formatNumber((e as { xv: number }).xv)}`).join(', ')}.`;
  }
  const text = key.slice(0, 3).flatMap((m) => {
    const v = metricMean(f0, m);
    if (v === null) return [];
    const i = metricInfo(m);
    return [`${i.title.toLowerCase()} ${withUnit(v, i.unit)}`];
  }).join(', ');
  return `${at}${at ? text : text.charAt(0).toUpperCase() + text.slice(1)}.`;
}
