import { describe, expect, it } from 'vitest';
import type { Cell } from '../../src/experiment/index.js';
import type { Scenario } from '../../src/model/scenario.js';
import { metricStats } from '../../src/sweep/aggregate.js';
import { runReplication, summarizeCell } from '../../src/sweep/runPlan.js';
import { studentTQuantile } from '../../src/metrics/studentT.js';
import { layer, scenario, server } from '../helpers/scenario.js';

function coverage(sc: Scenario, metric: string, truth: number, sweeps: number, reps: number): number {
  const cell: Cell = { part: 'main', variant: 'default', params: {}, key: 'k', scenario: sc };
  let covered = 0;
  for (let s = 0; s < sweeps; s++) {
    const recs = Array.from({ length: reps }, (_, r) => runReplication(cell, r, 1000 + s));
    const m = summarizeCell(cell, recs).metrics[metric];
    if (!m) throw new Error(`no metric ${metric}`);
    if (m.ci95[0] <= truth && truth <= m.ci95[1]) covered++;
  }
  return covered / sweeps;
}

describe('95% confidence intervals across replications', () => {
  it('use the Student t quantile (Hill 1970) and collapse to the mean for one replication', () => {
    expect(studentTQuantile(0.05, 9)).toBeCloseTo(2.262157, 4);
    expect(studentTQuantile(0.05, 1)).toBeCloseTo(12.7062, 3);
    expect(studentTQuantile(0.05, 30)).toBeCloseTo(2.042272, 4);
    const s = metricStats([1, 2, 3, 4]);
    expect(s.mean).toBe(2.5);
    expect(s.sd).toBeCloseTo(1.290994, 5);
    expect(s.ci95[1] - s.mean).toBeCloseTo((3.182446 * 1.290994) / 2, 3);
    expect(metricStats([7]).ci95).toEqual([7, 7]);
  });

  it('cover a Bernoulli success count in about 95% of repeated sweeps (not 80%)', () => {
    // 20 operations, one attempt each, a fault on 30% of arrivals: successes ~ Binomial(20, 0.7), mean 14.
    const sc = scenario({
      workload: { kind: 'burst', clients: 20, startMs: { dist: 'constant', value: 0 }, method: 'GET', permanentErrorFraction: 0 },
      stack: [layer('client', { maxAttempts: 1 })],
      leaf: server({ faults: [{ fromMs: 0, toMs: Infinity, probability: 0.3, status: 503 }] }),
    });
    const c = coverage(sc, 'giveUps.success', 14, 400, 10);
    expect(c).toBeGreaterThan(0.92);
    expect(c).toBeLessThan(0.98);
  });

  it('cover the M/M/1 mean time in system at low load in about 95% of repeated sweeps', () => {
    // lambda = 30/s, mu = 100/s: W = 1/(mu - lambda) = 14.2857 ms.
    const sc = scenario({
      workload: { kind: 'open', rate: { kind: 'steady', ratePerSec: 30 }, durationMs: 60_000, clients: 1, method: 'GET', permanentErrorFraction: 0 },
      stack: [layer('client', { maxAttempts: 1 })],
      leaf: server({ serviceMs: { dist: 'exponential', mean: 10 } }),
      warmupMs: 1000,
      metrics: { timeSeriesBinMs: 60_000, clusteringBinMs: [10] },
    });
    const c = coverage(sc, 'latencyMs.mean', 1000 / 70, 200, 10);
    expect(c).toBeGreaterThan(0.9);
    expect(c).toBeLessThan(0.99);
  });
});
