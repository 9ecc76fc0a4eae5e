import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import type { SimulationResults } from '../../src/model/results.js';
import type { TraceEvent } from '../../src/model/trace.js';
import { flattenMetrics } from '../../src/sweep/flattenMetrics.js';

type Json = Record<string, any>;

function run(raw: Json, trace?: (e: TraceEvent) => void): SimulationResults {
  const r = resolveScenario(raw);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Model(r.scenario, { seed: 1, trace }).run();
}

/** The entry layer's timeline: [time, operation, event, attempt or reason, outcome]. */
function entryLog(raw: Json): { log: Array<[number, number, string, number | string, string?]>; r: SimulationResults } {
  const log: Array<[number, number, string, number | string, string?]> = [];
  const r = run(raw, (e) => {
    if (e.event === 'attempt') log.push([e.tMs, e.op, 'attempt', e.attempt]);
    if (e.event === 'outcome') log.push([e.tMs, e.op, 'outcome', e.attempt, e.outcome]);
    if (e.event === 'give-up') log.push([e.tMs, e.op, 'give-up', e.reason, e.outcome]);
  });
  return { log, r };
}

const edge = (r: SimulationResults, name: string) => (r.edges ?? []).find((e) => `${e.caller} -> ${e.callee}` === name);

/**
 * A burst of `clients` operations entering fe at t = 0 (zero hops); fe's handler calls db through
 * `toDb`; db answers each operation's i-th request with entry i of `script`; a bulkhead fe -> db.
 */
function graph(o: { clients: number; entry: Json; toDb: Json; script: string[]; maxConcurrent: number; fleet?: Json; calls?: number }): Json {
  const call = { service: 'db', stack: [{ name: 'to-db', policy: o.toDb }] };
  return {
    workload: { kind: 'burst', clients: o.clients, entry: { service: 'fe' } },
    stack: [{ name: 'app', policy: o.entry }],
    network: { hopMs: 0 },
    services: {
      fe: {
        fleet: o.fleet ?? { kind: 'server', serviceMs: 1 },
        endpoints: { page: { steps: [{ kind: 'call', join: 'all', calls: Array.from({ length: o.calls ?? 1 }, () => call) }] } },
      },
      db: { fleet: { kind: 'script', script: o.script }, endpoints: { get: {} } },
    },
    bulkheads: [{ caller: 'fe', callee: 'db', maxConcurrent: o.maxConcurrent }],
  };
}

