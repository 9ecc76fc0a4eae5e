import { formatSetDuration } from '../policy/formatDuration.js';
import { busiestEdgeOfCell, busiestEdgeOfPart, cellWorkloads } from './busiestEdge.js';
import { higherIsBetter, judge, noPracticalDifference, practicalDifference, type Difference } from './compare.js';
import { outcomeCount, showEstimate } from './estimates.js';
import { formatNumber, formatRange, shownDurationUnit } from './format.js';
import { isDurationMetric, metricInfo, paramLabel, paramsInWords, paramUnit, unitIn } from './metrics.js';
import { notApplicableText } from './notApplicable.js';
import { cellLabel, focusCells, hasMetric, metricMean, notApplicableIn, sameValue, selectCells, type ReportPart } from './reportModel.js';
import { keyMetrics, workAndTime } from './selectCharts.js';
import { allNumbers } from './specs/common.js';
import type { ReportCell, ReportMetricStats } from './types.js';

/**
 * The headline numbers of one part: a row per cell, a column per metric. A duration column is
 * shown in the unit that reads best for its largest value (`unit`: `h`; its values divided by
 * `perUnit`, the milliseconds in that unit; 1 for other columns). A figure that does not apply to
 * a cell (amplification without operations) has no value and says why in `notApplicable`.
 */
export interface FindingsTable {
  part: string;
  columns: Array<{ metric: string; title: string; unit: string; perUnit: number }>;
  rows: Array<{ label: string; variant: string; state: 'ok' | 'errored'; values: Array<ReportMetricStats | null>; notApplicable: Array<string | null> }>;
}

/**
 * The metrics of the findings table: work, amplification (a graph's: at its leaf services, then the
 * calls per operation on its busiest edge, {@link busiestEdgeOfPart}), time, goodput, failures,
 * wasted work (those measured).
 */
export function findingsMetrics(part: ReportPart): string[] {
  if (part.hints.findings?.metrics) return part.hints.findings.metrics;
  const { work, time } = workAndTime(part);
  const busiest = busiestEdgeOfPart(part.cells);
  const wanted = [work, 'amplification', ...(busiest !== null ? [`edges.${busiest}.amplification`] : []), time, 'goodputPerSec', 'operations.failed', 'server.wastedWorkMs'];
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
  const column = (metric: string) => {
    const info = metricInfo(metric);
    if (!isDurationMetric(metric)) return { metric, title: info.title, unit: info.unit, perUnit: 1 };
    const largest = Math.max(0, ...cells.map((c) => Math.abs(metricMean(c, metric) ?? 0)));
    const u = shownDurationUnit(largest);
    return { metric, title: info.title, unit: unitIn(info.unit, u), perUnit: u.ms };
  };
  return {
    part: part.name,
    columns: metrics.map(column),
    rows: cells.map((c) => ({
      label: cellLabel(c, cells),
      variant: c.variant,
      state: c.state,
      values: metrics.map((m) => {
        const s = c.metrics[m];
        return s && typeof s.mean === 'number' && Number.isFinite(s.mean) ? s : null;
      }),
      notApplicable: metrics.map((m) => notApplicableIn(c, m)),
    })),
  };
}

/** A value and its unit in a sentence; a ratio's explanation (`largest bin / mean bin`) is left to the axis. */
function withUnit(v: string, unit: string): string {
  return unit && !unit.includes(' / ') ? `${v} ${unit}` : v;
}

/**
 * A cell's mean of a metric with its interval, as a sentence shows it (`796 ± 1.5 calls`), a
 * duration in the unit that reads best for its mean (`370 ± 10 h`), an interval a bound cut as its
 * range (`0.6 [0, 1]`), a yes/no outcome as k of n runs (`1 of 2 runs`, `showEstimate`), and a
 * figure that does not apply as such (`n/a (no operations)`). A sentence made of these says once
 * when its intervals rest on few runs (`noIntervalText`).
 */
export function estimateText(cell: ReportCell, metric: string): string {
  const na = notApplicableIn(cell, metric);
  if (na !== null) return notApplicableText(na);
  const s = cell.metrics[metric];
  const stats = { n: s?.n ?? 0, mean: s?.mean ?? null, ci95: s?.ci95 ?? [null, null] } as const;
  if (outcomeCount(metric, stats.mean, stats.n) !== null) return showEstimate(metric, stats).value;
  const unit = metricInfo(metric).unit;
  const u = stats.mean !== null && Number.isFinite(stats.mean) && isDurationMetric(metric) ? shownDurationUnit(stats.mean) : null;
  const e = showEstimate(metric, stats, u?.ms ?? 1);
  return withUnit(e.interval ? `${e.value} ${e.interval}` : e.value, u ? unitIn(unit, u) : unit);
}

