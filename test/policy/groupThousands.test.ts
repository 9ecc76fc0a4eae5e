import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCount, groupThousands } from '../../src/policy/groupThousands.js';

describe('groupThousands', () => {
  it('groups the integer part by three and leaves the sign and the fraction alone', () => {
    expect(['0', '999', '1000', '12345', '-12345', '1000000', '-999999.5', '123456.789', '-0.25'].map(groupThousands)).toEqual([
      '0',
      '999',
      '1,000',
      '12,345',
      '-12,345',
      '1,000,000',
      '-999,999.5',
      '123,456.789',
      '-0.25',
    ]);
    expect([10_000, 10_000_000, 2 ** 31 - 1].map(formatCount)).toEqual(['10,000', '10,000,000', '2,147,483,647']);
  });

  it("writes a whole number as toLocaleString('en-US') does", () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), (n) => {
        expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
      }),
      { numRuns: 5000 },
    );
  });

  it('only inserts commas, between groups of three digits of the integer part', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e15, max: 1e15, noNaN: true }), fc.integer({ min: 0, max: 6 }), (x, d) => {
        const fixed = x.toFixed(d);
        const grouped = groupThousands(fixed);
        expect(grouped.replaceAll(',', '')).toBe(fixed);
        expect(grouped.split('.')[0]).toMatch(/^-?\d{1,3}(,\d{3})*$/);
      }),
      { numRuns: 5000 },
    );
  });
});
