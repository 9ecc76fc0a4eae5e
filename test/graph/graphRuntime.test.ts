import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import { callsIfEveryCallFails } from '../../src/model/graph/failureAmplification.js';
import { Model } from '../../src/model/Model.js';
import type { SimulationResults } from '../../src/model/results.js';
import type { Scenario } from '../../src/model/scenario.js';
import type { TraceEvent } from '../../src/model/trace.js';
import { flattenMetrics } from '../../src/sweep/flattenMetrics.js';

type Json = Record<string, any>;

function resolved(raw: Json): Scenario {
  const r = resolveScenario(raw);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.scenario;
}

function run(raw: Json, seed = 1, trace?: (e: TraceEvent) => void): SimulationResults {
  return new Model(resolved(raw), { seed, trace }).run();
}

const tries = (n: number) => ({ maxAttempts: n, backoff: { kind: 'none' } });
const edgeRows = (r: SimulationResults) => (r.edges ?? []).map((e) => [`${e.caller} -> ${e.callee}`, e.calls, e.retries, e.ownRetries, e.amplification]);

describe('calls on every edge when every call fails (a frontend fanning out to two services that both call one leaf answering 503)', () => {
  const ops = 20;
  const raw = {
    workload: { kind: 'burst', clients: ops, entry: { service: 'fe' } },
    stack: [{ name: 'app', policy: tries(3) }],
    network: { hopMs: 0 },
    services: {
      fe: {
        fleet: { kind: 'server', serviceMs: 1 },
        endpoints: {
          page: {
            steps: [
              {
                kind: 'call',
                join: 'all',
                calls: [
                  { service: 'a', stack: [{ name: 'a-sdk', policy: tries(2) }, { name: 'a-proxy', policy: tries(2) }] },
                  { service: 'b', stack: [{ name: 'b-sdk', policy: tries(3) }] },
                ],
              },
            ],
          },
        },
      },
      a: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'a-db', policy: tries(2) }] }] }] } } },
      b: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'b-db', policy: tries(4) }] }] }] } } },
      db: { fleet: { kind: 'script', script: ['503:1'] }, endpoints: { get: {} } },
    },
  };

  it('equals the sum over paths of the products of maxAttempts, by hand and by callsIfEveryCallFails', () => {
    const r = run(raw);
    expect(r.operations).toMatchObject({ offered: ops, succeeded: 0, failed: ops, unfinished: 0 });
    // By hand, per operation: workload -> fe 3; fe -> a 3 x (2 x 2) = 12; fe -> b 3 x 3 = 9; a -> db 12 x 2 = 24; b -> db 9 x 4 = 36.
    const byHand: Record<string, number> = { 'workload -> fe': 3, 'fe -> a': 12, 'fe -> b': 9, 'a -> db': 24, 'b -> db': 36 };
    const sc = resolved(raw);
    const theory = callsIfEveryCallFails(sc.graph!, sc.stack);
    expect(Object.fromEntries(theory.map((e) => [`${e.caller} -> ${e.callee}`, e.callsPerOperation]))).toEqual(byHand);
    expect(Object.fromEntries((r.edges ?? []).map((e) => [`${e.caller} -> ${e.callee}`, e.amplification]))).toEqual(byHand);
    expect(Object.fromEntries((r.edges ?? []).map((e) => [`${e.caller} -> ${e.callee}`, e.calls]))).toEqual(
      Object.fromEntries(Object.entries(byHand).map(([k, v]) => [k, v * ops])),
    );
  });

  it('splits retries (any layer from the entry past its first attempt) from own retries (a layer of the edge\'s own stack)', () => {
    const r = run(raw);
    // fe -> a: 12 calls per operation; the first of them only is no retry anywhere; 3 of them (one per handler) are first tries of a's own stack.
    expect(edgeRows(r)).toEqual([
      ['workload -> fe', 3 * ops, 2 * ops, 2 * ops, 3],
      ['fe -> a', 12 * ops, 11 * ops, 9 * ops, 12],
      ['fe -> b', 9 * ops, 8 * ops, 6 * ops, 9],
      ['a -> db', 24 * ops, 23 * ops, 12 * ops, 24],
      ['b -> db', 36 * ops, 35 * ops, 27 * ops, 36],
    ]);
  });

  it('counts each service\'s arrivals from all its callers, retries apart, beside its fleet\'s totals', () => {
    const r = run(raw);
    expect((r.services ?? []).map((s) => [s.service, s.arrivals, s.retries, s.served])).toEqual([
      ['fe', 3 * ops, 2 * ops, 0],
      ['a', 12 * ops, 11 * ops, 0],
      ['b', 9 * ops, 8 * ops, 0],
      ['db', 60 * ops, 58 * ops, 0],
    ]);
  });

  it('gives each edge its rows among the metrics a sweep aggregates (summary.csv), beside degraded operations', () => {
    const flat = flattenMetrics(run(raw));
    expect(Object.entries(flat).filter(([k]) => k.startsWith('edges.') && k.includes('b->db'))).toEqual([
      ['edges.b->db.calls', 36 * ops],
      ['edges.b->db.retries', 35 * ops],
      ['edges.b->db.ownRetries', 27 * ops],
      ['edges.b->db.amplification', 36],
    ]);
    expect(Object.keys(flat).filter((k) => k.startsWith('edges.')).length).toBe(5 * 4);
    expect(flat['operations.degraded']).toBe(0);
  });
});

