import { describe, expect, it } from 'vitest';
import { WindowedAdder } from '../../../src/policy/budgets/WindowedAdder.js';

describe("Finagle's WindowedAdder", () => {
  it('keeps the current slice and the 9 before it (10 slices of 1 s over 10 s)', () => {
    const w = new WindowedAdder(10_000, 10);
    for (let s = 0; s < 10; s++) w.add(s * 1000, 1);
    expect(w.sum(9000)).toBe(10);
    // The slice started at 0 is overwritten when the slice after 9000 ends.
    expect(w.sum(10_000)).toBe(9);
    expect(w.sum(11_000)).toBe(8);
  });

  it('starts a slice when a full slice width has passed since the last one ended (slices are not aligned)', () => {
    const w = new WindowedAdder(10_000, 10);
    w.add(0, 1);
    w.add(999, 1);
    w.add(1500, 1);
    expect(w.sum(1500)).toBe(3);
  });

  it('zeroes slices it skipped over', () => {
    const w = new WindowedAdder(10_000, 10);
    w.add(0, 5);
    w.add(4000, 7);
    expect(w.sum(4000)).toBe(12);
    expect(w.sum(30_000)).toBe(0);
  });
});
