import { describe, expect, it } from 'vitest';
import { FEW_RUNS, goodputCap, metricRange, metricScale, restsOnFewRuns } from '../../src/metrics/metricBounds.js';
import { boundedMetricStats, clipInterval, metricStats } from '../../src/metrics/metricStats.js';
import { wilsonInterval, Z95 } from '../../src/metrics/wilson.js';
import { aggregateMetrics } from '../../src/sweep/aggregate.js';

/** The Wilson interval written out from its closed form, independently of the module's arrangement. */
function wilsonClosedForm(k: number, n: number): [number, number] {
  const p = k / n;
  const z = Z95;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = ((z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n)));
  return [centre - half, centre + half];
}

describe('the Wilson score interval of k of n', () => {
  // Newcombe (1998), Statistics in Medicine 17:857, Table II, method 3 (score interval without continuity correction).
  const newcombe: Array<[number, number, number, number]> = [
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
    [29, 29, 0.883, 1],
  ];
  it.each(newcombe)('matches the worked example of Newcombe (1998), %i of %i', (k, n, lo, hi) => {
    const [l, h] = wilsonInterval(k, n);
    expect(l).toBeCloseTo(lo, 4);
    expect(h).toBeCloseTo(hi, 4);
  });

  it('equals its closed form at every k of small n, and ends exactly at 0 and 1', () => {
    for (const n of [1, 2, 3, 5, 10, 40]) {
      for (let k = 0; k <= n; k++) {
        const [l, h] = wilsonInterval(k, n);
        const [cl, ch] = wilsonClosedForm(k, n);
        expect(l).toBeCloseTo(Math.max(0, cl), 12);
        expect(h).toBeCloseTo(Math.min(1, ch), 12);
        expect(l).toBeGreaterThanOrEqual(0);
        expect(h).toBeLessThanOrEqual(1);
        expect(l).toBeLessThanOrEqual(k / n);
        expect(h).toBeGreaterThanOrEqual(k / n);
      }
      expect(wilsonInterval(0, n)[0]).toBe(0);
      expect(wilsonInterval(n, n)[1]).toBe(1);
    }
    expect(wilsonInterval(0, 0)).toEqual([NaN, NaN]);
  });
});

describe('intervals within what a metric can take', () => {
  it('knows once which metrics are 0/1 outcomes, fractions, or 0 or more', () => {
    expect(metricScale('windows.after.recovered')).toBe('outcome');
    expect(metricScale('truncated')).toBe('outcome');
    expect(metricScale('successRate')).toBe('fraction');
    expect(metricScale('workloads.web.successRate')).toBe('fraction');
    expect(metricScale('services.app.caches.db.hitRatio')).toBe('fraction');
    expect(metricScale('goodputPerSec')).toBe('non-negative');
    expect(metricScale('cascade.db.recoveredAtMs')).toBe('non-negative');
    expect(metricRange('windows.fix.successRate')).toEqual({ min: 0, max: 1 });
    expect(metricRange('services.db.utilization')).toEqual({ min: 0, max: Infinity });
  });

  it('gives a 0/1 outcome over 2 replications the Wilson interval, not 0.5 +- 6.4', () => {
    const t = metricStats([1, 0]);
    expect(t.ci95[0]).toBeLessThan(-5);
    const s = boundedMetricStats('windows.after.recovered', [1, 0]);
    expect(s.mean).toBe(0.5);
    expect(s.sd).toBe(t.sd);
    expect(s.ci95).toEqual(wilsonInterval(1, 2));
    expect(boundedMetricStats('windows.after.recovered', [1, 1]).ci95).toEqual(wilsonInterval(2, 2));
    expect(wilsonInterval(2, 2)[0]).toBeCloseTo(0.3424, 4);
  });

  it('clips a fraction averaged over replications to [0, 1] and leaves it as the t interval inside', () => {
    const wide = boundedMetricStats('successRate', [1, 0.2]);
    const t = metricStats([1, 0.2]);
    expect(wide.ci95).toEqual([0, 1]);
    expect([wide.mean, wide.sd]).toEqual([t.mean, t.sd]);
    const inside = [0.5, 0.52, 0.49, 0.51, 0.5, 0.48];
    expect(boundedMetricStats('successRate', inside)).toEqual(metricStats(inside));
  });

  it('clips a count at 0 and leaves an interval inside its range byte for byte', () => {
    const c = boundedMetricStats('fleet.crashes', [0, 10]);
    expect(c.ci95[0]).toBe(0);
    expect(c.ci95[1]).toBe(metricStats([0, 10]).ci95[1]);
    const v = [796, 801, 790, 805];
    expect(boundedMetricStats('leafCalls', v)).toEqual(metricStats(v));
  });

  it('keeps the value itself as the interval of one replication', () => {
    expect(boundedMetricStats('windows.after.recovered', [1]).ci95).toEqual([1, 1]);
    expect(boundedMetricStats('successRate', [0.3]).ci95).toEqual([0.3, 0.3]);
  });

  it('clips to [min, max] without crossing the ends', () => {
    expect(clipInterval([-3, 0.5], 0, 1)).toEqual([0, 0.5]);
    expect(clipInterval([0.2, 7], 0, 1)).toEqual([0.2, 1]);
    expect(clipInterval([-9, -1], 0, 1)).toEqual([0, 0]);
    expect(clipInterval([2, 9], 0, 1)).toEqual([1, 1]);
  });

  it('caps a goodput at the largest offered rate of its replications (goodput / success rate)', () => {
    // 1,350/s offered: one run kept up (1,330/s, 98.5%), one collapsed (600/s, 44.4%).
    expect(goodputCap([1330, 600], [1330 / 1350, 600 / 1350])).toBeCloseTo(1350, 9);
    expect(goodputCap([0, 0], [0, 0])).toBe(Infinity);
    expect(goodputCap([5, 0], [null, 0])).toBe(Infinity);
    // A quotient below a goodput observed (a window's successes of earlier operations) never cuts it.
    expect(goodputCap([1400], [1])).toBe(1400);
  });

  it('aggregates 2 replications of a collapse within what is possible', () => {
    const reps = [
      { goodputPerSec: 1330, successRate: 1330 / 1350, 'windows.after.recovered': 1, 'windows.after.goodputPerSec': 1320, 'windows.after.successRate': 0.98, amplification: 1.2 },
      { goodputPerSec: 600, successRate: 600 / 1350, 'windows.after.recovered': 0, 'windows.after.goodputPerSec': 500, 'windows.after.successRate': 0.37, amplification: 2.6 },
    ];
    const s = aggregateMetrics(reps);
    expect(s.goodputPerSec?.ci95[1]).toBeCloseTo(1350, 9);
    expect(s.goodputPerSec?.ci95[0]).toBe(0);
    expect(s['windows.after.goodputPerSec']?.ci95[1]).toBeCloseTo(500 / 0.37, 9);
    expect(s['windows.after.recovered']?.ci95).toEqual(wilsonInterval(1, 2));
    expect(s.successRate?.ci95).toEqual([0, 1]);
    // Unbounded above and inside at 0: the Student-t interval as it was.
    expect(s.amplification).toEqual({ ...metricStats([1.2, 2.6]), ci95: [0, metricStats([1.2, 2.6]).ci95[1]] });
  });

  it('calls an interval of fewer than FEW_RUNS replications one resting on few runs', () => {
    expect([1, 2, FEW_RUNS - 1, FEW_RUNS, 4 * FEW_RUNS].map(restsOnFewRuns)).toEqual([false, true, true, false, false]);
  });
});
