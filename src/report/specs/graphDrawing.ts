import type { VlSpec } from '../types.js';
import { textWidth, topLevel } from './common.js';
import { boxesOverlap, boxInside, type Box } from './labels.js';

/** One edge of a graph as the drawing shows it. */
export interface DrawnEdge {
  caller: string;
  callee: string;
  /** Calls on the edge per operation (of all workloads). */
  amplification: number;
}

/** One service (or workload, the callers of entry edges) as the drawing shows it. */
export interface DrawnNode {
  name: string;
  /** Mean share of its workers busy (null: unknown or no workers, e.g. a workload). */
  utilisation: number | null;
  /** Backends that crashed (null: unknown). */
  crashes: number | null;
}

const FONT = 11;
const NODE_H = 26;
const COLUMN_GAP = 150;
const ROW_GAP = 34;
const PAD = 12;
/** Where along an edge its label may sit, tried in turn (0 is the caller's end). */
const LABEL_SPOTS = [0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78];
const CRASH_COLOR = '#c0392b';

/**
 * The tier of every node: callers that nothing calls (the workloads) at 0, every other node one
 * beyond the deepest of its callers (the graph has no cycle: validation refuses them), so each
 * edge points to the right.
 */
export function graphTiers(nodes: readonly string[], edges: readonly DrawnEdge[]): Map<string, number> {
  const tier = new Map<string, number>();
  const callersOf = new Map<string, string[]>();
  for (const e of edges) callersOf.set(e.callee, [...(callersOf.get(e.callee) ?? []), e.caller]);
  const visiting = new Set<string>();
  const depth = (n: string): number => {
    const known = tier.get(n);
    if (known !== undefined) return known;
    if (visiting.has(n)) throw new Error(`internal: the graph drawn has a cycle through ${n}`);
    visiting.add(n);
    const callers = callersOf.get(n) ?? [];
    const d = callers.length === 0 ? 0 : 1 + Math.max(...callers.map(depth));
    visiting.delete(n);
    tier.set(n, d);
    return d;
  };
  for (const n of nodes) depth(n);
  return tier;
}

/** The label of an edge: its calls per operation, `x12` or `x1.5`. */
function edgeLabel(a: number): string {
  if (!Number.isFinite(a)) return 'x?';
  return `x${Number.isInteger(a) ? a : a < 10 ? a.toFixed(2).replace(/0+$/, '').replace(/\.$/, '') : a.toFixed(1)}`;
}

/**
 * A drawing of a service graph: the workloads at the left, every service in the column of its tier
 * ({@link graphTiers}), each edge a line labelled with its calls per operation, each service filled by
 * its mean utilisation (white at 0, deep red at 1; grey when unknown) and outlined in red with the
 * count when a backend of it crashed. Positions are computed here, in pixels, so that the edge labels
 * are placed where they overlap no node and no other label (each tries spots along its edge in turn;
 * one with no free spot is left to the tooltip and the table beside the chart).
 */
export function graphDrawingSpec(input: { nodes: readonly DrawnNode[]; edges: readonly DrawnEdge[] }): VlSpec {
  const layout = graphLayout(input.nodes.map((n) => n.name), input.edges);
  const edges = placedEdges(input.edges, layout);
  const nodes = input.nodes.map((n) => drawnNode(n, layout.at.get(n.name) as NodePlace));
  return {
    ...topLevel('A drawing of the service graph: each edge labelled with its calls per operation, each service filled by its utilisation.'),
    width: layout.width,
    height: layout.height,
    config: { ...(topLevel('').config as object), view: { stroke: null } },
    layer: drawingLayers(edges, nodes, layout),
  };
}

/** Where a node sits: its centre and its width. */
interface NodePlace {
  x: number;
  y: number;
  w: number;
}

/** The drawing's size and where each node sits. */
interface GraphLayout {
  width: number;
  height: number;
  at: Map<string, NodePlace>;
}

/** A column per tier, each as wide as its widest name, its nodes centred vertically. */
function graphLayout(names: readonly string[], edges: readonly DrawnEdge[]): GraphLayout {
  const tiers = graphTiers(names, edges);
  const columns: string[][] = [];
  for (const n of names) (columns[tiers.get(n) as number] ??= []).push(n);
  const width = (n: string) => Math.max(60, textWidth(n, FONT) * 1.05 + 16);
  const colWidth = columns.map((c) => Math.max(...c.map(width)));
  const rows = Math.max(...columns.map((c) => c.length));
  const height = rows * NODE_H + (rows - 1) * ROW_GAP + 2 * PAD;
  const colX: number[] = [];
  let x = PAD;
  colWidth.forEach((w, i) => {
    colX[i] = x + w / 2;
    x += w + COLUMN_GAP;
  });
  const at = new Map<string, NodePlace>();
  columns.forEach((c, i) => {
    const used = c.length * NODE_H + (c.length - 1) * ROW_GAP;
    c.forEach((n, k) => at.set(n, { x: colX[i] as number, y: (height - used) / 2 + k * (NODE_H + ROW_GAP) + NODE_H / 2, w: width(n) }));
  });
  return { width: x - COLUMN_GAP + PAD, height, at };
}

