import { describe, expect, it } from 'vitest';
import type { Policy, ScriptEntry } from '../../src/model/scenario.js';
import { traceOperation } from '../../src/model/traceOperation.js';
import type { TraceEvent } from '../../src/model/trace.js';
import { layer, scenario } from '../helpers/scenario.js';

function trace(script: ScriptEntry[], pol: Partial<Policy>, op: { deadlineMs?: number; method?: 'GET' | 'POST' } = {}, draw = 0.5) {
  return traceOperation(
    scenario({
      workload: {
        kind: 'burst',
        clients: 1,
        startMs: { dist: 'constant', value: 0 },
        method: op.method ?? 'GET',
        permanentErrorFraction: 0,
        ...(op.deadlineMs !== undefined ? { deadlineMs: op.deadlineMs } : {}),
      },
      stack: [layer('client', pol)],
      leaf: { kind: 'script', script },
    }),
    { seed: 1, fixedDraw: draw },
  );
}

/** The timeline as [timeMs, what] pairs. */
function log(events: TraceEvent[]): Array<[number, string]> {
  return events.map((e): [number, string] => {
    switch (e.event) {
      case 'call':
        return [e.tMs, `call deadline=${e.deadlineAtMs}`];
      case 'attempt':
        return [e.tMs, `attempt ${e.attempt} timeout=${e.timeoutMs}`];
      case 'outcome':
        return [e.tMs, `outcome ${e.outcome}${e.retryAfterMs !== undefined ? ` ra=${e.retryAfterMs}` : ''}`];
      case 'wait':
        return [e.tMs, `wait ceiling=${e.ceilingMs} wait=${e.waitMs}${e.fits ? '' : ' does-not-fit'}`];
      case 'give-up':
        return [e.tMs, `give-up ${e.reason} after ${e.attempts}`];
      default:
        return [e.tMs, e.event];
    }
  });
}

const constant100 = { kind: 'constant', baseMs: 100, capMs: 100, multiplier: 2, exponentOffset: 0 } as const;
const hang: ScriptEntry = { status: 'hang', durationMs: 0 };

