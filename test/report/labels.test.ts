import { describe, expect, it } from 'vitest';
import { categoryLayout, textWidth } from '../../src/report/specs/common.js';
import { fittedDomain, placeLabels, type PlotAxis } from '../../src/report/specs/labels.js';

const axis = (domain: [number, number], length: number, inverted: boolean, log = false): PlotAxis => ({ domain, log, length, inverted });

describe('placeLabels: point labels that collide with nothing', () => {
  const x = axis([0, 100], 560, false);
  const y = axis([0, 100], 260, true);

  it('puts a lone label to the right of its point, its left edge 11 px from it (6 px mark radius, 3 px gap, 2 px inset)', () => {
    const [p] = placeLabels([{ x: 50, y: 50, label: 'a' }], x, y);
    expect(p?.y).toBeCloseTo(50, 9);
    expect(((p?.x ?? 0) - 50) * (560 / 100)).toBeCloseTo(11, 9);
  });

  it('moves the second of two labels at the same point to the other side, and drops a third with no free spot', () => {
    const pts = Array.from({ length: 12 }, () => ({ x: 50, y: 50, label: 'backoff+budget' }));
    const places = placeLabels(pts, x, y);
    expect((places[0]?.x ?? 0) > 50).toBe(true);
    expect((places[1]?.x ?? 0) < 50).toBe(true);
    expect(places.filter((p) => p === null).length).toBeGreaterThan(0);
    // No two placed boxes overlap.
    const w = textWidth('backoff+budget') * 1.05 + 4;
    const boxes = places.flatMap((p) => (p ? [{ l: (p.x / 100) * 560 - 2, t: (1 - p.y / 100) * 260 - 7.5 }] : []));
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i] as { l: number; t: number };
        const b = boxes[j] as { l: number; t: number };
        expect(Math.abs(a.l - b.l) >= w - 1e-9 || Math.abs(a.t - b.t) >= 15 - 1e-9).toBe(true);
      }
  });

  it('never lets a label leave the plot: a point at the right edge is labelled on its left', () => {
    const [p] = placeLabels([{ x: 100, y: 50, label: 'full-jitter' }], x, y);
    expect((p?.x ?? 200) < 100).toBe(true);
  });

  it('works in log space', () => {
    const [p] = placeLabels([{ x: 10, y: 10, label: 'a' }], axis([1, 100], 560, false, true), axis([1, 100], 260, true, true));
    expect(Math.log10(p?.x ?? 0) * 280).toBeCloseTo(280 + 11, 6);
  });
});

describe('fittedDomain', () => {
  it('pads the extent by 6%, keeps 0 the low end of non-negative values, and pads a log extent by a factor', () => {
    expect(fittedDomain([0, 50, 100], false)).toEqual([0, 106]);
    expect(fittedDomain([10, 20], false)).toEqual([9.4, 20.6]);
    const [lo, hi] = fittedDomain([1, 100], true);
    expect([Math.log10(lo), Math.log10(hi)].map((v) => Number(v.toFixed(9)))).toEqual([-0.12, 2.12]);
  });
});

describe('categoryLayout: bar labels that fit', () => {
  it('keeps short labels horizontal, growing the plot up to 980 px for them', () => {
    expect(categoryLayout(['a', 'b'], 200)).toEqual({ width: 200, axis: { labelAngle: 0, labelLimit: 0 } });
    const labels = ['ignore', 'honor-plus-jitter', 'honor-short-deadline', 'ignore-short-deadline', 'honor'];
    const l = categoryLayout(labels, 350);
    expect(l.axis).toEqual({ labelAngle: 0, labelLimit: 0 });
    expect(l.width).toBe(Math.ceil(5 * (textWidth('ignore-short-deadline') + 12)));
  });

  it('turns labels upright when they cannot fit side by side', () => {
    const labels = Array.from({ length: 30 }, (_, i) => `variant-number-${i}`);
    expect(categoryLayout(labels, 560)).toEqual({ width: 560, axis: { labelAngle: -90, labelAlign: 'right', labelBaseline: 'middle', labelLimit: 200, labelOverlap: 'greedy' } });
  });
});
