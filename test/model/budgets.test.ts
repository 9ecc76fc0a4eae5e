import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/model/trace.js';
import { simulate } from '../../src/simulate.js';

const failing = { kind: 'server', serviceMs: 1, faults: [{ probability: 1, status: 503 }] };
const noBackoff = { kind: 'none' };

function openLoop(ratePerSec: number, durationMs: number, clients = 1) {
  return { kind: 'open', rate: ratePerSec, durationMs, clients };
}

describe('retry budgets at 100% leaf failure (one layer of 3 attempts)', () => {
  it('without a budget the amplification is exactly 3', () => {
    const r = simulate({ workload: openLoop(100, 20_000), stack: [{ policy: { maxAttempts: 3, backoff: noBackoff } }], leaf: failing });
    expect(r.amplification).toBe(3);
  });

  it('the SRE 10% ratio budget keeps it at about 1.1 (retries compared with first tries)', () => {
    const r = simulate({
      workload: openLoop(100, 120_000),
      stack: [{ policy: { maxAttempts: 3, backoff: noBackoff, budget: { kind: 'sre-ratio' } } }],
      leaf: failing,
    });
    expect(r.amplification).toBeGreaterThan(1.08);
    expect(r.amplification).toBeLessThan(1.11);
    expect(r.giveUps['budget-exhausted']).toBeGreaterThan(0);
  });

  it('the AWS SDK quota (500 tokens, 5 per retry) allows exactly 100 retries, then none', () => {
    const r = simulate({
      workload: openLoop(50, 60_000),
      stack: [{ policy: { maxAttempts: 3, backoff: noBackoff, budget: { kind: 'token-bucket' } } }],
      leaf: failing,
    });
    expect(r.attempts[0]?.retries).toBe(100);
    const series = r.timeSeries.arrivalsRetry;
    const lastRetryBin = series.reduce((last, n, i) => (n > 0 ? i : last), -1);
    expect(lastRetryBin).toBeLessThan(5);
    expect(r.timeSeries.budgets?.[0]?.kind).toBe('token-bucket');
    expect(r.timeSeries.budgets?.[0]?.values.at(-1)).toBe(0);
  });

  it('gRPC throttling stops retries after maxTokens/2 net failures: 4 retries from 10 tokens', () => {
    const r = simulate({
      workload: { kind: 'burst', clients: 30 },
      stack: [{ policy: { maxAttempts: 5, backoff: noBackoff, budget: { kind: 'grpc-throttle', maxTokens: 10, tokenRatio: 0.1 } } }],
      leaf: failing,
    });
    expect(r.attempts[0]?.retries).toBe(4);
  });

  it("Finagle's retries stay within 0.2 x requests + the reserve of 10 per second", () => {
    const durationMs = 30_000;
    const r = simulate({
      workload: openLoop(100, durationMs),
      stack: [{ policy: { maxAttempts: 3, backoff: noBackoff, budget: { kind: 'finagle' } } }],
      leaf: failing,
    });
    const first = r.attempts[0]?.first ?? 0;
    const retries = r.attempts[0]?.retries ?? 0;
    const bound = 0.2 * first + 10 * (durationMs / 1000) + 100;
    expect(retries).toBeLessThanOrEqual(bound);
    expect(retries).toBeGreaterThan(0.2 * first);
  });

  it('the retry circuit breaker opens above 10% failures and stops retrying (circuit-open)', () => {
    const r = simulate({
      workload: openLoop(100, 20_000),
      stack: [{ policy: { maxAttempts: 3, backoff: noBackoff, budget: { kind: 'circuit-breaker' } } }],
      leaf: failing,
    });
    expect(r.giveUps['circuit-open']).toBeGreaterThan(0.95 * r.operations.offered);
    expect(r.amplification).toBeLessThan(1.05);
  });
});

