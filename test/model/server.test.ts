import { describe, expect, it } from 'vitest';
import type { Degradation, RetryAfterMode } from '../../src/model/scenario.js';
import {
  backoff,
  burst,
  closedLoop,
  constant,
  eventLog,
  layer,
  openLoop,
  scenario,
  server,
  simulate,
  simulateTraced,
  sum,
} from '../helpers/scenario.js';

/** Asserts |observed - expected| <= k standard deviations. */
function expectWithinSd(observed: number, expected: number, sd: number, k = 5): void {
  expect(Math.abs(observed - expected)).toBeLessThanOrEqual(k * sd);
}

const oneTry = layer('client', { maxAttempts: 1 });

describe('server: shedding at the queue limit, with Retry-After', () => {
  // One worker (100 ms), a queue of 1: of 3 clients arriving at 0, the third is shed with 503 and a 250 ms hint.
  const shedding = (retryAfter: RetryAfterMode) =>
    scenario({
      workload: burst(3),
      stack: [layer('client', { maxAttempts: 3, backoff: backoff('constant', 120), retryAfter })],
      leaf: server({ concurrency: 1, queueLimit: 1, serviceMs: constant(100), shedRetryAfterMs: 250 }),
    });

  it("'honor' waits the server's 250 ms instead of the 120 ms backoff: served [250, 350)", () => {
    const { results: r, timeline } = simulateTraced(shedding('honor'));
    expect(eventLog(timeline).filter(([, w]) => w.includes('503') || w.includes('wait'))).toEqual([
      [0, 'L0 outcome 503 ra=250'],
      [0, 'L0 wait 250'],
    ]);
    expect(r.server.shed).toBe(1);
    expect(r.server.maxQueue).toBe(1);
    expect(r.leafCalls).toBe(4);
    expect(r.operations.succeeded).toBe(3);
    expect(r.latencyMs.max).toBe(350);
    expect(r.latencyMs.mean).toBe((100 + 200 + 350) / 3);
  });

  it("'ignore' retries after its own 120 ms, earlier than the hint: queued, served [200, 300)", () => {
    const { results: r, timeline } = simulateTraced(shedding('ignore'));
    expect(eventLog(timeline).filter(([, w]) => w.includes('wait'))).toEqual([[0, 'L0 wait 120']]);
    expect(r.server.shed).toBe(1);
    expect(r.operations.succeeded).toBe(3);
    expect(r.latencyMs.max).toBe(300);
  });

  it('a Retry-After counts from the moment the response reaches the client', () => {
    // 5 ms hops: the 503 leaves the leaf at 5 and arrives at 10; the retry starts 100 ms later.
    const { timeline } = simulateTraced(
      scenario({
        stack: [layer('client', { maxAttempts: 2, backoff: backoff('none') })],
        leaf: { kind: 'script', script: [{ status: 503, durationMs: 0, retryAfterMs: 100 }, { status: 200, durationMs: 0 }] },
        network: { hopMs: constant(5) },
      }),
    );
    expect(eventLog(timeline).slice(2)).toEqual([
      [10, 'L0 outcome 503 ra=100'],
      [10, 'L0 wait 100'],
      [110, 'L0 attempt 2 timeout=Infinity'],
      [120, 'L0 outcome 200'],
      [120, 'L0 give-up success after 2'],
    ]);
  });

  it("'honor-plus-jitter' adds the backoff to the hint: 250 + 120 = 370 ms", () => {
    const r = simulate(shedding('honor-plus-jitter'));
    expect(r.operations.succeeded).toBe(3);
    expect(r.latencyMs.max).toBe(470);
  });

  it('a queue limit of 0 sheds everything that finds the worker busy, and without retries those operations fail', () => {
    const r = simulate(
      scenario({ workload: burst(5), stack: [oneTry], leaf: server({ concurrency: 2, queueLimit: 0, serviceMs: constant(10) }) }),
    );
    expect(r.server.shed).toBe(3);
    expect(r.server.served).toBe(2);
    expect(r.server.maxQueue).toBe(0);
    expect(r.giveUps).toMatchObject({ success: 2, 'attempt-limit': 3 });
  });
});

describe('server: queue discipline', () => {
  // 3 closed-loop clients with no think time on one 10 ms worker for 100 ms: 12 operations either way.
  const loop = (discipline: 'fifo' | 'lifo') =>
    simulate(
      scenario({
        workload: closedLoop(3, 0, 100),
        stack: [oneTry],
        leaf: server({ concurrency: 1, discipline, serviceMs: constant(10) }),
      }),
    );

  it('FIFO serves in arrival order: after the first round every operation waits for the 2 ahead of it (30 ms)', () => {
    const r = loop('fifo');
    expect(r.operations.succeeded).toBe(12);
    expect(r.completionTimeMs).toBe(120);
    expect(r.latencyMs.max).toBe(30);
    expect(r.latencyMs.mean).toBe(330 / 12);
  });

  it('LIFO serves the newest first: two clients take turns and the third waits until the others stop (120 ms)', () => {
    const r = loop('lifo');
    expect(r.operations.succeeded).toBe(12);
    expect(r.completionTimeMs).toBe(120);
    expect(r.latencyMs.max).toBe(120);
    // Same work, same completion times: the mean is unchanged, only who waits differs.
    expect(r.latencyMs.mean).toBe(330 / 12);
  });
});

