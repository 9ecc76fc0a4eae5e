import { describe, expect, it } from 'vitest';
import { adaptiveSplitting, type AdaptiveSplittingOptions } from '../../src/risk/adaptiveSplitting.js';
import { fixedLevelSplitting } from '../../src/risk/fixedLevelSplitting.js';
import { plainMonteCarlo } from '../../src/risk/monteCarlo.js';
import { monteCarloRunsFor } from '../../src/risk/riskEstimate.js';
import { branchSeed, startSeed, type Advanced, type BranchStreams, type SplittableSystem } from '../../src/risk/SplittableSystem.js';
import { chainSystem, mm1, type ToyState } from './toySystems.js';

/** The M/M/1 toy, recording every start's seed and every restore's snapshot and streams. */
function recorded(n: number) {
  const inner = chainSystem(mm1(1, 2, n));
  const starts: number[] = [];
  const restores: Array<{ snapshot: ToyState; streams: BranchStreams }> = [];
  const system: SplittableSystem<ToyState> = {
    start: (seed) => (starts.push(seed), inner.start(seed)),
    restore: (snapshot, streams) => (restores.push({ snapshot, streams }), inner.restore(snapshot, streams)),
  };
  return { system, starts, restores };
}

/** A system whose one trajectory answers `advance` with `answer`. */
function lying(answer: Advanced): SplittableSystem<null> {
  const c = { importance: () => 0, snapshot: () => null, advance: () => answer };
  return { start: () => c, restore: () => c };
}

describe('the seeds the estimators give the system', () => {
  it('every start has its own seed, startSeed(seed, repetition, index)', () => {
    const { system, starts } = recorded(8);
    adaptiveSplitting(system, { seed: 9, repetitions: 2, particles: 5 });
    expect(starts).toEqual([0, 1].flatMap((r) => [0, 1, 2, 3, 4].map((i) => startSeed(9, r, i))));
  });

  it('every branch runs with fresh streams from (snapshot, branch): the k-th branch of a snapshot has branchSeed(seed, repetition, its number, k)', () => {
    for (const estimate of [
      (s: SplittableSystem<ToyState>) => adaptiveSplitting(s, { seed: 9, repetitions: 2, particles: 20 }),
      (s: SplittableSystem<ToyState>) => fixedLevelSplitting(s, { seed: 9, repetitions: 2, particles: 20, levels: [2, 4, 6] }),
    ]) {
      const { system, restores } = recorded(8);
      estimate(system);
      expect(restores.length).toBeGreaterThan(20);
      const bySnapshot = new Map<ToyState, number[]>();
      for (const r of restores) {
        expect(r.streams.kind).toBe('fresh');
        bySnapshot.set(r.snapshot, [...(bySnapshot.get(r.snapshot) ?? []), (r.streams as { seed: number }).seed]);
      }
      // Find each snapshot's (repetition, number) from its first branch; its later branches follow.
      const named = new Set<string>();
      for (const seeds of bySnapshot.values()) {
        let found: [number, number] | null = null;
        for (let rep = 0; rep < 2 && !found; rep++) for (let id = 0; id < 5000 && !found; id++) if (branchSeed(9, rep, id, 0) === seeds[0]) found = [rep, id];
        expect(found).not.toBeNull();
        const [rep, id] = found as [number, number];
        expect(seeds).toEqual(seeds.map((_, k) => branchSeed(9, rep, id, k)));
        named.add(`${rep}/${id}`);
      }
      expect(named.size).toBe(bySnapshot.size);
      expect(new Set(restores.map((r) => (r.streams as { seed: number }).seed)).size).toBe(restores.length);
    }
  });
});

