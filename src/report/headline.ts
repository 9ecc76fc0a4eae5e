import { restsOnFewRuns } from '../metrics/metricBounds.js';
import { fewRunsText } from './estimates.js';
import { formatSetDuration } from '../policy/formatDuration.js';
import { evaluateAllClaims, ONE_REPLICATION, type ClaimResult } from './claims.js';
import { cellHealth, type CellHealth } from './collapse.js';
import { judge, noPracticalDifference, type Verdict } from './compare.js';
import { axisValueText, comparisonText, crossingText, estimateText, listText, rankCells, thresholdText, trendText } from './findings.js';
import { formatNumber, formatValue, shownDurationUnit } from './format.js';
import { isDurationMetric, metricInfo, paramLabel, paramsInWords, unitIn } from './metrics.js';
import { cellLabel, focusCells, metricMean, sameValue, type ReportModel, type ReportPart } from './reportModel.js';
import { clusteringMetric, defaultX, isClusteringAxis, keyMetrics } from './selectCharts.js';
import { busiestEdgeOfCell, edgePerOperation } from './busiestEdge.js';
import type { ReportCell } from './types.js';

/** At most this many sweep points are named in a list of a headline; the rest are counted (`and 3 more`). */
const MAX_POINTS_NAMED = 5;

/** Up to this many collapsed variants at one point each get their own success and goodput in the headline. */
const MAX_CELLS_OWN_FIGURES = 4;

/** The replications behind a part's intervals, when they cannot tell noise from a difference or rest on few runs (below `FEW_RUNS`). */
function noIntervalText(part: ReportPart): string {
  if (part.replications <= 1) return ' With one replication per cell there is no interval, so nothing here can be called within or beyond noise.';
  return restsOnFewRuns(part.replications) ? ` Each interval here ${fewRunsText(part.replications)}.` : '';
}

/** A metric's title as it reads inside a sentence (`p99 latency of successes`, `amplification`). */
function inSentence(metric: string): string {
  const t = metricInfo(metric).title;
  return t.charAt(0).toLowerCase() + t.slice(1);
}

/**
 * The metric a comparison of these cells is told on: the first key metric whose best and worst
 * differ ({@link judge}); else the first whose best and worst at least read differently; else the first.
 */
function headlineMetric(part: ReportPart, key: readonly string[], cells: readonly ReportCell[]): string | undefined {
  const ends = (m: string) => {
    const r = rankCells(cells, m);
    return { best: r[0], worst: r[r.length - 1] };
  };
  const differs = key.find((m) => {
    const { best, worst } = ends(m);
    if (!best || !worst || best === worst) return false;
    const v = judge(part, best, worst, m).verdict;
    return v === 'lower' || v === 'higher';
  });
  const reads = key.find((m) => {
    const { best, worst } = ends(m);
    return best && worst && formatNumber(metricMean(best, m)) !== formatNumber(metricMean(worst, m));
  });
  return differs ?? reads ?? key.find((m) => rankCells(cells, m).length > 0);
}

/** The distinct sweep points of a part (their parameters), in the part's order. */
function sweepPoints(part: ReportPart): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const c of part.cells) if (!out.some((p) => sameValue(p, c.params))) out.push(c.params);
  return out;
}

/**
 * How sweep points are named: `of` counts them (`5 values of Clients`, `12 sweep points`); `list`
 * names them, by the value of the one axis (`Clients = 10, 20 and 40`), or by all their parameters
 * (one point; several points of a sweep of several axes are only counted, `named` false).
 */
function pointNames(part: ReportPart): { of: (n: number) => string; named: boolean; list: (points: ReadonlyArray<Record<string, unknown>>, labelled: boolean) => string } {
  const x = part.axes.length === 1 ? (part.axes[0] as string) : undefined;
  const cap = (names: string[]) => (names.length > MAX_POINTS_NAMED ? [...names.slice(0, MAX_POINTS_NAMED - 1), `${names.length - MAX_POINTS_NAMED + 1} more`] : names);
  if (x === undefined) {
    return { of: (n) => `${n} sweep points`, named: false, list: (points) => listText(cap(points.map((p) => paramsInWords(p)))) };
  }
  const numeric = axisValueText(x);
  const value = (v: unknown) => (typeof v === 'number' ? numeric(v) : formatValue(v));
  return {
    of: (n) => `${n} values of ${paramLabel(x)}`,
    named: true,
    list: (points, labelled) => `${labelled ? `${paramLabel(x)} = ` : ''}${listText(cap(points.map((p) => value(p[x]))))}`,
  };
}

