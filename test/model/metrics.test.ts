import { describe, expect, it } from 'vitest';
import {
  alwaysFailing,
  backoff,
  burst,
  constant,
  layer,
  openLoop,
  scenario,
  server,
  simulate,
  sum,
  total,
} from '../helpers/scenario.js';

describe('metrics: operations and give-ups', () => {
  // Deadlines, faults, timeouts and a queue limit: operations end for many different reasons.
  const mixed = scenario({
    workload: openLoop(300, 4000, { clients: 10, deadlineMs: 400 }),
    stack: [layer('client', { maxAttempts: 4, perAttemptTimeoutMs: 150, backoff: backoff('full-jitter', 30, 300) })],
    leaf: server({
      concurrency: 2,
      queueLimit: 10,
      serviceMs: { dist: 'exponential', mean: 7 },
      faults: [{ fromMs: 0, toMs: 4000, probability: 0.2, status: 500 }],
    }),
    metrics: { timeSeriesBinMs: 100, clusteringBinMs: [10] },
  });

  it('every operation ends once: give-ups add up to succeeded + failed = offered', () => {
    const r = simulate(mixed, 8);
    expect(r.truncated).toBeNull();
    expect(Object.values(r.giveUps).filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
    expect(total(r.giveUps)).toBe(r.operations.succeeded + r.operations.failed);
    expect(r.operations.succeeded + r.operations.failed).toBe(r.operations.offered);
    expect(r.giveUps.success).toBe(r.operations.succeeded);
    expect(r.latencyMs.count).toBe(r.operations.succeeded);
    expect(r.operationMs.count).toBe(r.operations.offered);
  });

  it('one layer: first tries = operations, first tries + retries = leaf calls', () => {
    const r = simulate(mixed, 8);
    const l = r.attempts[0];
    expect(l?.first).toBe(r.operations.offered);
    expect((l?.first as number) + (l?.retries as number)).toBe(r.leafCalls);
    expect(r.amplification).toBe(r.leafCalls / r.operations.offered);
    expect(total(l?.giveUps ?? {})).toBe(r.operations.offered);
  });
});

describe('metrics: latency', () => {
  it('a constant-latency run has every percentile exactly equal to that latency', () => {
    const r = simulate(
      scenario({
        workload: burst(100),
        stack: [layer('client', { maxAttempts: 1 })],
        leaf: server({ concurrency: 'unlimited', serviceMs: constant(10) }),
        network: { hopMs: constant(2.5) },
      }),
    );
    const exact = { count: 100, mean: 15, p50: 15, p90: 15, p99: 15, p999: 15, max: 15 };
    expect(r.latencyMs).toEqual(exact);
    expect(r.operationMs).toEqual(exact);
    expect(r.completionTimeMs).toBe(15);
    expect(r.goodputPerSec).toBe(100 / 0.015);
  });

  it('latency counts successes only; operation time counts give-ups too', () => {
    // 10 clients on one 10 ms worker with a 35 ms timeout and no retries: 3 succeed (10, 20, 30 ms), 7 give up at 35.
    const r = simulate(
      scenario({
        workload: burst(10),
        stack: [layer('client', { maxAttempts: 1, perAttemptTimeoutMs: 35 })],
        leaf: server({ concurrency: 1, serviceMs: constant(10) }),
      }),
    );
    expect(r.latencyMs).toMatchObject({ count: 3, mean: 20, max: 30 });
    expect(r.operationMs).toMatchObject({ count: 10, mean: (10 + 20 + 30 + 7 * 35) / 10, max: 35 });
  });

  it('an empty run reports null latencies', () => {
    const r = simulate(scenario({ workload: burst(3), stack: [layer('client', { maxAttempts: 2, backoff: backoff('none') })], leaf: alwaysFailing() }));
    expect(r.latencyMs).toEqual({ count: 0, mean: null, p50: null, p90: null, p99: null, p999: null, max: null });
    expect(r.operationMs.count).toBe(3);
  });
});

describe('metrics: clustering of leaf arrivals', () => {
  it('N clients with a constant hop all arrive at once: the largest bin holds N', () => {
    const N = 50;
    const r = simulate(
      scenario({
        workload: burst(N),
        stack: [layer('client', { maxAttempts: 1 })],
        leaf: server({ concurrency: 'unlimited' }),
        network: { hopMs: constant(5) },
        metrics: { timeSeriesBinMs: 1000, clusteringBinMs: [1, 10] },
      }),
    );
    // All N arrive at 5 ms; the run ends at 20 ms (service 10 ms, hop back 5 ms). The window [0, 20] has
    // 21 bins of 1 ms (one holding N, twenty empty) and 3 bins of 10 ms: a single spike reads as one.
    expect(r.simulatedMs).toBe(20);
    const [ms1, ms10] = r.clustering;
    expect(ms1).toMatchObject({ binMs: 1, bins: 21, arrivals: N, maxBin: N, peakToMean: 21 });
    expect(ms1?.dispersionIndex).toBeCloseTo(N - N / 21, 9);
    expect(ms10).toMatchObject({ binMs: 10, bins: 3, arrivals: N, maxBin: N, peakToMean: 3 });
    expect(ms10?.dispersionIndex).toBeCloseTo(N - N / 3, 9);
    expect(r.timeSeries.arrivalsFirst[0]).toBe(N);
  });

  it('synchronised retries without jitter: 3 waves of 10 at 0, 100 and 200 ms', () => {
    const r = simulate(
      scenario({
        workload: burst(10),
        stack: [layer('client', { maxAttempts: 3, backoff: backoff('constant', 100) })],
        leaf: alwaysFailing(),
        metrics: { timeSeriesBinMs: 1000, clusteringBinMs: [1, 100] },
      }),
    );
    const bins = 201;
    const mean = 30 / bins;
    const variance = (3 * 10 * 10 - 30 * mean) / bins;
    const c1 = r.clustering[0];
    expect(c1).toMatchObject({ binMs: 1, bins, arrivals: 30, maxBin: 10 });
    expect(c1?.mean).toBeCloseTo(mean, 12);
    expect(c1?.peakToMean).toBeCloseTo(10 / mean, 9);
    expect(c1?.dispersionIndex).toBeCloseTo(variance / mean, 9);
    expect(r.clustering[1]).toEqual({ binMs: 100, bins: 3, arrivals: 30, mean: 10, peakToMean: 1, dispersionIndex: 0, maxBin: 10 });
  });

  it('full jitter spreads the same retries over many bins', () => {
    const r = simulate(
      scenario({
        workload: burst(10),
        stack: [layer('client', { maxAttempts: 3, backoff: backoff('full-jitter', 100, 1000) })],
        leaf: alwaysFailing(),
        metrics: { timeSeriesBinMs: 1000, clusteringBinMs: [1] },
      }),
      3,
    );
    expect(r.clustering[0]?.arrivals).toBe(30);
    // The first tries still arrive together; the 20 retries are spread out.
    expect(r.clustering[0]?.maxBin).toBe(10);
    expect(r.timeSeries.arrivalsRetry[0]).toBe(20);
    expect(r.clustering[0]?.bins).toBeGreaterThan(20);
  });
});

describe('metrics: time series', () => {
  it('bins start at 0 and split leaf arrivals into first tries and retries', () => {
    const r = simulate(
      scenario({
        workload: burst(4),
        stack: [layer('client', { maxAttempts: 3, backoff: backoff('constant', 100) })],
        leaf: alwaysFailing(),
        metrics: { timeSeriesBinMs: 50, clusteringBinMs: [1] },
      }),
    );
    // Attempts at 0, 100, 200 ms; the run ends at 200 ms.
    expect(r.simulatedMs).toBe(200);
    expect(r.timeSeries.tMs.slice(0, 4)).toEqual([0, 50, 100, 150]);
    expect(r.timeSeries.arrivalsFirst.slice(0, 3)).toEqual([4, 0, 0]);
    expect(r.timeSeries.arrivalsRetry.slice(0, 3)).toEqual([0, 0, 4]);
  });

  // Events at exactly the end of the run (simulatedMs) fall outside the last bin when simulatedMs is a
  // multiple of the bin width, so the series lose them: Model.snapshot sizes the series with
  // ceil(endMs / binMs) bins, which leaves out the bin that holds endMs.
  it('counts every event, including those at the very end of the run', () => {
    const r = simulate(
      scenario({
        workload: burst(4),
        stack: [layer('client', { maxAttempts: 3, backoff: backoff('constant', 100) })],
        leaf: alwaysFailing(),
        metrics: { timeSeriesBinMs: 50, clusteringBinMs: [1] },
      }),
    );
    expect(sum(r.timeSeries.arrivalsFirst) + sum(r.timeSeries.arrivalsRetry)).toBe(r.leafCalls);
    expect(sum(r.timeSeries.failures)).toBe(r.operations.failed);
  });

  it('the success of a single 10 ms operation shows in the 10 ms series', () => {
    const r = simulate(scenario({ metrics: { timeSeriesBinMs: 10, clusteringBinMs: [1] } }));
    expect(r.operations.succeeded).toBe(1);
    expect(sum(r.timeSeries.successes)).toBe(1);
  });

  it('with random times the series add up to the totals', () => {
    const r = simulate(
      scenario({
        workload: openLoop(500, 3000, { clients: 10 }),
        stack: [layer('client', { maxAttempts: 3, backoff: backoff('full-jitter', 10, 100) })],
        leaf: server({
          concurrency: 4,
          serviceMs: { dist: 'exponential', mean: 5 },
          faults: [{ fromMs: 0, toMs: 1e9, probability: 0.3, status: 503, latencyMs: { dist: 'uniform', min: 0, max: 2 } }],
        }),
        network: { hopMs: { dist: 'exponential', mean: 1 } },
        metrics: { timeSeriesBinMs: 100, clusteringBinMs: [10] },
      }),
      21,
    );
    const ts = r.timeSeries;
    expect(sum(ts.arrivalsFirst)).toBe(r.operations.offered);
    expect(sum(ts.arrivalsFirst) + sum(ts.arrivalsRetry)).toBe(r.leafCalls);
    expect(sum(ts.successes)).toBe(r.operations.succeeded);
    expect(sum(ts.failures)).toBe(r.operations.failed);
    ts.goodputPerSec.forEach((g, i) => expect(g).toBe((ts.successes[i] as number) / 0.1));
  });
});

describe('metrics: the measured time', () => {
  it('ends with the last event of a drained run', () => {
    const r = simulate(scenario({ workload: burst(2), stack: [layer('client', { maxAttempts: 1 })] }));
    // One 10 ms worker: [0, 10) and [10, 20).
    expect(r.simulatedMs).toBe(20);
    expect(r.server.utilization).toBe(1);
    expect(r.goodputPerSec).toBe(100);
  });

  // The timer of an attempt that was answered is tombstoned, not removed; when it pops it must not
  // count as measured time (utilisation and goodput would be divided by a longer time).
  it('a per-attempt timeout that never fires does not stretch it', () => {
    const r = simulate(scenario({ workload: burst(2), stack: [layer('client', { maxAttempts: 1, perAttemptTimeoutMs: 1000 })] }));
    expect(r.operations.succeeded).toBe(2);
    expect(r.simulatedMs).toBe(20);
    expect(r.server.utilization).toBe(1);
    expect(r.goodputPerSec).toBe(100);
  });
});
