import { describe, expect, it } from 'vitest';
import { Model } from '../../src/model/Model.js';
import type { BackoffKind } from '../../src/model/scenario.js';
import { alwaysFailing, layer, scenario } from '../helpers/scenario.js';

function stackOf(L: number, A: number, kind: BackoffKind = 'full-jitter') {
  return Array.from({ length: L }, (_, i) =>
    layer(`l${i}`, { maxAttempts: A, backoff: { kind, baseMs: 10, capMs: 1000, multiplier: 2, exponentOffset: 0 } }),
  );
}

const burst = (clients: number) =>
  ({ kind: 'burst', clients, startMs: { dist: 'constant', value: 0 }, method: 'GET', permanentErrorFraction: 0 }) as const;

describe('nested retries against a leaf that always fails', () => {
  for (const L of [1, 2, 3]) {
    for (const A of [2, 3, 4]) {
      it(`${L} layer(s) x ${A} attempts give exactly ${A}^${L} = ${A ** L} leaf calls per operation`, () => {
        const r = new Model(scenario({ workload: burst(50), stack: stackOf(L, A), leaf: alwaysFailing() }), { seed: 3 }).run();
        expect(r.leafCalls).toBe(50 * A ** L);
        expect(r.amplification).toBe(A ** L);
        expect(r.giveUps['attempt-limit']).toBe(50);
        // Every layer k makes A^(k+1) attempts per operation, A^k of them first tries.
        r.attempts.forEach((l, k) => {
          expect(l.first).toBe(50 * A ** k);
          expect(l.first + l.retries).toBe(50 * A ** (k + 1));
        });
      });
    }
  }

  it("the SRE book's 3 layers x 4 attempts make 64 leaf calls per user action", () => {
    const r = new Model(scenario({ workload: burst(10), stack: stackOf(3, 4), leaf: alwaysFailing() }), { seed: 1 }).run();
    expect(r.amplification).toBe(64);
  });

  it('retrying at one layer only gives A calls, whatever the depth', () => {
    const stack = [layer('app', { maxAttempts: 1 }), layer('sdk', { maxAttempts: 4 }), layer('proxy', { maxAttempts: 1 })];
    const r = new Model(scenario({ workload: burst(10), stack, leaf: alwaysFailing() }), { seed: 1 }).run();
    expect(r.amplification).toBe(4);
  });

  it('jitter changes when the calls happen, never how many', () => {
    const counts = (['none', 'exponential', 'full-jitter', 'equal-jitter', 'decorrelated-jitter'] as const).map((k) => {
      const r = new Model(scenario({ workload: burst(20), stack: stackOf(3, 3, k), leaf: alwaysFailing() }), { seed: 5 }).run();
      return [r.leafCalls, r.completionTimeMs] as const;
    });
    expect(new Set(counts.map(([n]) => n))).toEqual(new Set([20 * 27]));
    expect(new Set(counts.map(([, t]) => t)).size).toBeGreaterThan(1);
  });

  it('splits leaf arrivals into original demand and retry traffic', () => {
    const r = new Model(scenario({ workload: burst(10), stack: stackOf(2, 3), leaf: alwaysFailing() }), { seed: 2 }).run();
    const first = r.timeSeries.arrivalsFirst.reduce((a, b) => a + b, 0);
    const retry = r.timeSeries.arrivalsRetry.reduce((a, b) => a + b, 0);
    expect(first).toBe(10);
    expect(retry).toBe(80);
  });
});