/** A frontend whose one step calls three scripted leaf services a, b, c (one attempt each unless said), with zero hops. */
function joinGraph(join: unknown, o: { cancellation?: boolean; optionalB?: boolean; bTries?: number; scripts?: [string[], string[], string[]] } = {}): Json {
  const [sa, sb, sc] = o.scripts ?? [['200:10'], ['503:20', '200:20'], ['200:30']];
  return {
    workload: { kind: 'burst', clients: 1, entry: { service: 'fe' } },
    stack: [{ name: 'app', policy: tries(1) }],
    network: { hopMs: 0 },
    services: {
      fe: {
        fleet: { kind: 'server', serviceMs: 1 },
        endpoints: {
          page: {
            steps: [
              {
                kind: 'call',
                join,
                cancellation: o.cancellation ?? false,
                calls: [
                  { service: 'a', stack: [{ name: 'to-a', policy: tries(1) }] },
                  { service: 'b', optional: o.optionalB ?? false, stack: [{ name: 'to-b', policy: { maxAttempts: o.bTries ?? 1, backoff: { kind: 'constant', baseMs: 5 } } }] },
                  { service: 'c', stack: [{ name: 'to-c', policy: tries(1) }] },
                ],
              },
            ],
          },
        },
      },
      a: { fleet: { kind: 'script', script: sa }, endpoints: { get: {} } },
      b: { fleet: { kind: 'script', script: sb }, endpoints: { get: {} } },
      c: { fleet: { kind: 'script', script: sc }, endpoints: { get: {} } },
    },
  };
}

/** The entry layer's timeline: [time, event, outcome or reason]. */
function entryLog(raw: Json): { log: Array<[number, string, string?]>; r: SimulationResults } {
  const log: Array<[number, string, string?]> = [];
  const r = run(raw, 1, (e) => {
    if (e.event === 'outcome') log.push([e.tMs, 'outcome', e.outcome]);
    if (e.event === 'give-up') log.push([e.tMs, 'give-up', (e as { reason: string }).reason]);
  });
  return { log, r };
}

const calls = (r: SimulationResults) => Object.fromEntries((r.edges ?? []).map((e) => [`${e.caller} -> ${e.callee}`, e.calls]));

