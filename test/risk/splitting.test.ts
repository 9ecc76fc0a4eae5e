import { describe, expect, it } from 'vitest';
import { adaptiveSplitting } from '../../src/risk/adaptiveSplitting.js';
import { fixedLevelSplitting } from '../../src/risk/fixedLevelSplitting.js';
import { plainMonteCarlo } from '../../src/risk/monteCarlo.js';
import { metricStats } from '../../src/metrics/metricStats.js';
import { monteCarloRunsFor, type RiskEstimate } from '../../src/risk/riskEstimate.js';
import { hittingProbabilities, solveDense } from './exactHitting.js';
import { chainSystem, mm1, retrial, retrialMoves, type RetrialSpec } from './toySystems.js';

/**
 * Gambler's ruin for the embedded chain of an M/M/1 queue's number in system: from 1, the
 * probability of reaching n before 0 when each step is up with p = lambda / (lambda + mu) and down
 * with q = 1 - p, r = q / p: (1 - r) / (1 - r^n) (p != q).
 */
function gamblersRuin(lambda: number, mu: number, n: number): number {
  const p = lambda / (lambda + mu);
  const r = (1 - p) / p;
  return (1 - r) / (1 - r ** n);
}

/** The estimate's interval holds `exact`, and is narrow enough to mean something (relative error below `maxRe`). */
function expectCovers(e: RiskEstimate, exact: number, maxRe: number): void {
  expect(e.ci95[0]).toBeLessThanOrEqual(exact);
  expect(e.ci95[1]).toBeGreaterThanOrEqual(exact);
  expect(e.relativeError).toBeLessThan(maxRe);
}

describe('the exact answers the estimators are checked against', () => {
  it('gambler\'s ruin: at lambda = mu the formula tends to 1/n, and at lambda = 1, mu = 2 it is 1 / (2^n - 1)', () => {
    expect(gamblersRuin(1, 1 + 1e-9, 10)).toBeCloseTo(0.1, 6);
    expect(gamblersRuin(1, 2, 10)).toBeCloseTo(1 / 1023, 15);
  });

  it('the linear solve of hitting probabilities gives the gambler\'s ruin for the M/M/1 chain', () => {
    const spec = mm1(1, 2, 10);
    const states = Array.from({ length: 11 }, (_, k) => [k]);
    const h = hittingProbabilities(states, spec.moves, spec.collapsed, spec.absorbed);
    expect(h.get('1')).toBeCloseTo(gamblersRuin(1, 2, 10), 14);
    expect(solveDense([[2, 1], [1, 3]], [3, 5])).toEqual([0.8, 1.4]);
  });
});

describe('adaptive multilevel splitting (Brehier et al. 2016, ties kept) on the M/M/1 queue reaching N before emptying', () => {
  // lambda = 1, mu = 2: 1 / (2^N - 1), about 1e-3, 1e-6 and 1e-9 at N = 10, 20, 30.
  for (const n of [10, 20, 30]) {
    it(`N = ${n}: the 95% interval holds the gambler's-ruin probability ${gamblersRuin(1, 2, n).toExponential(3)}`, () => {
      const exact = gamblersRuin(1, 2, n);
      const e = adaptiveSplitting(chainSystem(mm1(1, 2, n)), { seed: 44 + n, repetitions: 10, particles: 100 });
      expectCovers(e, exact, 0.3);
      // Splitting's effort grows with log(1/p); plain Monte Carlo's with 1/p.
      expect(e.monteCarloRuns).toBeCloseTo(monteCarloRunsFor(e.probability, e.relativeError), 6);
      expect(e.effort.runs).toBeLessThan(e.monteCarloRuns / 10);
    });
  }

  it('the pyramid climbs every queue length to the collapse, near the exact probability of exceeding each, its conditionals multiplying to the estimate', () => {
    const n = 20;
    const e = adaptiveSplitting(chainSystem(mm1(1, 2, n)), { seed: 7, repetitions: 4, particles: 50 });
    const levels = e.pyramid.map((l) => l.level);
    expect(levels).toEqual([...Array.from({ length: n - 1 }, (_, k) => k + 1), Infinity]);
    // The probability of exceeding level k is that of reaching k + 1 before 0: 1 / (2^(k+1) - 1) ... to the collapse.
    for (const l of e.pyramid) {
      const exact = gamblersRuin(1, 2, l.level === Infinity ? n : l.level + 1);
      expect(Math.abs(Math.log(l.probability / exact))).toBeLessThan(1);
    }
    expect((e.pyramid.at(-1)?.probability as number) / e.probability).toBeCloseTo(1, 12);
    const product = e.pyramid.reduce((p, l) => p * l.conditional, 1);
    expect(product / e.probability).toBeCloseTo(1, 12);
    expect(e.pyramid.every((l) => l.trajectories > 0 && l.conditional > 0 && l.conditional <= 1)).toBe(true);
  });

  it('is deterministic: the same seed gives the same estimate, another seed another', () => {
    const run = (seed: number) => adaptiveSplitting(chainSystem(mm1(1, 2, 12)), { seed, repetitions: 3, particles: 30 });
    expect(run(1)).toEqual(run(1));
    expect(run(2).probability).not.toBe(run(1).probability);
  });

  it('replaying branch points instead of keeping their snapshots gives the same estimate, for more runs and fewer snapshots', () => {
    const run = (snapshots: 'keep' | 'replay') => adaptiveSplitting(chainSystem(mm1(1, 2, 15)), { seed: 8, repetitions: 3, particles: 40, snapshots });
    const kept = run('keep');
    const replayed = run('replay');
    expect({ ...replayed, effort: null, repetitions: replayed.repetitions.map((r) => ({ ...r, effort: null })) }).toEqual({
      ...kept,
      effort: null,
      repetitions: kept.repetitions.map((r) => ({ ...r, effort: null })),
    });
    expect(replayed.effort.runs).toBeGreaterThan(kept.effort.runs);
    expect(replayed.effort.snapshots).toBeLessThan(kept.effort.snapshots);
  });

  it('its 95% interval holds the exact probability at 1e-9 in about 95% of seeds (log-normal mean), where a Student-t interval of the repetitions would in about 82%', () => {
    // 100 seeds, 30 particles, 10 repetitions (collapse-risk's full plan), N = 30: p = 9.3e-10.
    const exact = gamblersRuin(1, 2, 30);
    let held = 0;
    let heldByT = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const e = adaptiveSplitting(chainSystem(mm1(1, 2, 30)), { seed: 500 + seed, repetitions: 10, particles: 30 });
      if (e.ci95[0] <= exact && exact <= e.ci95[1]) held++;
      expect(e.probability).toBeGreaterThanOrEqual(e.ci95[0]);
      expect(e.probability).toBeLessThanOrEqual(e.ci95[1]);
      const t = metricStats(e.repetitions.map((r) => r.probability)).ci95;
      if (t[0] <= exact && exact <= t[1]) heldByT++;
    }
    // A binomial count of 100 at 95% has sd 2.2: 90 is more than 2 sd below; the t interval's rate, 82%, is 3.6 sd below it.
    expect(held).toBeGreaterThanOrEqual(90);
    expect(heldByT).toBeLessThan(90);
  });

  it('with k = 10 it discards at least 10 particles an iteration and still covers the exact value', () => {
    const e = adaptiveSplitting(chainSystem(mm1(1, 2, 20)), { seed: 3, repetitions: 10, particles: 100, killCount: 10 });
    expectCovers(e, gamblersRuin(1, 2, 20), 0.3);
  });
});

