import { colorScale, FRONTIER_COLOR, PALETTE, type VariantColors } from '../colors.js';
import { axisTitle, metricInfo, metricTitle } from '../metrics.js';
import type { VlSpec } from '../types.js';
import { runsLabel } from '../estimates.js';
import { HEIGHT, LEGEND_PARAM, legendOpacity, legendParam, logAxis, spansDecades, topLevel, WIDTH } from './common.js';
import { seriesPanels } from './metricVsParam.js';
import type { LabelledCell } from './amplification.js';
import { fittedDomain, placeLabels } from './labels.js';

/** One point: a cell's mean work and time, with their 95% intervals. */
export interface ParetoPoint {
  label: string;
  variant: string;
  work: number;
  workLo: number;
  workHi: number;
  time: number;
  timeLo: number;
  timeHi: number;
  /** Lower ends as drawn: clipped at 0. */
  workLoDraw: number;
  timeLoDraw: number;
  n: number;
  /** The replications as the tooltip gives them, said to be few below `FEW_RUNS` (`runsLabel`). */
  runs: string;
  onFrontier: boolean;
}

/**
 * The Pareto frontier of points where less is better on both axes: the points no other point
 * beats or equals on both with a strict improvement on one. Returned sorted by x ascending.
 */
export function paretoFrontier<T extends { x: number; y: number }>(points: readonly T[]): T[] {
  const sorted = [...points].sort((a, b) => a.x - b.x || a.y - b.y);
  const out: T[] = [];
  let bestY = Infinity;
  for (const p of sorted) {
    if (p.y < bestY) {
      out.push(p);
      bestY = p.y;
    }
  }
  return out;
}

/** The points of the chart (cells that measured both metrics), with their place on the frontier. */
export function paretoPoints(cells: readonly LabelledCell[], work: string, time: string): ParetoPoint[] {
  const pts: ParetoPoint[] = [];
  for (const { label, cell } of cells) {
    const w = cell.metrics[work];
    const t = cell.metrics[time];
    if (!w || !t || typeof w.mean !== 'number' || typeof t.mean !== 'number' || !Number.isFinite(w.mean) || !Number.isFinite(t.mean)) continue;
    pts.push({
      label,
      variant: cell.variant,
      work: w.mean,
      workLo: w.ci95[0] ?? w.mean,
      workHi: w.ci95[1] ?? w.mean,
      time: t.mean,
      timeLo: t.ci95[0] ?? t.mean,
      timeHi: t.ci95[1] ?? t.mean,
      workLoDraw: Math.max(0, w.ci95[0] ?? w.mean),
      timeLoDraw: Math.max(0, t.ci95[0] ?? t.mean),
      n: Math.min(w.n, t.n),
      runs: runsLabel(Math.min(w.n, t.n)),
      onFrontier: false,
    });
  }
  const frontier = new Set(paretoFrontier(pts.map((p, i) => ({ x: p.work, y: p.time, i }))).map((p) => p.i));
  return pts.map((p, i) => ({ ...p, onFrontier: frontier.has(i) }));
}

/**
 * Total work against time: one point per cell (per variant by default) with 95% interval bars
 * on both axes, the Pareto frontier (the points nothing beats on both) joined by a dashed line,
 * and each point labelled where its label collides with nothing (the legend and the tooltip name
 * every point). Axes are fitted to the data. Lower left is better. More than `MAX_SERIES`
 * variants are split into panels stacked one above the other on the same axes, each with at most
 * that many variants in distinct colours and its own legend, and the whole frontier drawn in each.
 */
