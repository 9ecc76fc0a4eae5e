import { comparisonText, crossingText, trendText } from './findings.js';
import { paramLabel, paramsInWords } from './metrics.js';
import type { ChartHint } from './reportHints.js';
import { focusCells, hasMetric, metricMean, sameValue, selectCells, type ReportPart } from './reportModel.js';
import { layerAttemptsRows } from './specs/amplification.js';
import { allNumbers } from './specs/common.js';
import { encodingWords } from './specs/encodings.js';
import { giveUpRows } from './specs/giveUps.js';
import { type DrawnEdge, type DrawnNode } from './specs/graphDrawing.js';
import { type CacheSeries } from './specs/timeSeries.js';
import type { ChartKind, ReportCell, VlSpec } from './types.js';

/** A chart to draw, with its cells resolved. */
export interface ChartRequest {
  kind: ChartKind;
  metric?: string;
  x?: string;
  logX?: boolean;
  logY?: boolean;
  /** The cells shown (series, clustering, amplification, give-ups, Pareto). */
  cells?: ReportCell[];
  panels?: string[];
  work?: string;
  time?: string;
  title?: string;
  caption?: string;
}

/** Graph drawings a part gets by default: one per cell shown, at most this many. */
const MAX_GRAPH_DRAWINGS = 4;

/**
 * The service graph of a cell as its drawing shows it, or null for a cell that is not a graph run
 * with edges: the callers of its entry edges and its services (names from the cell's resolved
 * scenario, so names holding "->" or "." are read exactly), every edge with its calls per operation,
 * and each service's mean utilisation and crashes where the results measured them.
 */
export function drawnGraph(cell: ReportCell): { nodes: DrawnNode[]; edges: DrawnEdge[] } | null {
  const graph = (cell.scenario as { graph?: { services?: Array<{ name: string }>; workloads?: Array<{ name: string }> } } | null)?.graph;
  if (!graph?.services) return null;
  const services = graph.services.map((s) => s.name);
  const callers = graph.workloads ? graph.workloads.map((w) => w.name) : ['workload'];
  const mean = (key: string): number | null => metricMean(cell, key);
  const edges = measuredEdges(cell, [...callers, ...services], services);
  if (edges.length === 0) return null;
  const used = new Set(edges.flatMap((e) => [e.caller, e.callee]));
  const nodes: DrawnNode[] = [...callers, ...services]
    .filter((n) => used.has(n))
    .map((name) => ({ name, utilisation: mean(`services.${name}.utilization`), crashes: mean(`services.${name}.crashes`) }));
  return { nodes, edges };
}

/** The metric an edge's calls per operation are measured as: `edges.<caller>-><callee>.amplification`. */
const EDGE_PREFIX = 'edges.';
const EDGE_SUFFIX = '.amplification';
const EDGE_ARROW = '->';

/**
 * The edges a cell measured, callers in the order of `callers`, then callees in that of `services`:
 * read from the cell's metric names, each split at every arrow into a known caller and a known
 * service, so the work grows with the metrics and not with the pairs of services.
 */
function measuredEdges(cell: ReportCell, callers: readonly string[], services: readonly string[]): DrawnEdge[] {
  const callerAt = new Map<string, number>();
  callers.forEach((c, i) => {
    if (!callerAt.has(c)) callerAt.set(c, i);
  });
  const serviceAt = new Map(services.map((s, i) => [s, i]));
  const found: Array<{ order: number; edge: DrawnEdge }> = [];
  for (const key of Object.keys(cell.metrics)) {
    if (!key.startsWith(EDGE_PREFIX) || !key.endsWith(EDGE_SUFFIX)) continue;
    const pair = key.slice(EDGE_PREFIX.length, key.length - EDGE_SUFFIX.length);
    const a = metricMean(cell, key);
    if (a === null) continue;
    for (let at = pair.indexOf(EDGE_ARROW); at >= 0; at = pair.indexOf(EDGE_ARROW, at + 1)) {
      const caller = pair.slice(0, at);
      const callee = pair.slice(at + EDGE_ARROW.length);
      const i = callerAt.get(caller);
      const j = serviceAt.get(callee);
      if (i !== undefined && j !== undefined) found.push({ order: i * services.length + j, edge: { caller, callee, amplification: a } });
    }
  }
  return found.sort((x, y) => x.order - y.order).map((f) => f.edge);
}