/** Each edge's line, and its label at the first of the {@link LABEL_SPOTS} inside the drawing that overlaps no node and no earlier label (none if no spot is free). */
function placedEdges(input: readonly DrawnEdge[], layout: GraphLayout) {
  const { at, width: totalWidth, height } = layout;
  const taken: Box[] = [...at.values()].map((p) => ({ l: p.x - p.w / 2, r: p.x + p.w / 2, t: p.y - NODE_H / 2, b: p.y + NODE_H / 2 }));
  return input.map((e) => {
    const a = at.get(e.caller) as NodePlace;
    const b = at.get(e.callee) as NodePlace;
    const x1 = a.x + a.w / 2;
    const x2 = b.x - b.w / 2;
    const label = edgeLabel(e.amplification);
    const lw = textWidth(label, FONT) * 1.05 + 4;
    const lh = FONT + 4;
    let place: ({ x: number; y: number } & Box) | null = null;
    for (const t of LABEL_SPOTS) {
      const px = x1 + t * (x2 - x1);
      const py = a.y + t * (b.y - a.y);
      const box = { l: px - lw / 2, r: px + lw / 2, t: py - lh / 2, b: py + lh / 2 };
      if (!boxInside(box, totalWidth, height)) continue;
      if (taken.some((o) => boxesOverlap(o, box))) continue;
      taken.push(box);
      place = { x: px, y: py, ...box };
      break;
    }
    return { caller: e.caller, callee: e.callee, x1, y1: a.y, x2, y2: b.y, label, amplification: e.amplification, ...(place ? { lx: place.x, ly: place.y, ll: place.l, lr: place.r, lt: place.t, lb: place.b } : {}) };
  });
}

/** A node's box, its utilisation in words and its colours (a crashed one outlined in red). */
function drawnNode(n: DrawnNode, p: NodePlace) {
  const crashed = (n.crashes ?? 0) > 0;
  return {
    name: n.name,
    x: p.x,
    y: p.y,
    l: p.x - p.w / 2,
    r: p.x + p.w / 2,
    t: p.y - NODE_H / 2,
    b: p.y + NODE_H / 2,
    utilisation: n.utilisation,
    shown: n.utilisation === null ? 'unknown' : `${(n.utilisation * 100).toFixed(0)}%`,
    crashes: n.crashes ?? 0,
    stroke: crashed ? CRASH_COLOR : '#555555',
    strokeWidth: crashed ? 3 : 1,
    fill: n.utilisation === null ? '#eeeeee' : utilisationColor(n.utilisation),
    textColor: n.utilisation !== null && n.utilisation > 0.6 ? 'white' : 'black',
  };
}

/** The layers of the drawing, back to front: edges, the labels' patches, the labels, the nodes, their names (pixel scales, no axes). */
function drawingLayers(edges: ReturnType<typeof placedEdges>, nodes: ReadonlyArray<ReturnType<typeof drawnNode>>, layout: GraphLayout): object[] {
  const { width: totalWidth, height } = layout;
  const px = (field: string) => ({ field, type: 'quantitative', scale: { domain: [0, totalWidth], range: [0, totalWidth] }, axis: null });
  const py = (field: string) => ({ field, type: 'quantitative', scale: { domain: [0, height], range: [0, height] }, axis: null });
  return [
    {
      name: 'edges',
      data: { values: edges },
      mark: { type: 'rule', color: '#888888', strokeWidth: 1.5 },
      encoding: {
        x: px('x1'),
        y: py('y1'),
        x2: { field: 'x2' },
        y2: { field: 'y2' },
        tooltip: [
          { field: 'caller', type: 'nominal', title: 'Caller' },
          { field: 'callee', type: 'nominal', title: 'Callee' },
          { field: 'amplification', type: 'quantitative', title: 'Calls per operation' },
        ],
      },
    },
    {
      // A white patch behind each label, so the lines it sits on do not run through its text.
      name: 'labelPatches',
      data: { values: edges.filter((e) => e.lx !== undefined) },
      mark: { type: 'rect', color: 'white', opacity: 0.9 },
      encoding: { x: px('ll'), x2: { field: 'lr' }, y: py('lt'), y2: { field: 'lb' } },
    },
    {
      name: 'edgeLabels',
      data: { values: edges.filter((e) => e.lx !== undefined) },
      mark: { type: 'text', fontSize: FONT, align: 'center', baseline: 'middle', color: '#333333' },
      encoding: { x: px('lx'), y: py('ly'), text: { field: 'label', type: 'nominal' } },
    },
    {
      name: 'nodes',
      data: { values: nodes },
      mark: { type: 'rect', cornerRadius: 4 },
      encoding: {
        x: px('l'),
        x2: { field: 'r' },
        y: py('t'),
        y2: { field: 'b' },
        fill: { field: 'fill', type: 'nominal', scale: null },
        stroke: { field: 'stroke', type: 'nominal', scale: null },
        strokeWidth: { field: 'strokeWidth', type: 'quantitative', scale: null },
        tooltip: [
          { field: 'name', type: 'nominal', title: 'Service' },
          { field: 'shown', type: 'nominal', title: 'Utilisation (mean)' },
          { field: 'crashes', type: 'quantitative', title: 'Crashes' },
        ],
      },
    },
    {
      name: 'nodeNames',
      data: { values: nodes },
      mark: { type: 'text', fontSize: FONT, align: 'center', baseline: 'middle' },
      encoding: { x: px('x'), y: py('y'), text: { field: 'name', type: 'nominal' }, color: { field: 'textColor', type: 'nominal', scale: null } },
    },
  ];
}

/** White at utilisation 0 to deep red at 1 (clamped), through light orange. */
export function utilisationColor(u: number): string {
  const t = Math.min(1, Math.max(0, u));
  const mix = (a: number, b: number, s: number) => Math.round(a + (b - a) * s);
  const [r, g, b] = t < 0.5 ? [mix(255, 253, t * 2), mix(255, 174, t * 2), mix(255, 97, t * 2)] : [mix(253, 165, (t - 0.5) * 2), mix(174, 15, (t - 0.5) * 2), mix(97, 21, (t - 0.5) * 2)];
  return `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}
