import { describe, expect, it } from 'vitest';
import { makeAdmissionControl, type AdmissionControl } from '../../../src/policy/budgets/AdmissionControl.js';
import { SRE_ADAPTIVE_DEFAULTS } from '../../../src/policy/budgets/SreAdaptiveThrottle.js';
import { acceptedByBackend } from '../../../src/policy/classify.js';
import { Outcome } from '../../../src/policy/outcome.js';

/** Evenly spread draws in [0, 1) (the golden-ratio sequence), so runs are exact and repeatable. */
const draw = (i: number): number => (i * 0.6180339887498949) % 1;

/**
 * One client sends `demandPerSec` attempts a second (evenly spaced) for `seconds`; a backend with a
 * fixed capacity accepts the first `capacityPerSec` attempts it receives in each second and rejects
 * the rest (429). Returns what reached the backend and what it accepted over the last `lastSec`.
 */
function overloadedBackend(a: AdmissionControl, demandPerSec: number, capacityPerSec: number, seconds: number, lastSec: number) {
  let i = 0;
  let sent = 0;
  let accepted = 0;
  for (let s = 0; s < seconds; s++) {
    let acceptedThisSecond = 0;
    for (let j = 0; j < demandPerSec; j++) {
      const t = s * 1000 + (j * 1000) / demandPerSec;
      if (a.admit(t, draw(i++)) < 0) continue;
      const outcome = acceptedThisSecond < capacityPerSec ? Outcome.SUCCESS : Outcome.S429;
      if (outcome === Outcome.SUCCESS) acceptedThisSecond++;
      a.onOutcome(t, outcome, acceptedByBackend(outcome));
      if (s >= seconds - lastSec) {
        sent++;
        if (outcome === Outcome.SUCCESS) accepted++;
      }
    }
  }
  return { sent, accepted };
}

describe('SRE client-side adaptive throttling', () => {
  const throttle = (k: number = SRE_ADAPTIVE_DEFAULTS.k) => makeAdmissionControl({ kind: 'sre-adaptive', k, windowMs: SRE_ADAPTIVE_DEFAULTS.windowMs });

  it('never rejects while the backend accepts everything', () => {
    const a = throttle();
    for (let i = 0; i < 1000; i++) {
      expect(a.admit(i, 0)).toBe(0);
      a.onOutcome(i, Outcome.SUCCESS, true);
    }
    expect(a.gauge(1000)).toBe(0);
  });

  it('rejects with P = (requests - K accepts) / (requests + 1), counting local rejections as requests', () => {
    const a = throttle();
    for (let i = 0; i < 10; i++) {
      a.admit(0, 0.999_999);
      a.onOutcome(0, Outcome.S503, false);
    }
    expect(a.gauge(0)).toBe(10 / 11);
    expect(a.admit(0, 0.5)).toBe(-1);
    expect(a.gauge(0)).toBe(11 / 12);
  });

  it('converges so that the backend receives about K x accepts (K = 2)', () => {
    const { sent, accepted } = overloadedBackend(throttle(2), 100, 20, 600, 120);
    expect(accepted).toBe(20 * 120);
    expect(sent / accepted).toBeGreaterThan(1.9);
    expect(sent / accepted).toBeLessThan(2.1);
  });

  it('with K = 1.1 the backend receives about 1.1 x accepts', () => {
    const { sent, accepted } = overloadedBackend(throttle(1.1), 100, 20, 600, 120);
    expect(sent / accepted).toBeGreaterThan(1.05);
    expect(sent / accepted).toBeLessThan(1.15);
  });

  it('forgets after the 2-minute window', () => {
    const a = throttle();
    for (let i = 0; i < 10; i++) a.admit(0, 0.999_999);
    expect(a.gauge(119_999)).toBeGreaterThan(0);
    expect(a.gauge(120_000)).toBe(0);
  });
});