/**
 * The lookaside caches' lookups and hits per bin in a cell's typical run, each named "<cache> at
 * <service>" (as its flushes are), then the shared tiers', each named "shared <cache>".
 */
export function cacheSeries(cell: ReportCell): CacheSeries[] {
  const own = (cell.graph?.services ?? []).flatMap((s) => Object.entries(s.caches ?? {}).map(([name, c]) => ({ name: `${name} at ${s.service}`, lookups: c.lookups, hits: c.hits })));
  const shared = Object.entries(cell.graph?.caches ?? {}).map(([name, c]) => ({ name: `shared ${name}`, lookups: c.lookups, hits: c.hits }));
  return [...own, ...shared];
}

/** Whether a cell kept its typical run's per-service series (a service graph). */
export function hasServiceSeries(cell: ReportCell): boolean {
  return (cell.graph?.services.length ?? 0) > 0;
}

/** What the leaf and workload of a part are (from its first cell). */
function kinds(part: ReportPart): { leaf: string; workload: string } {
  const sc = part.cells[0]?.scenario;
  return { leaf: sc?.leaf?.kind ?? 'server', workload: sc?.workload?.kind ?? 'open' };
}

function anyNonZero(cells: readonly ReportCell[], metric: string): boolean {
  return cells.some((c) => {
    const m = metricMean(c, metric);
    return m !== null && m !== 0;
  });
}

/**
 * The metrics a part is judged by, measured and not zero everywhere: for the optimistic-concurrency
 * resource writes and completion time (the AWS study's calls and time); for a burst, leaf calls,
 * completion time and failures; otherwise amplification, p99 latency, goodput and failures.
 */
export function keyMetrics(part: ReportPart): string[] {
  const { leaf, workload } = kinds(part);
  const wanted =
    leaf === 'occ'
      ? ['writes', 'completionTimeMs', 'operations.failed']
      : workload === 'burst'
        ? ['leafCalls', 'completionTimeMs', 'amplification', 'operations.failed']
        : ['amplification', 'latencyMs.p99', 'goodputPerSec', 'operations.failed'];
  return wanted.filter((m) => hasMetric(part.cells, m) && anyNonZero(part.cells, m));
}

/** The metric of total work (x of the Pareto chart) and of time (y). */
export function workAndTime(part: ReportPart): { work: string; time: string } {
  const { leaf, workload } = kinds(part);
  const work = leaf === 'occ' && hasMetric(part.cells, 'writes') ? 'writes' : 'leafCalls';
  const time = leaf === 'occ' || workload === 'burst' || !hasMetric(part.cells, 'latencyMs.p99') ? 'completionTimeMs' : 'latencyMs.p99';
  return { work, time };
}

/** A swept parameter that changes how synchronised the retries are: a timer tick or a seeding mode. */
export function isClusteringAxis(path: string): boolean {
  return /tickMs$/i.test(path) || /seed(ing)?(Mode)?$/i.test(path) || /seeding/i.test(path);
}

/** The clustering metric of the smallest configured bin width: `clustering.<b>ms.peakToMean`. */
export function clusteringMetric(part: ReportPart): string | null {
  const widths = new Set<number>();
  for (const c of part.cells) {
    for (const k of Object.keys(c.metrics)) {
      const m = /^clustering\.([0-9.e+-]+)ms\.peakToMean$/.exec(k);
      if (m) widths.add(Number(m[1]));
    }
  }
  const smallest = [...widths].sort((a, b) => a - b)[0];
  return smallest === undefined ? null : `clustering.${smallest}ms.peakToMean`;
}

/** The swept parameter a metric chart puts on its x axis: the first numeric axis, else the first. */
export function defaultX(part: ReportPart): string | undefined {
  return part.axes.find((a) => allNumbers(part.axisValues[a] ?? [])) ?? part.axes[0];
}

function hasSeries(cells: readonly ReportCell[], minBins = 2): boolean {
  return cells.some((c) => (c.timeSeries?.typical?.tMs?.length ?? 0) >= minBins);
}

function hasRetriesOrLayers(cells: readonly ReportCell[]): boolean {
  return cells.some(
    (c) => (c.scenario?.stack?.length ?? 0) > 1 || Object.keys(c.metrics).some((k) => /^attempts\..+\.retries$/.test(k) && (metricMean(c, k) ?? 0) > 0),
  );
}

/**
 * Cells along one axis through the focus point: the focus cells' other parameters, every value of
 * `axis`; every variant when that makes at most 6 cells, else the first focus variant only.
 */
