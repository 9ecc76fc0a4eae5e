import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SimulationResults } from '../../src/model/results.js';
import type { TraceEvent } from '../../src/model/trace.js';
import { simulate } from '../../src/simulate.js';

/**
 * Invariants of the model checked over random valid configurations, written as a user writes
 * them (the `scenario` object of an experiment file, validated by `simulate`), from the results
 * and from the timeline of every call, attempt, outcome, wait and give-up.
 */

type Json = Record<string, unknown>;
type BackoffKind = 'none' | 'constant' | 'exponential' | 'full-jitter' | 'equal-jitter' | 'decorrelated-jitter';
type Mode = 'propagate' | 'fresh' | 'none';
type RetryAfter = 'honor' | 'ignore' | 'honor-plus-jitter';

interface LayerSpec {
  name: string;
  hopMs?: unknown;
  policy: {
    maxAttempts: number | 'unlimited';
    perAttemptTimeoutMs?: number;
    deadlineMode: Mode;
    backoff: { kind: BackoffKind; baseMs: number; capMs: number; multiplier: number; exponentOffset: number };
    tickMs: number;
    retryAfter: RetryAfter;
  };
}

interface Config {
  scenario: Json;
  stack: LayerSpec[];
  leafKind: 'server' | 'script';
  permanentErrorFraction: number;
}

const GIVE_UP_REASONS = ['success', 'deadline', 'not-retryable', 'attempt-limit', 'retry-after-too-long', 'wait-exceeds-deadline', 'budget-exhausted', 'circuit-open', 'throttled'];
/** Server counters that are not counts of requests. */
const NOT_REQUEST_COUNTS = new Set(['utilization', 'meanBusy', 'wastedWorkMs', 'maxQueue']);

const backoffArb = fc
  .record({
    kind: fc.constantFrom<BackoffKind>('none', 'constant', 'exponential', 'full-jitter', 'equal-jitter', 'decorrelated-jitter'),
    baseMs: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.double({ min: 0.5, max: 30, noNaN: true })),
    extraCapMs: fc.integer({ min: 0, max: 400 }),
    multiplier: fc.constantFrom(1, 1.5, 2, 3),
    exponentOffset: fc.constantFrom(0, 1),
  })
  .map(({ extraCapMs, ...b }) => ({ ...b, capMs: b.baseMs + extraCapMs }));

const layerArb = (k: number): fc.Arbitrary<LayerSpec> =>
  fc
    .record({
      maxAttempts: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 4 }) }, { weight: 1, arbitrary: fc.constant('unlimited' as const) }),
      perAttemptTimeoutMs: fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined }),
      deadlineMode: fc.constantFrom<Mode>('propagate', 'propagate', 'fresh', 'none'),
      backoff: backoffArb,
      tickMs: fc.constantFrom(0, 0, 1, 10, 15.6, 0.1),
      retryAfter: fc.constantFrom<RetryAfter>('honor', 'honor', 'ignore', 'honor-plus-jitter'),
      hopMs: fc.option(fc.oneof(fc.integer({ min: 0, max: 10 }), fc.constant({ dist: 'uniform', min: 0, max: 4 })), { nil: undefined }),
    })
    .map(({ perAttemptTimeoutMs, hopMs, ...policy }) => ({
      name: `l${k}`,
      ...(hopMs !== undefined ? { hopMs } : {}),
      policy: { ...policy, ...(perAttemptTimeoutMs !== undefined ? { perAttemptTimeoutMs } : {}) },
    }));

const stackArb = fc.integer({ min: 1, max: 3 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, k) => layerArb(k))));

const workloadArb = fc.oneof(
  fc.record({
    kind: fc.constant('burst'),
    clients: fc.integer({ min: 1, max: 15 }),
    startMs: fc.constantFrom<unknown>(0, { dist: 'uniform', min: 0, max: 30 }),
  }),
  fc.record({
    kind: fc.constant('closed'),
    clients: fc.integer({ min: 1, max: 4 }),
    thinkMs: fc.integer({ min: 0, max: 20 }),
    durationMs: fc.integer({ min: 20, max: 200 }),
  }),
  fc.record({
    kind: fc.constant('open'),
    rate: fc.integer({ min: 20, max: 200 }),
    durationMs: fc.integer({ min: 20, max: 200 }),
    clients: fc.integer({ min: 1, max: 5 }),
  }),
);

const statusArb = fc.constantFrom<unknown>(429, 500, 503, 503, 'timeout', 400);

