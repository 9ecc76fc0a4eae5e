import type { VlSpec } from '../../src/report/types.js';
import { captionMismatches, encodedChannels } from '../../src/report/specs/encodings.js';

/** What a page says about one rendered chart, read from vega's scene graph (view.scenegraph()). */
export interface DrawnChart {
  id: string;
  /** The vega-lite spec the page embeds for the chart. */
  spec: VlSpec;
  caption: string;
  /** Titles of the legends drawn. */
  legendTitles: string[];
  /** Each log axis: the pixel extent of its visible tick labels and of the data's points along it. */
  logAxes: Array<{ scale: string; labels: [number, number] | null; data: [number, number] | null; shown: string[] }>;
  /** Text marks of the data (not axes or legends) whose box a line or rule of the chart crosses. */
  textsOnLines: string[];
  /** Points (symbols) drawn partly outside their plot. */
  cutPoints: string[];
  /** Set when the page kept no vega view of the chart to read its scene graph from. */
  noView?: boolean;
}

/**
 * In the page: every chart's spec and caption, and from its vega view's scene graph the legends'
 * titles, its log axes (visible tick labels and the points' extent, in pixels), the data labels a
 * line runs through (a label on a white patch, as a graph's edge labels, is not), and the points
 * cut by their plot's edge. Self-contained: it runs in the browser.
 */