/** A metric's practical threshold in words (`5% of the mean compared against`). */
export function thresholdText(part: ReportPart, metric: string): string {
  return `${formatNumber(practicalDifference(part.hints, metric) * 100)}% of the mean compared against`;
}

function intervalText(d: Difference): string {
  if (!d.ci95) return '';
  return formatRange(d.ci95[0], d.ci95[1]);
}

/** Cells ranked on a metric, best first (lowest, or highest where more is better); cells without it left out. */
export function rankCells(cells: readonly ReportCell[], metric: string): ReportCell[] {
  const up = higherIsBetter(metric);
  return cells
    .filter((c) => metricMean(c, metric) !== null)
    .sort((a, b) => ((metricMean(a, metric) as number) - (metricMean(b, metric) as number)) * (up ? -1 : 1));
}

/**
 * The best and worst of several cells (the variants at one sweep point) on a metric, with their
 * intervals, whether their difference is a practical one ({@link judge}: beyond noise and at least the
 * metric's threshold), and which cells show no practical difference from the best.
 */
export function comparisonText(part: ReportPart, cells: readonly ReportCell[], metric: string): string {
  const ranked = rankCells(cells, metric);
  const best = ranked[0];
  const worst = ranked[ranked.length - 1];
  if (!best || !worst) return '';
  const first = cells[0] as ReportCell;
  const samePoint = Object.keys(first.params).length > 0 && cells.every((c) => sameValue(c.params, first.params));
  const at = samePoint ? `At ${paramsInWords(first.params)}, ` : '';
  const info = metricInfo(metric);
  const title = at ? info.title.charAt(0).toLowerCase() + info.title.slice(1) : info.title;
  const label = (c: ReportCell) => cellLabel(c, cells);
  const [goodWord, badWord] = higherIsBetter(metric) ? ['highest', 'lowest'] : ['lowest', 'highest'];
  if (best === worst || formatNumber(metricMean(best, metric)) === formatNumber(metricMean(worst, metric))) {
    return `${at}${title}: ${estimateText(best, metric)} with every ${part.variants.length >= 2 ? 'variant' : 'cell'}.`;
  }
  const { difference: diff, verdict: v } = judge(part, worst, best, metric);
  const d = diff as Difference;
  const how = d.paired ? 'paired 95% interval of the difference' : '95% interval of the difference';
  const noise =
    v === 'unknown'
      ? ''
      : v === 'noise'
        ? `; no practical difference: it is within noise (${how} ${intervalText(d)} includes 0)`
        : v === 'small'
          ? `; no practical difference: it is beyond noise but under ${thresholdText(part, metric)} (${how} ${intervalText(d)})`
          : `; the difference is beyond noise (${how} ${intervalText(d)})`;
  const close = ranked.slice(1, -1).filter((c) => noPracticalDifference(judge(part, c, best, metric).verdict));
  const closeText =
    close.length > 0 && !noPracticalDifference(v) ? ` ${close.map(label).join(', ')} ${close.length === 1 ? 'shows' : 'show'} no practical difference from ${label(best)}.` : '';
  return `${at}${title}: ${estimateText(best, metric)} with ${label(best)} (${goodWord}) against ${estimateText(worst, metric)} with ${label(worst)} (${badWord})${noise}.${closeText}`;
}

/** Where two variants' lines cross along a numeric axis: one is below the other by a practical difference ({@link judge}), then above it by one. */
export interface Crossing {
  a: string;
  b: string;
  /** The last x where a was on one side, and the first where it was on the other. */
  before: number;
  after: number;
  /** a's side before the crossing. */
  aBefore: 'lower' | 'higher';
}

