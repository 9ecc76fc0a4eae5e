import { describe, expect, it } from 'vitest';
import { runTune } from '../../src/tune/runTune.js';
import { prepareTune } from '../../src/tune/prepareTune.js';
import { metricKey } from '../../src/tune/tuneProblem.js';
import { fixture, inThread, problemOf } from './helpers.js';

/** The known-optimum problem (independent failures, p = 0.5) with metric windows and its goals on them. */
function windowed(objectiveWindow: string, constraintWindow: string): Record<string, unknown> {
  const root = fixture('known-optimum.json') as { scenario: Record<string, unknown>; tune: Record<string, unknown> };
  return {
    ...root,
    scenario: { ...root.scenario, metrics: { windows: [{ name: 'burst', fromMs: 0, toMs: 1000 }, { name: 'later', fromMs: 1000, toMs: 2000 }] } },
    tune: {
      ...root.tune,
      space: { 'stack.0.policy.maxAttempts': { kind: 'int', min: 2, max: 6 } },
      objectives: [{ metric: 'amplification', goal: 'minimize', window: objectiveWindow }],
      constraints: [{ metric: 'successRate', min: 0.9, window: constraintWindow }],
    },
  };
}

describe('tune on metric windows', () => {
  it('reads windows.<name>.<metric> of each run', () => {
    expect(metricKey('amplification', 'burst')).toBe('windows.burst.amplification');
    expect(metricKey('amplification', null)).toBe('amplification');
  });

  it('a window over the whole burst gives the same search and numbers as no window (maxAttempts 4)', async () => {
    const plain = fixture('known-optimum.json') as { tune: Record<string, unknown> };
    const without = await runTune(problemOf({ ...plain, tune: { ...plain.tune, space: { 'stack.0.policy.maxAttempts': { kind: 'int', min: 2, max: 6 } } } }), inThread().evaluate);
    const within = await runTune(problemOf(windowed('burst', 'burst')), inThread().evaluate);
    const best = within.candidates.find((c) => c.id === within.recommended);
    expect(best?.point).toEqual([4]);
    expect(within.candidates.map((c) => [c.id, c.objectiveValues, c.constraintValues])).toEqual(without.candidates.map((c) => [c.id, c.objectiveValues, c.constraintValues]));
  });

  it('a constraint on a window where nothing starts (success rate 0) proves every candidate infeasible', async () => {
    const outcome = await runTune(problemOf(windowed('burst', 'later')), inThread().evaluate);
    expect(outcome.recommended).toBeNull();
    expect(outcome.candidates.every((c) => c.dropped?.reason === 'proven infeasible')).toBe(true);
    expect(outcome.candidates.every((c) => (c.constraintValues[0] ?? []).every((v) => v === 0))).toBe(true);
  });

  it('accepts recovered, a measure only windows have', () => {
    const root = windowed('burst', 'burst') as { tune: Record<string, unknown> };
    const prepared = prepareTune({ ...root, tune: { ...root.tune, constraints: [{ metric: 'recovered', min: 1, window: 'burst' }] } });
    expect(prepared.ok && prepared.problem.constraints.map((c) => [c.metric, c.window, c.min])).toEqual([['recovered', 'burst', 1]]);
  });

  it('refuses a metric that windows do not measure, naming the window measures', () => {
    const root = windowed('burst', 'burst') as { tune: Record<string, unknown> };
    const prepared = prepareTune({ ...root, tune: { ...root.tune, constraints: [{ metric: 'latencyMs.p99', max: 10, window: 'burst' }] } });
    expect(prepared.ok ? [] : prepared.errors).toEqual(['tune.constraints.0.metric must be one of amplification, successRate, goodputPerSec, recovered with a window (got "latencyMs.p99")']);
  });
});
