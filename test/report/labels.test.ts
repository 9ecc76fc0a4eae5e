import { describe, expect, it } from 'vitest';
import { categoryLayout, textWidth } from '../../src/report/specs/common.js';
import { fittedDomain, placeLabels, segmentCrossesBox, type PlotAxis } from '../../src/report/specs/labels.js';

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
  it('pads the extent by 8 px at each end of the axis, below 0 too, so a point at an extreme is drawn whole', () => {
    // 544 px for the data, 8 px each side: 100 / 544 * 8 in data units.
    const [lo, hi] = fittedDomain([0, 50, 100], false, 560);
    expect([lo * 68, hi * 68]).toEqual([-100, 6900].map((v) => expect.closeTo(v, 9)));
    expect(fittedDomain([10, 20], false, 560).map((v) => Number(v.toFixed(9)))).toEqual([10 - 10 / 68, 20 + 10 / 68].map((v) => Number(v.toFixed(9))));
  });

  it('on a log axis, runs from the 1-2-5 tick at or below the smallest value to the one at or beyond the largest, padded', () => {
    const [lo, hi] = fittedDomain([3, 190], true, 560);
    // Ticks 2 to 200: two decades over 544 px, 8 px more each side.
    const pad = (2 * 8) / 544;
    expect([Math.log10(lo), Math.log10(hi)].map((v) => Number(v.toFixed(9)))).toEqual([Math.log10(2) - pad, Math.log10(200) + pad].map((v) => Number(v.toFixed(9))));
  });
});

describe('placeLabels: labels that cover no line', () => {
  const x = axis([0, 100], 560, false);
  const y = axis([0, 100], 260, true);

  it('moves a label off an interval bar through its point to a free side', () => {
    // A horizontal bar from the point to the right edge: the label goes left instead.
    const [free] = placeLabels([{ x: 50, y: 50, label: 'immediate' }], x, y);
    const [moved] = placeLabels([{ x: 50, y: 50, label: 'immediate' }], x, y, 11, [{ x1: 40, y1: 50, x2: 100, y2: 50 }]);
    expect((free?.x ?? 0) > 50).toBe(true);
    expect((moved?.x ?? 100) < 50).toBe(true);
    // Bars on both sides and above and below: a corner spot.
    const [corner] = placeLabels([{ x: 50, y: 50, label: 'a' }], x, y, 11, [
      { x1: 0, y1: 50, x2: 100, y2: 50 },
      { x1: 50, y1: 0, x2: 50, y2: 100 },
    ]);
    expect(corner).not.toBeNull();
    expect(Math.abs((corner?.y ?? 50) - 50)).toBeGreaterThan(1);
  });

  it('drops a label with no spot free of lines', () => {
    const grid = Array.from({ length: 41 }, (_, i) => i * 2.5).flatMap((v) => [
      { x1: 0, y1: v, x2: 100, y2: v },
      { x1: v, y1: 0, x2: v, y2: 100 },
    ]);
    expect(placeLabels([{ x: 50, y: 50, label: 'immediate' }], x, y, 11, grid)).toEqual([null]);
  });

  it('tells a segment that crosses a box from one that passes by or ends before it', () => {
    const box = { l: 10, r: 20, t: 10, b: 20 };
    expect(segmentCrossesBox(0, 15, 30, 15, box)).toBe(true);
    expect(segmentCrossesBox(0, 0, 30, 30, box)).toBe(true);
    expect(segmentCrossesBox(0, 25, 30, 25, box)).toBe(false);
    expect(segmentCrossesBox(0, 15, 9, 15, box)).toBe(false);
    expect(segmentCrossesBox(15, 0, 15, 5, box)).toBe(false);
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