export function paretoSpec(input: {
  cells: readonly LabelledCell[];
  colors: VariantColors;
  /** Metric of total work (x), e.g. `leafCalls` or `writes`. */
  work: string;
  /** Metric of time (y), e.g. `completionTimeMs` or `latencyMs.p99`. */
  time: string;
  logX?: boolean;
  logY?: boolean;
}): VlSpec {
  const points = paretoPoints(input.cells, input.work, input.time);
  const frontier = points.filter((p) => p.onFrontier).sort((a, b) => a.work - b.work);
  const logX = input.logX ?? spansDecades(points.flatMap((p) => [p.work, p.workLoDraw, p.workHi]));
  const logY = input.logY ?? spansDecades(points.flatMap((p) => [p.time, p.timeLoDraw, p.timeHi]));
  // Domains fitted to the points and their intervals, fixed here so that the labels can be placed (and every panel shares them).
  const scale = colorScale(input.colors, points.map((p) => p.variant));
  const panels = seriesPanels(scale.domain);
  const height = panels.length === 1 ? HEIGHT : Math.max(160, Math.round(HEIGHT * 0.8));
  const xValues = points.flatMap((p) => [p.work, p.workLoDraw, p.workHi]);
  const yValues = points.flatMap((p) => [p.time, p.timeLoDraw, p.timeHi]);
  const xDomain = fittedDomain(xValues, logX, WIDTH);
  const yDomain = fittedDomain(yValues, logY, height);
  const scaleOf = (log: boolean, domain: [number, number]) => ({ ...(log ? { type: 'log' } : { zero: false }), domain, nice: false });
  // A log axis labels its round ticks from at or below the smallest value to at or beyond the largest.
  const axisOf = (log: boolean, values: readonly number[]) => (log ? { axis: logAxis(values).axis } : {});
  const axes: ParetoAxes = {
    x: { field: 'work', type: 'quantitative', title: axisTitle(metricTitle(input.work)), scale: scaleOf(logX, xDomain), ...axisOf(logX, xValues) },
    y: { field: 'time', type: 'quantitative', title: axisTitle(metricTitle(input.time), Math.floor(HEIGHT / 7)), scale: scaleOf(logY, yDomain), ...axisOf(logY, yValues) },
    xDomain,
    yDomain,
    logX,
    logY,
  };
  const top = topLevel(`${metricTitle(input.work)} against ${metricTitle(input.time)}, with the Pareto frontier`);
  if (panels.length === 1) return { ...top, ...paretoPanel(input, points, frontier, axes, scale, height, LEGEND_PARAM) };
  return {
    ...top,
    vconcat: panels.map((names, i) => {
      // The report's colours where they are distinct within the panel, else the palette in order.
      const own = names.map((v) => scale.range[scale.domain.indexOf(v)] as string);
      const range = new Set(own).size === own.length ? own : names.map((_, k) => PALETTE[k % PALETTE.length] as string);
      return paretoPanel(input, points.filter((p) => names.includes(p.variant)), frontier, axes, { domain: names, range }, height, `${LEGEND_PARAM}_${i + 1}`);
    }),
    spacing: 16,
    resolve: { scale: { x: 'shared', y: 'shared', color: 'independent', shape: 'independent' }, legend: { color: 'independent', shape: 'independent' } },
  };
}

/** How the shape legend and the tooltip name a point on the frontier, and one off it, in words. */
const STANDING = ['on the frontier', 'dominated'] as const;

/** The axes every panel of a Pareto chart shares. */
interface ParetoAxes {
  x: VlSpec;
  y: VlSpec;
  xDomain: [number, number];
  yDomain: [number, number];
  logX: boolean;
  logY: boolean;
}