/** The crossings of every pair of variants on a metric along a numeric axis (at the focus cells' other parameters). */
export function crossings(part: ReportPart, metric: string, x: string): Crossing[] {
  const values = part.axisValues[x] ?? [];
  if (!allNumbers(values) || part.variants.length < 2) return [];
  const focus = focusCells(part)[0];
  const along = (variant: string) =>
    part.cells.filter((c) => c.variant === variant && Object.keys(c.params).every((k) => k === x || !focus || sameValue(c.params[k], focus.params[k])));
  const out: Crossing[] = [];
  for (let i = 0; i < part.variants.length; i++) {
    for (let j = i + 1; j < part.variants.length; j++) {
      const a = part.variants[i] as string;
      const b = part.variants[j] as string;
      const bs = along(b);
      let last: { x: number; side: 'lower' | 'higher' } | null = null;
      for (const ca of along(a).sort((p, q) => (p.params[x] as number) - (q.params[x] as number))) {
        const cb = bs.find((c) => sameValue(c.params, ca.params));
        if (!cb) continue;
        const v = judge(part, ca, cb, metric).verdict;
        if (v !== 'lower' && v !== 'higher') continue;
        const xv = ca.params[x] as number;
        if (last && last.side !== v) out.push({ a, b, before: last.x, after: xv, aBefore: last.side });
        last = { x: xv, side: v };
      }
    }
  }
  return out;
}

/** A value of a swept numeric field with its unit (`15.6 ms`; a duration in the unit that reads best, `3 s`), the unit left out when the field's name says it (`10` clients). */
export function axisValueText(x: string): (v: unknown) => string {
  const unit = paramUnit(x);
  if (unit === 'ms') return (v) => formatSetDuration(v as number);
  const shown = unit !== '' && !paramLabel(x).toLowerCase().includes(unit.toLowerCase());
  return (v) => `${formatNumber(v as number)}${shown ? ` ${unit}` : ''}`;
}

/** A sentence on the crossings of a metric along a numeric axis ('' without any). */
export function crossingText(part: ReportPart, metric: string, x: string): string {
  const found = crossings(part, metric, x);
  if (found.length === 0) return '';
  const title = metricInfo(metric).title.toLowerCase();
  const xv = axisValueText(x);
  const shown = found.slice(0, 3).map(
    (c) => `${c.a} has ${c.aBefore === 'lower' ? 'lower' : 'higher'} ${title} than ${c.b} up to ${paramLabel(x)} = ${xv(c.before)} and ${c.aBefore === 'lower' ? 'higher' : 'lower'} from ${xv(c.after)}`,
  );
  return `Lines cross (a practical difference on both sides): ${shown.join('; ')}${found.length > 3 ? `; and ${found.length - 3} more` : ''}.`;
}

/** How one variant's metric changes from the first to the last value of a numeric axis. */
export function trendText(part: ReportPart, metric: string, x: string): string {
  const values = part.axisValues[x] ?? [];
  if (!allNumbers(values) || values.length < 2) return '';
  const focus = focusCells(part)[0];
  const at = (xv: number) =>
    part.cells.find((c) => c.params[x] === xv && (!focus || c.variant === focus.variant) && Object.keys(c.params).every((k) => k === x || !focus || sameValue(c.params[k], focus.params[k])) && metricMean(c, metric) !== null);
  const first = at(values[0] as number);
  const last = at(values[values.length - 1] as number);
  if (!first || !last) return '';
  const v = judge(part, last, first, metric).verdict;
  const dir = (metricMean(last, metric) as number) >= (metricMean(first, metric) as number) ? 'rises' : 'falls';
  const same = formatNumber(metricMean(last, metric)) === formatNumber(metricMean(first, metric));
  const noise = v === 'noise' ? ' (within noise)' : v === 'small' ? ` (no practical difference: under ${thresholdText(part, metric)})` : v === 'unknown' ? '' : ' (beyond noise)';
  const info = metricInfo(metric);
  const label = paramLabel(x);
  const xv = axisValueText(x);
  if (same) return `${info.title} stays at ${estimateText(first, metric)} from ${label} = ${xv(values[0])} to ${xv(values[values.length - 1])}.`;
  return `${info.title} ${dir} from ${estimateText(first, metric)} at ${label} = ${xv(values[0])} to ${estimateText(last, metric)} at ${xv(values[values.length - 1])}${noise}.`;
}

/** Seconds as a sentence shows them (`35 s`, `35.5 s`). */
function seconds(ms: number): string {
  return `${formatNumber(ms / 1000)} s`;
}

/** Names joined as a sentence lists them (`a`, `a and b`, `a, b and c`). */
export function listText(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * What a graph cell's cascade timeline and edges say, computed from its metrics (means over its
 * replications): the order in which its services first got in trouble (by mean time, services
 * within 0.5 s of each other together, with the runs in which each did when not all), which were
 * still in trouble at the end in some runs, and the edge with the most calls per operation with the share of them
 * that were retries. Null for a cell without services.
 */
