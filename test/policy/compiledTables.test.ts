import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import type { Policy } from '../../src/model/scenario.js';
import {
  BACKOFF_KINDS,
  backoffCeilingMs,
  backoffDelayMs,
  exponentialCeilingMs,
  initialPrevSleepMs,
  nextPrevSleepMs,
  tableCeilingMs,
} from '../../src/policy/backoff.js';
import { ceilingTable, compileBackoff } from '../../src/policy/compiledBackoff.js';
import { DEFAULT_RETRY_ON, isRetryable, RETRY_ON_CLASSES, retryableIn, retryableTable, retryOnMask } from '../../src/policy/classify.js';
import { compilePolicy } from '../../src/policy/decision.js';
import { isHedgeNonFatal, planRetry, RetryPlan } from '../../src/policy/retrySteps.js';
import { GiveUp, Outcome } from '../../src/policy/outcome.js';
import { PRESET_NAMES } from '../../src/policy/presets.js';
import type { BackoffSpec, PolicySpec } from '../../src/policy/types.js';

/** A policy with the backoff `backoff`, no Retry-After handling and no timer tick. */
const policyWith = (backoff: BackoffSpec, over: Partial<PolicySpec> = {}): PolicySpec => ({
  maxAttempts: 3,
  deadlineMode: 'propagate',
  backoff,
  tickMs: 0,
  retryOn: [...DEFAULT_RETRY_ON],
  idempotency: 'http',
  retryAfter: 'ignore',
  ...over,
});

/** A preset resolved as an experiment file resolves `"policy": { "preset": name }`. */
function presetSpec(name: string): Policy {
  const result = resolveScenario({ workload: { kind: 'burst', clients: 1 }, stack: [{ policy: { preset: name } }], leaf: { kind: 'occ' } });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.scenario.stack[0]!.policy;
}

const PRESET_SPECS = PRESET_NAMES.map((name) => [name, presetSpec(name)] as const);

/** Every outcome code, and codes no outcome has. */
const OUTCOMES = [...Object.values(Outcome), 13, 100, -1, -0.5, 1.5, 2 ** 40, NaN];

/** Retry numbers: every small one, the ends of the tables, and huge, negative and fractional ones. */
const RETRIES = [
  ...Array.from({ length: 140 }, (_, r) => r),
  1023, 1024, 1025, 1099, 1100, 1101, 1e6, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 1, 2 ** 53, 1e300, Infinity,
  -1, -0, -Infinity, 0.5, 1.5, 8.5, 64.5, 65.25, NaN,
];

/** Exponential backoffs over bases, caps, multipliers (slow ones included) and offsets, with and without a throttling base. */
function exponentialSpecs(): BackoffSpec[] {
  const specs: BackoffSpec[] = [];
  for (const baseMs of [0, 0.3, 1, 5, 10, 100, 2000])
    for (const capMs of [0, 5, 1000, 2000, 20_000, Infinity])
      for (const multiplier of [1, 1.00001, 1.0001, 1.5, 1.6, 2, 3, 10])
        for (const exponentOffset of [0, 1, 3, 0.5, 2000])
          for (const throttledBaseMs of [undefined, 0, 500]) {
            const b: BackoffSpec = { kind: 'full-jitter', baseMs, capMs, multiplier, exponentOffset };
            if (throttledBaseMs !== undefined) b.throttledBaseMs = throttledBaseMs;
            specs.push(b);
          }
  return specs;
}

describe('retryability table', () => {
  it('answers as isRetryable for every outcome, idempotency and retryOn mask', () => {
    // Every mask of at most two classes (each outcome reads at most two bits) and 2,000 seeded masks of any size:
    // the 2^23 masks of every class are too many to walk.
    const n = RETRY_ON_CLASSES.length;
    const masks = [0, (1 << n) - 1];
    for (let i = 0; i < n; i++) for (let j = i; j < n; j++) masks.push((1 << i) | (1 << j));
    let seed = 12345;
    for (let k = 0; k < 2000; k++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      masks.push(seed % (1 << n));
    }
    for (const mask of masks) {
      const table = retryableTable(mask);
      for (const outcome of OUTCOMES)
        for (const idempotent of [false, true]) expect(retryableIn(table, outcome, idempotent)).toBe(isRetryable(outcome, idempotent, mask));
    }
  });

  it('answers as isRetryable for every preset, its hedging classes included', () => {
    for (const [, spec] of PRESET_SPECS) {
      const p = compilePolicy(spec);
      const hedgeMask = spec.hedging === undefined ? 0 : retryOnMask(spec.hedging.nonFatal);
      for (const outcome of OUTCOMES) {
        for (const idempotent of [false, true]) {
          expect(retryableIn(p.retryable, outcome, idempotent)).toBe(isRetryable(outcome, idempotent, retryOnMask(spec.retryOn)));
        }
        expect(isHedgeNonFatal(p, outcome)).toBe(outcome !== Outcome.SUCCESS && isRetryable(outcome, true, hedgeMask));
      }
    }
  });
});