export function alongAxis(part: ReportPart, focus: readonly ReportCell[], axis: string): ReportCell[] {
  const f = focus[0];
  if (!f) return [];
  const match = (c: ReportCell) => Object.keys(f.params).every((k) => k === axis || sameValue(c.params[k], f.params[k]));
  const all = part.cells.filter((c) => match(c) && focus.some((x) => x.variant === c.variant));
  return all.length <= 6 ? all : all.filter((c) => c.variant === f.variant);
}

/**
 * The charts a part gets when its hints do not list them, from what it varies and measures:
 * numeric (or categorical) sweep axes give a key metric against the first of them, and the
 * clustering metric against a swept tick or seeding mode; variants give the Pareto chart of work
 * against time; the focus cells (every variant at the last sweep point) give the time series of
 * their typical run, the leaf arrivals per bin of a burst, the attempts per layer when anything
 * retries or the stack has several layers, and the give-up reasons when operations failed.
 */
export function chooseCharts(part: ReportPart): ChartRequest[] {
  const out: ChartRequest[] = [];
  const focus = focusCells(part);
  const x = defaultX(part);
  if (x !== undefined) for (const metric of keyMetrics(part)) out.push({ kind: 'metric', metric, x });
  const cm = clusteringMetric(part);
  const clusteringAxes = part.axes.filter(isClusteringAxis);
  if (cm) for (const ax of clusteringAxes) out.push({ kind: 'clustering', metric: cm, x: ax, cells: alongAxis(part, focus, ax) });
  if (part.variants.length >= 2 && focus.length >= 2) {
    const { work, time } = workAndTime(part);
    if (hasMetric(focus, work) && hasMetric(focus, time)) out.push({ kind: 'pareto', work, time, cells: focus });
  }
  if (hasSeries(focus)) out.push({ kind: 'series', cells: focus });
  if (cm && clusteringAxes.length === 0 && kinds(part).workload === 'burst' && hasSeries(focus, 5)) out.push({ kind: 'clustering', metric: cm, cells: focus });
  if (hasRetriesOrLayers(focus) && layerAttemptsRows(focus.map((cell) => ({ label: cell.variant, cell }))).length > 0) out.push({ kind: 'amplification', cells: focus });
  if (giveUpRows(focus.map((cell) => ({ label: cell.variant, cell }))).length > 0) out.push({ kind: 'giveUps', cells: focus });
  for (const cell of focus.filter((c) => drawnGraph(c) !== null).slice(0, MAX_GRAPH_DRAWINGS)) out.push({ kind: 'graph', cells: [cell] });
  const graphCells = focus.filter(hasServiceSeries);
  if (graphCells.length > 0) out.push({ kind: 'cascade', cells: graphCells });
  for (const cell of graphCells.slice(0, MAX_GRAPH_DRAWINGS)) out.push({ kind: 'services', cells: [cell] });
  return out;
}

/** Turn a part's chart hints into requests; problems (an axis not swept, a metric not measured, no cell matched) become warnings. */
export function requestsFromHints(part: ReportPart, hints: readonly ChartHint[], warn: (m: string) => void): ChartRequest[] {
  const out: ChartRequest[] = [];
  const focus = focusCells(part);
  hints.forEach((h, i) => {
    const where = `report.charts.${i} (part ${part.name})`;
    const req: ChartRequest = { kind: h.kind };
    for (const k of ['metric', 'x', 'logX', 'logY', 'panels', 'work', 'time', 'title', 'caption'] as const) {
      if (h[k] !== undefined) (req as unknown as Record<string, unknown>)[k] = h[k];
    }
    if (h.cells) {
      req.cells = selectCells(part, h.cells);
      if (req.cells.length === 0) return warn(`${where}: no cell matches ${JSON.stringify(h.cells)}`);
    } else if (h.kind !== 'metric') req.cells = focus;
    if (h.x !== undefined && !part.axes.includes(h.x)) return warn(`${where}: x "${h.x}" is not swept (swept: ${part.axes.join(', ') || 'nothing'})`);
    if (h.kind === 'metric') {
      req.x = h.x ?? defaultX(part);
      if (req.x === undefined) return warn(`${where}: a metric chart needs a swept parameter, and nothing is swept`);
    }
    if (h.kind === 'clustering') {
      req.metric = h.metric ?? clusteringMetric(part) ?? undefined;
      if (req.metric === undefined) return warn(`${where}: no clustering was measured`);
      if (h.x === undefined) {
        const ax = part.axes.find(isClusteringAxis);
        if (ax) req.x = ax;
      }
      if (!h.cells && req.x !== undefined) req.cells = alongAxis(part, focus, req.x);
    }
    if (h.kind === 'pareto') {
      const d = workAndTime(part);
      req.work = h.work ?? d.work;
      req.time = h.time ?? d.time;
    }
    for (const m of [req.metric, req.work, req.time]) {
      if (m !== undefined && !hasMetric(part.cells, m)) return warn(`${where}: metric "${m}" was not measured in this experiment`);
    }
    if (h.kind === 'graph') {
      // One drawing per cell of a graph run.
      const drawable = (req.cells ?? []).filter((c) => drawnGraph(c) !== null);
      if (drawable.length === 0) return warn(`${where}: a graph drawing needs a service graph whose calls were counted, and these cells have none`);
      for (const cell of drawable) out.push({ ...req, cells: [cell] });
      return;
    }
    if (h.kind === 'services' || h.kind === 'cascade') {
      const withSeries = (req.cells ?? []).filter(hasServiceSeries);
      if (withSeries.length === 0) return warn(`${where}: a ${h.kind} chart needs the runs of a service graph, and these cells have none`);
      if (h.kind === 'cascade') out.push({ ...req, cells: withSeries });
      else for (const cell of withSeries) out.push({ ...req, cells: [cell] });
      return;
    }
    out.push(req);
  });
  return out;
}