describe('SRE client-side adaptive throttling', () => {
  it('makes the backend receive about K x what it accepts (K = 2)', () => {
    // 100/s offered to a server that completes at most 20/s (50 ms, one worker, no queue: it sheds the rest).
    const r = simulate({
      workload: openLoop(100, 300_000),
      stack: [{ policy: { maxAttempts: 1, admission: { kind: 'sre-adaptive', k: 2, windowMs: 10_000 } } }],
      leaf: { kind: 'server', serviceMs: 50, queueLimit: 0 },
      warmupMs: 30_000,
    });
    const received = r.leafCalls;
    const accepted = r.server.served;
    expect(received / accepted).toBeGreaterThan(1.8);
    expect(received / accepted).toBeLessThan(2.2);
    expect(r.giveUps['throttled']).toBeGreaterThan(0.5 * r.operations.offered);
  });

  it('refuses locally with `throttled` and no call, the first try included', () => {
    const r = simulate({
      workload: openLoop(100, 60_000),
      stack: [{ policy: { maxAttempts: 1, admission: { kind: 'sre-adaptive' } } }],
      leaf: failing,
    });
    expect(r.giveUps['throttled']).toBeGreaterThan(0);
    expect(r.leafCalls).toBe(r.operations.offered - r.giveUps['throttled']!);
  });
});

describe('budget scope: per layer instance', () => {
  it('one AWS quota shared by 100 clients allows far fewer retries than 100 instances of it', () => {
    const run = (instances: number) =>
      simulate({
        workload: openLoop(100, 60_000, 100),
        stack: [{ instances, policy: { maxAttempts: 3, backoff: noBackoff, budget: { kind: 'token-bucket' } } }],
        leaf: failing,
      });
    const shared = run(1);
    const spread = run(100);
    expect(shared.attempts[0]?.retries).toBe(100);
    expect(spread.attempts[0]?.retries).toBeGreaterThan(50 * (shared.attempts[0]?.retries ?? 0));
  });
});

describe('random seeding modes', () => {
  function waitsByOp(seeding: unknown, startMs: unknown = 0) {
    const waits = new Map<number, number[]>();
    simulate(
      {
        workload: { kind: 'burst', clients: 8, startMs },
        stack: [{ policy: { maxAttempts: 4, backoff: { kind: 'full-jitter', baseMs: 100 }, seeding } }],
        leaf: failing,
      },
      {
        seed: 3,
        trace: (e: TraceEvent) => {
          if (e.event === 'wait') waits.set(e.op, [...(waits.get(e.op) ?? []), e.waitMs]);
        },
      },
    );
    return [...waits.entries()].sort((a, b) => a[0] - b[0]).map(([, w]) => w);
  }

  it('shared: every client draws the same jitter sequence', () => {
    const w = waitsByOp({ kind: 'shared' });
    expect(w).toHaveLength(8);
    w.forEach((x) => expect(x).toEqual(w[0]));
  });

  it('independent: clients draw different sequences', () => {
    const w = waitsByOp({ kind: 'independent' });
    expect(new Set(w.map((x) => JSON.stringify(x))).size).toBe(8);
  });

  it('time-seeded: clients starting in the same window draw the same sequence, others not', () => {
    // Starts uniform in [0, 400) ms with 200 ms windows: two groups by start window.
    const starts: number[] = [];
    const waits = new Map<number, number[]>();
    simulate(
      {
        workload: { kind: 'burst', clients: 12, startMs: { dist: 'uniform', min: 0, max: 400 } },
        stack: [{ policy: { maxAttempts: 3, backoff: { kind: 'full-jitter', baseMs: 100 }, seeding: { kind: 'time-seeded', resolutionMs: 200 } } }],
        leaf: failing,
      },
      {
        seed: 5,
        trace: (e: TraceEvent) => {
          if (e.event === 'call') starts[e.op] = e.tMs;
          if (e.event === 'wait') waits.set(e.op, [...(waits.get(e.op) ?? []), e.waitMs]);
        },
      },
    );
    const byWindow = new Map<number, Set<string>>();
    waits.forEach((w, op) => {
      const win = Math.floor((starts[op] as number) / 200);
      byWindow.set(win, (byWindow.get(win) ?? new Set()).add(JSON.stringify(w)));
    });
    expect([...byWindow.keys()].sort()).toEqual([0, 1]);
    byWindow.forEach((set) => expect(set.size).toBe(1));
    const [a, b] = [...byWindow.values()].map((s) => [...s][0]);
    expect(a).not.toBe(b);
  });
});