/** One panel: the whole frontier, and the given points with their intervals and the labels that fit. */
function paretoPanel(
  input: { work: string; time: string },
  points: readonly ParetoPoint[],
  frontier: readonly ParetoPoint[],
  axes: ParetoAxes,
  scale: { domain: string[]; range: string[] },
  height: number,
  pn: string,
): VlSpec {
  const { x, y } = axes;
  const color = { field: 'variant', type: 'nominal', title: 'Variant', scale };
  // Interval bars take their colour from the data (no scale, so no second legend that would replace the points' interactive one).
  // Labels where they collide with nothing: the frontier's first, then left to right.
  const byPriority = points.map((p, i) => ({ p, i })).sort((a, b) => Number(b.p.onFrontier) - Number(a.p.onFrontier) || a.p.work - b.p.work);
  const places = placeLabels(
    byPriority.map(({ p }) => ({ x: p.work, y: p.time, label: p.label })),
    { domain: axes.xDomain, log: axes.logX, length: WIDTH, inverted: false },
    { domain: axes.yDomain, log: axes.logY, length: height, inverted: true },
    11,
    [
      // The interval bars of every point and the frontier's pieces: a label over a line would hide it.
      ...points.flatMap((p) => [
        { x1: p.workLoDraw, y1: p.time, x2: p.workHi, y2: p.time },
        { x1: p.work, y1: p.timeLoDraw, x2: p.work, y2: p.timeHi },
      ]),
      ...frontier.slice(1).map((p, k) => ({ x1: (frontier[k] as ParetoPoint).work, y1: (frontier[k] as ParetoPoint).time, x2: p.work, y2: p.time })),
    ],
  );
  const placeOf = new Map(byPriority.map(({ i }, k) => [i, places[k] ?? null]));
  const colored = points.map((p, i) => {
    const at = placeOf.get(i);
    return {
      ...p,
      standing: p.onFrontier ? STANDING[0] : STANDING[1],
      color: scale.range[scale.domain.indexOf(p.variant)] ?? '#888888',
      ...(at ? { labelX: at.x, labelY: at.y } : {}),
    };
  });
  const w = metricInfo(input.work);
  const t = metricInfo(input.time);
  const tooltip = [
    { field: 'label', type: 'nominal', title: 'Cell' },
    { field: 'work', type: 'quantitative', title: `${w.title}, mean${w.unit ? ` (${w.unit})` : ''}` },
    { field: 'workLo', type: 'quantitative', title: `${w.title}, 95% low` },
    { field: 'workHi', type: 'quantitative', title: `${w.title}, 95% high` },
    { field: 'time', type: 'quantitative', title: `${t.title}, mean${t.unit ? ` (${t.unit})` : ''}` },
    { field: 'timeLo', type: 'quantitative', title: `${t.title}, 95% low` },
    { field: 'timeHi', type: 'quantitative', title: `${t.title}, 95% high` },
    { field: 'standing', type: 'nominal', title: 'Pareto frontier' },
    { field: 'runs', type: 'nominal', title: 'Replications' },
  ];
  return {
    width: WIDTH,
    height,
    layer: [
      {
        data: { values: frontier },
        mark: { type: 'line', color: FRONTIER_COLOR, strokeDash: [6, 4], strokeWidth: 1.5 },
        encoding: { x, y, order: { field: 'work', type: 'quantitative' } },
      },
      {
        data: { values: colored },
        layer: [
          { mark: { type: 'rule', strokeWidth: 1.2 }, encoding: { x: { ...x, field: 'workLoDraw' }, x2: { field: 'workHi' }, y, stroke: { field: 'color', type: 'nominal', scale: null }, opacity: legendOpacity(1, pn) } },
          { mark: { type: 'rule', strokeWidth: 1.2 }, encoding: { x, y: { ...y, field: 'timeLoDraw' }, y2: { field: 'timeHi' }, stroke: { field: 'color', type: 'nominal', scale: null }, opacity: legendOpacity(1, pn) } },
          {
            params: [legendParam('variant', pn)],
            mark: { type: 'point', filled: true, size: 90 },
            encoding: { x, y, color, shape: { field: 'standing', type: 'nominal', title: 'Pareto frontier', scale: { domain: [...STANDING], range: ['diamond', 'circle'] } }, opacity: legendOpacity(1, pn), tooltip },
          },
          {
            transform: [{ filter: 'isValid(datum.labelX)' }],
            mark: { type: 'text', align: 'left', baseline: 'middle', fontSize: 11 },
            encoding: { x: { ...x, field: 'labelX' }, y: { ...y, field: 'labelY' }, text: { field: 'label', type: 'nominal' }, opacity: legendOpacity(1, pn) },
          },
        ],
      },
    ],
  };
}
