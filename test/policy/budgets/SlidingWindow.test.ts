import { describe, expect, it } from 'vitest';
import { SlidingWindow } from '../../../src/policy/budgets/SlidingWindow.js';

describe('SlidingWindow', () => {
  it('sums each channel over the current slice and the slices - 1 before it, aligned to absolute time', () => {
    const w = new SlidingWindow(10_000, 10, 2);
    w.add(500, 0, 1);
    w.add(1500, 0, 2);
    w.add(1500, 1, 5);
    expect(w.total(1500, 0)).toBe(3);
    expect(w.total(1500, 1)).toBe(5);
    expect(w.total(9999, 0)).toBe(3);
    expect(w.total(10_000, 0)).toBe(2);
    expect(w.total(11_000, 0)).toBe(0);
    expect(w.total(11_000, 1)).toBe(0);
  });

  it('drops everything after a gap longer than the window', () => {
    const w = new SlidingWindow(1000, 4, 1);
    w.add(0, 0, 7);
    expect(w.total(1_000_000, 0)).toBe(0);
    w.add(1_000_000, 0, 1);
    expect(w.total(1_000_100, 0)).toBe(1);
  });

  it('works on negative times (the warm-up)', () => {
    const w = new SlidingWindow(1000, 10, 1);
    w.add(-450, 0, 1);
    w.add(-50, 0, 1);
    expect(w.total(0, 0)).toBe(2);
    expect(w.total(501, 0)).toBe(1);
  });
});