describe('server answers that stop retries', () => {
  it('"overloaded; don\'t retry" is honoured: no retry after it', () => {
    const r = simulate({
      workload: { kind: 'burst', clients: 10 },
      stack: [{ policy: { maxAttempts: 3 } }],
      leaf: { kind: 'server', serviceMs: 100, queueLimit: 0, shedStatus: 'overloaded' },
    });
    expect(r.giveUps['not-retryable']).toBe(9);
    expect(r.leafCalls).toBe(10);
  });

  it('a gRPC pushback waits exactly the hint and restarts the backoff; a negative one stops', () => {
    const trace = (pushbackMs: number) => {
      const waits: number[] = [];
      const r = simulate(
        {
          workload: { kind: 'burst', clients: 2 },
          stack: [{ policy: { maxAttempts: 3, retryAfter: 'pushback', backoff: { kind: 'exponential', baseMs: 10 } } }],
          leaf: { kind: 'server', serviceMs: 1000, queueLimit: 0, pushbackMs },
        },
        { trace: (e: TraceEvent) => e.event === 'wait' && e.op === 1 && waits.push(e.waitMs) },
      );
      return { r, waits };
    };
    const positive = trace(300);
    expect(positive.waits).toEqual([300, 300]);
    const negative = trace(-1);
    expect(negative.waits).toEqual([]);
    expect(negative.r.giveUps['not-retryable']).toBe(1);
  });
});

describe('hedged requests (gRPC A6)', () => {
  it('send another copy after the hedging delay, count it apart from retries, and take the first answer', () => {
    // A server that takes 100 ms: with a 30 ms hedging delay and 3 copies, each operation sends 3.
    const r = simulate({
      workload: { kind: 'burst', clients: 1 },
      stack: [{ policy: { hedging: { maxAttempts: 3, hedgingDelayMs: 30 } } }],
      leaf: { kind: 'server', concurrency: 'unlimited', serviceMs: 100 },
    });
    expect(r.attempts[0]).toMatchObject({ first: 1, retries: 0, hedges: 2 });
    expect(r.leafCalls).toBe(3);
    expect(r.latencyMs.max).toBe(100);
    expect(r.giveUps['success']).toBe(1);
  });

  it('a fast answer makes the hedges unnecessary', () => {
    const r = simulate({
      workload: { kind: 'burst', clients: 1 },
      stack: [{ policy: { hedging: { maxAttempts: 3, hedgingDelayMs: 30 } } }],
      leaf: { kind: 'server', concurrency: 'unlimited', serviceMs: 10 },
    });
    expect(r.attempts[0]).toMatchObject({ first: 1, hedges: 0 });
  });

  it('a non-fatal failure sends the next copy at once; all failing ends with attempt-limit', () => {
    const r = simulate({
      workload: { kind: 'burst', clients: 1 },
      stack: [{ policy: { hedging: { maxAttempts: 3, hedgingDelayMs: 1000 } } }],
      leaf: failing,
    });
    expect(r.attempts[0]).toMatchObject({ first: 1, hedges: 2 });
    expect(r.giveUps['attempt-limit']).toBe(1);
    expect(r.completionTimeMs).toBe(0);
  });

  it('hedges are throttled by the same retry tokens', () => {
    const r = simulate({
      workload: { kind: 'burst', clients: 30 },
      stack: [{ policy: { hedging: { maxAttempts: 5, hedgingDelayMs: 1000 }, budget: { kind: 'grpc-throttle' } } }],
      leaf: failing,
    });
    expect(r.attempts[0]?.hedges).toBe(4);
  });
});
