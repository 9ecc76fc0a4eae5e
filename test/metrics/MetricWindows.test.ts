import { describe, expect, it } from 'vitest';
import { MetricWindows, recoveryFromBins } from '../../src/metrics/MetricWindows.js';
import { simulate } from '../../src/simulate.js';

describe('named metric windows', () => {
  it('count operations by their start, leaf calls by their time, successes by start (rate) and by end (goodput)', () => {
    const w = new MetricWindows([
      { name: 'during', fromMs: 0, toMs: 10_000 },
      { name: 'after', fromMs: 10_000, toMs: 50_000 },
    ]);
    // Three operations start during; one succeeds during, one after (at 12 s), one never.
    for (const t of [1000, 2000, 3000]) w.offered(t);
    for (const t of [1000, 1500, 2000, 3000, 9999, 10_000]) w.leafCall(t);
    w.succeeded(1000, 4000);
    w.succeeded(2000, 12_000);
    // After: ten operations start in its last 30 s, nine succeed in it.
    for (let k = 0; k < 10; k++) w.offered(25_000 + k * 1000);
    for (let k = 0; k < 9; k++) w.succeeded(25_000 + k * 1000, 26_000 + k * 1000);
    expect(w.results()).toEqual([
      { name: 'during', fromMs: 0, toMs: 10_000, offered: 3, succeeded: 2, leafCalls: 5, amplification: 5 / 3, successRate: 2 / 3, goodputPerSec: 0.1, recovered: false },
      { name: 'after', fromMs: 10_000, toMs: 50_000, offered: 10, succeeded: 9, leafCalls: 1, amplification: 0.1, successRate: 0.9, goodputPerSec: 10 / 40, recovered: true },
    ]);
  });

  it('recovered needs 90% of the demand offered in the last 30 s to succeed in that time', () => {
    const w = new MetricWindows([{ name: 'tail', fromMs: 0, toMs: 60_000 }]);
    for (let k = 0; k < 10; k++) w.offered(31_000 + k * 1000);
    for (let k = 0; k < 8; k++) w.succeeded(31_000 + k * 1000, 32_000 + k * 1000);
    // Successes before the tail do not count toward it.
    w.succeeded(0, 29_000);
    expect(w.results()[0]?.recovered).toBe(false);
    w.succeeded(39_000, 59_999);
    expect(w.results()[0]?.recovered).toBe(true);
  });

  it('recoveryMs: the first 1 s bin from which 10 s of successes reach 90% of the operations offered in them', () => {
    const w = new MetricWindows([{ name: 'fix', fromMs: 120_000, toMs: 180_000, recoveryTime: true }]);
    // 10 operations start in every second of the window, each ending 10 ms after its start if it
    // succeeds: none does before t = 137 s, 5 of 10 do over 137-142 s, all of them from 142 s on.
    for (let s = 0; s < 60; s++)
      for (let k = 0; k < 10; k++) {
        const t = 120_000 + s * 1000 + k * 50;
        w.offered(t);
        if ((s >= 17 && k < 5) || s >= 22) w.succeeded(t, t + 10);
      }
    // Bin 17: 5 x 5 + 5 x 10 = 75; bin 18: 4 x 5 + 6 x 10 = 80; bin 19: 85; bin 20: 2 x 5 + 8 x 10 = 90.
    expect(w.results()[0]?.recoveryMs).toBe(20_000);
    // A success counts in the bin it ends in: an operation of bin 19 ending in bin 30 does not help bin 19.
    const late = new MetricWindows([{ name: 'w', fromMs: 0, toMs: 20_000, recoveryTime: true }]);
    for (let s = 0; s < 20; s++) late.offered(s * 1000);
    for (let s = 0; s < 20; s++) if (s !== 5) late.succeeded(s * 1000, s * 1000 + 500);
    // Bin 0..9 holds 9 of 10 successes: back at once; with two missing (5 and 6), at bin 7.
    expect(late.results()[0]?.recoveryMs).toBe(0);
    const late2 = new MetricWindows([{ name: 'w', fromMs: 0, toMs: 20_000, recoveryTime: true }]);
    for (let s = 0; s < 20; s++) late2.offered(s * 1000);
    for (let s = 0; s < 20; s++) if (s !== 5 && s !== 6) late2.succeeded(s * 1000, s === 4 ? 25_000 : s * 1000 + 500);
    // Missing in their bins: 4 (its success ends after the window), 5 and 6; the first 10 bins free of
    // two of them start at bin 6 (6..15 misses only 6).
    expect(late2.results()[0]?.recoveryMs).toBe(6000);
  });

  it('recoveryFromBins: the sliding 10-bin rule, bins with no demand, too few bins, a window that never gets back', () => {
    const ten = (v: number) => Array.from({ length: 10 }, () => v);
    // Demand 10 per bin; successes 8 per bin for 5 bins, then 10.
    const off = ten(10).concat(ten(10));
    const ok = [8, 8, 8, 8, 8].concat(ten(10), [10, 10, 10, 10, 10]);
    // Bin 0: 5 x 8 + 5 x 10 = 90 of 100 -> back at once.
    expect(recoveryFromBins(off, ok, 20)).toBe(0);
    // 7 per bin for 5 bins: bin 0 has 85, bin 1: 4 x 7 + 6 x 10 = 88, bin 2: 3 x 7 + 7 x 10 = 91.
    const ok7 = [7, 7, 7, 7, 7].concat(ten(10), [10, 10, 10, 10, 10]);
    expect(recoveryFromBins(off, ok7, 20)).toBe(2000);
    expect(recoveryFromBins(off, ten(0).concat(ten(0)), 20)).toBeNull();
    // The last 10 bins are the last start searched: bins 10..19 at 9 per bin get back at 10 s.
    expect(recoveryFromBins(off, ten(0).concat(ten(9)), 20)).toBe(10_000);
    expect(recoveryFromBins(off, ten(0).concat(ten(9)), 19)).toBeNull();
    // Fewer than 10 whole bins: never.
    expect(recoveryFromBins(ten(0), ten(0), 9)).toBeNull();
    // Bins with no demand keep up trivially.
    expect(recoveryFromBins(ten(0), ten(0), 10)).toBe(0);
  });

  it('a window over the whole run sees every operation, leaf call and success of the totals', () => {
    const r = simulate(
      {
        workload: { kind: 'open', rate: 50, durationMs: 20_000 },
        stack: [{ name: 'client', policy: { maxAttempts: 3, backoff: { kind: 'constant', baseMs: 10 } } }],
        leaf: { kind: 'server', serviceMs: { dist: 'exponential', mean: 5 }, faults: [{ fromMs: 5000, toMs: 8000, probability: 1, status: 503 }] },
        metrics: { windows: [{ name: 'all', fromMs: 0, toMs: 3_600_000 }, { name: 'fault', fromMs: 5000, toMs: 7500 }] },
      },
      { seed: 7 },
    );
    const [all, fault] = r.windows ?? [];
    expect([all?.offered, all?.succeeded, all?.leafCalls]).toEqual([r.operations.offered, r.operations.succeeded, r.leafCalls]);
    // Every operation that starts well inside the fault window fails all three attempts.
    expect([fault?.successRate, fault?.goodputPerSec]).toEqual([0, 0]);
  });

  it('recoveryMs through a run: a fault that fails every attempt until 8.5 s; the window from 5 s is back at its bin 3 (8-9 s)', () => {
    const r = simulate(
      {
        workload: { kind: 'open', rate: 50, durationMs: 30_000 },
        stack: [{ name: 'client', policy: { maxAttempts: 3, backoff: { kind: 'constant', baseMs: 10 } } }],
        leaf: { kind: 'server', serviceMs: { dist: 'exponential', mean: 5 }, faults: [{ fromMs: 5000, toMs: 8500, probability: 1, status: 503 }] },
        metrics: { windows: [{ name: 'fix', fromMs: 5000, toMs: 30_000, recoveryTime: true }, { name: 'short', fromMs: 5000, toMs: 14_000, recoveryTime: true }, { name: 'plain', fromMs: 5000, toMs: 30_000 }] },
      },
      { seed: 7 },
    );
    // From bin 2 (7-17 s) about 1.5 s of 10 fail: 85%; from bin 3 about 0.5 s: 95%. A 9 s window has
    // fewer than 10 whole bins and never gets back.
    // A window that does not ask for it has no recoveryMs.
    expect(r.windows?.map((w) => w.recoveryMs)).toEqual([3000, null, undefined]);
    expect(Object.keys(r.windows?.[2] ?? {})).not.toContain('recoveryMs');
  });
});