/** The means of a metric over cells as a sentence gives them: one number, or the lowest and highest (`11.9–12.3`), and the unit. */
function valuesText(cells: readonly ReportCell[], metric: string, alongside: readonly ReportCell[] = []): { values: string; unit: string } {
  const mean = (cs: readonly ReportCell[]) => cs.map((c) => metricMean(c, metric)).filter((v): v is number => v !== null);
  const means = mean(cells);
  let lo = Math.min(...means);
  let hi = Math.max(...means);
  let unit = metricInfo(metric).unit;
  if (isDurationMetric(metric)) {
    // One unit for the numbers a sentence puts side by side (`from 1088 to 188.4 ms`).
    const u = shownDurationUnit(Math.max(hi, ...mean(alongside)));
    lo /= u.ms;
    hi /= u.ms;
    unit = unitIn(unit, u);
  }
  const values = formatNumber(lo) === formatNumber(hi) ? formatNumber(lo) : `${formatNumber(lo)}–${formatNumber(hi)}`;
  return { values, unit: unit.includes(' / ') ? '' : unit };
}

/** One sweep point's reading of variant b against variant a on a metric. */
interface PointVerdict {
  params: Record<string, unknown>;
  a: ReportCell;
  b: ReportCell;
  verdict: Verdict;
}

/** The verdicts of b against a at every sweep point where both ran. */
function pointVerdicts(part: ReportPart, a: string, b: string, metric: string): PointVerdict[] {
  const at = (variant: string, params: Record<string, unknown>) => part.cells.find((c) => c.variant === variant && sameValue(c.params, params) && metricMean(c, metric) !== null);
  return sweepPoints(part).flatMap((params) => {
    const ca = at(a, params);
    const cb = at(b, params);
    return ca && cb ? [{ params, a: ca, b: cb, verdict: judge(part, cb, ca, metric).verdict }] : [];
  });
}

/**
 * What a sweep with several variants shows across its points, told on the best (b) and the worst
 * (a) variant at the focus point: b's effect on the metric at every point ("across all values"),
 * or where its sign changes ("changes sign at"), or at which points it is a practical difference
 * and at which not; "no practical difference" when none is. Empty when no point has an interval.
 */