export function cascadeSentence(cell: ReportCell, label: string): string | null {
  const services = (cell.scenario as { graph?: { services?: Array<{ name: string }> } } | null)?.graph?.services?.map((s) => s.name);
  if (!services || services.length === 0) return null;
  const runs = cell.replications;
  const n = (m: string) => cell.metrics[m]?.n ?? 0;
  const trouble = services
    .filter((s) => n(`cascade.${s}.troubleAtMs`) > 0)
    .map((s) => ({ s, at: metricMean(cell, `cascade.${s}.troubleAtMs`) as number, runs: n(`cascade.${s}.troubleAtMs`), recovered: n(`cascade.${s}.recoveredAtMs`) }))
    .sort((a, b) => a.at - b.at);
  const parts: string[] = [];
  if (trouble.length === 0) parts.push('no service got in trouble');
  else {
    const groups: Array<typeof trouble> = [];
    for (const t of trouble) {
      const g = groups[groups.length - 1];
      if (g && Math.abs(t.at - (g[0] as (typeof trouble)[number]).at) < 500) g.push(t);
      else groups.push([t]);
    }
    const inRuns = (g: typeof trouble) => {
      const k = Math.min(...g.map((t) => t.runs));
      return k < runs ? ` in ${k} of ${runs} runs` : '';
    };
    const phrase = (g: typeof trouble) => `${listText(g.map((t) => t.s))} (${seconds((g[0] as (typeof trouble)[number]).at)}${inRuns(g)})`;
    parts.push(`${phrase(groups[0] as typeof trouble)} got in trouble first${groups.length > 1 ? `, then ${groups.slice(1).map(phrase).join(', then ')}` : ''}`);
    const stuck = trouble.filter((t) => t.recovered < t.runs);
    if (stuck.length > 0) {
      const all = stuck.every((t) => t.recovered === 0 && t.runs === runs);
      // "Still in trouble", not "never recovered": a service can stay busy past its trouble threshold
      // while the operations recover (a healed cache's database), which a window's `recovered` measures.
      const were = stuck.length > 1 ? 'were' : 'was';
      parts.push(all ? `${listText(stuck.map((t) => t.s))} ${were} still in trouble at the end` : `${listText(stuck.map((t) => `${t.s} (in ${t.runs - t.recovered} of ${t.runs} runs)`))} ${were} still in trouble at the end`);
    } else parts.push('every one got out of trouble');
  }
  const workloads = cellWorkloads(cell);
  const several = workloads.length > 1;
  const top = busiestEdgeOfCell(cell);
  if (top !== null) {
    const share = top.retryShare !== null ? `, ${Math.round(top.retryShare * 100)}% of them retries` : '';
    const edge = `${top.caller} -> ${top.callee}`;
    if (!several) parts.push(`the calls concentrate on ${edge} (${formatNumber(top.perOperation)} per operation${share})`);
    else {
      const each = top.workloads.map(({ workload: w, perOperation: a }) => (a === null || a === 0 ? `none per ${w} operation` : `${formatNumber(a)} per ${w} operation`));
      parts.push(`the calls concentrate on ${edge} (${listText(each)}${share})`);
    }
  }
  if (several) {
    const rates = workloads
      .map((w) => ({ w, r: metricMean(cell, `workloads.${w}.successRate`) }))
      .filter((x): x is { w: string; r: number } => x.r !== null)
      .map((x, i) => `${x.w} ${i === 0 ? 'succeeds in ' : ''}${percent(x.r)}${i === 0 ? ' of its operations' : ''}`);
    if (rates.length > 0) parts.push(listText(rates));
  }
  return `${label}: ${parts.join('; ')}.`;
}

/** A share as a percentage, to 4 significant digits ({@link formatNumber}: 40.12%, 99.97%). */
function percent(share: number): string {
  return `${formatNumber(share * 100)}%`;
}

/** The cascade sentences of a graph part ({@link cascadeSentence}), one per focus cell; empty for a part without services. */
export function cascadeFindings(part: ReportPart): string[] {
  const cells = findingsCells(part);
  return cells.map((c) => cascadeSentence(c, cellLabel(c, cells))).filter((x): x is string => x !== null);
}
