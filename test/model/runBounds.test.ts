import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scenario.js';
import { alwaysFailing, backoff, layer, openLoop, scenario, server, simulate, total } from '../helpers/scenario.js';

/** A random scenario: Poisson arrivals, exponential service, jittered retries in 2 layers, transient faults. */
function randomScenario(): Scenario {
  return scenario({
    workload: openLoop(200, 5000, { clients: 20, deadlineMs: 2000 }),
    stack: [
      layer('app', { maxAttempts: 3, perAttemptTimeoutMs: 500, backoff: backoff('full-jitter', 20, 1000) }),
      layer('sdk', { maxAttempts: 2, backoff: backoff('decorrelated-jitter', 5, 200) }),
    ],
    leaf: server({
      concurrency: 2,
      queueLimit: 20,
      serviceMs: { dist: 'exponential', mean: 8 },
      faults: [{ fromMs: 1000, toMs: 3000, probability: 0.2, status: 503 }],
    }),
    network: { hopMs: { dist: 'uniform', min: 0.5, max: 2 } },
    metrics: { timeSeriesBinMs: 100, clusteringBinMs: [1, 10] },
  });
}

describe('determinism', () => {
  it('the same seed gives deep-equal (and byte-identical) results', () => {
    const a = simulate(randomScenario(), 42);
    const b = simulate(randomScenario(), 42);
    expect(a.operations.offered).toBeGreaterThan(800);
    expect(a.attempts[0]?.retries).toBeGreaterThan(0);
    expect(b).toEqual(a);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it('a different seed gives different results', () => {
    const a = simulate(randomScenario(), 42);
    const b = simulate(randomScenario(), 43);
    expect(b).not.toEqual(a);
    expect(b.operations.offered).not.toBe(a.operations.offered);
    expect(b.latencyMs.mean).not.toBe(a.latencyMs.mean);
    expect(b.seed).toBe(43);
  });
});

describe('run bounds', () => {
  // Unlimited attempts every 100 ms, no deadline, a leaf that always answers 503: it would never stop.
  const endless = (over: Partial<Scenario>) =>
    scenario({
      stack: [layer('client', { maxAttempts: 'unlimited', backoff: backoff('constant', 100) })],
      leaf: alwaysFailing(),
      ...over,
    });

  it('stops at the horizon and says so', () => {
    const r = simulate(endless({ horizonMs: 10_000 }));
    expect(r.truncated).toBe('horizon');
    expect(r.truncatedReason).toEqual(expect.stringContaining('horizon'));
    expect(r.truncatedReason).toEqual(expect.stringContaining('10000'));
    // Attempts at 0, 100, ..., 10,000 ms.
    expect(r.leafCalls).toBe(101);
    expect(r.simulatedMs).toBe(10_000);
    expect(r.operations).toEqual({ offered: 1, succeeded: 0, failed: 0, unfinished: 1 });
    expect(total(r.giveUps)).toBe(0);
  });

  it('stops at the event cap and says so', () => {
    const r = simulate(endless({ maxEvents: 10 }));
    expect(r.truncated).toBe('event-cap');
    expect(r.events).toBe(10);
    expect(r.truncatedReason).toEqual(expect.stringContaining('event cap'));
    expect(r.truncatedReason).toEqual(expect.stringContaining('10'));
    expect(r.operations.unfinished).toBe(1);
    // One event starts the operation and makes the first call; each of the next 9 is a wake-up and a retry.
    expect(r.leafCalls).toBe(10);
    expect(r.simulatedMs).toBe(900);
  });

  it('a run that drains is not truncated', () => {
    const r = simulate(endless({ stack: [layer('client', { maxAttempts: 5, backoff: backoff('constant', 100) })] }));
    expect(r.truncated).toBeNull();
    expect(r.truncatedReason).toBeNull();
    expect(r.leafCalls).toBe(5);
    expect(r.giveUps['attempt-limit']).toBe(1);
    expect(r.operations.unfinished).toBe(0);
  });
});