function acrossValuesText(part: ReportPart, key: readonly string[], focus: readonly ReportCell[]): string {
  const judged = key.flatMap((m) => {
    const r = rankCells(focus, m);
    const best = r[0];
    const worst = r[r.length - 1];
    if (!best || !worst || best.variant === worst.variant) return [];
    return [{ m, a: worst.variant, b: best.variant, points: pointVerdicts(part, worst.variant, best.variant, m) }];
  });
  const told = judged.filter((j) => j.points.some((p) => p.verdict !== 'unknown'));
  if (told.length === 0) return '';
  const names = pointNames(part);
  const chosen = told.find((j) => j.points.some((p) => p.verdict === 'lower' || p.verdict === 'higher'));
  if (!chosen) {
    const first = told[0] as (typeof told)[number];
    const samePair = (j: (typeof told)[number]) => [j.a, j.b].sort().join('\n') === [first.a, first.b].sort().join('\n');
    const metrics = listText(told.filter(samePair).map((j) => inSentence(j.m)));
    return `No practical difference between ${first.b} and ${first.a} in ${metrics} at any of the ${names.of(first.points.length)} (within noise, or under ${thresholdText(part, first.m)}).`;
  }
  const { m, a, b, points } = chosen;
  const title = inSentence(m);
  const lower = points.filter((p) => p.verdict === 'lower');
  const higher = points.filter((p) => p.verdict === 'higher');
  const none = points.filter((p) => noPracticalDifference(p.verdict));
  const noneText = none.length === 0 ? '' : names.named ? `; no practical difference at ${names.list(none.map((p) => p.params), false)}` : `; no practical difference at ${none.length} of ${names.of(points.length)}`;
  if (lower.length > 0 && higher.length > 0) {
    const sided = points.filter((p) => p.verdict === 'lower' || p.verdict === 'higher');
    const firstSide = (sided[0] as PointVerdict).verdict;
    const [before, after] = firstSide === 'lower' ? [lower, higher] : [higher, lower];
    const change = sided.find((p) => p.verdict !== firstSide) as PointVerdict;
    const other = firstSide === 'lower' ? 'higher' : 'lower';
    const sides = names.named
      ? `at ${names.list(before.map((p) => p.params), true)} and ${other} at ${names.list(after.map((p) => p.params), false)}`
      : `at ${before.length} and ${other} at ${after.length} of ${names.of(points.length)}`;
    return `${b} has ${firstSide} ${title} than ${a} ${sides}: the difference changes sign at ${names.list([change.params], true)}${noneText}.`;
  }
  const sided = lower.length > 0 ? lower : higher;
  const verb = lower.length > 0 ? 'cuts' : 'raises';
  const where =
    none.length === 0 && points.length > 1
      ? `across all ${names.of(points.length)}`
      : `at ${sided.length} of ${names.of(points.length)}${names.named ? ` (${names.list(sided.map((p) => p.params), true)})` : ''}`;
  const from = valuesText(sided.map((p) => p.a), m, sided.map((p) => p.b));
  const to = valuesText(sided.map((p) => p.b), m, sided.map((p) => p.a));
  const uniform = !from.values.includes('–') && !to.values.includes('–');
  if (uniform) return `${b} ${verb} ${title} from ${from.values} with ${a} to ${to.values}${to.unit ? ` ${to.unit}` : ''} ${where}${noneText}.`;
  // Values that change along the sweep: the relative change at each point, and the numbers at the focus point.
  const at = sided.find((p) => sameValue(p.params, (focus[0] as ReportCell).params)) ?? (sided[sided.length - 1] as PointVerdict);
  const atA = valuesText([at.a], m, [at.b]);
  const atB = valuesText([at.b], m, [at.a]);
  const rel = sided.map((p) => metricMean(p.a, m) as number).every((v) => v !== 0)
    ? ` by ${rangeText(
        sided.map((p) => Math.abs((metricMean(p.b, m) as number) / (metricMean(p.a, m) as number) - 1)),
        (v) => `${Math.round(v * 100)}%`,
      )}`
    : '';
  return `${b} ${verb} ${title} against ${a}${rel} ${where}${noneText} (from ${atA.values} to ${atB.values}${atB.unit ? ` ${atB.unit}` : ''} at ${names.list([at.params], true)}).`;
}

/** A share as a percentage, to 3 significant digits (`34.1%`, `0.109%`, `99.7%`). */
function percent(share: number): string {
  return `${formatNumber(Number((share * 100).toPrecision(3)))}%`;
}

/** Numbers over cells as a sentence gives them: one, or the lowest and highest (`0.11%–15.6%`). */
function rangeText(values: readonly number[], show: (v: number) => string): string {
  const lo = show(Math.min(...values));
  const hi = show(Math.max(...values));
  return lo === hi ? lo : `${lo}–${hi}`;
}

/** A rate as a headline gives it, to 3 significant digits (`459/s`). */
function perSec(v: number): string {
  return `${formatNumber(Number(v.toPrecision(3)))}/s`;
}

/**
 * What a group of cells in one state shows: `figures`, their success rate and goodput (each the
 * lowest and highest over the group); `demand`, what the goodput is against (when every cell's is
 * known); `span`, over which time; `recovered`, the runs that recovered.
 */
