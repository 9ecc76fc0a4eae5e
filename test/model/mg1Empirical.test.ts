import { describe, expect, it } from 'vitest';
import { metricStats } from '../../src/metrics/metricStats.js';
import { simulate } from '../../src/simulate.js';

// A service time given as a Prometheus histogram (ms): bounds and cumulative counts, nothing above 20 ms.
const LE = [1, 2, 5, 10, 20];
const CUMULATIVE = [100, 350, 700, 900, 1000];

/**
 * E[S] and E[S^2] of the piecewise-uniform density the histogram stands for, computed here from the
 * buckets: a bucket (a, b] with probability p adds p (a + b) / 2 and p (a^2 + ab + b^2) / 3.
 */
function histogramMoments(): { m1: number; m2: number } {
  const total = CUMULATIVE[CUMULATIVE.length - 1] as number;
  let m1 = 0;
  let m2 = 0;
  let a = 0;
  let below = 0;
  for (let i = 0; i < LE.length; i++) {
    const b = LE[i] as number;
    const p = ((CUMULATIVE[i] as number) - below) / total;
    m1 += (p * (a + b)) / 2;
    m2 += (p * (a * a + a * b + b * b)) / 3;
    a = b;
    below = CUMULATIVE[i] as number;
  }
  return { m1, m2 };
}

describe('M/G/1 with an empirical service time', () => {
  it("matches Pollaczek-Khinchine's mean wait, W = lambda E[S^2] / (2 (1 - rho)), within the runs' 95% interval", () => {
    const { m1, m2 } = histogramMoments();
    expect(m1).toBeCloseTo(4.65, 12);
    expect(m2).toBeCloseTo(40.1666666666667, 10);
    const rho = 0.7;
    const lambda = rho / m1; // per ms
    const W = (lambda * m2) / (2 * (1 - rho));
    const scenario = {
      // One server, Poisson arrivals (open loop), one attempt per operation, no network delay.
      workload: { kind: 'open', rate: lambda * 1000, durationMs: 300_000 },
      stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
      leaf: { kind: 'server', concurrency: 1, serviceMs: { dist: 'histogram', le: [...LE, '+Inf'], counts: [...CUMULATIVE, 1000] } },
      warmupMs: 5_000,
      horizonMs: 1e9,
      metrics: { timeSeriesBinMs: 100_000, clusteringBinMs: [10] },
    };
    // The wait of each run: its mean time in the system less the mean service time.
    const waits: number[] = [];
    for (let seed = 1; seed <= 8; seed++) {
      const r = simulate(scenario, { seed });
      expect(r.operations.failed).toBe(0);
      expect(Math.abs((r.server.utilization as number) - rho)).toBeLessThan(0.02);
      waits.push((r.latencyMs.mean as number) - m1);
    }
    const s = metricStats(waits);
    expect(s.ci95[0]).toBeLessThanOrEqual(W);
    expect(s.ci95[1]).toBeGreaterThanOrEqual(W);
    // The interval is narrow enough to tell an exponential service time of the same mean apart
    // (M/M/1: W = rho E[S] / (1 - rho) = 10.85 ms, against 10.08 ms here).
    expect(s.ci95[1] - s.ci95[0]).toBeLessThan(0.08 * W);
    expect(s.ci95[1]).toBeLessThan((rho * m1) / (1 - rho));
  });
});