export function drawnCharts(): DrawnChart[] {
  type Item = Record<string, unknown> & { items?: Mark[]; x?: number; y?: number; x2?: number; y2?: number; bounds?: { x1: number; y1: number; x2: number; y2: number } };
  type Mark = { marktype: string; role: string; name?: string; items: Item[] };
  const specs = new Map<string, { spec: VlSpec; caption?: string }>();
  for (const id of ['retrystorm-charts', 'tune-charts']) {
    const el = document.getElementById(id);
    if (!el) continue;
    for (const c of JSON.parse(el.textContent ?? '[]') as Array<{ id: string; spec: VlSpec; caption?: string }>) specs.set(`chart-${c.id}`, c);
  }
  const out: DrawnChart[] = [];
  for (const vis of document.querySelectorAll('.vis')) {
    const view = (vis as unknown as { vegaView?: { scenegraph: () => { root: Mark }; scale: (n: string) => { type?: string } | undefined } }).vegaView;
    const entry = specs.get(vis.id);
    if (!entry || !vis.hasAttribute('data-rendered')) continue;
    if (!view) {
      out.push({ id: vis.id, spec: entry.spec, caption: '', legendTitles: [], logAxes: [], textsOnLines: [], cutPoints: [], noView: true });
      continue;
    }
    const caption = (vis.closest('figure')?.querySelector('figcaption')?.textContent ?? entry.caption ?? '').trim();
    const legendTitles: string[] = [];
    const logAxes: DrawnChart['logAxes'] = [];
    const textsOnLines: string[] = [];
    const cutPoints: string[] = [];
    const textOf = (it: Item) => [it.text as string | string[]].flat().join(' ').trim();
    const visible = (it: Item) => it.opacity !== 0 && it.fillOpacity !== 0;
    /** Whether a group mark is a plot of its own (a panel, with axes or legends), not a group of the data's lines. */
    const isPlot = (m: Mark): boolean => m.items.some((g) => (g.items ?? []).some((mm) => mm.role === 'axis' || mm.role === 'legend' || (mm.marktype === 'group' && isPlot(mm))));
    /** The items of marks of `role` under `mark`, with the offset of their group, through nested scopes. */
    const collect = (marks: Mark[], ox: number, oy: number, into: Array<{ mark: Mark; item: Item; ox: number; oy: number }>) => {
      for (const m of marks) {
        if (m.role === 'axis' || m.role === 'legend') continue;
        if (m.marktype === 'group' && m.role === 'scope' && !isPlot(m)) {
          for (const g of m.items) collect(g.items ?? [], ox + (g.x ?? 0), oy + (g.y ?? 0), into);
          continue;
        }
        if (m.marktype === 'group') continue;
        for (const item of m.items) into.push({ mark: m, item, ox, oy });
      }
    };
    const groups = (mark: Mark, ox: number, oy: number) => {
      for (const g of mark.items) {
        const gx = ox + (g.x ?? 0);
        const gy = oy + (g.y ?? 0);
        const marks = g.items ?? [];
        for (const m of marks) {
          if (m.role === 'legend') {
            const titles: string[] = [];
            const find = (mm: Mark) => {
              for (const it of mm.items) {
                if (mm.role === 'legend-title') titles.push(textOf(it));
                for (const sub of it.items ?? []) find(sub);
              }
            };
            find(m);
            legendTitles.push(...titles);
          }
        }
        const data: Array<{ mark: Mark; item: Item; ox: number; oy: number }> = [];
        collect(marks, gx, gy, data);
        const width = typeof g.width === 'number' ? g.width : 0;
        const height = typeof g.height === 'number' ? g.height : 0;
        // Axes of this group over the data drawn in it.
        for (const m of marks) {
          if (m.role !== 'axis') continue;
          const axis = m.items[0];
          const name = (axis?.datum as { scale?: string } | undefined)?.scale ?? '';
          if (!axis || view.scale(name)?.type !== 'log') continue;
          const horizontal = /x$/.test(name);
          const px: number[] = [];
          const shown: string[] = [];
          // A grid drawn as an axis of its own has no labels.
          if (!(axis.items ?? []).some((sub) => sub.role === 'axis-label')) continue;
          for (const sub of axis.items ?? []) {
            if (sub.role !== 'axis-label') continue;
            for (const l of sub.items) {
              if (!visible(l) || textOf(l) === '') continue;
              shown.push(textOf(l));
              px.push(horizontal ? (axis.x ?? 0) + (l.x ?? 0) : (axis.y ?? 0) + (l.y ?? 0));
            }
          }
          const dp = data.filter((d) => d.mark.marktype === 'symbol' || d.mark.marktype === 'line').map((d) => (horizontal ? (d.item.x ?? 0) + d.ox - gx : (d.item.y ?? 0) + d.oy - gy));
          logAxes.push({ scale: name, labels: px.length > 0 ? [Math.min(...px), Math.max(...px)] : null, data: dp.length > 0 ? [Math.min(...dp), Math.max(...dp)] : null, shown });
        }
        // Points cut by the plot's edge (a plot has a size; a graph drawing's nodes are rects, not points).
        if (width > 0 && height > 0) {
          for (const d of data) {
            if (d.mark.marktype !== 'symbol' || d.mark.role !== 'mark' || !d.item.bounds || !visible(d.item)) continue;
            const b = d.item.bounds;
            const [x1, y1, x2, y2] = [b.x1 + d.ox - gx, b.y1 + d.oy - gy, b.x2 + d.ox - gx, b.y2 + d.oy - gy];
            if (x1 < -0.5 || y1 < -0.5 || x2 > width + 0.5 || y2 > height + 0.5) cutPoints.push(`${d.mark.name ?? 'point'} at ${Math.round((x1 + x2) / 2)}, ${Math.round((y1 + y2) / 2)}`);
          }
        }
        // Data labels that a line or rule runs through, unless a white patch is drawn under them.
        const texts = data.filter((d) => d.mark.marktype === 'text' && visible(d.item) && textOf(d.item) !== '' && d.item.bounds);
        const patches = data.filter((d) => d.mark.marktype === 'rect' && /^(white|#fff(fff)?)$/i.test(String(d.item.fill ?? '')));
        const segments: Array<[number, number, number, number]> = [];
        const lineMarks = new Map<Mark, Array<{ item: Item; ox: number; oy: number }>>();
        for (const d of data) {
          if (!visible(d.item)) continue;
          if (d.mark.marktype === 'rule') segments.push([(d.item.x ?? 0) + d.ox, (d.item.y ?? 0) + d.oy, (d.item.x2 ?? d.item.x ?? 0) + d.ox, (d.item.y2 ?? d.item.y ?? 0) + d.oy]);
          if (d.mark.marktype === 'line') lineMarks.set(d.mark, [...(lineMarks.get(d.mark) ?? []), d]);
        }
        for (const pts of lineMarks.values()) {
          for (let i = 1; i < pts.length; i++) {
            const a = pts[i - 1] as { item: Item; ox: number; oy: number };
            const b = pts[i] as { item: Item; ox: number; oy: number };
            segments.push([(a.item.x ?? 0) + a.ox, (a.item.y ?? 0) + a.oy, (b.item.x ?? 0) + b.ox, (b.item.y ?? 0) + b.oy]);
          }
        }
        const crosses = (s: [number, number, number, number], box: { l: number; r: number; t: number; b: number }) => {
          let t0 = 0;
          let t1 = 1;
          const [x1, y1, x2, y2] = s;
          for (const [p, q] of [
            [x1 - x2, x1 - box.l],
            [x2 - x1, box.r - x1],
            [y1 - y2, y1 - box.t],
            [y2 - y1, box.b - y1],
          ] as Array<[number, number]>) {
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
        };
        for (const t of texts) {
          const b = t.item.bounds as { x1: number; y1: number; x2: number; y2: number };
          // The glyphs' box, a pixel in from the item's bounds on each side.
          const box = { l: b.x1 + t.ox + 1, r: b.x2 + t.ox - 1, t: b.y1 + t.oy + 1, b: b.y2 + t.oy - 1 };
          const backed = patches.some((p) => {
            const pb = p.item.bounds;
            return pb !== undefined && pb.x1 + p.ox <= box.l && pb.x2 + p.ox >= box.r && pb.y1 + p.oy <= box.t && pb.y2 + p.oy >= box.b;
          });
          if (!backed && segments.some((s) => crosses(s, box))) textsOnLines.push(textOf(t.item));
        }
        for (const m of marks) if (m.marktype === 'group' && isPlot(m) && m.role !== 'legend' && m.role !== 'axis') groups(m, gx, gy);
      }
    };
    groups(view.scenegraph().root, 0, 0);
    out.push({ id: vis.id, spec: entry.spec, caption, legendTitles, logAxes, textsOnLines, cutPoints });
  }
  return out;
}

/**
 * The problems of drawn charts: a log axis whose labels do not span its points, an encoded channel
 * (colour, shape, dash) without a legend, a caption naming an encoding the chart does not draw,
 * a data label a line runs through, a point cut by its plot's edge.
 */
export function chartProblems(charts: readonly DrawnChart[]): string[] {
  const out: string[] = [];
  for (const c of charts) {
    for (const a of c.logAxes) {
      if (!a.data) continue;
      const ok = a.labels !== null && a.labels[0] <= a.data[0] + 1 && a.labels[1] >= a.data[1] - 1;
      if (!ok) out.push(`${c.id}: the labels of log axis ${a.scale} (${a.shown.join(' ')}) do not span its data (pixels ${a.data.map(Math.round).join(' to ')})`);
    }
    for (const ch of encodedChannels(c.spec)) {
      if (!ch.legend || !c.legendTitles.includes(ch.title)) out.push(`${c.id}: ${ch.channel} encodes ${ch.field} without a legend titled "${ch.title}" (legends: ${c.legendTitles.join(', ') || 'none'})`);
    }
    for (const m of captionMismatches(c.caption, c.spec)) out.push(`${c.id}: the caption speaks of ${m} the chart does not draw`);
    for (const t of c.textsOnLines) out.push(`${c.id}: a line runs through the label "${t}"`);
    if (c.noView) out.push(`${c.id}: the page keeps no vega view of the chart (element.vegaView) to read what it draws`);
    if (c.cutPoints.length > 0) out.push(`${c.id}: ${c.cutPoints.length} point(s) cut by the plot's edge, the first ${c.cutPoints[0]}`);
  }
  return out;
}