describe('what cannot happen gives 0, and the estimators stop', () => {
  // Reaching 40 within one time unit, from 1: not in any run the tests make.
  const never = () => chainSystem(mm1(1, 2, 40, 1));

  it('adaptive splitting discards every particle once they all tie, and says 0', () => {
    const e = adaptiveSplitting(never(), { seed: 1, repetitions: 3, particles: 20 });
    expect(e.probability).toBe(0);
    expect(e.ci95).toEqual([0, 0]);
    expect(e.relativeError).toBeNaN();
    expect(e.monteCarloRuns).toBeNaN();
    expect(e.pyramid.at(-1)).toMatchObject({ level: Infinity, probability: 0, trajectories: 0 });
  });

  it('fixed-level splitting stops at the first level no trajectory reaches', () => {
    const e = fixedLevelSplitting(never(), { seed: 1, repetitions: 3, particles: 20, levels: [5, 10, 15, 20] });
    expect(e.probability).toBe(0);
    expect(e.pyramid.map((l) => l.level)).toEqual([5, 10, 15, 20, Infinity]);
    expect(e.pyramid.at(-1)?.trajectories).toBe(0);
    // The runs stop with the stage that had none: no run starts at a level above it.
    expect(e.effort.runs).toBeLessThan(3 * 20 * 3);
  });

  it('plain Monte Carlo counts collapses of runs, with the Wilson interval', () => {
    const e = plainMonteCarlo(chainSystem(mm1(1, 2, 3)), { seed: 1, runs: 300 });
    expect(e.collapses).toBeGreaterThan(0);
    expect(e.probability).toBe(e.collapses / 300);
    expect(e.relativeError).toBeCloseTo(Math.sqrt((1 - e.probability) / (300 * e.probability)), 12);
    expect(e.effort.runs).toBe(300);
  });

  it('the Monte Carlo runs for a relative error are (1 - p) / (p re^2)', () => {
    expect(monteCarloRunsFor(1e-6, 0.1)).toBeCloseTo((1 - 1e-6) * 1e8, 3);
    expect(monteCarloRunsFor(0, 0.1)).toBeNaN();
  });
});

describe('bad settings and a system that breaks the contract are named', () => {
  const system = () => chainSystem(mm1(1, 2, 5));

  it.each([
    [{ particles: 1 }, 'particles must be an integer >= 2 (got 1)'],
    [{ repetitions: 1 }, 'repetitions must be an integer >= 2 (got 1)'],
    [{ repetitions: 2.5 }, 'repetitions must be an integer >= 2 (got 2.5)'],
    [{ seed: NaN }, 'seed must be a finite number (got NaN)'],
    [{ killCount: 10, particles: 10 }, 'killCount must be below particles (got 10 >= 10)'],
    [{ killCount: 0 }, 'killCount must be an integer >= 1 (got 0)'],
    [{ importanceStep: 0 }, 'importanceStep must be a finite number > 0 (got 0)'],
    [{ snapshots: 'all' }, 'snapshots must be keep or replay (got "all")'],
    [{ maxIterations: 2 }, 'adaptive splitting needed more than maxIterations = 2 iterations in one repetition'],
  ])('adaptive splitting with %j: %s', (bad, message) => {
    expect(() => adaptiveSplitting(system(), { seed: 1, ...bad } as AdaptiveSplittingOptions)).toThrow(message);
  });

  it.each([
    [[2, 2], 'levels.1 must be above levels.0 (got 2 <= 2)'],
    [[2, Infinity], 'levels.1 must be a finite number (got Infinity)'],
  ])('fixed-level splitting with levels %j: %s', (levels, message) => {
    expect(() => fixedLevelSplitting(system(), { seed: 1, levels })).toThrow(message);
  });

  it.each([
    [{ reason: 'level', importance: 0, steps: 1 }, 'advance stopped at level with importance 0 below the level asked for, 1'],
    [{ reason: 'done', importance: 0, steps: 1 }, 'advance returned an unknown reason "done"'],
    [{ reason: 'horizon', importance: 0, steps: -1 }, 'advance returned steps -1, not an integer >= 0'],
    [{ reason: 'horizon', importance: NaN, steps: 1 }, 'advance returned an importance that is not a number'],
  ])('a system answering %j: %s', (answer, message) => {
    expect(() => adaptiveSplitting(lying(answer as Advanced), { seed: 1 })).toThrow(message);
  });
});
