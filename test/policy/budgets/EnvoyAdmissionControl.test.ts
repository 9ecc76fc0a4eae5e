import { describe, expect, it } from 'vitest';
import { makeAdmissionControl } from '../../../src/policy/budgets/AdmissionControl.js';
import { ENVOY_ADMISSION_DEFAULTS, type EnvoyAdmissionSpec } from '../../../src/policy/budgets/EnvoyAdmissionControl.js';
import { Outcome } from '../../../src/policy/outcome.js';

const control = (over: Partial<EnvoyAdmissionSpec> = {}) => makeAdmissionControl({ kind: 'envoy-admission', ...ENVOY_ADMISSION_DEFAULTS, ...over });

function answers(a: ReturnType<typeof control>, t: number, successes: number, failures: number, failure: number = Outcome.S503): void {
  for (let i = 0; i < successes; i++) a.onOutcome(t, Outcome.SUCCESS, true);
  for (let i = 0; i < failures; i++) a.onOutcome(t, failure, false);
}

describe('Envoy admission control', () => {
  it('rejects with P = (rq - succ / 0.95) / (rq + 1)', () => {
    const a = control();
    answers(a, 0, 90, 10);
    expect(a.gauge(0)).toBe((100 - 90 / 0.95) / 101);
    expect(a.admit(0, 0.05)).toBe(-1);
    expect(a.admit(0, 0.06)).toBe(0);
  });

  it('raises P to the power 1 / aggression', () => {
    const a = control({ aggression: 2 });
    answers(a, 0, 90, 10);
    expect(a.gauge(0)).toBe(Math.pow((100 - 90 / 0.95) / 101, 1 / 2));
  });

  it('never rejects with more than max_rejection_probability (80%)', () => {
    const a = control();
    answers(a, 0, 0, 100);
    expect(a.gauge(0)).toBe(0.8);
  });

  it('does not reject while the success rate is at least the threshold', () => {
    const a = control();
    answers(a, 0, 95, 5);
    expect(a.gauge(0)).toBe(0);
  });

  it('counts 4xx and 429 answers as successes, timeouts as failures', () => {
    const a = control();
    answers(a, 0, 0, 50, Outcome.S429);
    answers(a, 0, 0, 50, Outcome.S400);
    expect(a.gauge(0)).toBe(0);
    answers(a, 0, 0, 100, Outcome.TIMEOUT);
    expect(a.gauge(0)).toBeGreaterThan(0);
  });

  it('does not record rejected requests, and forgets answers after the 30 s window', () => {
    const a = control();
    answers(a, 0, 0, 100);
    for (let i = 0; i < 100; i++) a.admit(0, 0);
    expect(a.gauge(0)).toBe(0.8);
    expect(a.gauge(29_999)).toBe(0.8);
    expect(a.gauge(30_000)).toBe(0);
  });

  it('does not reject below rps_threshold (answers per second over the window)', () => {
    const a = control({ rpsThreshold: 5 });
    answers(a, 0, 0, 149);
    expect(a.gauge(0)).toBe(0);
    answers(a, 0, 0, 1);
    expect(a.gauge(0)).toBe(0.8);
  });
});