describe('joins decide at the documented moments (scripted leaves: a 200 at 10 ms, b 503 at 20 ms, c 200 at 30 ms)', () => {
  it('all fails at the first failed call (b at 20 ms), answering 503 upward', () => {
    const { log, r } = entryLog(joinGraph('all'));
    expect(log).toEqual([
      [20, 'outcome', '503'],
      [20, 'give-up', 'attempt-limit'],
    ]);
    expect(r.completionTimeMs).toBe(20);
    expect(r.operations).toMatchObject({ succeeded: 0, failed: 1, degraded: 0 });
  });

  it('any succeeds at the first success (a at 10 ms)', () => {
    const { log, r } = entryLog(joinGraph('any'));
    expect(log).toEqual([
      [10, 'outcome', '200'],
      [10, 'give-up', 'success'],
    ]);
    expect(r.completionTimeMs).toBe(10);
    expect(r.operations).toMatchObject({ succeeded: 1, failed: 0 });
  });

  it('any fails when every call failed, at the last failure', () => {
    const { log } = entryLog(joinGraph('any', { scripts: [['500:10'], ['503:20'], ['429:30']] }));
    // The deciding outcome is c's 429, answered upward as 503.
    expect(log[0]).toEqual([30, 'outcome', '503']);
  });

  it('quorum 2 succeeds at the second success (c at 30 ms), quorum 3 fails once b fails (20 ms)', () => {
    expect(entryLog(joinGraph({ quorum: 2 })).log[0]).toEqual([30, 'outcome', '200']);
    expect(entryLog(joinGraph({ quorum: 3 })).log[0]).toEqual([20, 'outcome', '503']);
  });

  it('quorum 2 fails once fewer than 2 can still succeed (a 500 at 10 ms, b 503 at 20 ms), with 500 mapped to 500', () => {
    expect(entryLog(joinGraph({ quorum: 2 }, { scripts: [['500:10'], ['503:20'], ['200:30']] })).log[0]).toEqual([20, 'outcome', '503']);
    expect(entryLog(joinGraph({ quorum: 2 }, { scripts: [['503:10'], ['500:20'], ['200:30']] })).log[0]).toEqual([20, 'outcome', '500']);
  });

  it('an optional call that fails never decides: all succeeds when the required ones did and the optional ended, degraded', () => {
    const { log, r } = entryLog(joinGraph('all', { optionalB: true }));
    expect(log[0]).toEqual([30, 'outcome', '200']);
    expect(r.operations).toMatchObject({ succeeded: 1, failed: 0, degraded: 1 });
    // An optional call that takes longer than the required ones is waited for (it ended at 40 here).
    const slow = entryLog(joinGraph('all', { optionalB: true, scripts: [['200:10'], ['503:40'], ['200:30']] }));
    expect(slow.log[0]).toEqual([40, 'outcome', '200']);
    expect(slow.r.operations).toMatchObject({ degraded: 1 });
    const fine = entryLog(joinGraph('all', { optionalB: true, scripts: [['200:10'], ['200:20'], ['200:30']] }));
    expect(fine.r.operations).toMatchObject({ succeeded: 1, degraded: 0 });
  });

  it('without cancellation a call left outstanding runs on (b retries at 25 ms after any decided at 10); with it, it is cancelled', () => {
    const on = entryLog(joinGraph('any', { bTries: 2 }));
    expect(on.log[0]).toEqual([10, 'outcome', '200']);
    expect(calls(on.r)).toEqual({ 'workload -> fe': 1, 'fe -> a': 1, 'fe -> b': 2, 'fe -> c': 1 });
    // The run drains once b's retry is answered (25 + 20) and c answered (30).
    expect(on.r.simulatedMs).toBe(45);
    const cancelled = entryLog(joinGraph('any', { bTries: 2, cancellation: true }));
    expect(cancelled.log[0]).toEqual([10, 'outcome', '200']);
    expect(calls(cancelled.r)).toEqual({ 'workload -> fe': 1, 'fe -> a': 1, 'fe -> b': 1, 'fe -> c': 1 });
    expect(cancelled.r.simulatedMs).toBe(10);
  });

  it('an entry mix sends each operation to one entry, drawn by weight', () => {
    const raw = joinGraph('all');
    raw.workload = { kind: 'burst', clients: 2000, entry: [{ service: 'a', weight: 3 }, { service: 'c', weight: 1 }] };
    const r = run(raw);
    const c = calls(r);
    expect(c['workload -> a']! + c['workload -> c']!).toBe(2000);
    // 3:1 within 4 binomial standard deviations (sd = sqrt(2000 * 0.75 * 0.25) ~ 19.4).
    expect(Math.abs(c['workload -> a']! - 1500)).toBeLessThan(78);
    expect(r.operations).toMatchObject({ offered: 2000, succeeded: 2000 });
  });
});

