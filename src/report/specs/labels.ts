import { textWidth } from './common.js';

/** A linear or log axis of known pixel length and data domain (the chart sets both, so positions can be computed here). */
export interface PlotAxis {
  domain: [number, number];
  log: boolean;
  /** Length in pixels. */
  length: number;
  /** Whether pixel 0 is the domain's low end (x) or its high end (y, drawn downwards). */
  inverted: boolean;
}

/** The domain of an axis fitted to values: their extent, padded by 6% (a factor of it on a log axis) so points at the ends are not cut; 0 stays the low end of values >= 0. */
export function fittedDomain(values: readonly number[], log: boolean): [number, number] {
  const v = values.filter((x) => Number.isFinite(x) && (!log || x > 0));
  if (v.length === 0) return log ? [1, 10] : [0, 1];
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  if (log) {
    const f = hi > lo ? (hi / lo) ** 0.06 : 2;
    return [lo / f, hi * f];
  }
  const pad = hi > lo ? (hi - lo) * 0.06 : Math.abs(hi) * 0.1 || 1;
  return [lo >= 0 ? Math.max(0, lo - pad) : lo - pad, hi + pad];
}

function toPixel(a: PlotAxis, v: number): number {
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

/**
 * Places the labels of points so that no two overlap, none covers another point and none leaves
 * the plot: each tries the spots beside its point (right, left, above, below, then the corners) in
 * turn and takes the first free one, points listed first served first; a label with no free spot
 * is not drawn (its point is still in the legend and the tooltip). Text widths are estimated a
 * little wide ({@link textWidth}), so a placed label keeps its room in any of the charts' fonts.
 */
export function placeLabels(
  points: ReadonlyArray<{ x: number; y: number; label: string }>,
  xAxis: PlotAxis,
  yAxis: PlotAxis,
  fontSize = 11,
): Array<LabelPlace | null> {
  const radius = 6;
  const h = fontSize + 4;
  const px = points.map((p) => ({ x: toPixel(xAxis, p.x), y: toPixel(yAxis, p.y) }));
  const taken: Box[] = px.map((p) => ({ l: p.x - radius, r: p.x + radius, t: p.y - radius, b: p.y + radius }));
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
      taken.push(box);
      return { x: fromPixel(xAxis, l + 2), y: fromPixel(yAxis, mid) };
    }
    return null;
  });
}