const serverArb = fc.record({
  kind: fc.constant('server'),
  concurrency: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constant('unlimited')),
  queueLimit: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant('unlimited')),
  discipline: fc.constantFrom('fifo', 'lifo'),
  serviceMs: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant({ dist: 'exponential', mean: 8 })),
  dropExpired: fc.boolean(),
  faults: fc.array(
    fc
      .record({
        probability: fc.double({ min: 0, max: 1, noNaN: true }),
        status: statusArb,
        retryAfterMs: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
        latencyMs: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
      })
      .map((f) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined))),
    { maxLength: 2 },
  ),
  shedRetryAfterMs: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
}).map((s) => Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)));

const scriptEntryArb = (mayHang: boolean) =>
  fc
    .record({
      status: mayHang ? fc.constantFrom<unknown>(200, 429, 500, 503, 'timeout', 'hang') : fc.constantFrom<unknown>(200, 429, 500, 503, 'timeout'),
      durationMs: fc.integer({ min: 0, max: 60 }),
      retryAfterMs: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
    })
    .map((e) => Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined)));

/** Small valid configurations: 1-3 layers, a small burst, closed or open workload, a server or scripted leaf. */
const configArb: fc.Arbitrary<Config> = fc
  .record({
    stack: stackArb,
    workload: workloadArb,
    method: fc.constantFrom('GET', 'PUT', 'POST'),
    deadlineMs: fc.option(fc.integer({ min: 1, max: 800 }), { nil: undefined }),
    permanentErrorFraction: fc.constantFrom(0, 0, 0, 0.2),
    hopMs: fc.constantFrom<unknown>(0, 0, 2, { dist: 'uniform', min: 0, max: 5 }),
    cancellation: fc.boolean(),
    leafKind: fc.constantFrom<'server' | 'script'>('server', 'server', 'script'),
    server: serverArb,
    binMs: fc.constantFrom(1, 10, 100),
  })
  .chain((p) => {
    const last = p.stack[p.stack.length - 1] as LayerSpec;
    const script = fc.array(scriptEntryArb(last.policy.perAttemptTimeoutMs !== undefined), { minLength: 1, maxLength: 4 });
    return script.map((entries): Config => ({
      stack: p.stack,
      leafKind: p.leafKind,
      permanentErrorFraction: p.permanentErrorFraction,
      scenario: {
        workload: {
          ...p.workload,
          method: p.method,
          permanentErrorFraction: p.permanentErrorFraction,
          ...(p.deadlineMs !== undefined ? { deadlineMs: p.deadlineMs } : {}),
        },
        stack: p.stack,
        leaf: p.leafKind === 'script' ? { kind: 'script', script: entries } : p.server,
        network: { hopMs: p.hopMs },
        cancellation: p.cancellation,
        horizonMs: 60_000,
        maxEvents: 20_000,
        metrics: { timeSeriesBinMs: p.binMs, clusteringBinMs: [1, p.binMs] },
      },
    }));
  });

function run(c: Config, seed: number): { results: SimulationResults; timeline: TraceEvent[] } {
  const timeline: TraceEvent[] = [];
  const results = simulate(c.scenario, { seed, trace: (e) => timeline.push(e) });
  return { results, timeline };
}

const EPS = 1e-9;
const close = (a: number, b: number) => Math.abs(a - b) <= EPS * Math.max(1, Math.abs(a), Math.abs(b));

/** ceiling(r) = min(cap, base x multiplier^(r - 1 + exponentOffset)) (docs/concepts.md, "Backoff"). */
function ceilingMs(b: LayerSpec['policy']['backoff'], r: number): number {
  if (b.baseMs === 0) return 0;
  return Math.min(b.capMs, b.baseMs * Math.pow(b.multiplier, Math.min(1100, r - 1 + b.exponentOffset)));
}

/**
 * A layer whose calls for one operation never overlap in the timeline: every layer from 1 down to it
 * propagates the deadline. (An abandoned call under `propagate` has a spent deadline, so it never
 * waits or tries again; under `none` it may, beside the call that replaced it; and under `fresh` a
 * layer hands the layer below a full attempt timeout, which can outlive the attempt above that
 * started it, so the calls below may overlap.)
 */
function oneCallAtATime(stack: LayerSpec[], k: number): boolean {
  return stack.slice(1, k + 1).every((l) => l.policy.deadlineMode === 'propagate');
}