describe('server: dropping expired requests', () => {
  // 3 clients, one 100 ms worker, 50 ms per attempt: two requests wait in the queue past their deadline.
  const sc = (dropExpired: boolean) =>
    scenario({
      workload: burst(3),
      stack: [layer('client', { maxAttempts: 1, perAttemptTimeoutMs: 50 })],
      leaf: server({ concurrency: 1, serviceMs: constant(100), dropExpired }),
    });

  it('drops the queued requests whose deadline passed instead of serving them', () => {
    const r = simulate(sc(true));
    expect(r.server.dropped).toBe(2);
    expect(r.server.served).toBe(1);
    expect(r.server.wastedWorkMs).toBe(100);
    expect(r.simulatedMs).toBe(100);
    expect(r.giveUps['attempt-limit']).toBe(3);
  });

  it('without it the server serves them for nobody', () => {
    const r = simulate(sc(false));
    expect(r.server.dropped).toBe(0);
    expect(r.server.served).toBe(3);
    expect(r.server.wastedWorkMs).toBe(300);
    expect(r.simulatedMs).toBe(300);
  });

  it('keeps queued requests whose deadline has not passed', () => {
    const r = simulate(
      scenario({
        workload: burst(3),
        stack: [layer('client', { maxAttempts: 1, perAttemptTimeoutMs: 1000 })],
        leaf: server({ concurrency: 1, serviceMs: constant(100), dropExpired: true }),
      }),
    );
    expect(r.server.dropped).toBe(0);
    expect(r.operations.succeeded).toBe(3);
  });
});

describe('server: capacity windows', () => {
  it('an outage (concurrency 0) queues arrivals, which are served in order when capacity returns', () => {
    const r = simulate(
      scenario({
        workload: burst(3, { startMs: constant(20) }),
        stack: [oneTry],
        leaf: server({ concurrency: 1, serviceMs: constant(10), capacity: [{ atMs: 10, durationMs: 50, concurrency: 0 }] }),
        metrics: { timeSeriesBinMs: 10, clusteringBinMs: [10] },
      }),
    );
    expect(r.operations.succeeded).toBe(3);
    expect(r.completionTimeMs).toBe(90);
    expect(r.latencyMs.mean).toBe((50 + 60 + 70) / 3);
    expect(r.latencyMs.max).toBe(70);
    expect(r.server.maxQueue).toBe(3);
    // 10 ms bins; the run ends at 90 ms.
    expect(r.timeSeries.queue.slice(0, 9)).toEqual([0, 0, 3, 3, 3, 3, 2, 1, 0]);
    expect(r.timeSeries.busy.slice(0, 9)).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1]);
  });

  it('a dip from 2 workers to 1 halves the service rate only inside the window', () => {
    const base = scenario({
      workload: burst(4, { startMs: constant(1) }),
      stack: [oneTry],
      leaf: server({ concurrency: 2, serviceMs: constant(10) }),
    });
    const full = simulate(base);
    expect(full.completionTimeMs).toBe(21);
    const dip = simulate({ ...base, leaf: server({ concurrency: 2, serviceMs: constant(10), capacity: [{ atMs: 0, durationMs: 100, concurrency: 1 }] }) });
    expect(dip.completionTimeMs).toBe(41);
    expect(dip.latencyMs.max).toBe(40);
    const after = simulate({ ...base, leaf: server({ concurrency: 2, serviceMs: constant(10), capacity: [{ atMs: 50, durationMs: 100, concurrency: 1 }] }) });
    expect(after.completionTimeMs).toBe(21);
  });

  it('a request already in service when an outage starts is finished', () => {
    const r = simulate(
      scenario({
        workload: burst(2, { startMs: constant(1) }),
        stack: [oneTry],
        leaf: server({ concurrency: 1, serviceMs: constant(10), capacity: [{ atMs: 5, durationMs: 100, concurrency: 0 }] }),
      }),
    );
    // The first is served [1, 11); the second waits for the end of the outage at 105: [105, 115).
    expect(r.latencyMs.mean).toBe((10 + 114) / 2);
    expect(r.completionTimeMs).toBe(115);
  });
});

describe('server: latency degradation with load', () => {
  const three = (degradation: Degradation | undefined) =>
    simulate(
      scenario({
        workload: burst(3),
        stack: [oneTry],
        leaf: server({ concurrency: 'unlimited', serviceMs: constant(10), ...(degradation ? { degradation } : {}) }),
      }),
    );

  it("'linear': service = drawn + perInFlightMs x requests in service, itself included: 15, 20, 25 ms", () => {
    const r = three({ kind: 'linear', perInFlightMs: 5 });
    expect(r.latencyMs.mean).toBe(20);
    expect(r.latencyMs.max).toBe(25);
    expect(r.operationMs.count).toBe(3);
    expect(r.completionTimeMs).toBe(25);
  });

  it("'threshold': factor x slower when more than inFlightAbove are in service: 10, 30, 30 ms", () => {
    const r = three({ kind: 'threshold', inFlightAbove: 1, factor: 3 });
    expect(r.latencyMs.mean).toBe(70 / 3);
    expect(r.latencyMs.max).toBe(30);
    expect(r.completionTimeMs).toBe(30);
  });

  it('no degradation: 10 ms each', () => {
    const r = three(undefined);
    expect(r.latencyMs.max).toBe(10);
    expect(r.latencyMs.mean).toBe(10);
  });
});