describe('deadlines across services', () => {
  it('a handler\'s calls work to the absolute time its caller stops waiting (gRPC deadline propagation)', () => {
    const raw = joinGraph('all', { scripts: [['503:10'], ['503:10'], ['503:10']] });
    raw.workload = { kind: 'burst', clients: 1, deadlineMs: 15, entry: { service: 'fe' } };
    raw.services.fe.endpoints.page.steps[0].calls = [{ service: 'c', stack: [{ name: 'to-c', policy: { maxAttempts: 5, backoff: { kind: 'constant', baseMs: 1 } } }] }];
    const log: Array<[number, string, number, string]> = [];
    const r = run(raw, 1, (e) => {
      if (e.event === 'give-up') log.push([e.tMs, e.event, e.attempts, e.reason]);
    });
    // Attempts to c at 0 and 11; the second stops waiting at 15 (the entry's deadline), and nothing more is sent.
    expect(calls(r)).toEqual({ 'workload -> fe': 1, 'fe -> c': 2 });
    expect(log).toEqual([[15, 'give-up', 1, 'deadline']]);
  });
});

describe('fork-join of two M/M/1 services (Flatto and Hahn 1984; Nelson and Tantawi 1988)', () => {
  /** Mean response of a two-server fork-join with Poisson arrivals (rate lambda) and exponential service (rate mu): (12 - rho) / 8 x 1 / (mu - lambda). */
  const forkJoinMeanMs = (lambda: number, mu: number) => ((12 - lambda / mu) / 8) * (1 / (mu - lambda));

  it.each([0.5, 0.8])('at rho %s the mean response is within the 95 percent interval of a long run', (rho) => {
    const mu = 1; // per ms
    const lambda = rho * mu;
    const leaf = { fleet: { kind: 'server', concurrency: 1, serviceMs: { dist: 'exponential', mean: 1 / mu } }, endpoints: { get: {} } };
    const raw = {
      workload: { kind: 'open', rate: lambda * 1000, durationMs: 4000, clients: 1, entry: { service: 'fe' } },
      stack: [{ name: 'app', policy: tries(1) }],
      network: { hopMs: 0 },
      warmupMs: 200,
      services: {
        fe: {
          fleet: { kind: 'server', serviceMs: 1 },
          endpoints: { page: { steps: [{ kind: 'call', join: 'all', calls: [{ service: 'a', stack: [{ name: 'to-a', policy: tries(1) }] }, { service: 'b', stack: [{ name: 'to-b', policy: tries(1) }] }] }] } },
        },
        a: leaf,
        b: leaf,
      },
    };
    const means: number[] = [];
    for (let seed = 1; seed <= 20; seed++) {
      const r = run(raw, seed);
      expect(r.operations.failed).toBe(0);
      means.push(r.latencyMs.mean as number);
    }
    const n = means.length;
    const mean = means.reduce((s, x) => s + x, 0) / n;
    const sd = Math.sqrt(means.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
    const half = (2.093 * sd) / Math.sqrt(n); // t(0.975, 19)
    const theory = forkJoinMeanMs(lambda, mu);
    expect(Math.abs(mean - theory)).toBeLessThan(half);
    // The interval is narrow enough to tell the fork-join from a single M/M/1 (1 / (mu - lambda)).
    expect(Math.abs(1 / (mu - lambda) - theory)).toBeGreaterThan(3 * half);
  });
});
