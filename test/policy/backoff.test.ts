import { describe, expect, it } from 'vitest';
import {
  backoffCeilingMs,
  backoffDelayMs,
  exponentialCeilingMs,
  initialPrevSleepMs,
  nextPrevSleepMs,
} from '../../src/policy/backoff.js';
import { quantizeUpMs } from '../../src/policy/timer.js';
import type { BackoffSpec } from '../../src/policy/types.js';

const spec = (kind: BackoffSpec['kind'], over: Partial<BackoffSpec> = {}): BackoffSpec => ({
  kind,
  baseMs: 100,
  capMs: 20_000,
  multiplier: 2,
  exponentOffset: 0,
  ...over,
});

describe('exponential ceiling', () => {
  it('doubles from base for the first retry and stops at the cap', () => {
    const b = spec('exponential', { capMs: 1000 });
    expect([1, 2, 3, 4, 5, 6].map((r) => exponentialCeilingMs(b, r))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('starts at 2 x base with exponent offset 1 (the AWS 2015 study: 10, 20, 40 ... 2000 ms for base 5)', () => {
    const b = spec('exponential', { baseMs: 5, capMs: 2000, exponentOffset: 1 });
    expect([1, 2, 3, 8, 9].map((r) => exponentialCeilingMs(b, r))).toEqual([10, 20, 40, 1280, 2000]);
  });

  it('never overflows into NaN or Infinity for huge retry counts', () => {
    const b = spec('exponential', { capMs: 5000 });
    expect(exponentialCeilingMs(b, 1e9)).toBe(5000);
    expect(exponentialCeilingMs(spec('exponential', { baseMs: 0 }), 1e9)).toBe(0);
  });

  it('honours a multiplier other than 2', () => {
    expect([1, 2, 3].map((r) => exponentialCeilingMs(spec('exponential', { multiplier: 1.5 }), r))).toEqual([100, 150, 225]);
  });
});

describe('backoff delay for a fixed draw', () => {
  it('none waits 0, constant waits base, exponential waits the ceiling whatever the draw', () => {
    expect(backoffDelayMs(spec('none'), 3, 100, 0.7)).toBe(0);
    expect(backoffDelayMs(spec('constant'), 3, 100, 0.7)).toBe(100);
    expect(backoffDelayMs(spec('exponential'), 3, 100, 0.7)).toBe(400);
  });

  it('full jitter draws uniform(0, ceiling): a draw of 1 waits the whole ceiling', () => {
    expect(backoffDelayMs(spec('full-jitter'), 3, 100, 0)).toBe(0);
    expect(backoffDelayMs(spec('full-jitter'), 3, 100, 0.25)).toBe(100);
    expect(backoffDelayMs(spec('full-jitter'), 3, 100, 1)).toBe(400);
  });

  it('equal jitter draws ceiling/2 + uniform(0, ceiling/2)', () => {
    expect(backoffDelayMs(spec('equal-jitter'), 3, 100, 0)).toBe(200);
    expect(backoffDelayMs(spec('equal-jitter'), 3, 100, 0.5)).toBe(300);
    expect(backoffDelayMs(spec('equal-jitter'), 3, 100, 1)).toBe(400);
  });

  it('decorrelated jitter draws uniform(base, 3 x previous) capped, starting from base', () => {
    const b = spec('decorrelated-jitter', { capMs: 1000 });
    let prev = initialPrevSleepMs(b);
    expect(prev).toBe(100);
    expect(backoffCeilingMs(b, 1, prev)).toBe(300);
    const first = backoffDelayMs(b, 1, prev, 0.5); // uniform(100, 300) at 0.5
    expect(first).toBe(200);
    prev = nextPrevSleepMs(b, first, prev);
    expect(backoffCeilingMs(b, 2, prev)).toBe(600);
    const second = backoffDelayMs(b, 2, prev, 1); // uniform(100, 600) at 1
    expect(second).toBe(600);
    prev = nextPrevSleepMs(b, second, prev);
    expect(backoffDelayMs(b, 3, prev, 1)).toBe(1000); // min(cap, 1800)
  });

  it('full jitter can wait less on a later retry than on an earlier one', () => {
    const b = spec('full-jitter');
    expect(backoffDelayMs(b, 4, 100, 0.1)).toBeLessThan(backoffDelayMs(b, 2, 100, 0.9));
  });
});

describe('timer granularity', () => {
  it('rounds a wake-up up to the next tick boundary aligned to t = 0', () => {
    expect(quantizeUpMs(1, 10)).toBe(10);
    expect(quantizeUpMs(10, 10)).toBe(10);
    expect(quantizeUpMs(10.0001, 10)).toBe(20);
    expect(quantizeUpMs(1234, 1000)).toBe(2000);
  });

  it('keeps a time already on a fractional tick boundary in place', () => {
    expect(quantizeUpMs(3 * 15.6, 15.6)).toBeCloseTo(46.8, 10);
    expect(quantizeUpMs(3 * 15.6, 15.6)).toBeLessThan(50);
    expect(quantizeUpMs(0.3, 0.1)).toBeCloseTo(0.3, 12);
  });

  it('does not round with a tick of 0', () => {
    expect(quantizeUpMs(12.345, 0)).toBe(12.345);
  });
});
