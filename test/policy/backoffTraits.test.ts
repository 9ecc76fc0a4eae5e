import { describe, expect, it } from 'vitest';
import { BACKOFF_KINDS, BACKOFF_TRAITS, backoffDelayMs, backoffIsRandom, initialPrevSleepMs, nextPrevSleepMs } from '../../src/policy/backoff.js';
import type { BackoffKind, BackoffSpec } from '../../src/policy/types.js';

function spec(kind: BackoffKind, extra: Partial<BackoffSpec> = {}): BackoffSpec {
  return { kind, baseMs: 100, capMs: 1e9, multiplier: 2, exponentOffset: 0, ...extra };
}

/** The waits of retries 1..n for one constant draw u, carrying prevSleep as the layers do. */
function waits(b: BackoffSpec, u: number, n = 6): number[] {
  let prev = initialPrevSleepMs(b);
  const out: number[] = [];
  for (let r = 1; r <= n; r++) {
    const d = backoffDelayMs(b, r, prev, u);
    out.push(d);
    prev = nextPrevSleepMs(b, d, prev, r, u);
  }
  return out;
}

describe('the backoff traits table', () => {
  it('has an entry for every kind and none other', () => {
    expect(Object.keys(BACKOFF_TRAITS).sort()).toEqual([...BACKOFF_KINDS].sort());
  });

  it('calls a kind random exactly when its waits depend on the draw', () => {
    for (const kind of BACKOFF_KINDS) {
      const b = spec(kind, { randomize: true });
      const dependsOnDraw = waits(b, 0.1).some((d, i) => d !== waits(b, 0.9)[i]);
      expect({ kind, random: backoffIsRandom(kind, b) }).toEqual({ kind, random: dependsOnDraw });
    }
  });

  it('calls randomized without a randomization factor and node-retry without randomize not random, as their waits show', () => {
    for (const b of [spec('randomized', { randomizationFactor: 0 }), spec('node-retry', { randomize: false })]) {
      expect(waits(b, 0.1)).toEqual(waits(b, 0.9));
      expect(backoffIsRandom(b.kind, b)).toBe(false);
    }
  });

  it('says a kind grows by the multiplier exactly when a larger multiplier makes its longest wait longer', () => {
    for (const kind of BACKOFF_KINDS) {
      const longest = (multiplier: number) => Math.max(...waits(spec(kind, { multiplier, randomize: true }), 0.9));
      const byMultiplier = longest(3) > longest(2);
      expect({ kind, multiplier: BACKOFF_TRAITS[kind].growth === 'multiplier' }).toEqual({ kind, multiplier: byMultiplier });
    }
  });

  it('says a kind has the same wait every time exactly when its waits never change', () => {
    for (const kind of BACKOFF_KINDS) {
      const w = waits(spec(kind, { randomize: true }), 0.9);
      expect({ kind, none: BACKOFF_TRAITS[kind].growth === 'none' }).toEqual({ kind, none: w.every((d) => d === w[0]) });
    }
  });
});