describe('trace timelines', () => {
  it('a shared deadline shrinks the last attempt timeout, which then ends in `deadline`', () => {
    const r = trace([hang], { maxAttempts: 5, perAttemptTimeoutMs: 300, backoff: constant100 }, { deadlineMs: 1000 });
    expect(log(r.timeline)).toEqual([
      [0, 'call deadline=1000'],
      [0, 'attempt 1 timeout=300'],
      [300, 'outcome timeout'],
      [300, 'wait ceiling=100 wait=100'],
      [400, 'attempt 2 timeout=300'],
      [700, 'outcome timeout'],
      [700, 'wait ceiling=100 wait=100'],
      [800, 'attempt 3 timeout=200'],
      [1000, 'outcome timeout'],
      [1000, 'give-up deadline after 3'],
    ]);
    expect([r.outcome, r.attempts, r.endMs]).toEqual(['deadline', 3, 1000]);
    expect(r.attemptTimeoutsMs).toEqual([300, 300, 200]);
  });

  it('a fresh timeout per attempt overruns the deadline (the anti-pattern)', () => {
    const r = trace([hang], { maxAttempts: 5, perAttemptTimeoutMs: 300, backoff: constant100, deadlineMode: 'fresh' }, { deadlineMs: 1000 });
    expect(r.attemptTimeoutsMs).toEqual([300, 300, 300]);
    expect([r.outcome, r.endMs]).toEqual(['deadline', 1100]);
  });

  it('a Retry-After that does not fit in the deadline gives up at once instead of waiting less', () => {
    const r = trace([{ status: 503, durationMs: 100, retryAfterMs: 2000 }], { maxAttempts: 5 }, { deadlineMs: 1000 });
    expect(log(r.timeline)).toEqual([
      [0, 'call deadline=1000'],
      [0, 'attempt 1 timeout=1000'],
      [100, 'outcome 503 ra=2000'],
      [100, 'wait ceiling=100 wait=2000 does-not-fit'],
      [100, 'give-up wait-exceeds-deadline after 1'],
    ]);
    expect(r.waitsMs).toEqual([]);
  });

  it('a deadline of 0 is a budget already spent: `deadline` without any call', () => {
    const r = trace([{ status: 200, durationMs: 10 }], {}, { deadlineMs: 0 });
    expect(log(r.timeline)).toEqual([
      [0, 'call deadline=0'],
      [0, 'give-up deadline after 0'],
    ]);
  });

  it('a POST is not replayed after a timeout or a 5xx, but is after a 429', () => {
    const timeout = trace([hang], { perAttemptTimeoutMs: 200 }, { method: 'POST' });
    expect([timeout.outcome, timeout.attempts, timeout.endMs]).toEqual(['not-retryable', 1, 200]);
    const s503 = trace([{ status: 503, durationMs: 50 }], {}, { method: 'POST' });
    expect([s503.outcome, s503.attempts]).toEqual(['not-retryable', 1]);
    const s429 = trace([{ status: 429, durationMs: 50 }, { status: 200, durationMs: 50 }], {}, { method: 'POST' });
    expect([s429.outcome, s429.attempts]).toEqual(['success', 2]);
  });

  it('a permanent 400 is not retried', () => {
    const r = trace([{ status: 400, durationMs: 20 }], { maxAttempts: 5 });
    expect(log(r.timeline)).toEqual([
      [0, 'call deadline=Infinity'],
      [0, 'attempt 1 timeout=Infinity'],
      [20, 'outcome 400'],
      [20, 'give-up not-retryable after 1'],
    ]);
  });

  it('the exponential ceiling is capped over many attempts', () => {
    const r = trace([{ status: 503, durationMs: 0 }], {
      maxAttempts: 8,
      backoff: { kind: 'exponential', baseMs: 100, capMs: 1000, multiplier: 2, exponentOffset: 0 },
    });
    expect(r.ceilingsMs).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
    expect(r.waitsMs).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
    expect([r.outcome, r.attempts, r.endMs]).toEqual(['attempt-limit', 8, 4500]);
  });

  it('an attempt whose answer comes exactly at its timeout ends as a timeout', () => {
    const r = trace([{ status: 200, durationMs: 300 }, { status: 200, durationMs: 100 }], { perAttemptTimeoutMs: 300, backoff: constant100 });
    expect(log(r.timeline).slice(2, 4)).toEqual([
      [300, 'outcome timeout'],
      [300, 'wait ceiling=100 wait=100'],
    ]);
    expect([r.outcome, r.endMs]).toEqual(['success', 500]);
  });

  it('full jitter with a draw of 1 waits the whole ceiling, 0.5 half of it', () => {
    const fj = { kind: 'full-jitter', baseMs: 100, capMs: 10_000, multiplier: 2, exponentOffset: 0 } as const;
    expect(trace([{ status: 503, durationMs: 0 }], { backoff: fj }, {}, 1).waitsMs).toEqual([100, 200]);
    expect(trace([{ status: 503, durationMs: 0 }], { backoff: fj }, {}, 0.5).waitsMs).toEqual([50, 100]);
  });

  it('timer ticks round every wake-up up to an absolute boundary', () => {
    const r = trace([{ status: 503, durationMs: 7 }], { backoff: constant100, tickMs: 1000, maxAttempts: 3 });
    expect(log(r.timeline).filter(([, w]) => w.startsWith('attempt')).map(([t]) => t)).toEqual([0, 1000, 2000]);
  });

  it('the last script entry repeats when the script runs out', () => {
    const r = trace([{ status: 503, durationMs: 10 }, { status: 500, durationMs: 20 }], { maxAttempts: 4, backoff: constant100 });
    expect(r.layers[0]?.outcomes).toEqual(['503', '500', '500', '500']);
  });
});
