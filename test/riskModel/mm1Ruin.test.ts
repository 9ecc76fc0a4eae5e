import { describe, expect, it } from 'vitest';
import { estimateCellRisk } from '../../src/riskModel/index.js';
import { gamblersRuin, mm1, ruinRisk } from './riskScenarios.js';

// lambda = 100/s, mu = 200/s: p = 1/3, q/p = 2, so reaching N before emptying has probability 1 / (2^N - 1).
const LAMBDA = 100;
const MU = 200;

describe("splitting on the real M/M/1 model holds the gambler's-ruin probability of its embedded chain", () => {
  // Branches of one snapshot share the events it had already scheduled (the next arrival, the service
  // in progress), so the repetitions spread more than on a chain drawn step by step: 30 particles.
  // The repetitions' estimates are skewed (most below the mean, a few far above), more so the rarer
  // the event, and Student's interval over them holds the mean less often than 95% with few of them:
  // 10 repetitions at N = 10, 20 at N = 20 (over seeds 1-12, 11 of the 12 intervals held the exact value).
  for (const [n, repetitions] of [
    [10, 10],
    [20, 20],
  ] as const) {
    it(`N = ${n}: P = ${gamblersRuin(LAMBDA, MU, n).toExponential(2)} in adaptive splitting's interval`, () => {
      const exact = gamblersRuin(LAMBDA, MU, n);
      const r = estimateCellRisk(mm1(LAMBDA, MU), ruinRisk(n, { particles: 30, repetitions }), 1);
      expect(r.method).toBe('adaptive');
      expect(r.ci95[0]).toBeLessThanOrEqual(exact);
      expect(r.ci95[1]).toBeGreaterThanOrEqual(exact);
      expect(r.relativeError).toBeLessThan(0.6);
      expect(r.monteCarloRuns).toBeGreaterThan(r.effort.runs);
      // The example climbed from the first arrival to N requests at the server.
      const example = r.example?.importance ?? [];
      expect(example[0]).toBe(0);
      expect(Math.max(...example)).toBe(n);
    });
  }

  it('fixed-level splitting at the levels 2..N-1 holds it too (N = 10)', () => {
    const n = 10;
    const exact = gamblersRuin(LAMBDA, MU, n);
    const levels = Array.from({ length: n - 2 }, (_, i) => i + 2);
    const r = estimateCellRisk(mm1(LAMBDA, MU), ruinRisk(n, { method: 'fixed', levels, particles: 20, repetitions: 10 }), 1);
    expect(r.method).toBe('fixed');
    expect(r.ci95[0]).toBeLessThanOrEqual(exact);
    expect(r.ci95[1]).toBeGreaterThanOrEqual(exact);
    expect(r.pyramid.map((l) => l.level)).toEqual([...levels, Infinity]);
  });

  it('near 1e-2 (N = 7), adaptive splitting and plain Monte Carlo on the same model agree within their intervals', () => {
    const n = 7;
    const exact = gamblersRuin(LAMBDA, MU, n);
    const splitting = estimateCellRisk(mm1(LAMBDA, MU), ruinRisk(n, { particles: 30, repetitions: 10 }), 3);
    const mc = estimateCellRisk(mm1(LAMBDA, MU), ruinRisk(n, { method: 'monte-carlo', runs: 3000 }), 3);
    expect(mc.method).toBe('monte-carlo');
    expect(mc.effort.runs).toBe(3000);
    expect(mc.pyramid).toEqual([]);
    expect(mc.repetitions).toEqual([]);
    expect(mc.monteCarloRuns).toBeCloseTo(3000, 6);
    // The intervals overlap; plain Monte Carlo's holds the exact value.
    expect(Math.max(splitting.ci95[0], mc.ci95[0])).toBeLessThanOrEqual(Math.min(splitting.ci95[1], mc.ci95[1]));
    expect(mc.ci95[0]).toBeLessThanOrEqual(exact);
    expect(mc.ci95[1]).toBeGreaterThanOrEqual(exact);
  });
});
