import { describe, expect, it } from 'vitest';
import { logNormalMeanInterval } from '../../src/metrics/logNormalMean.js';

describe('the modified Cox interval of a log-normal mean (Olsson 2005)', () => {
  it('gives Olsson\'s worked example: carbon monoxide levels, [12.31, 78.72] around a mean of 33.5', () => {
    // Olsson, J. Statistics Education 13(1), 2005: nine CO measurements.
    const co = [12.5, 20, 4, 20, 25, 170, 15, 20, 15];
    const [lo, hi] = logNormalMeanInterval(co) as [number, number];
    expect(lo).toBeCloseTo(12.30929, 3);
    expect(hi).toBeCloseTo(78.72254, 3);
  });

  it('is exp of ybar + s^2/2 +- t * sqrt(s^2/n + s^4/(2(n-1))) on the logs: two values', () => {
    // logs 0 and ln 4: ybar = ln 2, s^2 = (ln 2)^2 * 2, t(0.975, 1) = 12.7062.
    const y = Math.log(2);
    const s2 = 2 * y * y;
    const half = 12.706204736 * Math.sqrt(s2 / 2 + (s2 * s2) / 2);
    const [lo, hi] = logNormalMeanInterval([1, 4]) as [number, number];
    expect(Math.log(lo)).toBeCloseTo(y + s2 / 2 - half, 6);
    expect(Math.log(hi)).toBeCloseTo(y + s2 / 2 + half, 6);
  });

  it('reaches further above the values\' mean than below it, and shrinks to the value when they agree', () => {
    const [lo, hi] = logNormalMeanInterval([1e-7, 3e-7, 2e-6, 5e-7, 1e-6]) as [number, number];
    const mean = (1e-7 + 3e-7 + 2e-6 + 5e-7 + 1e-6) / 5;
    expect(lo).toBeLessThan(mean);
    expect(hi - mean).toBeGreaterThan(mean - lo);
    const same = logNormalMeanInterval([2e-5, 2e-5, 2e-5]) as [number, number];
    expect(same[0]).toBeCloseTo(2e-5, 15);
    expect(same[1]).toBeCloseTo(2e-5, 15);
  });

  it('has no interval for a value of 0 (no logarithm) or fewer than two values', () => {
    expect(logNormalMeanInterval([1e-6, 0, 2e-6])).toBeNull();
    expect(logNormalMeanInterval([1e-6])).toBeNull();
    expect(logNormalMeanInterval([])).toBeNull();
  });
});