export function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

export function where(cells: readonly ReportCell[]): string {
  const first = cells[0];
  if (!first || Object.keys(first.params).length === 0) return '';
  return cells.every((c) => sameValue(c.params, first.params)) ? ` at ${paramsInWords(first.params)}` : '';
}

/**
 * The caption of a metric-against-parameter chart: what its marks are (lines over a numeric axis,
 * points over a categorical one; one per variant or a single series), then what the data shows:
 * where lines cross beyond noise, or the best and worst variant at the focus point, or how the one
 * series changes from end to end.
 */
export function metricCaption(part: ReportPart, metric: string, x: string, repText: string, spec?: VlSpec): string {
  const numeric = allNumbers(part.axisValues[x] ?? []);
  const several = part.variants.length >= 2;
  // With the chart at hand, what tells its lines apart is read from its encodings (a colour per spike rate, a dash pattern per...), never assumed.
  const drawn = spec ? encodingWords(spec) : '';
  const what = drawn
    ? numeric
      ? `Each line is one ${drawn}, its band the 95% confidence interval of the mean over ${repText}.`
      : `Each point is the mean of one ${drawn} at one value of ${paramLabel(x)} over ${repText}, its bar the 95% confidence interval.`
    : numeric
    ? several
      ? `Each line is a variant, its band the 95% confidence interval of the mean over ${repText}.`
      : `The line is the mean over ${repText}, its band the 95% confidence interval.`
    : several
      ? `Each point is a variant's mean at one value of ${paramLabel(x)} over ${repText}, its bar the 95% confidence interval.`
      : `Each point is the mean at one value of ${paramLabel(x)} over ${repText}, its bar the 95% confidence interval.`;
  let data = '';
  if (several) {
    data = numeric ? crossingText(part, metric, x) : '';
    if (!data) {
      const focus = focusCells(part);
      if (focus.length >= 2) data = comparisonText(part, focus, metric);
    }
  } else if (numeric) data = trendText(part, metric, x);
  return data ? `${what} ${data}` : what;
}

/** Two sentences as one caption (the second may be empty). */
export function joinSentences(a: string, b: string): string {
  return b ? `${a} ${b}` : a;
}

function compareParam(a: unknown, b: unknown, order: readonly unknown[]): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return order.findIndex((v) => sameValue(v, a)) - order.findIndex((v) => sameValue(v, b));
}

/**
 * Cells in the order their series are listed and coloured: by variant as the report lists them,
 * then by the swept values, numbers in numeric order (a spike rate of 70 before 80 before 100).
 */
export function inNumericOrder(part: ReportPart, cells: readonly ReportCell[]): ReportCell[] {
  return [...cells].sort((a, b) => {
    const dv = part.variants.indexOf(a.variant) - part.variants.indexOf(b.variant);
    if (dv !== 0) return dv;
    for (const axis of part.axes) {
      const d = compareParam(a.params[axis], b.params[axis], part.axisValues[axis] ?? []);
      if (d !== 0) return d;
    }
    return 0;
  });
}

