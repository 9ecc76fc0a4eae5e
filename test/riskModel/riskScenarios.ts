import { parseScenario } from '../../src/experiment/index.js';
import type { RiskSection } from '../../src/experiment/riskSchema.js';
import type { Scenario } from '../../src/model/scenario.js';

/** Poisson arrivals at `lambdaPerS`, one attempt, one server with exponential service at `muPerS`, unlimited FIFO queue: M/M/1. */
export function mm1(lambdaPerS: number, muPerS: number): Scenario {
  return parseScenario({
    workload: { kind: 'open', rate: lambdaPerS, durationMs: 1e12 },
    stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
    leaf: { kind: 'server', concurrency: 1, queueLimit: 'unlimited', discipline: 'fifo', serviceMs: { dist: 'exponential', mean: 1000 / muPerS } },
    horizonMs: 1e12,
    maxEvents: 1e12,
    metrics: { timeSeriesBinMs: 1e9, clusteringBinMs: [1e9] },
  });
}

/**
 * The gambler's ruin of the M/M/1 queue's embedded chain: importance = requests at the server,
 * read after every event, from the first arrival (absorbed when the server empties again),
 * collapse = N requests or more.
 */
export function ruinRisk(n: number, more: Partial<RiskSection> = {}): RiskSection {
  return {
    importance: { metric: 'inFlight' },
    collapse: { metric: 'inFlight', above: n - 0.5, forMs: 0 },
    checkEveryMs: 0,
    absorbBelow: 1,
    ...more,
  };
}

/** P(the embedded chain of M/M/1 reaches n before 0, from 1): (1 - q/p) / (1 - (q/p)^n), p = lambda / (lambda + mu). */
export function gamblersRuin(lambda: number, mu: number, n: number): number {
  const p = lambda / (lambda + mu);
  const r = (1 - p) / p;
  return (1 - r) / (1 - r ** n);
}

const retrying = (attempts: number) => ({ maxAttempts: attempts, backoff: { kind: 'full-jitter', baseMs: 10, capMs: 200 } });

/** A small storm: `clients` closed-loop clients through 2 layers of 3 attempts to `leaf`, a fault window at 1-2 s, horizon 4 s. */
export function smallStorm(leaf: Record<string, unknown>, clients = 40): Scenario {
  return parseScenario({
    workload: { kind: 'closed', clients, durationMs: 3000, thinkMs: { dist: 'exponential', mean: 100 }, startMs: { dist: 'uniform', min: 0, max: 100 } },
    stack: [
      { name: 'app', policy: retrying(3) },
      { name: 'sdk', policy: retrying(3) },
    ],
    leaf,
    horizonMs: 4000,
  });
}

/** A server leaf of `concurrency` workers, exponential service of mean 10 ms, failing every request from 1 s to 2 s. */
export function faultyServer(concurrency = 2): Record<string, unknown> {
  return { kind: 'server', concurrency, serviceMs: { dist: 'exponential', mean: 10 }, faults: [{ fromMs: 1000, toMs: 2000, probability: 1, status: 503 }] };
}

/** A small graph: closed-loop clients call a frontend whose handler calls a backend (3 attempts each way), horizon 3 s. */
export function smallGraph(clients = 20): Scenario {
  return parseScenario({
    workload: { kind: 'closed', clients, durationMs: 2000, thinkMs: { dist: 'exponential', mean: 100 }, startMs: { dist: 'uniform', min: 0, max: 100 }, entry: { service: 'frontend' } },
    stack: [{ name: 'app', policy: retrying(3) }],
    services: {
      frontend: {
        fleet: { kind: 'server', serviceMs: 1 },
        endpoints: { page: { steps: [{ kind: 'call', calls: [{ service: 'backend', stack: [{ name: 'sdk', policy: retrying(3) }] }] }] } },
      },
      backend: { fleet: { kind: 'server', concurrency: 2, serviceMs: { dist: 'exponential', mean: 10 } }, endpoints: { get: {} } },
    },
    horizonMs: 3000,
  });
}

/**
 * Open-loop arrivals at `rate`/s (past the horizon of 2 s) into an app whose handler looks up a
 * cache of `capacity` entries over 50 keys before calling a database (one attempt).
 */
export function cachedGraph(rate = 300, capacity = 10): Scenario {
  return parseScenario({
    workload: { kind: 'open', rate, durationMs: 10_000, method: 'GET', entry: { service: 'app', endpoint: 'get' } },
    stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
    services: {
      app: {
        fleet: { kind: 'server', concurrency: 64, serviceMs: 0 },
        execution: 'async',
        endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'app', policy: { maxAttempts: 1 } }], cache: { capacity, keys: 50, zipf: 0.8 } }] }] } },
      },
      db: { fleet: { kind: 'server', concurrency: 4, serviceMs: { dist: 'exponential', mean: 5 } }, endpoints: { get: {} } },
    },
    horizonMs: 2000,
  });
}
