import { describe, expect, it } from 'vitest';
import { systemProblems } from '../../src/risk/checkSystem.js';
import type { Continuation, SplittableSystem } from '../../src/risk/SplittableSystem.js';
import { chainSystem, mm1, retrial, type ToyState } from './toySystems.js';

/** The M/M/1 toy in continuous time with a horizon: trajectories end at a collapse, empty, or the horizon. */
const good = () => chainSystem(mm1(1, 2, 8, 5));

/** `system` with each continuation's answers rewritten by `f`. */
function rewired(system: SplittableSystem<ToyState>, f: (c: Continuation<ToyState>) => Continuation<ToyState>): SplittableSystem<ToyState> {
  return { start: (seed) => f(system.start(seed)), restore: (s, streams) => f(system.restore(s, streams)) };
}

describe('the check of a system against the contract of src/risk', () => {
  it('finds nothing wrong with the toy chains', () => {
    expect(systemProblems(good(), { seed: 1, importanceStep: 1 })).toEqual([]);
    expect(systemProblems(chainSystem(retrial({ lambda: 1, mu: 2, theta: 0.5, capacity: 2, orbitLimit: 6 })), { seed: 2, importanceStep: 1 })).toEqual([]);
  });

  it('names a snapshot that does not hold the streams: restored with the original streams, the run goes another way', () => {
    const inner = good();
    const forgetful: SplittableSystem<ToyState> = {
      start: (seed) => inner.start(seed),
      restore: (s, streams) => inner.restore({ ...s, rng: s.rng ^ 1 }, streams),
    };
    const problems = systemProblems(forgetful, { seed: 1, importanceStep: 1 });
    expect(problems.length).toBe(2);
    expect(problems[0]).toMatch(/^seed \d+: restored \(first time\) with the original streams at importance 2, it ended .* where the run went on to end /);
  });

  it('names a system whose runs differ for one seed', () => {
    const inner = good();
    let calls = 0;
    const drifting: SplittableSystem<ToyState> = { start: (seed) => inner.start(seed + calls++), restore: (s, streams) => inner.restore(s, streams) };
    expect(systemProblems(drifting, { seed: 1, importanceStep: 1 }).some((p) => / the same seed ended /.test(p))).toBe(true);
  });

  it('names a system where stopping at a level changes the trajectory', () => {
    const counting = rewired(good(), (c) => ({
      importance: () => c.importance(),
      snapshot: () => c.snapshot(),
      advance: (until) => {
        const r = c.advance(until);
        return { ...r, steps: r.steps + 1 };
      },
    }));
    expect(systemProblems(counting, { seed: 1, importanceStep: 1 }).some((p) => /advancing in pieces ended .* in one go /.test(p))).toBe(true);
  });

  it('says so when no trajectory rose a step, so the snapshots went unchecked', () => {
    expect(systemProblems(good(), { seed: 1, importanceStep: 100, tries: 3 })).toEqual(['no trajectory of 3 rose by 100: the snapshots were not checked']);
  });
});
