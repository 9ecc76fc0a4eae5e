import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/model/trace.js';
import { simulate } from '../../src/simulate.js';

const server = { concurrency: 4, serviceMs: { dist: 'exponential', mean: 10 } };

function shares(loadBalancer: string, backends = 4, extra: Record<string, unknown> = {}) {
  const r = simulate({
    workload: { kind: 'open', rate: 200, durationMs: 60_000 },
    stack: [{ policy: { maxAttempts: 1 } }],
    leaf: { kind: 'pool', backends, server, loadBalancer, ...extra },
  });
  return { r, served: (r.backends ?? []).map((b) => b.served) };
}

describe('load balancers on identical backends', () => {
  it('round robin splits requests exactly evenly', () => {
    const { r, served } = shares('round-robin');
    const total = r.server.served;
    served.forEach((n) => expect(Math.abs(n - total / 4)).toBeLessThanOrEqual(1));
  });

  it('random splits them within binomial bounds', () => {
    const { r, served } = shares('random');
    const total = r.server.served;
    const sd = Math.sqrt(total * 0.25 * 0.75);
    served.forEach((n) => expect(Math.abs(n - total / 4)).toBeLessThan(5 * sd));
    expect(new Set(served).size).toBeGreaterThan(1);
  });

  it('power of two choices splits them within statistical bounds too', () => {
    const { r, served } = shares('p2c');
    const total = r.server.served;
    served.forEach((n) => expect(Math.abs(n - total / 4)).toBeLessThan(0.05 * total));
  });

  it('least outstanding requests favours the faster backend', () => {
    const r = simulate({
      workload: { kind: 'open', rate: 150, durationMs: 60_000 },
      stack: [{ policy: { maxAttempts: 1 } }],
      leaf: {
        kind: 'pool',
        backends: 2,
        server: { concurrency: 4, serviceMs: { dist: 'exponential', mean: 20 } },
        overrides: [{ backend: 1, serviceMs: { dist: 'exponential', mean: 5 } }],
        loadBalancer: 'least-outstanding',
      },
    });
    const [slow, fast] = (r.backends ?? []).map((b) => b.served);
    expect(fast).toBeGreaterThan(1.5 * (slow as number));
    const rr = simulate({
      workload: { kind: 'open', rate: 150, durationMs: 60_000 },
      stack: [{ policy: { maxAttempts: 1 } }],
      leaf: {
        kind: 'pool',
        backends: 2,
        server: { concurrency: 4, serviceMs: { dist: 'exponential', mean: 20 } },
        overrides: [{ backend: 1, serviceMs: { dist: 'exponential', mean: 5 } }],
        loadBalancer: 'round-robin',
      },
    });
    const [a, b] = (rr.backends ?? []).map((x) => x.served);
    expect(Math.abs((a as number) - (b as number))).toBeLessThanOrEqual(1);
  });
});

describe('outlier ejection (Envoy outlier detection)', () => {
  it('ejects a failing backend within the configured number of consecutive failures', () => {
    const r = simulate({
      workload: { kind: 'open', rate: 100, durationMs: 10_000 },
      stack: [{ policy: { maxAttempts: 1 } }],
      leaf: {
        kind: 'pool',
        backends: 10,
        server,
        overrides: [{ backend: 3, faults: [{ probability: 1, status: 500 }] }],
        outlierDetection: { consecutiveFailures: 5, baseEjectionMs: 60_000 },
      },
    });
    const bad = r.backends?.[3];
    expect(bad?.ejections).toBe(1);
    // Round robin sends it every 10th request: exactly 5 failures reach it before the ejection.
    expect(bad?.faulted).toBe(5);
    expect(r.giveUps['not-retryable'] ?? 0).toBe(0);
    expect(r.operations.failed).toBe(5);
  });

  it('never ejects more than the maximum percentage (but at least one)', () => {
    const r = simulate({
      workload: { kind: 'open', rate: 100, durationMs: 10_000 },
      stack: [{ policy: { maxAttempts: 1 } }],
      leaf: {
        kind: 'pool',
        backends: 10,
        server: { ...server, faults: [{ probability: 1, status: 503 }] },
        outlierDetection: { consecutiveFailures: 3, baseEjectionMs: 60_000, maxEjectionPercent: 20 },
      },
    });
    const ejected = (r.backends ?? []).filter((b) => b.ejections > 0).length;
    expect(ejected).toBe(2);
    expect(Math.max(...(r.timeSeries.fleet?.ejectedBackends ?? [0]))).toBeLessThanOrEqual(2);
  });
});

describe("retries with Envoy's previous_hosts predicate", () => {
  it('land on other backends when one backend fails every request', () => {
    const hosts = (predicate: boolean) => {
      const r = simulate(
        {
          workload: { kind: 'open', rate: 50, durationMs: 20_000 },
          stack: [{ policy: { maxAttempts: 3, backoff: { kind: 'none' }, ...(predicate ? { retryHostPredicate: 'previous-hosts' } : {}) } }],
          leaf: {
            kind: 'pool',
            backends: 4,
            server,
            overrides: [{ backend: 0, faults: [{ probability: 1, status: 503 }] }],
            loadBalancer: 'random',
          },
        },
        { seed: 4 },
      );
      return r;
    };
    const withPredicate = hosts(true);
    const without = hosts(false);
    // Every failure is on backend 0; with the predicate its retries never go back there.
    expect(withPredicate.backends?.[0]?.faulted).toBe(withPredicate.attempts[0]?.retries);
    expect(withPredicate.operations.failed).toBe(0);
    expect(without.backends?.[0]?.faulted).toBeGreaterThan(without.attempts[0]?.retries ?? 0);
  });
});