describe('bulkheads (a cap on the calls in flight from each backend of a caller to a callee)', () => {
  it('a bulkhead of 2 with 3 concurrent calls refuses the third at once, and frees a slot at the attempt timeout, not at the answer', () => {
    // db answers each first request after 100 ms; fe's calls time out at 50 ms; the entry retries 503 only, 60 ms later.
    const raw = graph({
      clients: 3,
      entry: { maxAttempts: 2, backoff: { kind: 'constant', baseMs: 60 }, retryOn: ['503'] },
      toDb: { maxAttempts: 1, perAttemptTimeoutMs: 50 },
      script: ['200:100'],
      maxConcurrent: 2,
    });
    const { log, r } = entryLog(raw);
    expect(log).toEqual([
      [0, 0, 'attempt', 1],
      [0, 1, 'attempt', 1],
      [0, 2, 'attempt', 1],
      // The third call finds both slots taken: bulkhead-full at once, answered upward as 503.
      [0, 2, 'outcome', 1, '503'],
      // Operations 0 and 1 time out at fe at 50 ms (db still works on them until 100 ms): timeout upward, not retried.
      [50, 0, 'outcome', 1, 'timeout'],
      [50, 0, 'give-up', 'not-retryable', 'timeout'],
      [50, 1, 'outcome', 1, 'timeout'],
      [50, 1, 'give-up', 'not-retryable', 'timeout'],
      // The retry at 60 ms gets a slot freed at 50 ms: it is sent, and times out in turn at 110 ms.
      [60, 2, 'attempt', 2],
      [110, 2, 'outcome', 2, 'timeout'],
      [110, 2, 'give-up', 'not-retryable', 'timeout'],
    ]);
    // The refused attempt never reached db: 3 calls (not 4), and the refusal counted apart.
    expect(edge(r, 'fe -> db')).toEqual({ caller: 'fe', callee: 'db', calls: 3, retries: 1, ownRetries: 0, amplification: 1, bulkheadFull: 1 });
    expect(edge(r, 'workload -> fe')).not.toHaveProperty('bulkheadFull');
    expect(flattenMetrics(r)['edges.fe->db.bulkheadFull']).toBe(1);
    expect(r.attempts.find((a) => a.layer === 'app')).toMatchObject({ first: 3, retries: 1 });
  });

  it('an attempt holds its slot until its answer reaches the last layer, the hop back included', () => {
    // One slot; db answers at once; the hop to db and back takes 10 ms each way: the second call is refused until 20 ms.
    const raw = graph({
      clients: 2,
      entry: { maxAttempts: 1 },
      toDb: { maxAttempts: 3, backoff: { kind: 'constant', baseMs: 15 }, retryOn: ['bulkhead-full'] },
      script: ['200:0'],
      maxConcurrent: 1,
    });
    raw.services.fe.endpoints.page.steps[0].calls[0].stack[0].hopMs = { dist: 'constant', value: 10 };
    const { log, r } = entryLog(raw);
    // Operation 1's call: refused at 0 and at 15 (the slot is held until the answer arrives at 20), sent at 30, answered at 50.
    expect(log.filter((e) => e[2] === 'outcome')).toEqual([
      [20, 0, 'outcome', 1, '200'],
      [50, 1, 'outcome', 1, '200'],
    ]);
    expect(edge(r, 'fe -> db')).toMatchObject({ calls: 2, bulkheadFull: 2, ownRetries: 1 });
  });

  it('bulkhead-full is retried by a layer whose policy lists it, and by no layer that does not', () => {
    // One slot, held by operation 0's call until db answers at 100 ms.
    const base = { clients: 2, entry: { maxAttempts: 1 }, script: ['200:100'], maxConcurrent: 1 };
    const listed = entryLog(graph({ ...base, toDb: { maxAttempts: 3, backoff: { kind: 'constant', baseMs: 60 }, retryOn: ['503', 'bulkhead-full'] } }));
    // Operation 1's call: refused at 0 and 60, sent at 120 (the slot was freed at 100), answered at 220.
    expect(listed.log.filter((e) => e[1] === 1 && e[2] !== 'attempt')).toEqual([
      [220, 1, 'outcome', 1, '200'],
      [220, 1, 'give-up', 'success', '200'],
    ]);
    expect(edge(listed.r, 'fe -> db')).toMatchObject({ calls: 2, bulkheadFull: 2 });
    // The default retryOn (timeout, 500, 503, 429, conflict) does not list it: the call gives up at once, 503 upward, even though the entry retries 503... once.
    const unlisted = entryLog(graph({ ...base, toDb: { maxAttempts: 3, backoff: { kind: 'constant', baseMs: 60 } } }));
    expect(unlisted.log.filter((e) => e[1] === 1)).toEqual([
      [0, 1, 'attempt', 1],
      [0, 1, 'outcome', 1, '503'],
      [0, 1, 'give-up', 'attempt-limit', '503'],
    ]);
    expect(edge(unlisted.r, 'fe -> db')).toMatchObject({ calls: 1, bulkheadFull: 1 });
    expect(unlisted.r.operations).toMatchObject({ succeeded: 1, failed: 1 });
  });

  it('is shared by the call sites of the caller, and kept per calling backend', () => {
    // Two calls to db in one step, one slot: the second call site is refused while the first holds it.
    const shared = run(graph({ clients: 1, entry: { maxAttempts: 1 }, toDb: { maxAttempts: 1 }, script: ['200:10'], maxConcurrent: 1, calls: 2 }));
    expect(edge(shared, 'fe -> db')).toMatchObject({ calls: 1, bulkheadFull: 1 });
    expect(shared.operations).toMatchObject({ succeeded: 0, failed: 1 });
    // A fe of two backends: handlers alternate between them, so two concurrent calls each find a free slot of their own backend.
    const pool = { kind: 'pool', backends: 2, server: { serviceMs: 1 }, loadBalancer: 'round-robin' };
    const two = run(graph({ clients: 2, entry: { maxAttempts: 1 }, toDb: { maxAttempts: 1 }, script: ['200:10'], maxConcurrent: 1, fleet: pool }));
    expect(edge(two, 'fe -> db')).toMatchObject({ calls: 2, bulkheadFull: 0 });
    expect(two.operations).toMatchObject({ succeeded: 2 });
    const one = run(graph({ clients: 2, entry: { maxAttempts: 1 }, toDb: { maxAttempts: 1 }, script: ['200:10'], maxConcurrent: 1 }));
    expect(edge(one, 'fe -> db')).toMatchObject({ calls: 1, bulkheadFull: 1 });
  });

  it('outstanding calls after a join keep their slots; cancelled ones give them back', () => {
    // fe calls a (answers at 10) and db (answers at 100) joined by any: the join decides at 10, the db call runs on and holds the slot.
    const raw = (cancellation: boolean): Json => {
      const g = graph({ clients: 1, entry: { maxAttempts: 3, backoff: { kind: 'constant', baseMs: 20 }, retryOn: ['503', '500'] }, toDb: { maxAttempts: 1 }, script: ['200:100'], maxConcurrent: 1 });
      g.services.fe.endpoints.page.steps = [
        { kind: 'call', join: 'any', cancellation, calls: [{ service: 'a' }, { service: 'db' }] },
        // The second step calls db again: a slot must be free.
        { kind: 'call', calls: [{ service: 'db' }] },
      ];
      g.services.a = { fleet: { kind: 'script', script: ['200:10'] }, endpoints: { get: {} } };
      return g;
    };
    const kept = run(raw(false));
    // At 10 the second step's call finds the slot held by the outstanding db call: refused, 503 up. The entry
    // retries at 30 and 60, while the slot is still held (until 100): each retry's two db calls are refused (step 1's,
    // which any does not wait for, and step 2's after a answered). One call, 1 + 2 + 2 refusals.
    expect(edge(kept, 'fe -> db')).toMatchObject({ calls: 1, bulkheadFull: 5 });
    expect(kept.operations).toMatchObject({ succeeded: 0, failed: 1 });
    const cancelled = run(raw(true));
    expect(edge(cancelled, 'fe -> db')).toMatchObject({ calls: 2, bulkheadFull: 0 });
    expect(cancelled.operations).toMatchObject({ succeeded: 1 });
  });
});
