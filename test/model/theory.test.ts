import { describe, expect, it } from 'vitest';
import { Model } from '../../src/model/Model.js';
import { layer, scenario, server } from '../helpers/scenario.js';

/** Erlang-C probability of waiting for c servers at offered load a = lambda / mu (Erlang 1917). */
function erlangC(c: number, a: number): number {
  let sum = 0;
  let term = 1;
  for (let k = 0; k < c; k++) {
    if (k > 0) term *= a / k;
    sum += term;
  }
  const last = (term * a) / c; // a^c / c!
  const top = last * (c / (c - a));
  return top / (sum + top);
}

const noRetry = layer('client', { maxAttempts: 1 });

describe('queueing theory', () => {
  it('M/M/1 at utilisation 0.8: mean time in system 1/(mu - lambda) within 3%', () => {
    const lambda = 80 / 1000; // per ms
    const mu = 1 / 10;
    const r = new Model(
      scenario({
        workload: { kind: 'open', rate: { kind: 'steady', ratePerSec: 80 }, durationMs: 10_000_000, clients: 1, method: 'GET', permanentErrorFraction: 0 },
        stack: [noRetry],
        leaf: server({ serviceMs: { dist: 'exponential', mean: 10 } }),
        warmupMs: 10_000,
        horizonMs: 1e12,
        metrics: { timeSeriesBinMs: 1_000_000, clusteringBinMs: [10] },
      }),
      { seed: 7 },
    ).run();
    const W = 1 / (mu - lambda);
    expect(W).toBeCloseTo(50, 9);
    expect(r.operations.succeeded).toBeGreaterThan(780_000);
    expect(Math.abs((r.latencyMs.mean as number) - W) / W).toBeLessThan(0.03);
    expect(Math.abs((r.server.utilization as number) - 0.8)).toBeLessThan(0.01);
  });

  it('M/M/c with c = 10 at utilisation 0.8 matches Erlang-C within 3%', () => {
    const c = 10;
    const mu = 1 / 100; // per ms: service mean 100 ms
    const lambda = 0.8 * c * mu;
    const pWait = erlangC(c, lambda / mu);
    const W = pWait / (c * mu - lambda) + 1 / mu;
    expect(pWait).toBeCloseTo(0.40918, 4);
    const r = new Model(
      scenario({
        workload: { kind: 'open', rate: { kind: 'steady', ratePerSec: lambda * 1000 }, durationMs: 15_000_000, clients: 1, method: 'GET', permanentErrorFraction: 0 },
        stack: [noRetry],
        leaf: server({ concurrency: c, serviceMs: { dist: 'exponential', mean: 100 } }),
        warmupMs: 10_000,
        horizonMs: 1e12,
        metrics: { timeSeriesBinMs: 1_000_000, clusteringBinMs: [10] },
      }),
      { seed: 11 },
    ).run();
    expect(Math.abs((r.latencyMs.mean as number) - W) / W).toBeLessThan(0.03);
    expect(Math.abs((r.server.utilization as number) - 0.8)).toBeLessThan(0.01);
  });

  it('a closed loop of N clients on one constant-time worker: throughput 1/s, latency N x s', () => {
    const r = new Model(
      scenario({
        workload: { kind: 'closed', clients: 5, thinkMs: { dist: 'constant', value: 0 }, durationMs: 10_000, startMs: { dist: 'constant', value: 0 }, method: 'GET', permanentErrorFraction: 0 },
        stack: [noRetry],
        leaf: server({ serviceMs: { dist: 'constant', value: 10 } }),
      }),
      { seed: 1 },
    ).run();
    // The first 5 complete at 10, 20, ... 50 ms; after that every operation waits for the 4 ahead of it.
    expect(r.operations.succeeded).toBe(1004);
    expect(r.latencyMs.max).toBe(50);
    expect(r.server.utilization).toBe(1);
    expect(r.completionTimeMs).toBe(10_040);
  });
});