function healthParts(healths: readonly CellHealth[]): { figures: string; demand: string; span: string; recovered: string } {
  const known = (f: (h: CellHealth) => number | null) => healths.map(f).filter((v): v is number => v !== null);
  const success = known((h) => h.successRate);
  const goodput = known((h) => h.goodputPerSec);
  const demand = known((h) => h.demandPerSec);
  const figures = [success.length > 0 ? `success ${rangeText(success, percent)}` : '', goodput.length > 0 ? `goodput ${rangeText(goodput, perSec)}` : ''].filter((f) => f !== '').join(', ');
  const w = (healths[0] as CellHealth).window;
  const sameWindow = healths.every((h) => h.window?.name === w?.name);
  const span = w && sameWindow ? `from ${formatSetDuration(w.fromMs)} to ${formatSetDuration(w.toMs)} (window ${w.name})` : w ? 'in the last window' : 'over the run';
  const recovered = healths.map((h) => h.recovered).filter((r): r is { runs: number; of: number } => r !== null);
  const runs = recovered.reduce((n, r) => n + r.runs, 0);
  const of = recovered.reduce((n, r) => n + r.of, 0);
  return {
    figures,
    demand: goodput.length > 0 && demand.length === healths.length ? `a demand of ${rangeText(demand, perSec)}` : '',
    span,
    recovered: of === 0 ? '' : runs === 0 ? 'no run recovered' : `${runs} of ${of} runs recovered`,
  };
}

/** Success and goodput against demand over the span, then the recovered runs (`success 34%, goodput 459/s against a demand of 1350/s from 60 s to 4 min (window after); no run recovered`). */
function healthNumbers(healths: readonly CellHealth[]): string {
  const p = healthParts(healths);
  return `${p.figures || 'measured'}${p.demand ? ` against ${p.demand}` : ''} ${p.span}${p.recovered ? `; ${p.recovered}` : ''}`;
}

/**
 * The sentences on the cells whose runs collapsed or did not all recover ({@link cellHealth}):
 * which variants (and at which sweep points), with their success rate, goodput against demand and
 * recovered runs; empty when every cell is healthy.
 */
function collapseText(part: ReportPart): string {
  const judged = part.cells.filter((c) => c.state === 'ok').map((c) => ({ c, h: cellHealth(c) }));
  const points = sweepPoints(part).length;
  const names = pointNames(part);
  const out: string[] = [];
  for (const state of ['collapsed', 'unrecovered'] as const) {
    const group = judged.filter((x) => x.h.state === state);
    if (group.length === 0) continue;
    const where = (ps: ReadonlyArray<Record<string, unknown>>) =>
      points === 1 ? '' : ps.length === points ? `at all ${names.of(points)}` : names.named ? `at ${names.list(ps, true)}` : `at ${ps.length} of ${names.of(points)}`;
    // Variants that collapsed at the same points are named together.
    const at = (v: string) => group.filter((x) => x.c.variant === v).map((x) => x.c.params);
    const bySet = new Map<string, { variants: string[]; points: Array<Record<string, unknown>> }>();
    for (const v of part.variants) {
      const ps = at(v);
      if (ps.length === 0) continue;
      const k = JSON.stringify(ps.map((p) => sweepPoints(part).findIndex((q) => sameValue(p, q))).sort((x, y) => x - y));
      const entry = bySet.get(k) ?? { variants: [], points: ps };
      entry.variants.push(v);
      bySet.set(k, entry);
    }
    const sets = [...bySet.values()];
    const single = part.variants.length === 1;
    const everyVariant = part.variants.length === 2 ? 'Both variants' : 'Every variant';
    const first = sets[0] as { variants: string[]; points: Array<Record<string, unknown>> };
    const who = single
      ? state === 'collapsed'
        ? 'The runs'
        : 'Some runs'
      : sets.length > 1
        ? listText(sets.map((s) => `${listText(s.variants)}${where(s.points) ? ` (${where(s.points)})` : ''}`))
        : first.variants.length === part.variants.length
          ? everyVariant
          : listText(first.variants);
    const verb = state === 'collapsed' ? 'collapsed' : single ? 'did not recover' : 'did not recover in every run';
    if (!single && points === 1 && group.length >= 2 && group.length <= MAX_CELLS_OWN_FIGURES) {
      // A few variants at one point: each with its own figures, the span and demand said once.
      const p = healthParts(group.map((x) => x.h));
      const each = listText(group.map((x) => `${x.c.variant} (${healthParts([x.h]).figures})`));
      out.push(`${each} ${verb} ${p.span}${p.demand ? `, against ${p.demand}` : ''}${p.recovered ? `; ${p.recovered}` : ''}.`);
      continue;
    }
    const suffix = sets.length === 1 ? where(first.points) : '';
    out.push(`${who} ${verb}${suffix ? ` ${suffix}` : ''}: ${healthNumbers(group.map((x) => x.h))}.`);
  }
  return out.join(' ');
}