describe('invariants over random valid configurations', () => {
  it('every operation ends exactly once with exactly one reason, and simulated time never goes backwards', () => {
    fc.assert(
      fc.property(configArb, fc.nat(), (c, seed) => {
        const { results: r, timeline } = run(c, seed);
        for (let i = 1; i < timeline.length; i++) expect(timeline[i]!.tMs).toBeGreaterThanOrEqual(timeline[i - 1]!.tMs);
        const calls = new Set<number>();
        const ends = new Map<number, string[]>();
        for (const e of timeline) {
          if (e.layer !== 0) continue;
          if (e.event === 'call') {
            expect(calls.has(e.op)).toBe(false);
            calls.add(e.op);
          } else {
            expect(ends.has(e.op)).toBe(false); // nothing happens at the top after the operation ended
          }
          if (e.event === 'give-up') ends.set(e.op, [...(ends.get(e.op) ?? []), e.reason]);
        }
        for (const [, reasons] of ends) {
          expect(reasons).toHaveLength(1);
          expect(GIVE_UP_REASONS).toContain(reasons[0]);
        }
        expect(calls.size).toBe(r.operations.offered);
        expect(ends.size).toBe(r.operations.offered - r.operations.unfinished);
        expect(r.operations.succeeded + r.operations.failed).toBe(ends.size);
        const byReason: Record<string, number> = {};
        for (const [, [reason]] of ends) byReason[reason as string] = (byReason[reason as string] ?? 0) + 1;
        for (const reason of GIVE_UP_REASONS) expect(r.giveUps[reason] ?? 0).toBe(byReason[reason] ?? 0);
        if (r.truncated === null) {
          expect(r.operations.unfinished).toBe(0);
          expect(ends.size).toBe(calls.size);
        } else {
          expect(r.truncatedReason).toEqual(expect.any(String));
        }
      }),
      { numRuns: 150 },
    );
  });

  it("attempts per operation never exceed the product of the layers' caps, and first tries + retries = attempts at every layer", () => {
    fc.assert(
      fc.property(configArb, fc.nat(), (c, seed) => {
        const { results: r, timeline } = run(c, seed);
        const caps = c.stack.map((l) => (l.policy.maxAttempts === 'unlimited' ? Infinity : l.policy.maxAttempts));
        c.stack.forEach((_, k) => {
          const attempts = timeline.filter((e): e is Extract<TraceEvent, { event: 'attempt' }> => e.event === 'attempt' && e.layer === k);
          const bound = caps.slice(0, k + 1).reduce((a, b) => a * b, 1);
          const perOp = new Map<number, number>();
          for (const a of attempts) perOp.set(a.op, (perOp.get(a.op) ?? 0) + 1);
          for (const [, n] of perOp) expect(n).toBeLessThanOrEqual(bound);
          const counted = r.attempts[k] as SimulationResults['attempts'][number];
          expect(counted.first).toBe(attempts.filter((a) => a.attempt === 1).length);
          expect(counted.first + counted.retries).toBe(attempts.length);
          expect(counted.hedges).toBe(0);
        });
        const all = caps.reduce((a, b) => a * b, 1);
        if (Number.isFinite(all)) expect(r.leafCalls).toBeLessThanOrEqual(r.operations.offered * all);
      }),
      { numRuns: 150 },
    );
  });

  it("each wait lies within its strategy's range, never before a Retry-After, on a tick boundary, and inside the deadline", () => {
    fc.assert(
      fc.property(configArb, fc.nat(), (c, seed) => {
        const { timeline } = run(c, seed);
        /** The call of (op, layer) now running, for layers where calls never overlap: its deadline and decorrelated state. */
        const current = new Map<string, { deadlineAtMs: number; prevMs: number }>();
        timeline.forEach((e, i) => {
          const layer = c.stack[e.layer] as LayerSpec;
          const p = layer.policy;
          const b = p.backoff;
          const key = `${e.op}/${e.layer}`;
          if (e.event === 'call') current.set(key, { deadlineAtMs: e.deadlineAtMs, prevMs: b.baseMs });
          if (e.event !== 'wait') return;
          // The decision follows its outcome at once; its Retry-After hint is the outcome's.
          const o = timeline[i - 1] as TraceEvent;
          expect(o).toMatchObject({ event: 'outcome', op: e.op, layer: e.layer, tMs: e.tMs, attempt: e.retry });
          const hint = o.event === 'outcome' && o.retryAfterMs !== undefined && o.retryAfterMs >= 0 ? o.retryAfterMs : null;
          const exact = oneCallAtATime(c.stack, e.layer);
          const call = exact ? current.get(key) : undefined;

          // The backoff sample, by kind.
          const ceil = ceilingMs(b, e.retry);
          const s = e.backoffMs;
          switch (b.kind) {
            case 'none':
              expect(s).toBe(0);
              break;
            case 'constant':
              expect(s).toBe(b.baseMs);
              break;
            case 'exponential':
              expect(close(s, ceil)).toBe(true);
              break;
            case 'full-jitter':
              expect(s).toBeGreaterThanOrEqual(0);
              expect(s).toBeLessThanOrEqual(ceil * (1 + EPS));
              break;
            case 'equal-jitter':
              expect(s).toBeGreaterThanOrEqual((ceil / 2) * (1 - EPS));
              expect(s).toBeLessThanOrEqual(ceil * (1 + EPS));
              break;
            case 'decorrelated-jitter': {
              expect(s).toBeGreaterThanOrEqual(b.baseMs * (1 - EPS));
              const hi = call ? Math.min(b.capMs, 3 * call.prevMs) : b.capMs;
              expect(s).toBeLessThanOrEqual(hi * (1 + EPS));
              if (call) call.prevMs = s;
              break;
            }
          }

          // Retry-After, then the tick.
          const delay = hint === null || p.retryAfter === 'ignore' ? s : p.retryAfter === 'honor' ? Math.max(hint, s) : hint + s;
          if (hint !== null && p.retryAfter !== 'ignore') expect(e.waitMs).toBeGreaterThanOrEqual(hint - EPS * Math.max(1, hint));
          expect(close(e.waitMs, e.wakeAtMs - e.tMs)).toBe(true);
          const due = e.tMs + delay;
          expect(e.wakeAtMs).toBeGreaterThanOrEqual(due - EPS * Math.max(1, due));
          if (p.tickMs > 0) {
            const ticks = e.wakeAtMs / p.tickMs;
            expect(Math.abs(ticks - Math.round(ticks))).toBeLessThanOrEqual(1e-6);
            expect(e.wakeAtMs).toBeLessThan(due + p.tickMs * (1 + EPS));
          } else {
            expect(close(e.wakeAtMs, due)).toBe(true);
          }

          // The deadline: a wait that does not fit ends the call at once; one that fits wakes before it.
          if (!e.fits) {
            expect(timeline[i + 1]).toMatchObject({ event: 'give-up', op: e.op, layer: e.layer, tMs: e.tMs, reason: 'wait-exceeds-deadline' });
            if (call) expect(e.wakeAtMs).toBeGreaterThanOrEqual(call.deadlineAtMs);
          } else if (call) {
            expect(e.wakeAtMs).toBeLessThan(call.deadlineAtMs);
          }
        });
      }),
      { numRuns: Number(process.env.INV_RUNS ?? 200) },
    );
  });

  it('every request the server received is served, shed, faulted, dropped, cancelled, refused, rejected, lost, queued or in service at the end', () => {
    // Identity over the server's request counters (warm-up 0, so every arrival is measured).
    fc.assert(
      fc.property(
        configArb.filter((c) => c.leafKind === 'server'),
        fc.nat(),
        (c, seed) => {
          const r = simulate(c.scenario, { seed });
          const counters = Object.entries(r.server).filter(([k, v]) => typeof v === 'number' && !NOT_REQUEST_COUNTS.has(k));
          expect(counters.map(([k]) => k).sort()).toEqual(['cancelled', 'dropped', 'faulted', 'inServiceAtEnd', 'lost', 'queuedAtEnd', 'refused', 'rejected', 'served', 'shed']);
          expect(counters.reduce((n, [, v]) => n + (v as number), 0)).toBe(r.leafCalls);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('the same seed gives identical results, traced or not', () => {
    fc.assert(
      fc.property(configArb, fc.nat(), (c, seed) => {
        const a = simulate(c.scenario, { seed });
        const b = simulate(c.scenario, { seed });
        expect(JSON.stringify(b)).toBe(JSON.stringify(a));
        expect(run(c, seed).results).toEqual(a);
      }),
      { numRuns: 60 },
    );
  });
});

describe('accounting of requests the server answers without serving them', () => {
  const requestCount = (r: SimulationResults) =>
    Object.entries(r.server)
      .filter(([k, v]) => typeof v === 'number' && !NOT_REQUEST_COUNTS.has(k))
      .reduce((n, [, v]) => n + (v as number), 0);

  // Bad input is answered 400 by the server (ServerFarm.arrive) without being counted anywhere.
  it('counts the requests of bad input it answers 400', () => {
    const r = simulate(
      { workload: { kind: 'burst', clients: 100, permanentErrorFraction: 0.3 }, stack: [{ policy: { maxAttempts: 2 } }], leaf: { kind: 'server', serviceMs: 1 } },
      { seed: 3 },
    );
    expect(r.giveUps['not-retryable']).toBe(23);
    expect(requestCount(r)).toBe(r.leafCalls);
  });

  // Work held by a backend when it goes down (ServerFarm.goDown) is lost without being counted.
  it('counts the requests lost when the server goes down', () => {
    const r = simulate(
      {
        workload: { kind: 'open', rate: 200, durationMs: 2000, deadlineMs: 500 },
        stack: [{ policy: { maxAttempts: 3, perAttemptTimeoutMs: 100 } }],
        leaf: { kind: 'server', serviceMs: 20, concurrency: 2, outages: [{ atMs: 500, durationMs: 300 }] },
      },
      { seed: 3 },
    );
    expect(requestCount(r)).toBe(r.leafCalls);
  });
});