describe('server: fault injection', () => {
  // 5000 arrivals/s for 3 s on an unlimited server (1 ms); faults only during [1000, 2000).
  const faulty = (latencyMs?: number) =>
    simulate(
      scenario({
        workload: openLoop(5000, 3000),
        stack: [oneTry],
        leaf: server({
          concurrency: 'unlimited',
          serviceMs: constant(1),
          faults: [
            { fromMs: 1000, toMs: 2000, probability: 0.3, status: 500, ...(latencyMs !== undefined ? { latencyMs: constant(latencyMs) } : {}) },
          ],
        }),
        metrics: { timeSeriesBinMs: 1000, clusteringBinMs: [1000] },
      }),
      9,
    );

  it('fails about 30% of the requests inside the window and none outside it', () => {
    const r = faulty();
    const inWindow = r.timeSeries.arrivalsFirst[1] as number;
    expect(inWindow).toBeGreaterThan(4000);
    expectWithinSd(r.server.faulted, 0.3 * inWindow, Math.sqrt(inWindow * 0.3 * 0.7));
    expect(r.timeSeries.failures.slice(0, 3)).toEqual([0, r.server.faulted, 0]);
    expect(r.giveUps['attempt-limit']).toBe(r.server.faulted);
    expect(r.operations.succeeded).toBe(r.operations.offered - r.server.faulted);
    expect(r.server.served).toBe(r.operations.succeeded);
  });

  it("a fault's latency delays its answer; successes keep the server's latency", () => {
    const r = faulty(7);
    expect(r.server.faulted).toBeGreaterThan(0);
    // Random arrival times: (t + 7) - t is 7 up to rounding.
    expect(r.operationMs.max).toBeCloseTo(7, 9);
    expect(r.latencyMs.max).toBeCloseTo(1, 9);
    expect(r.operationMs.mean as number).toBeGreaterThan(1);
  });

  it("a fault's status decides the retry: 400 is not retried, 503 is retried up to the cap", () => {
    const run = (status: 400 | 503) =>
      simulate(
        scenario({
          workload: burst(10),
          stack: [layer('client', { maxAttempts: 3, backoff: backoff('constant', 5) })],
          leaf: server({ faults: [{ fromMs: 0, toMs: 1e9, probability: 1, status }] }),
        }),
      );
    const s400 = run(400);
    expect(s400.giveUps['not-retryable']).toBe(10);
    expect(s400.leafCalls).toBe(10);
    const s503 = run(503);
    expect(s503.giveUps['attempt-limit']).toBe(10);
    expect(s503.leafCalls).toBe(30);
    expect(s503.server.faulted).toBe(30);
  });

  it("a fault's Retry-After hint is honoured", () => {
    const { timeline } = simulateTraced(
      scenario({
        stack: [layer('client', { maxAttempts: 2, backoff: backoff('constant', 5) })],
        leaf: server({ serviceMs: constant(10), faults: [{ fromMs: 0, toMs: 1, probability: 1, status: 503, retryAfterMs: 400 }] }),
      }),
    );
    expect(eventLog(timeline).slice(2)).toEqual([
      [0, 'L0 outcome 503 ra=400'],
      [0, 'L0 wait 400'],
      [400, 'L0 attempt 2 timeout=Infinity'],
      [410, 'L0 outcome 200'],
      [410, 'L0 give-up success after 2'],
    ]);
  });
});

describe('operations with a permanent-error fraction', () => {
  it('a quarter of the operations get a 400 that is never retried', () => {
    const r = simulate(
      scenario({
        workload: burst(4000, { permanentErrorFraction: 0.25 }),
        stack: [layer('client', { maxAttempts: 4 })],
        leaf: server({ concurrency: 'unlimited', serviceMs: constant(1) }),
      }),
      4,
    );
    const bad = r.giveUps['not-retryable'] as number;
    expectWithinSd(bad, 1000, Math.sqrt(4000 * 0.25 * 0.75));
    expect(r.giveUps.success).toBe(4000 - bad);
    expect(r.leafCalls).toBe(4000);
    expect(r.attempts[0]?.retries).toBe(0);
    expect(r.server.served).toBe(4000 - bad);
  });

  it('a fraction of 1 makes every operation a single 400', () => {
    const r = simulate(
      scenario({ workload: burst(50, { permanentErrorFraction: 1 }), stack: [layer('client', { maxAttempts: 4 })] }),
    );
    expect(r.giveUps['not-retryable']).toBe(50);
    expect(r.leafCalls).toBe(50);
    expect(r.server.served).toBe(0);
    expect(sum(r.timeSeries.arrivalsRetry)).toBe(0);
  });
});