/**
 * The busiest edge of a graph part's focus cells ({@link busiestEdgeOfCell}): the edge with the most calls
 * per operation in any of them, and its calls per operation in the cells with the most and the
 * fewest; empty for a part without edges.
 */
function busiestEdgeText(focus: readonly ReportCell[]): string {
  const tops = focus.map((c) => ({ c, top: busiestEdgeOfCell(c) })).filter((x) => x.top !== null);
  if (tops.length === 0) return '';
  const busiest = tops.reduce((m, x) => ((x.top?.perOperation ?? 0) > (m.top?.perOperation ?? 0) ? x : m));
  const edge = busiest.top?.edge as string;
  const on = focus.map((c) => ({ c, a: edgePerOperation(c, edge) })).filter((x): x is { c: ReportCell; a: number } => x.a !== null);
  const most = on.reduce((m, x) => (x.a > m.a ? x : m));
  const fewest = on.reduce((m, x) => (x.a < m.a ? x : m));
  const share = busiest.top?.retryShare;
  const retries = share !== null && share !== undefined ? ` (${Math.round(share * 100)}% of them retries)` : '';
  const shown = edge.replace('->', ' -> ');
  if (on.length === 1) return `The busiest edge is ${shown}: ${formatNumber(most.a)} calls per operation${retries}.`;
  if (formatNumber(most.a) === formatNumber(fewest.a)) return `The busiest edge is ${shown}: ${formatNumber(most.a)} calls per operation with every ${focus.every((c) => sameValue(c.params, most.c.params)) ? 'variant' : 'cell'}.`;
  return `The busiest edge is ${shown}: ${formatNumber(most.a)} calls per operation with ${cellLabel(most.c, focus)}${most.c === busiest.c ? retries : ''}, against ${formatNumber(fewest.a)} with ${cellLabel(fewest.c, focus)}.`;
}

/** What the data says of the metrics (without collapse or edges): a comparison, the effect across a sweep, a trend, or a single cell's numbers. */
function effectText(part: ReportPart, key: readonly string[], focus: readonly ReportCell[]): string {
  const f0 = focus[0] as ReportCell;
  const x = defaultX(part);
  if (focus.length >= 2) {
    if (sweepPoints(part).length > 1) {
      const across = acrossValuesText(part, key, focus);
      if (across) return across;
    }
    const m = headlineMetric(part, key, focus) as string;
    const cross = x !== undefined ? crossingText(part, m, x) : '';
    return `${comparisonText(part, focus, m)}${cross ? ` ${cross}` : ''}`;
  }
  if (part.variants.length === 1 && x !== undefined) {
    const m = key.find((k) => trendText(part, k, x) !== '' && !trendText(part, k, x).includes(' stays at ')) ?? key[0];
    const t = m !== undefined ? trendText(part, m, x) : '';
    if (t) return t;
    // A categorical axis (a backoff kind): the best and worst of its values, not one arbitrary cell.
    const along = part.cells.filter(
      (c) => c.variant === f0.variant && Object.keys(c.params).every((k) => k === x || sameValue(c.params[k], f0.params[k])) && Object.keys(c.metrics).length > 0,
    );
    const mAlong = along.length >= 2 ? headlineMetric(part, key, along) : undefined;
    if (mAlong !== undefined) return comparisonText(part, along, mAlong);
  }
  const samePoint = Object.keys(f0.params).length > 0 && focus.every((c) => sameValue(c.params, f0.params));
  const at = samePoint ? `At ${paramsInWords(f0.params)}, ` : '';
  const text = key
    .slice(0, 3)
    .filter((m) => metricMean(f0, m) !== null)
    .map((m) => `${metricInfo(m).title.toLowerCase()} ${estimateText(f0, m)}`)
    .join(', ');
  return `${at}${at ? text : text.charAt(0).toUpperCase() + text.slice(1)}.`;
}

