import { describe, expect, it } from 'vitest';
import { makeAdmissionControl } from '../../../src/policy/budgets/AdmissionControl.js';
import { AWS_ADAPTIVE_DEFAULTS, AwsAdaptiveRateLimiter } from '../../../src/policy/budgets/AwsAdaptiveRateLimiter.js';
import { Outcome } from '../../../src/policy/outcome.js';

const limiter = () => new AwsAdaptiveRateLimiter({ kind: 'aws-adaptive', ...AWS_ADAPTIVE_DEFAULTS });

/** Successful answers every `gapMs` from `fromMs` (inclusive) to `toMs` (exclusive). */
function successes(l: AwsAdaptiveRateLimiter, fromMs: number, toMs: number, gapMs: number): void {
  for (let t = fromMs; t < toMs; t += gapMs) l.onOutcome(t, Outcome.SUCCESS, true);
}

describe('AWS SDK adaptive mode rate limiter (CUBIC)', () => {
  it('is built by makeAdmissionControl', () => {
    expect(makeAdmissionControl({ kind: 'aws-adaptive', ...AWS_ADAPTIVE_DEFAULTS })).toBeInstanceOf(AwsAdaptiveRateLimiter);
  });

  it('sends freely until the first throttling answer', () => {
    const l = limiter();
    successes(l, 0, 5000, 100);
    for (let i = 0; i < 100; i++) expect(l.admit(5000, 0)).toBe(0);
    expect(l.isEnabled()).toBe(false);
    expect(l.gauge(5000)).toBe(0);
  });

  it('measures the send rate as an EWMA (0.8) over 0.5 s buckets', () => {
    const l = limiter();
    // Answers at 0, 100, ..., 500 ms: the bucket at 0.5 s closes with 6 answers over 0.5 s.
    successes(l, 0, 501, 100);
    expect(l.measuredRate()).toBeCloseTo(0.8 * 12, 12);
    successes(l, 600, 1001, 100);
    expect(l.measuredRate()).toBeCloseTo(0.8 * 10 + 0.2 * 9.6, 12);
  });

  it('on a throttle drops the rate to 0.7 x the measured rate and turns the bucket on', () => {
    const l = limiter();
    successes(l, 0, 10_000, 100);
    l.onOutcome(10_000, Outcome.S429, false);
    const measured = l.measuredRate();
    expect(measured).toBeGreaterThan(9);
    expect(l.isEnabled()).toBe(true);
    expect(l.sendRate()).toBeCloseTo(0.7 * measured, 12);
    expect(l.gauge(10_000)).toBe(l.sendRate());
  });

  it('then makes every attempt take a token: the tokens left pass at once, then each waits 1 / rate longer than the one before', () => {
    const l = limiter();
    successes(l, 0, 10_000, 100);
    l.onOutcome(10_000, Outcome.OVERLOADED, false);
    const rate = l.sendRate();
    // The bucket kept filling while off; on the throttle it is cut to the new size, max(rate, 1).
    let immediate = 0;
    let delay = l.admit(10_000, 0);
    while (delay === 0) {
      immediate++;
      delay = l.admit(10_000, 0);
    }
    expect(immediate).toBe(Math.floor(rate));
    expect(delay).toBeCloseTo(((1 - (rate - Math.floor(rate))) / rate) * 1000, 9);
    expect(l.admit(10_000, 0) - delay).toBeCloseTo(1000 / rate, 9);
  });

  it('recovers along the cubic: back at W_max k = (0.3 W_max / 0.4)^(1/3) seconds after the throttle', () => {
    const l = limiter();
    successes(l, 0, 10_000, 100);
    l.onOutcome(10_000, Outcome.S429, false);
    const wMax = l.measuredRate();
    const k = Math.cbrt((wMax * 0.3) / 0.4);
    successes(l, 10_100, 10_000 + k * 1000, 100);
    l.onOutcome(10_000 + k * 1000, Outcome.SUCCESS, true);
    expect(l.sendRate()).toBeCloseTo(Math.min(wMax, 2 * l.measuredRate()), 6);
    // Halfway there the rate is below W_max: 0.4 (k/2 - k)^3 + W_max.
    const m = limiter();
    successes(m, 0, 10_000, 100);
    m.onOutcome(10_000, Outcome.S429, false);
    successes(m, 10_100, 10_000 + (k / 2) * 1000, 100);
    m.onOutcome(10_000 + (k / 2) * 1000, Outcome.SUCCESS, true);
    expect(m.sendRate()).toBeCloseTo(0.4 * Math.pow(-k / 2, 3) + wMax, 6);
  });

  it('never sets the rate below 0.5 per second', () => {
    const l = limiter();
    l.onOutcome(0, Outcome.S429, false);
    expect(l.sendRate()).toBe(0.5);
    expect(l.admit(0, 0)).toBe(2000);
  });
});
