import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/experiment/index.js';
import type { RiskCollapse, RiskImportance, RiskSection } from '../../src/experiment/riskSchema.js';
import { Model } from '../../src/model/Model.js';
import { ModelSystem, type ExampleTrajectory } from '../../src/riskModel/index.js';
import { cachedGraph } from './riskScenarios.js';

/** 10 clients at t = 0, one attempt each, to a server of 2 workers serving each in exactly 100 ms. */
const burst = parseScenario({
  workload: { kind: 'burst', clients: 10 },
  stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
  leaf: { kind: 'server', concurrency: 2, queueLimit: 'unlimited', serviceMs: 100 },
  horizonMs: 10_000,
});

/**
 * One closed-loop client, 100 ms of think time, one attempt, a server serving in 50 ms that fails
 * every request (503 at once) from 1,000 ms to 2,000 ms; the run ends at 3,000 ms.
 */
const faulted = parseScenario({
  workload: { kind: 'closed', clients: 1, durationMs: 3000, thinkMs: 100 },
  stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
  leaf: { kind: 'server', concurrency: 1, serviceMs: 50, faults: [{ fromMs: 1000, toMs: 2000, probability: 1, status: 503 }] },
  horizonMs: 3000,
});

/** The trajectory the grid of `checkEveryMs` saw, read to its collapse (which must come). */
function trajectory(sc: typeof burst, importance: RiskImportance, collapse: RiskCollapse, checkEveryMs: number): ExampleTrajectory {
  const risk: RiskSection = { importance, collapse, checkEveryMs };
  const system = new ModelSystem(sc, risk);
  const r = system.start(1).advance(Infinity);
  expect(r.reason).toBe('collapse');
  return system.example as ExampleTrajectory;
}

/** The server empties: the collapse that ends the burst's trajectory. */
const emptied: RiskCollapse = { metric: 'inFlight', below: 0.5, forMs: 0 };

/**
 * 10 clients at t = 0, 2 attempts 100 ms apart, to a server of 10 workers serving in exactly 100 ms
 * that fails every request before 50 ms (503 at once): 10 first tries at 0, 10 retries at 100,
 * done at 200.
 */
const retried = parseScenario({
  workload: { kind: 'burst', clients: 10 },
  stack: [{ name: 'client', policy: { maxAttempts: 2, backoff: { kind: 'constant', baseMs: 100 } } }],
  leaf: { kind: 'server', concurrency: 10, serviceMs: 100, faults: [{ fromMs: 0, toMs: 50, probability: 1, status: 503 }] },
  horizonMs: 10_000,
});

describe('probes of a running model read what the scenario implies', () => {
  // The burst: by time t (a check, at or after the events at t), 2 * floor(t / 100) requests are done.
  const grid = Array.from({ length: 11 }, (_, i) => i * 50);
  const done = (t: number) => 2 * Math.floor(t / 100);

  it('inFlight: the requests at the server, queued or in service', () => {
    const x = trajectory(burst, { metric: 'inFlight' }, emptied, 50);
    expect(x.tMs).toEqual(grid);
    expect(x.importance).toEqual(grid.map((t) => 10 - done(t)));
    expect(x.collapseAtMs).toBe(500);
  });

  it('queued: those waiting for a worker', () => {
    const x = trajectory(burst, { metric: 'queued' }, emptied, 50);
    expect(x.importance).toEqual(grid.map((t) => Math.max(0, 10 - done(t) - 2)));
  });

  it('utilization: busy workers over workers', () => {
    const x = trajectory(burst, { metric: 'utilization' }, emptied, 50);
    expect(x.importance).toEqual(grid.map((t) => Math.min(2, 10 - done(t)) / 2));
  });

  it('goodput over a window: operations succeeded over operations started in it', () => {
    // Before the faults an operation starts every 150 ms (0, 150, ... 900) and succeeds 50 ms later;
    // from 1,050 ms on, every 100 ms, each failing at once until 2,000 ms.
    const starts: number[] = [];
    const successes: number[] = [];
    for (let t = 0; t < 3000; ) {
      starts.push(t);
      if (t >= 1000 && t < 2000) t += 100;
      else {
        successes.push(t + 50);
        t += 150;
      }
    }
    const upTo = (xs: number[], t: number) => xs.filter((s) => s <= t).length;
    const windowMs = 1000;
    // The collapse: goodput below 0.5 for 500 ms.
    const x = trajectory(faulted, { metric: 'inFlight' }, { metric: 'goodput', windowMs, below: 0.5, forMs: 500 }, 100);
    const expected = x.tMs.map((t) => {
      const from = Math.max(0, t - windowMs);
      const started = upTo(starts, t) - upTo(starts, from);
      return started > 0 ? (upTo(successes, t) - upTo(successes, from)) / started : 1;
    });
    expect(x.collapseMetric).toEqual(expected);
    // It fell below 0.5 at the first check whose window held more failures than successes.
    const firstBelow = x.tMs[expected.findIndex((g) => g < 0.5)] as number;
    expect(x.collapseAtMs).toBe(firstBelow);
    expect(x.tMs.at(-1)).toBe(firstBelow + 500);
  });

  it('retryShare over a window: the retries among the requests that reached the server in it', () => {
    const firstTries = Array.from({ length: 10 }, () => 0);
    const retries = Array.from({ length: 10 }, () => 100);
    const windowMs = 100;
    // Read until the retries have been more than half the arrivals for 50 ms: from 100 ms to 150 ms.
    const x = trajectory(retried, { metric: 'inFlight' }, { metric: 'retryShare', windowMs, above: 0.5, forMs: 50 }, 50);
    expect(x.tMs).toEqual([0, 50, 100, 150]);
    const inWindow = (xs: number[], t: number) => xs.filter((a) => a > Math.max(0, t - windowMs) && a <= t).length;
    // The first check's sample is where the windows start: what arrived at 0 is before every window.
    expect(x.collapseMetric).toEqual(x.tMs.map((t) => {
      const n = inWindow(firstTries, t) + inWindow(retries, t);
      return n > 0 ? inWindow(retries, t) / n : 0;
    }));
    expect(x.importance).toEqual([0, 0, 10, 10]);
    expect(x.collapseAtMs).toBe(100);
  });
});

describe('cache probes', () => {
  it('hitRatio and missRatio over a window as long as the run are the results\' hit ratio and its complement', () => {
    const sc = cachedGraph();
    const results = new Model(sc, { seed: 9 }).run();
    const hitRatio = results.services?.find((x) => x.service === 'app')?.caches?.db?.hitRatio as number;
    expect(hitRatio).toBeGreaterThan(0);
    expect(hitRatio).toBeLessThan(1);
    // Collapse (always) held for the whole horizon: the trajectory is read to its last check, at 2,000 ms.
    const always = (metric: 'hitRatio' | 'missRatio'): RiskCollapse => ({ metric, cache: 'app.db', windowMs: 2000, above: -1, forMs: 2000 });
    for (const metric of ['hitRatio', 'missRatio'] as const) {
      const system = new ModelSystem(sc, { importance: { metric: 'inFlight', service: 'db' }, collapse: always(metric), checkEveryMs: 100 });
      expect(system.start(9).advance(Infinity).reason).toBe('collapse');
      const x = system.example as ExampleTrajectory;
      expect(x.tMs.at(-1)).toBe(2000);
      expect(x.collapseMetric.at(-1)).toBeCloseTo(metric === 'hitRatio' ? hitRatio : 1 - hitRatio, 12);
    }
  });
});
