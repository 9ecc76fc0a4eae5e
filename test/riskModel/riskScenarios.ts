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
