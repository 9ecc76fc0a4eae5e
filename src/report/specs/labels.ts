import { logTicks, PLOT_PADDING_PX, textWidth } from './common.js';

/** A linear or log axis of known pixel length and data domain (the chart sets both, so positions can be computed here). */
export interface PlotAxis {
  domain: [number, number];
  log: boolean;
  /** Length in pixels. */
  length: number;
  /** Whether pixel 0 is the domain's low end (x) or its high end (y, drawn downwards). */
  inverted: boolean;
}

/**
 * The domain of an axis `length` pixels long fitted to values: their extent (on a log axis, from
 * the first to the last of their {@link logTicks}, so that labels span the data), widened by
 * {@link PLOT_PADDING_PX} at each end so that a point at an extreme is drawn whole inside the plot.
 */
export function fittedDomain(values: readonly number[], log: boolean, length: number): [number, number] {
  const v = values.filter((x) => Number.isFinite(x) && (!log || x > 0));
  const share = PLOT_PADDING_PX / Math.max(1, length - 2 * PLOT_PADDING_PX);
  if (v.length === 0) return log ? [1, 10] : [0, 1];
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  if (log) {
    const ticks = logTicks(lo, hi);
    const [a, b] = [ticks[0] as number, ticks[ticks.length - 1] as number];
    const f = (b / a) ** share;
    return [a / f, b * f];
  }
  const [a, b] = hi > lo ? [lo, hi] : [lo - (Math.abs(lo) * 0.1 || 1), hi + (Math.abs(hi) * 0.1 || 1)];
  const pad = (b - a) * share;
  return [a - pad, b + pad];
}

function toPixel(a: PlotAxis, v: number): number {
  // On a log axis, a value <= 0 (an interval's low end clipped at 0) is drawn at the axis' low end.
  if (a.log && !(v > 0)) return toPixel(a, a.domain[0]);
  const [d0, d1] = a.log ? [Math.log(a.domain[0]), Math.log(a.domain[1])] : a.domain;
  const t = ((a.log ? Math.log(v) : v) - d0) / (d1 - d0 || 1);
  return (a.inverted ? 1 - t : t) * a.length;
}

function fromPixel(a: PlotAxis, px: number): number {
  const [d0, d1] = a.log ? [Math.log(a.domain[0]), Math.log(a.domain[1])] : a.domain;
  const t = a.inverted ? 1 - px / a.length : px / a.length;
  const v = d0 + t * (d1 - d0);
  return a.log ? Math.exp(v) : v;
}

/** A label's anchor in data coordinates: the middle of its left edge (drawn with align left, baseline middle); null when it is not drawn. */
export interface LabelPlace {
  x: number;
  y: number;
}

/** A box in pixels: its left, right, top and bottom edges (y grows downwards). */
export interface Box {
  l: number;
  r: number;
  t: number;
  b: number;
}

/** Whether two boxes share more than an edge (boxes that only touch do not overlap). */
export function boxesOverlap(a: Box, b: Box): boolean {
  return a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;
}

/** Whether a box lies inside a plot of `width` x `height` pixels whose top left corner is at 0, 0. */
export function boxInside(box: Box, width: number, height: number): boolean {
  return box.l >= 0 && box.r <= width && box.t >= 0 && box.b <= height;
}

/** A straight line drawn in the plot (an interval bar, a piece of a frontier), in data coordinates, that labels must not cover. */
export interface Segment {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** Whether the segment from (x1, y1) to (x2, y2), in pixels, passes through the inside of a box (Liang-Barsky clipping). */
export function segmentCrossesBox(x1: number, y1: number, x2: number, y2: number, box: Box): boolean {
  let t0 = 0;
  let t1 = 1;
  const dx = x2 - x1;
  const dy = y2 - y1;
  const edges: Array<[number, number]> = [
    [-dx, x1 - box.l],
    [dx, box.r - x1],
    [-dy, y1 - box.t],
    [dy, box.b - y1],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q <= 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 >= t1) return false;
  }
  return true;
}

/**
 * Places the labels of points so that no two overlap, none covers another point or one of the
 * `lines` drawn (interval bars, a frontier) and none leaves the plot: each tries the spots beside its point (right, left, above, below, then the corners) in
 * turn and takes the first free one, points listed first served first; a label with no free spot
 * is not drawn (its point is still in the legend and the tooltip). Text widths are estimated a
 * little wide ({@link textWidth}), so a placed label keeps its room in any of the charts' fonts.
 */
export function placeLabels(
  points: ReadonlyArray<{ x: number; y: number; label: string }>,
  xAxis: PlotAxis,
  yAxis: PlotAxis,
  fontSize = 11,
  lines: readonly Segment[] = [],
): Array<LabelPlace | null> {
  const radius = 6;
  const h = fontSize + 4;
  const px = points.map((p) => ({ x: toPixel(xAxis, p.x), y: toPixel(yAxis, p.y) }));
  const taken: Box[] = px.map((p) => ({ l: p.x - radius, r: p.x + radius, t: p.y - radius, b: p.y + radius }));
  const segments = lines.map((s) => [toPixel(xAxis, s.x1), toPixel(yAxis, s.y1), toPixel(xAxis, s.x2), toPixel(yAxis, s.y2)] as const);
  return points.map((p, i) => {
    const at = px[i] as { x: number; y: number };
    const w = textWidth(p.label, fontSize) * 1.05 + 4;
    const gap = radius + 3;
    const spots: Array<[number, number]> = [
      [at.x + gap, at.y],
      [at.x - gap - w, at.y],
      [at.x - w / 2, at.y - gap - h / 2],
      [at.x - w / 2, at.y + gap + h / 2],
      [at.x + gap, at.y - gap],
      [at.x + gap, at.y + gap],
      [at.x - gap - w, at.y - gap],
      [at.x - gap - w, at.y + gap],
    ];
    for (const [l, mid] of spots) {
      const box = { l, r: l + w, t: mid - h / 2, b: mid + h / 2 };
      if (!boxInside(box, xAxis.length, yAxis.length)) continue;
      if (taken.some((t) => boxesOverlap(t, box))) continue;
      if (segments.some(([x1, y1, x2, y2]) => segmentCrossesBox(x1, y1, x2, y2, box))) continue;
      taken.push(box);
      return { x: fromPixel(xAxis, l + 2), y: fromPixel(yAxis, mid) };
    }
    return null;
  });
}
