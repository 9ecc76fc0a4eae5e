import { describe, expect, it } from 'vitest';
import type { DeadlineMode, ScriptEntry } from '../../src/model/scenario.js';
import { traceOperation } from '../../src/model/traceOperation.js';
import { backoff, burst, constant, eventLog, layer, scenario, scripted } from '../helpers/scenario.js';

const hang: ScriptEntry = { status: 'hang', durationMs: 0 };

/** app (2 attempts of 100 ms, 10 ms apart) -> sdk (5 attempts of 40 ms, 5 ms apart) -> a leaf that never answers. */
function twoLayers(opts: { deadlineMs?: number; hopMs?: number; inner?: DeadlineMode; outerAttempts?: number } = {}) {
  return scenario({
    workload: burst(1, opts.deadlineMs !== undefined ? { deadlineMs: opts.deadlineMs } : {}),
    stack: [
      layer('app', { maxAttempts: opts.outerAttempts ?? 2, perAttemptTimeoutMs: 100, backoff: backoff('constant', 10) }),
      layer('sdk', {
        maxAttempts: 5,
        perAttemptTimeoutMs: 40,
        backoff: backoff('constant', 5),
        deadlineMode: opts.inner ?? 'propagate',
      }),
    ],
    leaf: scripted(hang),
    network: { hopMs: constant(opts.hopMs ?? 0) },
  });
}

describe('deadline propagation across layers', () => {
  it("the inner layer's attempts are cut to what the outer attempt has left, and the operation deadline cuts both", () => {
    const r = traceOperation(twoLayers({ deadlineMs: 180 }), { seed: 1 });
    expect(eventLog(r.timeline)).toEqual([
      [0, 'L0 call deadline=180'],
      [0, 'L0 attempt 1 timeout=100'],
      [0, 'L1 call deadline=100'],
      [0, 'L1 attempt 1 timeout=40'],
      [40, 'L1 outcome timeout'],
      [40, 'L1 wait 5'],
      [45, 'L1 attempt 2 timeout=40'],
      [85, 'L1 outcome timeout'],
      [85, 'L1 wait 5'],
      [90, 'L1 attempt 3 timeout=10'],
      [100, 'L0 outcome timeout'],
      [100, 'L0 wait 10'],
      [100, 'L1 outcome timeout'],
      [100, 'L1 give-up deadline after 3'],
      [110, 'L0 attempt 2 timeout=70'],
      [110, 'L1 call deadline=180'],
      [110, 'L1 attempt 1 timeout=40'],
      [150, 'L1 outcome timeout'],
      [150, 'L1 wait 5'],
      [155, 'L1 attempt 2 timeout=25'],
      [180, 'L0 outcome timeout'],
      [180, 'L0 give-up deadline after 2'],
      [180, 'L1 outcome timeout'],
      [180, 'L1 give-up deadline after 2'],
    ]);
    expect([r.outcome, r.attempts, r.endMs]).toEqual(['deadline', 2, 180]);
    expect(r.layers.map((l) => l.attemptTimeoutsMs)).toEqual([
      [100, 70],
      [40, 40, 10, 40, 25],
    ]);
    expect(r.layers.map((l) => l.giveUps)).toEqual([['deadline'], ['deadline', 'deadline']]);
  });

  it('the downstream deadline is the outer attempt end, so the hop to the inner layer eats into it', () => {
    const r = traceOperation(twoLayers({ hopMs: 5, outerAttempts: 1 }), { seed: 1 });
    const log = eventLog(r.timeline);
    expect(log.slice(0, 4)).toEqual([
      [0, 'L0 call deadline=Infinity'],
      [0, 'L0 attempt 1 timeout=100'],
      [5, 'L1 call deadline=100'],
      [5, 'L1 attempt 1 timeout=40'],
    ]);
    // Attempts at 5, 50 and 95 ms: the third has 5 ms left.
    expect(r.layers[1]?.attemptTimeoutsMs).toEqual([40, 40, 5]);
    expect([r.outcome, r.endMs]).toEqual(['attempt-limit', 100]);
  });

  it("an inner layer in 'fresh' mode gives every attempt its full timeout and overruns its caller", () => {
    const r = traceOperation(twoLayers({ inner: 'fresh', outerAttempts: 1 }), { seed: 1 });
    expect(r.layers[1]?.attemptTimeoutsMs).toEqual([40, 40, 40]);
    expect([r.outcome, r.endMs]).toEqual(['attempt-limit', 100]);
    const log = eventLog(r.timeline);
    expect(log[log.length - 1]).toEqual([130, 'L1 give-up deadline after 3']);
  });

  it("an inner layer in 'none' mode ignores the caller's deadline and makes all its attempts", () => {
    const r = traceOperation(twoLayers({ inner: 'none', outerAttempts: 1 }), { seed: 1 });
    const log = eventLog(r.timeline);
    expect(log[2]).toEqual([0, 'L1 call deadline=Infinity']);
    expect(r.layers[1]?.attemptTimeoutsMs).toEqual([40, 40, 40, 40, 40]);
    expect(r.layers[1]?.giveUps).toEqual(['attempt-limit']);
    expect(log[log.length - 1]).toEqual([220, 'L1 give-up attempt-limit after 5']);
  });

  it('three layers: each level works to the end of the attempt above it', () => {
    const sc = scenario({
      workload: burst(1, { deadlineMs: 1000 }),
      stack: [
        layer('app', { maxAttempts: 1, perAttemptTimeoutMs: 300 }),
        layer('sdk', { maxAttempts: 1, perAttemptTimeoutMs: 200 }),
        layer('proxy', { maxAttempts: 1, perAttemptTimeoutMs: 500 }),
      ],
      leaf: scripted(hang),
      network: { hopMs: constant(10) },
    });
    const r = traceOperation(sc, { seed: 1 });
    expect(eventLog(r.timeline).filter(([, w]) => w.includes('call') || w.includes('attempt '))).toEqual([
      [0, 'L0 call deadline=1000'],
      [0, 'L0 attempt 1 timeout=300'],
      [10, 'L1 call deadline=300'],
      [10, 'L1 attempt 1 timeout=200'],
      [20, 'L2 call deadline=210'],
      [20, 'L2 attempt 1 timeout=190'],
    ]);
  });
});

