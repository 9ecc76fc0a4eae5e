import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/experiment/index.js';
import { riskSchema } from '../../src/experiment/riskSchema.js';
import { countExcursions, withinHorizon } from '../../src/riskModel/excursions.js';
import { estimateCellRisk } from '../../src/riskModel/index.js';
import { gamblersRuin, ruinRisk } from './riskScenarios.js';

// M/M/1 at lambda = 100/s, mu = 200/s over a horizon of 20 s: busy periods (the excursions of the
// number in the system from 1) start at rate lambda (1 - rho) = 50/s, about 1,000 of them; each reaches
// N = 13 with the gambler's-ruin probability 1 / (2^13 - 1), independently (busy periods regenerate).
const LAMBDA = 100;
const MU = 200;
const HORIZON_MS = 20_000;
const N = 13;

function mm1Within(horizonMs: number) {
  return parseScenario({
    workload: { kind: 'open', rate: LAMBDA, durationMs: 1e12 },
    stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
    leaf: { kind: 'server', concurrency: 1, queueLimit: 'unlimited', discipline: 'fifo', serviceMs: { dist: 'exponential', mean: 1000 / MU } },
    horizonMs,
    metrics: { timeSeriesBinMs: 1e9, clusteringBinMs: [1e9] },
  });
}

/** 1 - E[(1 - p)^K] for K ~ Poisson(m): the exact answer when busy periods start as a Poisson stream, 1 - exp(-m p). */
const exactWithin = (p: number, m: number) => 1 - Math.exp(-m * p);

describe('the probability within the horizon from excursions (M/M/1 busy periods)', () => {
  it('counts the busy periods of a plain run at about lambda (1 - rho) per second', () => {
    const c = countExcursions(mm1Within(HORIZON_MS), ruinRisk(N, { excursions: { countOverMs: HORIZON_MS } }), 3);
    const expected = LAMBDA * (1 - LAMBDA / MU) * (HORIZON_MS / 1000);
    expect(c.overMs).toBe(HORIZON_MS);
    expect(Math.abs(c.excursions - expected)).toBeLessThan(4 * Math.sqrt(expected));
    expect(c.events).toBeGreaterThan(2 * c.excursions);
  });

  it('holds 1 - exp(-r H p), and agrees with plain Monte Carlo over the whole horizon', () => {
    const p = gamblersRuin(LAMBDA, MU, N);
    const exact = exactWithin(p, LAMBDA * (1 - LAMBDA / MU) * (HORIZON_MS / 1000));
    const sc = mm1Within(HORIZON_MS);
    const r = estimateCellRisk(sc, ruinRisk(N, { particles: 30, repetitions: 10, excursions: { countOverMs: HORIZON_MS } }), 1);
    expect(r.excursions).not.toBeNull();
    const per = r.excursions as NonNullable<typeof r.excursions>;
    // The per-excursion estimate is splitting's on the same trajectories (its interval against the exact
    // p is mm1Ruin.test.ts's check); the excursions only carry it to the horizon.
    const alone = estimateCellRisk(sc, ruinRisk(N, { particles: 30, repetitions: 10 }), 1);
    expect(per.probability).toBe(alone.probability);
    expect(per.ci95).toEqual(alone.ci95);
    expect(per.probability).toBeGreaterThan(p / 10);
    expect(per.probability).toBeLessThan(p * 10);
    expect(r.ci95[0]).toBeLessThanOrEqual(exact);
    expect(r.ci95[1]).toBeGreaterThanOrEqual(exact);
    expect(r.probability).toBeGreaterThan(5 * per.probability);
    // Plain Monte Carlo: whole runs of the horizon, each collapsing when the queue reaches N at any time.
    const plain = { importance: { metric: 'inFlight' as const }, collapse: { metric: 'inFlight' as const, above: N - 0.5, forMs: 0 }, checkEveryMs: 0, method: 'monte-carlo' as const, runs: 300 };
    const mc = estimateCellRisk(sc, plain, 2);
    expect(mc.ci95[0]).toBeLessThanOrEqual(r.ci95[1]);
    expect(mc.ci95[1]).toBeGreaterThanOrEqual(r.ci95[0]);
    expect(mc.ci95[0]).toBeLessThanOrEqual(exact);
    expect(mc.ci95[1]).toBeGreaterThanOrEqual(exact);
  });

  it('carries both intervals into the probability within the horizon; no excursion counted gives 0 and the rule of three above', () => {
    const p = { probability: 1e-3, ci95: [5e-4, 2e-3] as [number, number], relativeError: 0.2 };
    const w = withinHorizon(p, { excursions: 400, overMs: 1000, events: 0 }, 1000);
    expect(w.probability).toBeCloseTo(1 - Math.exp(-0.4), 12);
    expect(w.ci95[0]).toBeCloseTo(1 - Math.exp(-((400 - 1.959963984540054 * 20) / 1000) * 5e-4 * 1000), 12);
    expect(w.ci95[1]).toBeCloseTo(1 - Math.exp(-((400 + 1.959963984540054 * 20) / 1000) * 2e-3 * 1000), 12);
    expect(w.excursionsPerHour).toBe(400 * 3600);
    // Relative error: p's and the count's in quadrature, through 1 - exp(-x).
    const reX = Math.sqrt(0.04 + 1 / 400);
    expect(w.relativeError).toBeCloseTo((reX * 0.4 * Math.exp(-0.4)) / (1 - Math.exp(-0.4)), 12);
    const none = withinHorizon(p, { excursions: 0, overMs: 1000, events: 0 }, 1000);
    expect(none.probability).toBe(0);
    expect(none.ci95[1]).toBeCloseTo(1 - Math.exp(-(-Math.log(0.05) / 1000) * 2e-3 * 1000), 12);
  });

  it('needs absorbBelow, and says so by path', () => {
    const bad = riskSchema.safeParse({ importance: { metric: 'inFlight' }, collapse: { metric: 'inFlight', above: 5, forMs: 0 }, checkEveryMs: 0, excursions: { countOverMs: 1000 } });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toMatch(/"path":\["excursions"\].*needs absorbBelow/);
  });
});
