import { describe, expect, it } from 'vitest';
import {
  backoffCeilingMs,
  backoffDelayMs,
  backoffIsRandom,
  BACKOFF_KINDS,
  initialPrevSleepMs,
  nextPrevSleepMs,
} from '../../src/policy/backoff.js';
import type { BackoffSpec } from '../../src/policy/types.js';

const spec = (kind: BackoffSpec['kind'], over: Partial<BackoffSpec> = {}): BackoffSpec => ({
  kind,
  baseMs: 100,
  capMs: 20_000,
  multiplier: 2,
  exponentOffset: 0,
  ...over,
});

/** The waits of retries 1..n for one fixed draw, carrying the state between retries. */
function waits(b: BackoffSpec, u: number, n: number): number[] {
  let prev = initialPrevSleepMs(b);
  const out: number[] = [];
  for (let r = 1; r <= n; r++) {
    const d = backoffDelayMs(b, r, prev, u);
    prev = nextPrevSleepMs(b, d, prev, r, u);
    out.push(d);
  }
  return out;
}

describe('AWS SDK JS v3 standard: floor(min(cap, u * 2^retries * base)), retries from 0', () => {
  const b = spec('aws-sdk-js', { throttledBaseMs: 500 });
  it('waits u x 100, 200, 400 ms for the first retries', () => {
    expect(waits(b, 0.5, 3)).toEqual([50, 100, 200]);
    expect(waits(b, 0.999, 2)).toEqual([99, 199]);
  });
  it('applies the cap after the jitter (full jitter caps before)', () => {
    // Retry 10: u x 51.2 s = 25.6 s at u = 0.5, capped to 20 s; full jitter would give 0.5 x 20 s.
    expect(backoffDelayMs(b, 10, 100, 0.5)).toBe(20_000);
    expect(backoffDelayMs(spec('full-jitter'), 10, 100, 0.5)).toBe(10_000);
  });
  it('uses the 500 ms throttling base after a throttling error', () => {
    expect(backoffDelayMs(b, 1, 100, 0.5, true)).toBe(250);
    expect(backoffDelayMs(b, 2, 100, 0.5, true)).toBe(500);
  });
});

describe('botocore standard = full jitter with a 1 s base: rand * min(2^(attempt - 1) s, 20 s)', () => {
  const b = spec('full-jitter', { baseMs: 1000 });
  it('caps before the jitter', () => {
    expect(waits(b, 0.5, 7)).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  });
});

/**
 * The intervals of Envoy's JitteredExponentialBackOffStrategy as its source writes them
 * (envoyproxy/envoy:source/common/common/backoff_strategy.cc): next_interval_ starts at
 * base_interval; each retry draws random % next_interval_, then next_interval_ doubles while it is
 * below max_interval / 2, else becomes max_interval.
 */
function envoyIntervals(baseMs: number, maxMs: number, retries: number): number[] {
  let next = baseMs;
  return Array.from({ length: retries }, () => {
    const backoff = next;
    next = next < Math.floor(maxMs / 2) ? next * 2 : maxMs;
    return backoff;
  });
}