/**
 * The one-line finding computed from a part's data. First, when runs collapsed or did not all
 * recover ({@link cellHealth}), which and how (success, goodput against demand, recovered runs),
 * whatever metric the charts show. Then the effect: with several variants over a sweep, the best
 * variant's effect against the worst's (at the focus point) across every swept value, or where it
 * changes sign or is no practical difference; with several variants at one point, the best and
 * the worst with their intervals (and where lines cross); with one variant and a numeric sweep, how
 * the metric changes from one end to the other; with a single cell, its key metrics. A difference
 * is one only as {@link judge} rules. For a service graph, its busiest edge. Without replications to
 * give intervals, it says so.
 */
export function generatedFinding(part: ReportPart): string {
  // A swept timer tick or seeding mode is judged by the clustering of leaf arrivals too.
  const cm = part.axes.some(isClusteringAxis) ? clusteringMetric(part) : null;
  const key = [...keyMetrics(part), ...(cm ? [cm] : [])];
  const focus = focusCells(part).filter((c) => Object.keys(c.metrics).length > 0);
  if (key.length === 0 || focus.length === 0) return `${part.cells.length} cells; no key metric was measured.`;
  const sentences = [collapseText(part), effectText(part, key, focus), busiestEdgeText(focus)].filter((s) => s !== '');
  return `${sentences.join(' ')}${noIntervalText(part)}`;
}

/**
 * An authored finding checked against this run's data: as written when no claim it rests on is
 * contradicted; else the finding computed from the data, followed by the authored one marked as not
 * supported (a quick run with a few replications can contradict what the full run showed). When
 * it rests on claims none of which this run can show (one replication, no practical difference), it
 * is kept and says so.
 */
function checkedFinding(authored: string, claims: readonly ClaimResult[], generated: () => string): string {
  const contradicted = claims.filter((c) => c.status === 'contradicted').length;
  if (contradicted > 0) {
    const which = contradicted === 1 ? 'a claim' : `${contradicted} claims`;
    return `${generated()} Not supported by this run's data, which contradicts ${which} it rests on (see Claims): the file's finding "${authored}"`;
  }
  if (claims.length === 0 || claims.some((c) => c.status !== 'not shown')) return authored;
  const single = claims.every((c) => c.reason === ONE_REPLICATION);
  return `${authored} (This run's data cannot show the claims it rests on${single ? ', with one replication per cell' : ''}; see Claims.)`;
}

/** The claims of a report, or those evaluated in one of its parts. */
function claimsOf(model: ReportModel, part?: string): ClaimResult[] {
  return evaluateAllClaims(model).filter((c) => part === undefined || c.part === part);
}

/** The one-line finding of a report: the file's finding (checked against the claims of every part), else the first part's generated finding. */
export function findingLine(model: ReportModel): string {
  const part = model.parts[0];
  const authored = model.hints.finding ?? part?.hints.finding;
  if (!part) return authored ?? 'No results.';
  if (!authored) return generatedFinding(part);
  return checkedFinding(authored, claimsOf(model), () => generatedFinding(part));
}

/** A part's own finding as its section shows it (checked against the claims evaluated in that part); null when the file gives none. */
export function partFindingLine(model: ReportModel, part: ReportPart): string | null {
  const authored = part.hints.finding;
  if (!authored) return null;
  return checkedFinding(authored, claimsOf(model, part.name), () => generatedFinding(part));
}
