import { describe, expect, it } from 'vitest';
import type { RateSchedule } from '../../src/model/scenario.js';
import { burst, closedLoop, constant, layer, openLoop, scenario, server, simulate, sum } from '../helpers/scenario.js';

/** Asserts |observed - expected| <= k standard deviations. */
function expectWithinSd(observed: number, expected: number, sd: number, k = 5): void {
  expect(Math.abs(observed - expected)).toBeLessThanOrEqual(k * sd);
}

/** A Poisson count with mean m is within 5 sd (sqrt(m)) of it. */
function expectPoisson(observed: number, mean: number): void {
  expectWithinSd(observed, mean, Math.sqrt(mean));
}

const oneTry = layer('client', { maxAttempts: 1 });
const instant = server({ concurrency: 'unlimited', serviceMs: constant(0) });

function openRun(rate: number | RateSchedule, durationMs: number, binMs: number, seed = 1, warmupMs = 0) {
  return simulate(
    scenario({
      workload: openLoop(rate, durationMs, { clients: 100 }),
      stack: [oneTry],
      leaf: instant,
      warmupMs,
      metrics: { timeSeriesBinMs: binMs, clusteringBinMs: [binMs] },
    }),
    seed,
  );
}

describe('open-loop workloads', () => {
  it('Poisson arrivals: 1000/s for 100 s give 100,000 operations within 5 sd', () => {
    const r = openRun(1000, 100_000, 10_000, 3);
    expectPoisson(r.operations.offered, 100_000);
    expect(r.giveUps.success).toBe(r.operations.offered);
    expect(r.leafCalls).toBe(r.operations.offered);
    // Each 10 s bin is itself Poisson(10,000).
    expect(r.timeSeries.arrivalsFirst.slice(0, 10)).toHaveLength(10);
    for (const n of r.timeSeries.arrivalsFirst.slice(0, 10)) expectPoisson(n, 10_000);
  });

  it('the inter-arrival times are exponential: the index of dispersion of 10 ms counts is about 1', () => {
    const r = openRun(1000, 100_000, 10, 5);
    const c = r.clustering[0];
    // Counts per 10 ms bin are Poisson(10): variance / mean = 1, estimated over 10,000 bins (sd about 0.014).
    expect(c?.dispersionIndex as number).toBeGreaterThan(0.93);
    expect(c?.dispersionIndex as number).toBeLessThan(1.07);
  });

  it('a spike multiplies the arrivals inside its window only', () => {
    const r = openRun({ kind: 'spike', ratePerSec: 200, atMs: 2000, durationMs: 1000, spikeRatePerSec: 2000 }, 5000, 1000, 7);
    const a = r.timeSeries.arrivalsFirst;
    [200, 200, 2000, 200, 200].forEach((mean, i) => expectPoisson(a[i] as number, mean));
  });

  it('a step changes the rate for good at its time', () => {
    const r = openRun({ kind: 'step', ratePerSec: 200, atMs: 2000, toRatePerSec: 1000 }, 5000, 1000, 8);
    const a = r.timeSeries.arrivalsFirst;
    [200, 200, 1000, 1000, 1000].forEach((mean, i) => expectPoisson(a[i] as number, mean));
  });

  it('a ramp from 0 to 1000/s over 4 s: bin counts follow the integral of the rate, then stay flat', () => {
    const r = openRun(
      { kind: 'ramp', points: [{ atMs: 0, ratePerSec: 0 }, { atMs: 4000, ratePerSec: 1000 }] },
      6000,
      1000,
      9,
    );
    const a = r.timeSeries.arrivalsFirst;
    // rate(t) = t / 4 per second (t in ms): (b^2 - a^2) / 8000 arrivals in [a, b).
    [125, 375, 625, 875, 1000, 1000].forEach((mean, i) => expectPoisson(a[i] as number, mean));
  });

  it('arrivals stop at durationMs and the run drains', () => {
    const r = openRun(1000, 2000, 100, 4);
    expect(r.truncated).toBeNull();
    expect(r.operations.unfinished).toBe(0);
    expect(r.simulatedMs).toBeLessThan(2000);
    expect(r.timeSeries.arrivalsFirst.length).toBeGreaterThanOrEqual(20);
    expect(r.timeSeries.arrivalsFirst.length).toBeLessThanOrEqual(21);
  });
});