describe('fixed-level splitting on the M/M/1 queue', () => {
  for (const n of [10, 20]) {
    it(`N = ${n}, a level at every queue length: the interval holds ${gamblersRuin(1, 2, n).toExponential(3)}`, () => {
      const levels = Array.from({ length: n - 2 }, (_, k) => k + 2);
      const e = fixedLevelSplitting(chainSystem(mm1(1, 2, n)), { seed: 11 + n, repetitions: 10, particles: 100, levels });
      expectCovers(e, gamblersRuin(1, 2, n), 0.3);
      expect(e.pyramid.map((l) => l.level)).toEqual([...levels, Infinity]);
      expect(e.repetitions.every((r) => r.pyramid.reduce((p, l) => p * l.conditional, 1) === r.probability)).toBe(true);
    });
  }

  it('levels that the importance jumps over are reached as they are (every third queue length)', () => {
    const levels = [4, 7, 10, 13, 16, 19];
    const e = fixedLevelSplitting(chainSystem(mm1(1, 2, 20)), { seed: 5, repetitions: 10, particles: 100, levels });
    expectCovers(e, gamblersRuin(1, 2, 20), 0.4);
  });
});

describe('a single server with a bounded queue and an orbit of retrying clients, solved exactly', () => {
  const spec: RetrialSpec = { lambda: 1, mu: 2, theta: 0.5, capacity: 2, orbitLimit: 16 };
  const states: number[][] = [];
  for (let q = 0; q <= spec.capacity; q++) for (let o = 0; o <= spec.orbitLimit; o++) states.push([q, o]);
  const chain = retrial(spec);
  const exact = hittingProbabilities(states, ([q, o]) => retrialMoves(spec, q as number, o as number), chain.collapsed, chain.absorbed).get('1,0') as number;

  it(`the linear solve gives a small probability of the orbit reaching ${spec.orbitLimit} before the system empties`, () => {
    expect(exact).toBeGreaterThan(1e-6);
    expect(exact).toBeLessThan(1e-4);
  });

  it('adaptive splitting on the orbit size agrees within its interval', () => {
    const e = adaptiveSplitting(chainSystem(chain), { seed: 16, repetitions: 10, particles: 100 });
    expectCovers(e, exact, 0.3);
  });

  it('fixed-level splitting on the orbit size agrees within its interval', () => {
    const levels = Array.from({ length: spec.orbitLimit - 1 }, (_, k) => k + 1);
    const e = fixedLevelSplitting(chainSystem(chain), { seed: 17, repetitions: 10, particles: 100, levels });
    expectCovers(e, exact, 0.3);
  });
});

describe('near 1e-2, splitting and plain Monte Carlo agree', () => {
  // The M/M/1 queue in continuous time, reaching 6 within 4 time units before emptying.
  const spec = mm1(1, 2, 6, 4);

  it('their intervals overlap, and the difference is within 1.96 standard errors of it', () => {
    const mc = plainMonteCarlo(chainSystem(spec), { seed: 1, runs: 20_000 });
    const ams = adaptiveSplitting(chainSystem(spec), { seed: 2, repetitions: 10, particles: 100 });
    expect(mc.probability).toBeGreaterThan(0.003);
    expect(mc.probability).toBeLessThan(0.03);
    expect(ams.ci95[0]).toBeLessThanOrEqual(mc.ci95[1]);
    expect(mc.ci95[0]).toBeLessThanOrEqual(ams.ci95[1]);
    const se = Math.hypot(mc.relativeError * mc.probability, ams.relativeError * ams.probability);
    expect(Math.abs(mc.probability - ams.probability)).toBeLessThan(1.96 * se);
    // The horizon ends trajectories too: the no-horizon probability is larger.
    expect(mc.probability).toBeLessThan(gamblersRuin(1, 2, 6));
  });
});