describe('what the layer above sees', () => {
  it("a layer that gives up returns its last outcome, with the server's Retry-After, to the layer above", () => {
    const sc = scenario({
      stack: [
        layer('app', { maxAttempts: 2, backoff: backoff('constant', 5) }),
        layer('sdk', { maxAttempts: 2, backoff: backoff('constant', 5) }),
      ],
      leaf: scripted({ status: 503, durationMs: 10, retryAfterMs: 50 }),
    });
    const r = traceOperation(sc, { seed: 1 });
    expect(eventLog(r.timeline).filter(([, w]) => w.startsWith('L0'))).toEqual([
      [0, 'L0 call deadline=Infinity'],
      [0, 'L0 attempt 1 timeout=Infinity'],
      [70, 'L0 outcome 503 ra=50'],
      [70, 'L0 wait 50'],
      [120, 'L0 attempt 2 timeout=Infinity'],
      [190, 'L0 outcome 503 ra=50'],
      [190, 'L0 give-up attempt-limit after 2'],
    ]);
    expect(r.layers[1]?.outcomes).toEqual(['503', '503', '503', '503']);
    expect(r.layers[1]?.waitsMs).toEqual([50, 50]);
  });

  it('an inner call that arrives with its deadline already spent gives up without calling', () => {
    // The app waits 3 ms per attempt; the hop to the sdk takes 5 ms.
    const sc = scenario({
      stack: [layer('app', { maxAttempts: 1, perAttemptTimeoutMs: 3 }), layer('sdk', { maxAttempts: 3 })],
      leaf: scripted({ status: 200, durationMs: 0 }),
      network: { hopMs: constant(5) },
    });
    const r = traceOperation(sc, { seed: 1 });
    expect(eventLog(r.timeline)).toEqual([
      [0, 'L0 call deadline=Infinity'],
      [0, 'L0 attempt 1 timeout=3'],
      [3, 'L0 outcome timeout'],
      [3, 'L0 give-up attempt-limit after 1'],
      [5, 'L1 call deadline=3'],
      [5, 'L1 give-up deadline after 0'],
    ]);
  });
});

