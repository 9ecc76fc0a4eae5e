import { describe, expect, it } from 'vitest';
import { pairedDifference, pairedEquivalent, pairedGreater } from '../../src/tune/pairedTests.js';

describe('paired tests', () => {
  it('computes the statistics of the paired differences over the replications both have', () => {
    const d = pairedDifference([3, 5, 7, 100], [1, 2, 3]);
    expect(d.n).toBe(3);
    expect(d.mean).toBe(3);
    expect(d.sd).toBe(1);
  });

  it('finds a greater mean only when the one-sided 95% bound clears 0 (t(0.95, 2) = 2.920)', () => {
    // Differences 2, 3, 4: mean 3, sd 1, bound 3 - 2.920 / sqrt(3) = 1.31 > 0.
    expect(pairedGreater([3, 5, 7], [1, 2, 3])).toBe(true);
    // Differences 0.1, 2, 3.9: mean 2, sd 1.9, bound 2 - 2.920 x 1.9 / sqrt(3) = -1.20.
    expect(pairedGreater([1.1, 3, 4.9], [1, 1, 1])).toBe(false);
    // A shared random part cancels out: the means are close but every pair differs by 0.01.
    expect(pairedGreater([10.01, 50.01, 20.01, 90.01], [10, 50, 20, 90])).toBe(true);
    expect(pairedGreater([5], [1])).toBe(false);
  });

  it('finds equivalence when the 90% interval of the difference lies within the margin', () => {
    // Differences 0.1, -0.1, 0.1, -0.1: mean 0, sd 0.1155, half-width 2.353 x 0.1155 / 2 = 0.136.
    expect(pairedEquivalent([1.1, 0.9, 1.1, 0.9], [1, 1, 1, 1], 0.14)).toBe(true);
    expect(pairedEquivalent([1.1, 0.9, 1.1, 0.9], [1, 1, 1, 1], 0.13)).toBe(false);
    expect(pairedEquivalent([2, 3, 4], [2, 3, 4], 0)).toBe(true);
  });
});
