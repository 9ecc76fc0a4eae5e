import { describe, expect, it } from 'vitest';
import { demandMs } from '../../src/model/results.js';
import { backoff, burst, closedLoop, constant, layer, openLoop, scenario, server, simulate } from '../helpers/scenario.js';

// Goodput: the operations that succeeded per second of the time demand was offered (src/model/results.ts, demandMs).
describe('goodput over the time demand was offered', () => {
  it('open loop: over its durationMs, not the drain after it', () => {
    // About 100 operations in 1 s against one 50 ms worker: the queue takes about 5 s to drain.
    const r = simulate(
      scenario({ workload: openLoop(100, 1000), stack: [layer('client', { maxAttempts: 1 })], leaf: server({ serviceMs: constant(50) }) }),
      3,
    );
    expect(r.operations.succeeded).toBe(r.operations.offered);
    expect(r.operations.offered).toBeGreaterThan(70);
    expect(r.simulatedMs).toBeGreaterThan(3500);
    expect(r.goodputPerSec).toBe(r.operations.succeeded / 1);
  });

  it('burst: over its completion time, not the orphaned work after the last operation ended', () => {
    // One 10 ms worker, 2 clients at t = 0, 2 attempts of 12 ms each, no backoff, no cancellation.
    // A: served [0, 10), succeeds at 10. B: queued; its first attempt times out at 12 and its retry
    // (queued behind B's first request, served [10, 20)) is served [20, 30) but times out at 24: B
    // fails at 24 and the server works for nobody until 30.
    const r = simulate(
      scenario({ workload: burst(2), stack: [layer('client', { maxAttempts: 2, perAttemptTimeoutMs: 12, backoff: backoff('none') })], leaf: server({ serviceMs: constant(10) }) }),
    );
    expect(r.operations).toEqual({ offered: 2, succeeded: 1, failed: 1, unfinished: 0 });
    expect(r.completionTimeMs).toBe(24);
    expect(r.simulatedMs).toBe(30);
    expect(r.goodputPerSec).toBe(1 / 0.024);
  });

  it('closed loop: until its clients stop (its last operation ended), even before durationMs', () => {
    // One 10 ms worker, 2 clients, think 90 ms, clients start nothing at or after 150 ms, one 12 ms attempt.
    // A: [0, 10) succeeds; B: queued, times out at 12 (served [10, 20) for nobody). A again at 100:
    // [100, 110) succeeds; B at 102: queued, times out at 114 (served [110, 120)). Next starts 200
    // and 204 are past 150: the clients stop at 114, the server at 120.
    const r = simulate(
      scenario({
        workload: closedLoop(2, 90, 150),
        stack: [layer('client', { maxAttempts: 1, perAttemptTimeoutMs: 12 })],
        leaf: server({ serviceMs: constant(10) }),
      }),
    );
    expect(r.operations).toEqual({ offered: 4, succeeded: 2, failed: 2, unfinished: 0 });
    expect(r.completionTimeMs).toBe(114);
    expect(r.simulatedMs).toBe(120);
    expect(r.goodputPerSec).toBe(2 / 0.114);
  });

  it('after a warm-up: the operations started after it, over the durationMs after it', () => {
    const r = simulate(
      scenario({
        workload: openLoop(100, 1000),
        stack: [layer('client', { maxAttempts: 1 })],
        leaf: server({ concurrency: 'unlimited', serviceMs: constant(5) }),
        warmupMs: 2000,
      }),
      5,
    );
    // About 100 operations after the warm-up (the 200 of the warm-up are not counted).
    expect(r.operations.offered).toBeLessThan(150);
    expect(r.operations.succeeded).toBe(r.operations.offered);
    expect(r.goodputPerSec).toBe(r.operations.succeeded / 1);
  });

  it('a run stopped at its horizon: over the time it ran, as no denominator runs past the end of the run', () => {
    const r = simulate(
      scenario({ workload: openLoop(100, 10_000), stack: [layer('client', { maxAttempts: 1 })], leaf: server({ serviceMs: constant(50) }), horizonMs: 2000 }),
      3,
    );
    expect(r.truncated).toBe('horizon');
    expect(r.simulatedMs).toBe(2000);
    expect(r.goodputPerSec).toBe(r.operations.succeeded / 2);
    // 20/s is all one 50 ms worker completes.
    expect(r.goodputPerSec).toBeLessThanOrEqual(20);
  });

  it('the denominator by workload kind', () => {
    const open = openLoop(10, 60_000);
    const closed = closedLoop(5, 100, 60_000);
    expect(demandMs(open, 70_000, 900_000, 0)).toBe(60_000);
    expect(demandMs(open, 20_000, 30_000, 7)).toBe(30_000);
    expect(demandMs(closed, 61_500, 900_000, 0)).toBe(61_500);
    expect(demandMs(closed, 50_000, 80_000, 3)).toBe(80_000);
    expect(demandMs(burst(10), 4_000, 9_000, 0)).toBe(4_000);
    expect(demandMs(burst(10), 4_000, 9_000, 1)).toBe(9_000);
  });
});
