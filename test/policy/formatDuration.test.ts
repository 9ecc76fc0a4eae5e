import { describe, expect, it } from 'vitest';
import { formatDuration, roundForPeople } from '../../src/policy/formatDuration.js';

describe('formatDuration', () => {
  it('writes milliseconds below a second, seconds below two minutes, minutes below two hours, then hours', () => {
    expect([0, 0.25, 250, 999.4, 1000, 1234, 1500, 60_000, 119_999, 120_000, 900_000, 7_199_000, 7_200_000, 7_560_000].map(formatDuration)).toEqual([
      '0 ms',
      '0.25 ms',
      '250 ms',
      '999 ms',
      '1 s',
      '1.23 s',
      '1.5 s',
      '60 s',
      '120 s',
      '2 min',
      '15 min',
      '120 min',
      '2 h',
      '2.1 h',
    ]);
  });

  it('says unbounded for an infinite duration and ? for NaN', () => {
    expect([Infinity, NaN].map(formatDuration)).toEqual(['unbounded', '?']);
  });

  it('keeps the sign of a negative duration and chooses the unit by its size', () => {
    expect([-250, -1500, -900_000].map(formatDuration)).toEqual(['-250 ms', '-1.5 s', '-15 min']);
  });
});

describe('roundForPeople', () => {
  it('keeps whole numbers, drops decimals from 100 up and keeps 3 significant digits below', () => {
    expect([12, 123.6, 12.34, 1.234, 0.001234].map(roundForPeople)).toEqual(['12', '124', '12.3', '1.23', '0.00123']);
  });
});
