import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { innerEndWidth, innerStartWidth } from '../../src/metrics/binBounds.js';
import { EDGE_WIDTHS_MS, stepUlps } from './binEdgeTimes.js';

describe('innerStartWidth and innerEndWidth', () => {
  it('bound times that Math.floor(t / binMs) puts in the bin, for widths and bins of every size', () => {
    const width = fc.oneof(
      fc.constantFrom(...EDGE_WIDTHS_MS),
      fc.double({ min: 2 ** -1000, max: 1e300, noNaN: true }),
      fc.integer({ min: 1, max: 100_000 }).map((n) => n / 1000),
    );
    const bin = fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 2 ** 52 }));
    fc.assert(
      fc.property(width, bin, (binMs, b) => {
        const start = b * innerStartWidth(binMs);
        const end = (b + 1) * innerEndWidth(binMs);
        if (start < Infinity) expect(Math.floor(start / binMs)).toBeGreaterThanOrEqual(b);
        const lastInside = stepUlps(end, -1);
        if (end > start && end < Infinity) expect(Math.floor(lastInside / binMs)).toBeLessThanOrEqual(b);
        // Not far inside: a relative 2^-50 plus rounding is at most 16 ulps of b * binMs or (b + 1) * binMs.
        if (binMs < 2 ** -1000) return; // subnormal: nothing is claimed inside
        if (b > 0 && start < Infinity) expect(start).toBeLessThanOrEqual(stepUlps(b * binMs, 16));
        expect(end).toBeGreaterThanOrEqual(stepUlps((b + 1) * binMs, -16));
      }),
      { seed: 5, numRuns: 20_000 },
    );
  });

  it('start bin 0 at 0 and claim nothing for a subnormal width', () => {
    expect(0 * innerStartWidth(0.1)).toBe(0);
    expect(innerStartWidth(2 ** -1074)).toBe(Infinity);
    expect(innerEndWidth(2 ** -1074)).toBe(-Infinity);
    expect(0 * innerStartWidth(2 ** -1074)).toBeNaN(); // no time is >= NaN
  });
});