describe('Envoy (JitteredExponentialBackOffStrategy): an integer uniform on [0, min(base x 2^(N - 1), max)) ms', () => {
  const b = spec('envoy', { baseMs: 25, capMs: 250 });
  it('draws from [0, 25), [0, 50), [0, 100), [0, 200), then [0, 250) ms: the interval doubles until it reaches max', () => {
    expect([1, 2, 3, 4, 5, 6, 9].map((r) => backoffCeilingMs(b, r, 0))).toEqual([25, 50, 100, 200, 250, 250, 250]);
    expect(waits(b, 0, 6)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(waits(b, 0.5, 6)).toEqual([12, 25, 50, 100, 125, 125]);
    expect(waits(b, 0.9999, 6)).toEqual([24, 49, 99, 199, 249, 249]);
  });
  it('has the intervals of the cited code, the largest wait interval - 1 ms', () => {
    for (const [baseMs, maxMs] of [[25, 250], [25, 300], [10, 1000], [100, 100], [1, 7]] as const) {
      const c = spec('envoy', { baseMs, capMs: maxMs });
      const intervals = envoyIntervals(baseMs, maxMs, 12);
      expect(intervals.map((_, i) => backoffCeilingMs(c, i + 1, 0)), `${baseMs}/${maxMs}`).toEqual(intervals);
      expect(intervals.map((_, i) => backoffDelayMs(c, i + 1, 0, 1 - 2 ** -40))).toEqual(intervals.map((x) => x - 1));
    }
  });
});

describe('Polly v8 DecorrelatedJitterBackoffV2', () => {
  const b = spec('polly-decorrelated-v2', { baseMs: 2000, capMs: Infinity });
  /** Polly's formula: t = attempt + u (attempt from 0), next = 2^t tanh(sqrt(4t)), delay = (next - prev) / 1.4 x base. */
  const polly = (attempt: number, u: number, prev: number) => {
    const t = attempt + u;
    const next = Math.pow(2, t) * Math.tanh(Math.sqrt(4 * t));
    return { next, delayMs: ((next - prev) / 1.4) * 2000 };
  };
  it('starts from prev = 0 and carries next between retries', () => {
    const first = polly(0, 0.5, 0);
    const second = polly(1, 0.5, first.next);
    const third = polly(2, 0.5, second.next);
    const got = waits(b, 0.5, 3);
    expect(got[0]).toBeCloseTo(first.delayMs, 9);
    expect(got[1]).toBeCloseTo(second.delayMs, 9);
    expect(got[2]).toBeCloseTo(third.delayMs, 9);
    expect(got[0]).toBeCloseTo(1794.81, 2);
  });
  it('waits 0 for a base of 0 and keeps its state', () => {
    const zero = spec('polly-decorrelated-v2', { baseMs: 0 });
    expect(backoffDelayMs(zero, 1, 0, 0.5)).toBe(0);
    expect(nextPrevSleepMs(zero, 0, 0, 1, 0.5)).toBe(0);
  });
});

describe('cenkalti/backoff, google-http-client: interval x [1 - f, 1 + f], the cap on the interval', () => {
  const b = spec('randomized', { baseMs: 500, capMs: 60_000, multiplier: 1.5, randomizationFactor: 0.5 });
  it('follows the table of exponential.go: [0.25, 0.75], [0.375, 1.125], [0.5625, 1.6875] s', () => {
    expect(waits(b, 0, 3)).toEqual([250, 375, 562.5]);
    expect(waits(b, 1, 3)).toEqual([750, 1125, 1687.5]);
    expect(waits(b, 0.5, 3)).toEqual([500, 750, 1125]);
  });
  it('caps the interval, not the randomized wait: past the cap the wait ranges over [30 s, 90 s]', () => {
    expect(backoffDelayMs(b, 13, 0, 0)).toBe(30_000);
    expect(backoffDelayMs(b, 13, 0, 1)).toBe(90_000);
    expect(backoffCeilingMs(b, 13, 0)).toBe(90_000);
  });
  it('is resilience4j ofRandomized with multiplier 1: U[x/2, 3x/2)', () => {
    const r4j = spec('randomized', { baseMs: 500, multiplier: 1, randomizationFactor: 0.5 });
    expect(waits(r4j, 0, 3)).toEqual([250, 250, 250]);
    expect(waits(r4j, 0.75, 3)).toEqual([625, 625, 625]);
  });
  it('defaults to a factor of 0.5 and does not draw with a factor of 0', () => {
    expect(backoffDelayMs(spec('randomized', { baseMs: 500 }), 1, 0, 0)).toBe(250);
    expect(backoffIsRandom('randomized', spec('randomized', { randomizationFactor: 0 }))).toBe(false);
  });
});

describe('npm retry / p-retry / async-retry: round(R x minTimeout x factor^i)', () => {
  it('doubles from 1 s without randomization and without a cap', () => {
    const b = spec('node-retry', { baseMs: 1000, capMs: Infinity });
    expect(waits(b, 0.7, 10)).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000]);
    expect(backoffIsRandom('node-retry', b)).toBe(false);
  });
  it('multiplies by R = 1 + u when randomizing, rounding to whole ms', () => {
    const b = spec('node-retry', { baseMs: 1000, capMs: Infinity, randomize: true });
    expect(waits(b, 0.5, 3)).toEqual([1500, 3000, 6000]);
    expect(waits(b, 1 / 3, 1)).toEqual([1333]);
    expect(backoffIsRandom('node-retry', b)).toBe(true);
  });
  it('applies maxTimeout after rounding', () => {
    expect(waits(spec('node-retry', { baseMs: 1000, capMs: 3000 }), 0, 3)).toEqual([1000, 2000, 3000]);
  });
});

describe('tenacity wait_random_exponential: U(min, min(multiplier x 2^(n - 1), max))', () => {
  it('draws from [0, 1 s x 2^(n - 1)) by default', () => {
    expect(waits(spec('random-exponential', { baseMs: 1000, capMs: Infinity }), 0.5, 4)).toEqual([500, 1000, 2000, 4000]);
  });
  it('starts the draw at min and caps the upper end at max', () => {
    const b = spec('random-exponential', { baseMs: 1000, capMs: 1500, minMs: 200 });
    expect(waits(b, 0, 3)).toEqual([200, 200, 200]);
    expect(waits(b, 1, 3)).toEqual([1000, 1500, 1500]);
    expect(backoffDelayMs(b, 3, 0, 0.5)).toBe(850);
  });
});

describe('linear: base x r', () => {
  it('grows by the base and stops at the cap', () => {
    expect(waits(spec('linear', { capMs: 250 }), 0.5, 4)).toEqual([100, 200, 250, 250]);
  });
});

describe('every kind', () => {
  it('is listed, and says whether it draws', () => {
    expect(BACKOFF_KINDS).toHaveLength(13);
    expect(BACKOFF_KINDS.filter((k) => backoffIsRandom(k))).toEqual([
      'full-jitter',
      'equal-jitter',
      'decorrelated-jitter',
      'aws-sdk-js',
      'envoy',
      'polly-decorrelated-v2',
      'randomized',
      'node-retry',
      'random-exponential',
    ]);
  });
  it('never returns NaN or a negative wait for huge retry numbers', () => {
    for (const kind of BACKOFF_KINDS) {
      const b = spec(kind, { capMs: 5000 });
      for (const u of [0, 0.5, 0.999]) {
        const d = backoffDelayMs(b, 1e9, initialPrevSleepMs(b), u);
        expect(Number.isNaN(d)).toBe(false);
        expect(d).toBeGreaterThanOrEqual(0);
      }
    }
  });
});