describe('exponential ceiling table', () => {
  it('holds exponentialCeilingMs bit for bit for every retry number, past the cap and huge ones included', () => {
    const mismatches: Array<[BackoffSpec, number, boolean]> = [];
    let compared = 0;
    for (const b of [...exponentialSpecs(), ...PRESET_SPECS.map(([, s]) => s.backoff)]) {
      for (const throttled of [false, true]) {
        const t = ceilingTable(b, throttled);
        for (const r of RETRIES) {
          compared++;
          if (!Object.is(tableCeilingMs(t, b, r, throttled), exponentialCeilingMs(b, r, throttled))) mismatches.push([b, r, throttled]);
        }
      }
    }
    expect(compared).toBeGreaterThan(100_000);
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('ends where the cap is reached: base 10 ms, cap 1 s doubles to 640 ms at retry 7 and is capped from retry 8 on', () => {
    const t = ceilingTable({ kind: 'full-jitter', baseMs: 10, capMs: 1000, multiplier: 2, exponentOffset: 0 }, false);
    expect(Array.from(t.ceilingsMs)).toEqual([10, 10, 20, 40, 80, 160, 320, 640, 1000]);
    expect(t.tailMs).toBe(1000);
  });

  it('has no constant tail when the cap is out of reach or the multiplier too close to 1 to be sure the ceiling grows', () => {
    expect(ceilingTable({ kind: 'exponential', baseMs: 10, capMs: Infinity, multiplier: 2, exponentOffset: 0 }, false).tailMs).toBeNaN();
    expect(ceilingTable({ kind: 'exponential', baseMs: 10, capMs: 11, multiplier: 1.00001, exponentOffset: 0 }, false).tailMs).toBeNaN();
  });

  it('uses throttledBaseMs for throttling failures: base 100, throttled base 500', () => {
    const b: BackoffSpec = { kind: 'exponential', baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0, throttledBaseMs: 500 };
    const c = compileBackoff(b);
    expect(Array.from(c.ceilings.ceilingsMs).slice(1, 4)).toEqual([100, 200, 400]);
    expect(Array.from(c.throttledCeilings.ceilingsMs).slice(1, 4)).toEqual([500, 1000, 2000]);
  });
});

describe('planRetry on the compiled policy', () => {
  it('plans what backoffCeilingMs, backoffDelayMs and nextPrevSleepMs give for every kind, draw and triggering outcome', () => {
    const plan = new RetryPlan();
    for (const kind of BACKOFF_KINDS) {
      for (const over of [{}, { throttledBaseMs: 500 }, { capMs: 1000, exponentOffset: 1 }, { randomize: true, minMs: 50, randomizationFactor: 0.25 }]) {
        const b: BackoffSpec = { kind, baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0, ...over };
        const p = compilePolicy(policyWith(b));
        for (const retry of [1, 2, 3, 7, 8, 30, 70, 1e6])
          for (const u of [0, 0.3, 0.999])
            for (const outcome of [Outcome.S503, Outcome.S429]) {
              const prev = retry === 1 ? initialPrevSleepMs(b) : 250;
              const throttled = outcome === Outcome.S429;
              planRetry(p, retry, prev, NaN, 0, Infinity, u, plan, { outcome, callStartMs: 0 });
              const sample = backoffDelayMs(b, retry, prev, u, throttled);
              expect(Object.is(plan.ceilingMs, backoffCeilingMs(b, retry, prev, throttled))).toBe(true);
              expect(Object.is(plan.backoffMs, sample)).toBe(true);
              expect(Object.is(plan.nextPrevSleepMs, nextPrevSleepMs(b, sample, prev, retry, u))).toBe(true);
            }
      }
    }
  });

  it('still stops at maxElapsedMs, and a 429 still uses the throttling base, when only one of them is set', () => {
    const plan = new RetryPlan();
    const exponential: BackoffSpec = { kind: 'exponential', baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0 };
    const elapsed = compilePolicy(policyWith(exponential, { maxElapsedMs: 1000 }));
    expect(planRetry(elapsed, 3, 100, NaN, 700, Infinity, 0, plan, { outcome: Outcome.S503, callStartMs: 0 }).giveUp).toBe(GiveUp.WAIT_EXCEEDS_DEADLINE);
    const throttledBase = compilePolicy(policyWith({ ...exponential, throttledBaseMs: 500 }));
    expect(planRetry(throttledBase, 2, 100, NaN, 0, Infinity, 0, plan, { outcome: Outcome.S429, callStartMs: 0 }).backoffMs).toBe(1000);
    expect(planRetry(throttledBase, 2, 100, NaN, 0, Infinity, 0, plan, { outcome: Outcome.S503, callStartMs: 0 }).backoffMs).toBe(200);
  });
});
