import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BACKOFF_KINDS,
  backoffCeilingMs,
  backoffDelayMs,
  compiledNextPrevSleepMs,
  drawBackoff,
  initialPrevSleepMs,
  nextPrevSleepMs,
  type BackoffDraw,
} from '../../src/policy/backoff.js';
import { compileBackoff } from '../../src/policy/compiledBackoff.js';
import type { BackoffSpec } from '../../src/policy/types.js';

/** Any backoff the policy schema accepts (capMs >= baseMs), of any kind. */
const specArb: fc.Arbitrary<BackoffSpec> = fc
  .record({
    kind: fc.constantFrom(...BACKOFF_KINDS),
    baseMs: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 10_000, noNaN: true })),
    capExtraMs: fc.oneof(fc.constant(0), fc.constant(Infinity), fc.double({ min: 0, max: 1e6, noNaN: true })),
    multiplier: fc.oneof(fc.constant(1), fc.constant(2), fc.double({ min: 1, max: 5, noNaN: true })),
    exponentOffset: fc.integer({ min: 0, max: 3 }),
    randomizationFactor: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
    randomize: fc.option(fc.boolean(), { nil: undefined }),
    minMs: fc.option(fc.double({ min: 0, max: 1000, noNaN: true }), { nil: undefined }),
    throttledBaseMs: fc.option(fc.double({ min: 0, max: 10_000, noNaN: true }), { nil: undefined }),
  })
  .map(({ capExtraMs, randomizationFactor, randomize, minMs, throttledBaseMs, ...b }) => ({
    ...b,
    capMs: b.baseMs + capExtraMs,
    ...(randomizationFactor !== undefined ? { randomizationFactor } : {}),
    ...(randomize !== undefined ? { randomize } : {}),
    ...(minMs !== undefined ? { minMs } : {}),
    ...(throttledBaseMs !== undefined ? { throttledBaseMs } : {}),
  }));

/** The draws of a call's retries 1, 2, ...: each in [0, 1). */
const drawsArb = fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 1, maxLength: 70 });

interface Step {
  ceilingMs: number;
  delayMs: number;
  prevSleepMs: number;
}

/** The retries of one call by the uncompiled functions, carrying prevSleep as a layer does. */
function uncompiled(b: BackoffSpec, draws: number[], throttled: boolean): Step[] {
  let prev = initialPrevSleepMs(b);
  return draws.map((u, i) => {
    const retry = i + 1;
    const ceilingMs = backoffCeilingMs(b, retry, prev, throttled);
    const delayMs = backoffDelayMs(b, retry, prev, u, throttled);
    prev = nextPrevSleepMs(b, delayMs, prev, retry, u);
    return { ceilingMs, delayMs, prevSleepMs: prev };
  });
}

/** The same retries by the compiled form the simulator's hot path uses. */
function compiled(b: BackoffSpec, draws: number[], throttled: boolean): Step[] {
  const c = compileBackoff(b);
  const out: BackoffDraw = { ceilingMs: NaN, backoffMs: NaN };
  let prev = c.initialPrevSleepMs;
  return draws.map((u, i) => {
    const retry = i + 1;
    drawBackoff(c, retry, prev, u, throttled, out);
    prev = compiledNextPrevSleepMs(c, out.backoffMs, prev, retry, u);
    return { ceilingMs: out.ceilingMs, delayMs: out.backoffMs, prevSleepMs: prev };
  });
}

describe('backoff properties (every kind, any valid spec, any draws)', () => {
  it('every wait lies in [0, its ceiling]', () => {
    fc.assert(
      fc.property(specArb, drawsArb, fc.boolean(), (b, draws, throttled) => {
        let prevBefore = initialPrevSleepMs(b);
        for (const s of uncompiled(b, draws, throttled)) {
          // Where it does not hold: decorrelated jitter draws from [base, 3 x prev]; a throttled base
          // above 3 x prev reverses that range and the wait lands above min(cap, 3 x prev).
          const reversed = b.kind === 'decorrelated-jitter' && throttled && (b.throttledBaseMs ?? b.baseMs) > 3 * prevBefore;
          prevBefore = s.prevSleepMs;
          if (reversed) continue;
          expect(s.delayMs).toBeGreaterThanOrEqual(0);
          expect(s.delayMs).toBeLessThanOrEqual(s.ceilingMs);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('a jittered wait stays within its ceiling where rounding would carry it past (subnormal intervals)', () => {
    // fast-check found e(1 - f) + u * 2fe one ulp above e(1 + f) at capMs 5.4e-323, and e/2 + u * e/2
    // above e at 1.93e-322; sweep such intervals for every kind that adds a draw to a part of e.
    let checked = 0;
    for (const kind of ['randomized', 'equal-jitter', 'random-exponential'] as const) {
      for (const capMs of [5e-324, 1e-323, 2.5e-323, 5.4e-323, 1.93e-322, 3e-321]) {
        for (const randomizationFactor of [0.1, 0.25, 0.5, 0.75, 0.9, 1]) {
          const b: BackoffSpec = { kind, baseMs: capMs, capMs, multiplier: 1, exponentOffset: 0, randomizationFactor, ...(kind === 'random-exponential' ? { minMs: capMs / 3 } : {}) };
          for (let i = 0; i < 200; i++) {
            const u = i / 200 + 0.0049;
            for (const s of [...uncompiled(b, [u], false), ...compiled(b, [u], false)]) {
              expect(s.delayMs).toBeLessThanOrEqual(s.ceilingMs);
              checked++;
            }
          }
        }
      }
    }
    expect(checked).toBe(43200);
  });

  it('the compiled form gives the same ceilings, waits and carried state, bit for bit', () => {
    fc.assert(
      fc.property(specArb, drawsArb, fc.boolean(), (b, draws, throttled) => {
        const want = uncompiled(b, draws, throttled);
        const got = compiled(b, draws, throttled);
        // Object.is tells 0 from -0 and compares NaN with itself: equal as bits.
        got.forEach((s, i) => {
          const w = want[i] as Step;
          expect([Object.is(s.ceilingMs, w.ceilingMs), Object.is(s.delayMs, w.delayMs), Object.is(s.prevSleepMs, w.prevSleepMs)], JSON.stringify({ b, retry: i + 1, s, w })).toEqual([true, true, true]);
        });
      }),
      { numRuns: 2000 },
    );
  });
});
