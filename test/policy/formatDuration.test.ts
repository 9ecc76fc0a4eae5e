import { describe, expect, it } from 'vitest';
import { durationUnit, formatDuration, formatSetDuration, roundForPeople } from '../../src/policy/formatDuration.js';

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
      '2 min',
      '2 min',
      '15 min',
      '2 h',
      '2 h',
      '2.1 h',
    ]);
  });

  it('moves to the next unit when rounding would reach it, on either side of each boundary', () => {
    const cases: Array<[number, string]> = [
      [999.4, '999 ms'],
      [999.5, '1 s'],
      [999.6, '1 s'],
      [1000, '1 s'],
      [119_400, '119 s'],
      [119_499, '119 s'],
      [119_500, '1.99 min'],
      [119_800, '2 min'],
      [120_000, '2 min'],
      [7_169_999, '119 min'],
      [7_170_000, '1.99 h'],
      [7_188_000, '2 h'],
      [7_200_000, '2 h'],
      [1_330_818_740, '370 h'],
      [-999.6, '-1 s'],
    ];
    expect(cases.map(([ms]) => formatDuration(ms))).toEqual(cases.map(([, text]) => text));
  });

  it('chooses the unit by how the caller rounds: 999.96 ms is 1 s at 4 significant digits, 999.96 ms at 5', () => {
    const four = (x: number) => String(Number(x.toPrecision(4)));
    const five = (x: number) => String(Number(x.toPrecision(5)));
    expect(durationUnit(999.96, four)).toEqual({ unit: 's', ms: 1000 });
    expect(durationUnit(999.96, five)).toEqual({ unit: 'ms', ms: 1 });
    // A value written with digit grouping is past every threshold but the last's.
    expect(durationUnit(5e9, (x) => x.toLocaleString('en-US'))).toEqual({ unit: 'h', ms: 3_600_000 });
  });

  it('says unbounded for an infinite duration and ? for NaN', () => {
    expect([Infinity, NaN].map(formatDuration)).toEqual(['unbounded', '?']);
  });

  it('keeps the sign of a negative duration and chooses the unit by its size', () => {
    expect([-250, -1500, -900_000].map(formatDuration)).toEqual(['-250 ms', '-1.5 s', '-15 min']);
  });
});

describe('formatSetDuration', () => {
  it('writes a setting in the unit that reads best without rounding it, so that settings never read alike', () => {
    expect([0, 15.6, 999, 1000, 3000, 12_345, 12_346, 90_000, 300_000, 7_200_000].map(formatSetDuration)).toEqual([
      '0 ms',
      '15.6 ms',
      '999 ms',
      '1 s',
      '3 s',
      '12.345 s',
      '12.346 s',
      '90 s',
      '5 min',
      '2 h',
    ]);
  });
});

describe('roundForPeople', () => {
  it('keeps whole numbers, drops decimals from 100 up and keeps 3 significant digits below', () => {
    expect([12, 123.6, 12.34, 1.234, 0.001234].map(roundForPeople)).toEqual(['12', '124', '12.3', '1.23', '0.00123']);
  });
});
