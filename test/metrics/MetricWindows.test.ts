import { describe, expect, it } from 'vitest';
import { MetricWindows } from '../../src/metrics/MetricWindows.js';
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
});