describe('closed-loop workloads', () => {
  it('2 clients, 15 ms think, one 10 ms worker, 100 ms: exactly 8 operations', () => {
    // Client 0 starts at 0, 25, 50, 75; client 1 waits for client 0 first, then starts at 0, 35, 60, 85.
    const r = simulate(
      scenario({
        workload: closedLoop(2, 15, 100),
        stack: [oneTry],
        leaf: server({ concurrency: 1, serviceMs: constant(10) }),
      }),
    );
    expect(r.operations.offered).toBe(8);
    expect(r.operations.succeeded).toBe(8);
    expect(r.completionTimeMs).toBe(95);
    expect(r.latencyMs.max).toBe(20);
    expect(r.latencyMs.mean).toBe(90 / 8);
  });

  it('with service and think both constant, each client makes ceil(duration / (service + think)) operations', () => {
    const r = simulate(
      scenario({
        workload: closedLoop(7, 40, 1000),
        stack: [oneTry],
        leaf: server({ concurrency: 'unlimited', serviceMs: constant(10) }),
      }),
    );
    // Starts at 0, 50, ..., 950: 20 per client.
    expect(r.operations.offered).toBe(7 * 20);
    expect(r.completionTimeMs).toBe(960);
  });
});

describe('burst workloads', () => {
  it('all clients start at startMs when it is constant', () => {
    const r = simulate(
      scenario({
        workload: burst(40, { startMs: constant(250) }),
        stack: [oneTry],
        leaf: instant,
        metrics: { timeSeriesBinMs: 100, clusteringBinMs: [100] },
      }),
    );
    expect(r.operations.offered).toBe(40);
    expect(r.timeSeries.arrivalsFirst.slice(0, 3)).toEqual([0, 0, 40]);
    expect(sum(r.timeSeries.arrivalsFirst)).toBe(40);
    expect(r.clustering[0]?.maxBin).toBe(40);
  });

  it('start times drawn from uniform(0, 1000): 1000 clients spread about 100 per 100 ms bin', () => {
    const r = simulate(
      scenario({
        workload: burst(1000, { startMs: { dist: 'uniform', min: 0, max: 1000 } }),
        stack: [oneTry],
        leaf: instant,
        metrics: { timeSeriesBinMs: 100, clusteringBinMs: [100] },
      }),
      12,
    );
    expect(r.operations.offered).toBe(1000);
    const a = r.timeSeries.arrivalsFirst;
    expect(sum(a)).toBe(1000);
    // Each bin count is Binomial(1000, 0.1).
    for (const n of a.slice(0, 10)) expectWithinSd(n, 100, Math.sqrt(1000 * 0.1 * 0.9));
  });
});

describe('warm-up', () => {
  it('a closed loop runs during the warm-up, but only operations started at t >= 0 are counted', () => {
    // One client, 10 ms operations back to back from -100 ms; after t = 0 it starts at 0, 10, 20, 30, 40.
    const r = simulate(
      scenario({
        workload: closedLoop(1, 0, 50),
        stack: [oneTry],
        leaf: server({ concurrency: 1, serviceMs: constant(10) }),
        warmupMs: 100,
        metrics: { timeSeriesBinMs: 10, clusteringBinMs: [10] },
      }),
    );
    expect(r.operations).toEqual({ offered: 5, succeeded: 5, failed: 0, unfinished: 0 });
    expect(r.leafCalls).toBe(5);
    expect(r.attempts[0]?.first).toBe(5);
    expect(r.simulatedMs).toBe(50);
    expect(r.timeSeries.tMs.slice(0, 5)).toEqual([0, 10, 20, 30, 40]);
    expect(r.timeSeries.arrivalsFirst.slice(0, 5)).toEqual([1, 1, 1, 1, 1]);
    expect(sum(r.timeSeries.arrivalsFirst)).toBe(5);
    expect(r.server.utilization).toBe(1);
  });

  it('an open loop counts only the arrivals after the warm-up: 100/s x 10 s, not 15 s', () => {
    const r = openRun(100, 10_000, 1000, 6, 5000);
    expectPoisson(r.operations.offered, 1000);
    expect(r.timeSeries.tMs[0]).toBe(0);
    expect(r.timeSeries.tMs.slice(0, 10)).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000]);
    expect(sum(r.timeSeries.arrivalsFirst)).toBe(r.operations.offered);
    expect(r.leafCalls).toBe(r.operations.offered);
  });

  it('a burst starts after the warm-up, at t = 0 of the measured time', () => {
    const r = simulate(scenario({ workload: burst(3), stack: [oneTry], leaf: server({ concurrency: 'unlimited', serviceMs: constant(10) }), warmupMs: 500 }));
    expect(r.operations.offered).toBe(3);
    expect(r.completionTimeMs).toBe(10);
    expect(r.latencyMs.max).toBe(10);
  });

  it('schedules count from the end of the warm-up: a spike at 1000 ms falls in the bin [1000, 2000)', () => {
    const r = openRun({ kind: 'spike', ratePerSec: 100, atMs: 1000, durationMs: 1000, spikeRatePerSec: 2000 }, 3000, 1000, 10, 2000);
    const a = r.timeSeries.arrivalsFirst;
    [100, 2000, 100].forEach((mean, i) => expectPoisson(a[i] as number, mean));
  });
});