describe('outages, crashes and failover', () => {
  it('a down backend refuses at once and loses the work it held', () => {
    const r = simulate({
      workload: { kind: 'open', rate: 100, durationMs: 20_000 },
      stack: [{ policy: { maxAttempts: 1, perAttemptTimeoutMs: 1000 } }],
      leaf: { kind: 'pool', backends: 2, server, overrides: [{ backend: 1, outages: [{ atMs: 5000, durationMs: 5000 }] }] },
    });
    expect(r.backends?.[1]?.refused).toBeGreaterThan(200);
    expect(Math.max(...(r.timeSeries.fleet?.downBackends ?? []))).toBe(1);
    expect(r.timeSeries.fleet?.downBackends[2]).toBe(0);
    expect(r.timeSeries.fleet?.downBackends[7]).toBe(1);
  });

  it('a backend whose queue overflows crashes and restarts', () => {
    const r = simulate({
      workload: { kind: 'open', rate: 300, durationMs: 20_000 },
      stack: [{ policy: { maxAttempts: 1, perAttemptTimeoutMs: 2000 } }],
      leaf: { kind: 'pool', backends: 1, server: { concurrency: 1, serviceMs: 10, crash: { queueAbove: 50, restartMs: 1000 } } },
    });
    expect(r.backends?.[0]?.crashes).toBeGreaterThan(3);
  });

  it('traffic spills to the second cluster when the first loses its healthy share (priority failover)', () => {
    const r = simulate({
      workload: { kind: 'open', rate: 200, durationMs: 30_000 },
      stack: [{ policy: { maxAttempts: 1, perAttemptTimeoutMs: 500 } }],
      leaf: {
        kind: 'pool',
        clusters: [
          { name: 'a', backends: 4, server, overrides: [0, 1, 2].map((b) => ({ backend: b, outages: [{ atMs: 10_000, durationMs: 20_000 }] })) },
          { name: 'b', backends: 4, server },
        ],
        healthCheck: { intervalMs: 1000 },
      },
    });
    const served = (cluster: string) => (r.backends ?? []).filter((b) => b.cluster === cluster).reduce((n, b) => n + b.served, 0);
    // Before the outage (a third of the run) cluster a takes everything; after it, a takes 1/4 x 1.4 = 35%
    // and b the rest: b serves about 2/3 x 65% = 43% in all.
    expect(served('b') / r.server.served).toBeGreaterThan(0.38);
    expect(served('b') / r.server.served).toBeLessThan(0.48);
    expect(r.operations.failed / r.operations.offered).toBeLessThan(0.05);
  });
});

describe('server-side defences', () => {
  it('CoDel fails requests that queued too long instead of serving them late', () => {
    const run = (codel: boolean) =>
      simulate({
        workload: { kind: 'open', rate: 150, durationMs: 20_000 },
        stack: [{ policy: { maxAttempts: 1 } }],
        leaf: { kind: 'server', concurrency: 1, serviceMs: { dist: 'exponential', mean: 10 }, ...(codel ? { codel: { targetMs: 5, intervalMs: 100 } } : {}) },
      });
    const plain = run(false);
    const withCodel = run(true);
    expect(withCodel.server.dropped).toBeGreaterThan(0);
    expect(withCodel.latencyMs.p99 as number).toBeLessThan(0.1 * (plain.latencyMs.p99 as number));
  });

  it('an AIMD concurrency limit refuses work beyond what the backend serves in time', () => {
    const r = simulate({
      workload: { kind: 'open', rate: 150, durationMs: 30_000 },
      stack: [{ policy: { maxAttempts: 1 } }],
      leaf: { kind: 'server', concurrency: 1, serviceMs: { dist: 'exponential', mean: 10 }, adaptiveConcurrency: { kind: 'aimd', timeoutMs: 100 } },
    });
    expect(r.server.shed).toBeGreaterThan(0.2 * r.operations.offered);
    expect(r.latencyMs.p99 as number).toBeLessThan(300);
  });

  it('utilisation shedding answers "overloaded" when the server is saturated', () => {
    const r = simulate({
      workload: { kind: 'open', rate: 150, durationMs: 30_000 },
      stack: [{ policy: { maxAttempts: 3 } }],
      leaf: { kind: 'server', concurrency: 1, serviceMs: { dist: 'exponential', mean: 10 }, shedUtilization: { above: 0.9, windowMs: 1000 }, shedStatus: 'overloaded' },
    });
    expect(r.server.shed).toBeGreaterThan(0);
    expect(r.attempts[0]?.retries).toBe(0);
    expect(r.giveUps['not-retryable']).toBe(r.server.shed);
  });
});

describe('fleet series', () => {
  it('report healthy, down and ejected backends over time', () => {
    const events: TraceEvent[] = [];
    const r = simulate(
      {
        workload: { kind: 'open', rate: 50, durationMs: 10_000 },
        stack: [{ policy: { maxAttempts: 1 } }],
        leaf: { kind: 'pool', backends: 3, server, overrides: [{ backend: 2, outages: [{ atMs: 2000, durationMs: 3000 }] }] },
      },
      { trace: (e) => events.length < 1 && events.push(e) },
    );
    const f = r.timeSeries.fleet;
    expect(f?.healthyBackends[0]).toBe(3);
    expect(f?.healthyBackends[3]).toBe(2);
    expect(f?.healthyBackends[8]).toBe(3);
    expect(f?.backendBusy).toHaveLength(3);
  });
});
