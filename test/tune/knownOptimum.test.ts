import { describe, expect, it } from 'vitest';
import { expandExperiment, parseSetArg } from '../../src/experiment/index.js';
import { objectiveStats, constraintStats, runTune } from '../../src/tune/runTune.js';
import { tuneAnswer } from '../../src/tune/tuneAnswer.js';
import { fixture, inThread, problemOf } from './helpers.js';

// Independent failures with p = 0.5 per attempt and no overload: A attempts succeed with
// probability 1 - p^A and make (1 - p^A) / (1 - p) calls per operation. Minimising the calls
// subject to success >= 90% gives A = 4 (93.75%, 1.875 calls); A = 3 gives 87.5%, A = 5 1.9375 calls.
const successOf = (a: number) => 1 - 0.5 ** a;
const callsOf = (a: number) => (1 - 0.5 ** a) / 0.5;

describe('tune finds a known optimum', () => {
  for (let seed = 1; seed <= 10; seed++) {
    it(`recommends maxAttempts 4 with seed ${seed}, its numbers matching theory`, async () => {
      const problem = problemOf(fixture('known-optimum.json'), { quick: false, set: [['seed', seed]] });
      const runner = inThread();
      const outcome = await runTune(problem, runner.evaluate);
      const best = outcome.candidates.find((c) => c.id === outcome.recommended);
      expect(best?.point).toEqual([4]);
      expect(outcome.stopReason).toBe('converged');
      expect(outcome.totalRuns).toBe(runner.started);
      const calls = objectiveStats(best!, 0);
      const success = constraintStats(best!, 0);
      expect(calls.ci95[0] - 0.01).toBeLessThan(callsOf(4));
      expect(calls.ci95[1] + 0.01).toBeGreaterThan(callsOf(4));
      expect(Math.abs(success.mean - successOf(4))).toBeLessThan(0.01);
      // A = 3 is proven infeasible; A = 5 is proven worse.
      const three = outcome.candidates.find((c) => c.point?.[0] === 3);
      const five = outcome.candidates.find((c) => c.point?.[0] === 5);
      expect(three?.dropped?.reason).toBe('proven infeasible');
      expect(five?.dropped?.reason).toMatch(/^worse than /);
    });
  }
});

describe('the recommendation as flags', () => {
  it('are --set flags that give the recommended scenario when applied to the experiment', async () => {
    const root = fixture('known-optimum.json');
    const problem = problemOf(root);
    const outcome = await runTune(problem, inThread().evaluate);
    const answer = tuneAnswer(problem, outcome);
    expect(answer.recommendation?.setFlags).toEqual(['--set stack.0.policy.maxAttempts=4']);
    const set = (answer.recommendation?.setFlags ?? []).map((f) => parseSetArg(f.slice('--set '.length)));
    const expanded = expandExperiment({ root }, { quick: false, set });
    expect(expanded.ok && expanded.plan.parts[0]?.cells[0]?.scenario.stack[0]?.policy.maxAttempts).toBe(4);
  });
});
