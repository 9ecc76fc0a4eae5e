import { describe, expect, it } from 'vitest';
import { stateProblems } from '../../src/engine/copyState.js';
import { rateFunction } from '../../src/model/rateSchedule.js';

describe("an open loop's rate schedule", () => {
  it('steady: one rate at every time, its maximum', () => {
    const r = rateFunction({ kind: 'steady', ratePerSec: 40 });
    expect([-5, 0, 1e6].map((t) => r.ratePerSec(t))).toEqual([40, 40, 40]);
    expect(r.maxRatePerSec).toBe(40);
  });

  it('step: the first rate before atMs, the second from it on', () => {
    const r = rateFunction({ kind: 'step', ratePerSec: 10, atMs: 100, toRatePerSec: 30 });
    expect([0, 99.999, 100, 500].map((t) => r.ratePerSec(t))).toEqual([10, 10, 30, 30]);
    expect(r.maxRatePerSec).toBe(30);
  });

  it('spike: the spike rate during [atMs, atMs + durationMs), the base rate outside', () => {
    const r = rateFunction({ kind: 'spike', ratePerSec: 10, atMs: 100, durationMs: 50, spikeRatePerSec: 90 });
    expect([99, 100, 149.5, 150, 200].map((t) => r.ratePerSec(t))).toEqual([10, 90, 90, 10, 10]);
    expect(r.maxRatePerSec).toBe(90);
  });

  it('ramp: the first rate before the first point, linear between points, the last rate after the last', () => {
    const r = rateFunction({ kind: 'ramp', points: [{ atMs: 0, ratePerSec: 10 }, { atMs: 100, ratePerSec: 30 }, { atMs: 200, ratePerSec: 0 }] });
    expect([-10, 0, 50, 100, 150, 200, 300].map((t) => r.ratePerSec(t))).toEqual([10, 10, 20, 30, 15, 0, 0]);
    expect(r.maxRatePerSec).toBe(30);
    expect(() => rateFunction({ kind: 'ramp', points: [] })).toThrow(/at least one point/);
  });

  it('is plain fields: a copy of a run can copy it', () => {
    for (const r of [
      rateFunction({ kind: 'steady', ratePerSec: 1 }),
      rateFunction({ kind: 'step', ratePerSec: 1, atMs: 1, toRatePerSec: 2 }),
      rateFunction({ kind: 'spike', ratePerSec: 1, atMs: 1, durationMs: 1, spikeRatePerSec: 2 }),
      rateFunction({ kind: 'ramp', points: [{ atMs: 0, ratePerSec: 1 }] }),
    ]) {
      expect(stateProblems(r)).toEqual([]);
    }
  });
});
