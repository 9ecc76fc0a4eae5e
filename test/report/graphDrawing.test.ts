import { describe, expect, it } from 'vitest';
import { drawnGraph } from '../../src/report/selectCharts.js';
import { graphDrawingSpec, graphTiers, utilisationColor } from '../../src/report/specs/graphDrawing.js';
import { cell, compileLog, scenario } from './helpers.js';

type Row = Record<string, any>;

/** The 7-service graph of the fan-out benchmark: a frontend, three mid tiers each calling two of three backends. */
const edges = [
  { caller: 'workload', callee: 'fe', amplification: 3 },
  { caller: 'fe', callee: 'm1', amplification: 6 },
  { caller: 'fe', callee: 'm2', amplification: 6 },
  { caller: 'fe', callee: 'm3', amplification: 6 },
  { caller: 'm1', callee: 'b1', amplification: 12 },
  { caller: 'm1', callee: 'b2', amplification: 12 },
  { caller: 'm2', callee: 'b2', amplification: 12 },
  { caller: 'm2', callee: 'b3', amplification: 12.5 },
  { caller: 'm3', callee: 'b3', amplification: 24 },
  { caller: 'm3', callee: 'b1', amplification: 1.25 },
];
const names = ['workload', 'fe', 'm1', 'm2', 'm3', 'b1', 'b2', 'b3'];
const nodes = names.map((name, i) => ({ name, utilisation: name === 'workload' ? null : i / 8, crashes: name === 'b2' ? 2 : 0 }));

describe('graph drawing', () => {
  it('puts each node one tier beyond its deepest caller, so every edge points right', () => {
    const tiers = graphTiers(names, [...edges, { caller: 'fe', callee: 'b3', amplification: 1 }]);
    expect(Object.fromEntries(tiers)).toEqual({ workload: 0, fe: 1, m1: 2, m2: 2, m3: 2, b1: 3, b2: 3, b3: 3 });
    expect(Object.fromEntries(graphTiers(['w', 'a', 'b'], [{ caller: 'w', callee: 'a', amplification: 1 }, { caller: 'w', callee: 'b', amplification: 1 }, { caller: 'a', callee: 'b', amplification: 1 }]))).toEqual({ w: 0, a: 1, b: 2 });
  });

  const spec = graphDrawingSpec({ nodes, edges });
  const layers = spec.layer as Array<{ data: { values: Row[] }; mark: { type: string } }>;
  const [lines, , labels, boxes] = layers as [(typeof layers)[0], (typeof layers)[0], (typeof layers)[0], (typeof layers)[0]];

  it('labels the edges with their calls per operation, no label over a node or another label, all inside the chart', () => {
    expect(lines.data.values.map((e) => `${e.caller}->${e.callee} ${e.label}`)).toEqual([
      'workload->fe x3',
      'fe->m1 x6',
      'fe->m2 x6',
      'fe->m3 x6',
      'm1->b1 x12',
      'm1->b2 x12',
      'm2->b2 x12',
      'm2->b3 x12.5',
      'm3->b3 x24',
      'm3->b1 x1.25',
    ]);
    for (const e of lines.data.values) expect(e.x2).toBeGreaterThan(e.x1);
    // Boxes as the spec placed them (text widths estimated as the spec estimates them).
    const labelBoxes = labels.data.values.map((e) => {
      const w = e.label.length * 11 * 0.62 * 1.05 + 4;
      return { l: e.lx - w / 2, r: e.lx + w / 2, t: e.ly - 7.5, b: e.ly + 7.5 };
    });
    expect(labelBoxes.length).toBe(edges.length);
    const nodeBoxes = boxes.data.values.map((n) => ({ l: n.l, r: n.r, t: n.t, b: n.b }));
    const all = [...labelBoxes, ...nodeBoxes];
    const overlap = (a: (typeof all)[0], b: (typeof all)[0]) => a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;
    for (let i = 0; i < all.length; i++) {
      for (let j = i + 1; j < all.length; j++) expect(overlap(all[i]!, all[j]!), `boxes ${i} and ${j}`).toBe(false);
      expect(all[i]!.l).toBeGreaterThanOrEqual(0);
      expect(all[i]!.r).toBeLessThanOrEqual(spec.width as number);
      expect(all[i]!.t).toBeGreaterThanOrEqual(0);
      expect(all[i]!.b).toBeLessThanOrEqual(spec.height as number);
    }
    expect(compileLog(spec)).toEqual([]);
  });

  it('fills a service by its utilisation and outlines a crashed one in red', () => {
    const byName = Object.fromEntries(boxes.data.values.map((n) => [n.name, n]));
    expect(byName.workload).toMatchObject({ fill: '#eeeeee', shown: 'unknown' });
    expect(byName.b2).toMatchObject({ stroke: '#c0392b', strokeWidth: 3, crashes: 2 });
    expect(byName.b1).toMatchObject({ stroke: '#555555', strokeWidth: 1 });
    expect(utilisationColor(0)).toBe('#ffffff');
    expect(utilisationColor(0.5)).toBe('#fdae61');
    expect(utilisationColor(1)).toBe('#a50f15');
    expect(utilisationColor(7)).toBe('#a50f15');
  });

  it("reads a cell's edges and services from its metrics, by the names in its resolved scenario", () => {
    const graphScenario = { ...scenario(), graph: { services: [{ name: 'a->b' }, { name: 'b' }, { name: 'idle' }], entries: [], bulkheads: [] } };
    const c = cell({
      scenario: graphScenario as never,
      metrics: { 'edges.workload->a->b.amplification': 2, 'edges.a->b->b.amplification': 6, 'services.b.utilization': 0.5, 'services.b.crashes': 1, 'edges.a->b->b.calls': 60 },
    });
    expect(drawnGraph(c)).toEqual({
      nodes: [
        { name: 'workload', utilisation: null, crashes: null },
        { name: 'a->b', utilisation: null, crashes: null },
        { name: 'b', utilisation: 0.5, crashes: 1 },
      ],
      edges: [
        { caller: 'workload', callee: 'a->b', amplification: 2 },
        { caller: 'a->b', callee: 'b', amplification: 6 },
      ],
    });
    expect(drawnGraph(cell({ metrics: { amplification: 2 } }))).toBeNull();
  });
});
