import { describe, expect, it } from 'vitest';
import { replicationSeed } from '../../src/experiment/index.js';
import { estimateExperimentRisk, estimateRisk, ValidationError } from '../../src/index.js';

/** M/M/1 at 80/s with service rate 100/s, one attempt. */
const scenario = {
  workload: { kind: 'open', rate: 80, durationMs: 600_000 },
  stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
  leaf: { kind: 'server', concurrency: 1, queueLimit: 'unlimited', serviceMs: { dist: 'exponential', mean: 10 } },
  horizonMs: 600_000,
};

/** The queue reaching 6 in the system before it empties. */
const risk = { importance: { metric: 'inFlight' }, collapse: { metric: 'inFlight', above: 5, forMs: 0 }, checkEveryMs: 0, absorbBelow: 1, particles: 20, repetitions: 6 };

/** Without the measured CPU time. */
function computed<T extends { effort: { cpuMs?: number } }>(r: T): T {
  return { ...r, effort: { ...r.effort, cpuMs: 0 } };
}

describe('the library: estimateRisk beside simulate', () => {
  it("estimates one scenario's P(collapse) with an interval that holds the gambler's ruin probability, the same for the same seed", () => {
    const a = estimateRisk(scenario, risk, { seed: 5 });
    // (1 - r) / (1 - r^6), r = mu / lambda = 1.25.
    const exact = (1 - 1.25) / (1 - 1.25 ** 6);
    expect(a.ci95[0]).toBeLessThanOrEqual(exact);
    expect(a.ci95[1]).toBeGreaterThanOrEqual(exact);
    expect(computed(estimateRisk(scenario, risk, { seed: 5 }))).toEqual(computed(a));
  });

  it('refuses a bad section or a probe the scenario cannot give, naming each field by its path', () => {
    expect(() => estimateRisk(scenario, { ...risk, collapse: { metric: 'inFlight', forMs: 0 } })).toThrow(ValidationError);
    expect(() => estimateRisk(scenario, { ...risk, collapse: { metric: 'inFlight', forMs: 0 } })).toThrow(/^risk\.collapse\.above or collapse\.below is required/);
    expect(() => estimateRisk(scenario, { ...risk, importance: { metric: 'inFlight', service: 'nowhere' } })).toThrow(/risk\.importance\.service/);
  });

  it("estimates every cell of an experiment with the command's seeds (each cell's replication-0 seed), in cell-key order", () => {
    const small = { ...risk, particles: 8, repetitions: 2 };
    const cells = estimateExperimentRisk({ name: 'mm1', seed: 9, scenario, sweep: { grid: { 'workload.rate': [60, 80] } }, risk: small }, { quick: false });
    expect(cells.map((c) => c.params)).toEqual([{ 'workload.rate': 60 }, { 'workload.rate': 80 }]);
    for (const c of cells) {
      expect(c.seed).toBe(replicationSeed(9, 'main', c.params, 0));
      expect(computed(c.risk)).toEqual(computed(estimateRisk({ ...scenario, workload: { ...scenario.workload, rate: c.params['workload.rate'] } }, small, { seed: c.seed })));
    }
  });
});
