import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/experiment/index.js';
import { runTune } from '../../src/tune/runTune.js';
import { fixture, inThread, problemOf } from './helpers.js';

/**
 * exhaustive-reference.json holds every one of the 60 points of exhaustive-space.json at 64
 * replications (fixtures/makeExhaustiveReference.mjs says how it is made). With a third of that
 * grid's runs at 32 replications (640), the search must stay within its budget and, in at least 9
 * of 10 seeds, pick a point that the reference finds feasible and whose reference mean lies in the
 * 95% interval of the best feasible reference mean.
 */
interface ReferencePoint {
  params: Record<string, unknown>;
  amplification: { mean: number; ci95: [number, number] };
  successRate: { mean: number };
}

describe('tune against an exhaustive reference', () => {
  it('never starts more than 640 runs, and picks a point as good as the best (by the reference) in at least 9 of 10 seeds', async () => {
    const reference = (fixture('exhaustive-reference.json').points as ReferencePoint[]).map((p) => ({ ...p, key: canonicalJson(p.params) }));
    expect(reference.length).toBe(60);
    const minSuccess = 0.85;
    const feasible = reference.filter((p) => p.successRate.mean >= minSuccess);
    const best = feasible.reduce((a, b) => (b.amplification.mean < a.amplification.mean ? b : a));
    const root = fixture('exhaustive-space.json');
    const good: number[] = [];
    for (let seed = 1; seed <= 10; seed++) {
      const problem = problemOf(root, { quick: false, set: [['seed', seed]] }, { maxRuns: 640 });
      expect(problem.constraints.map((c) => c.min)).toEqual([minSuccess]);
      const runner = inThread();
      const outcome = await runTune(problem, runner.evaluate);
      expect(runner.started).toBe(outcome.totalRuns);
      expect(outcome.totalRuns).toBeLessThanOrEqual(640);
      const pick = outcome.candidates.find((c) => c.id === outcome.recommended);
      if (!pick?.point) continue;
      const params = Object.fromEntries(problem.space.map((s, i) => [s.path, pick.point?.[i]]));
      const ref = reference.find((p) => p.key === canonicalJson(params)) as ReferencePoint;
      const inside = ref.amplification.mean >= best.amplification.ci95[0] && ref.amplification.mean <= best.amplification.ci95[1];
      if (ref.successRate.mean >= minSuccess && inside) good.push(seed);
    }
    expect(good.length).toBeGreaterThanOrEqual(9);
  });
});
