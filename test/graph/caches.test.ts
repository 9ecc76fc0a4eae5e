import { describe, expect, it } from 'vitest';
import { experimentJsonSchema, resolveScenario } from '../../src/experiment/index.js';
import { cheHitRatio, ZipfKeys } from '../../src/model/cache/ZipfKeys.js';
import { GraphRun } from '../../src/model/graph/GraphRun.js';
import { Model } from '../../src/model/Model.js';
import type { ServiceResult, SimulationResults } from '../../src/model/results.js';
import type { Scenario } from '../../src/model/scenario.js';
import { flattenMetrics } from '../../src/sweep/flattenMetrics.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';
import { jsonSchemaCheck } from '../helpers/jsonSchemaCheck.js';

type Json = Record<string, any>;

function resolve(raw: Json): Scenario {
  const r = resolveScenario(raw);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.scenario;
}

function run(raw: Json, seed = 1): SimulationResults {
  return new Model(resolve(raw), { seed }).run();
}

const none = { kind: 'none' };
const tries = (n: number, over: Json = {}) => ({ maxAttempts: n, backoff: none, ...over });
const service = (r: SimulationResults, name: string): ServiceResult => (r.services ?? []).find((s) => s.service === name) as ServiceResult;
const cacheOf = (r: SimulationResults, name = 'db') => (service(r, 'app').caches ?? {})[name];
const edge = (r: SimulationResults, caller: string, callee: string) => (r.edges ?? []).find((e) => e.caller === caller && e.callee === callee);

/**
 * app's one endpoint calls db through `stack`, with `cache` in front of the call; one key (K = 1)
 * unless told, so that every operation looks the same key up; zero hops; a closed loop of one
 * client that thinks 10 ms between operations, for `durationMs`.
 */
function graph(cache: Json, o: { stack?: Json[]; db?: Json; durationMs?: number; clients?: number; app?: Json; extraCalls?: Json[]; join?: unknown; workload?: Json } = {}): Json {
  const call = { kind: 'call', calls: [{ service: 'db', stack: o.stack ?? [{ name: 'to-db', policy: tries(1) }], cache: { capacity: 1, keys: 1, zipf: 0, hitLatencyMs: 0, ...cache } }, ...(o.extraCalls ?? [])], ...(o.join !== undefined ? { join: o.join } : {}) };
  return {
    workload: o.workload ?? { kind: 'closed', clients: o.clients ?? 1, thinkMs: 10, durationMs: o.durationMs ?? 40, entry: { service: 'app' } },
    stack: [{ name: 'client', policy: tries(1) }],
    network: { hopMs: 0 },
    metrics: { timeSeriesBinMs: 10 },
    services: {
      app: { fleet: o.app ?? { kind: 'server', concurrency: 100, serviceMs: 0 }, endpoints: { get: { steps: [call] } } },
      db: { fleet: o.db ?? { kind: 'script', script: ['200:0'] }, endpoints: { q: {} } },
      other: { fleet: { kind: 'script', script: ['200:1'] }, endpoints: { q: {} } },
    },
  };
}

describe("lookaside caches: LRU hit ratio (Che's approximation) through a graph run", () => {
  it('K = 10,000, capacity 1,000, s = 0.8, warm, zero latencies: 10,000 warm-up requests then 100,000 measured, within 0.02 of Che', () => {
    // One client, one operation per ms (think 1 ms, everything else 0 ms): 10,000 in the warm-up, 100,000 measured.
    const raw = graph({ capacity: 1000, keys: 10_000, zipf: 0.8 }, { durationMs: 100_000 });
    raw.workload.thinkMs = 1;
    raw.warmupMs = 10_000;
    const r = run(raw);
    const c = cacheOf(r)!;
    expect(c.lookups).toBe(100_000);
    const che = cheHitRatio(new ZipfKeys(10_000, 0.8), 1000);
    expect(che).toBeCloseTo(0.4367, 3);
    expect(Math.abs((c.hitRatio as number) - che)).toBeLessThan(0.02);
    // A hit makes no call: the misses are db's calls (measured ones; the warm-up's are not counted).
    expect(edge(r, 'app', 'db')?.calls).toBe(c.lookups - c.hits);
    expect(c.fills).toBe(c.lookups - c.hits);
  });

  it('a cache too small for its key space hits less, and a uniform popularity hits capacity / keys', () => {
    const raw = graph({ capacity: 100, keys: 1000, zipf: 0 }, { durationMs: 50_000 });
    raw.workload.thinkMs = 1;
    raw.warmupMs = 2000;
    const c = cacheOf(run(raw))!;
    expect(Math.abs((c.hitRatio as number) - 0.1)).toBeLessThan(0.01);
  });
});

describe('lookaside caches: fills, flushes, TTL, copies (scripted, exact)', () => {
  it('a miss fills on a success: the next lookup of the key hits, answered after the hit latency without a call', () => {
    // Ops at 0 (miss: db answers at once, fill), 10 (hit, 1 ms), 21 (hit), 32 (hit).
    const r = run(graph({ initial: 'empty', hitLatencyMs: 1 }));
    expect(cacheOf(r)).toMatchObject({ lookups: 4, hits: 3, fills: 1, coalesced: 0, lateSuccesses: 0, hitRatio: 0.75 });
    expect(edge(r, 'app', 'db')?.calls).toBe(1);
    expect(r.operations).toMatchObject({ offered: 4, succeeded: 4 });
    expect(r.latencyMs).toMatchObject({ count: 4, max: 1 });
  });

  it('a failure fills nothing: every lookup misses', () => {
    const r = run(graph({ initial: 'empty' }, { db: { kind: 'script', script: ['500:0'] } }));
    expect(cacheOf(r)).toMatchObject({ lookups: 4, hits: 0, fills: 0 });
    expect(edge(r, 'app', 'db')?.calls).toBe(4);
    expect(r.operations).toMatchObject({ offered: 4, failed: 4 });
  });

  it("retries inside the call's stack reuse the miss: one lookup, the retry's success fills", () => {
    // Op 0: attempt 1 fails (500), attempt 2 succeeds and fills; ops at 10, 20, 30 hit.
    const r = run(graph({ initial: 'empty' }, { stack: [{ name: 'to-db', policy: tries(2) }], db: { kind: 'script', script: ['500:0', '200:0'] } }));
    expect(cacheOf(r)).toMatchObject({ lookups: 4, hits: 3, fills: 1 });
    expect(edge(r, 'app', 'db')).toMatchObject({ calls: 2, ownRetries: 1 });
  });

  it('a retry by a layer above re-enters the handler and looks up again', () => {
    // The client's two attempts at app each look up: op 0's first fails at db (500, no fill), its
    // retry at app misses again and db's second answer (200) fills; later ops hit.
    const raw = graph({ initial: 'empty' }, { db: { kind: 'script', script: ['500:0', '200:0'] } });
    raw.stack = [{ name: 'client', policy: tries(2) }];
    const r = run(raw);
    expect(cacheOf(r)).toMatchObject({ lookups: 5, hits: 3, fills: 1 });
    expect(edge(r, 'workload', 'app')).toMatchObject({ calls: 5, retries: 1 });
    expect(edge(r, 'app', 'db')?.calls).toBe(2);
  });

  it("a success after the call's attempt timed out fills nothing, and its work is wasted", () => {
    // db (a server, 10 ms per request) answers at 10; the call's attempt times out at 5: the
    // operation fails at 5, the next starts at 15 and misses again (5 ms timeout, the answer at 25
    // is late again): nothing is ever filled, each request's 10 ms are wasted work at db.
    const r = run(
      graph({ initial: 'empty' }, { stack: [{ name: 'to-db', policy: tries(1, { perAttemptTimeoutMs: 5 }) }], db: { kind: 'server', concurrency: 10, serviceMs: 10 }, durationMs: 30 }),
    );
    // Ops at 0 and 15 (the one due at 30 is past the duration).
    expect(cacheOf(r)).toMatchObject({ lookups: 2, hits: 0, fills: 0, lateSuccesses: 0 });
    expect(r.operations).toMatchObject({ offered: 2, failed: 2 });
    expect(service(r, 'db')).toMatchObject({ served: 2, wastedWorkMs: 20 });
  });

  it("the same success within the attempt's timeout fills: a retry within the stack answers in time", () => {
    // Attempt 1 times out at 5 (its answer at 10 is late), attempt 2 at 5 answers at 6 and fills.
    const r = run(
      graph({ initial: 'empty' }, { stack: [{ name: 'to-db', policy: tries(2, { perAttemptTimeoutMs: 5 }) }], db: { kind: 'script', script: ['200:10', '200:1'] } }),
    );
    expect(cacheOf(r)).toMatchObject({ lookups: 4, hits: 3, fills: 1 });
    expect(edge(r, 'app', 'db')?.calls).toBe(2);
  });

  it('a success that reaches the cache after its handler stopped waiting (join any, no cancellation) fills nothing', () => {
    // The step's other call answers at 1 and decides "any"; the cached call's success at 2 comes
    // after: a late success, no fill. Ops at 0, 11, 22, 33: every one misses.
    const r = run(graph({ initial: 'empty' }, { db: { kind: 'script', script: ['200:2'] }, extraCalls: [{ service: 'other' }], join: 'any' }));
    expect(cacheOf(r)).toMatchObject({ lookups: 4, hits: 0, fills: 0, lateSuccesses: 4 });
    expect(r.operations).toMatchObject({ offered: 4, succeeded: 4 });
  });

  it('a hit answered after its step was decided without it is a stale timer: the run ends with its last operation', () => {
    // Warm; the hit takes 5 ms, the step's other call answers at 1 and decides "any": the operation
    // ends at 1 (the next would start at 11, past the duration); the hit's event at 5 answers nothing.
    const r = run(graph({ hitLatencyMs: 5 }, { extraCalls: [{ service: 'other' }], join: 'any', durationMs: 10 }));
    expect(cacheOf(r)).toMatchObject({ lookups: 1, hits: 1 });
    expect(r.latencyMs.max).toBe(1);
    expect(r.simulatedMs).toBe(1);
  });

  it('starts warm (the key of K = 1 is held) unless initial is "empty"', () => {
    const warm = run(graph({}));
    expect(cacheOf(warm)).toMatchObject({ lookups: 4, hits: 4, fills: 0 });
    expect(edge(warm, 'app', 'db')?.calls).toBe(0);
    const cold = run(graph({ initial: 'empty' }));
    expect(cacheOf(cold)).toMatchObject({ lookups: 4, hits: 3, fills: 1 });
  });

  it("a warm start is the LRU state of 20 x capacity requests drawn from the keys' popularity (K = 3, capacity 2)", () => {
    // After 40 requests an LRU of 2 over 3 keys holds the last two distinct keys requested, in its
    // stationary law (move-to-front): P(holds {1, 2}) = p1 p2 / (1 - p1) + p2 p1 / (1 - p2), with
    // zipf 1: p = (6, 3, 2) / 11, 18/55 + 18/88 = 0.5318. Over 400 seeds (sd 0.025), within 0.1.
    const sc = resolve(graph({ capacity: 2, keys: 3, zipf: 1 }));
    let both = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const held = new GraphRun(sc, { seed }).caches.cache('app', 'db')!.copies[0]!.keysInOrder();
      expect(held.length).toBe(2);
      if (!held.includes(3)) both++;
    }
    expect(Math.abs(both / 400 - (18 / 55 + 18 / 88))).toBeLessThan(0.1);
  });

  it('a flush empties the cache at its time; fills after it are made', () => {
    // Warm (key held). Ops at 0, 10 hit; flush at 15; op at 20 misses and fills; op at 30 hits.
    const r = run(graph({ flushAtMs: [15] }));
    expect(cacheOf(r)).toMatchObject({ lookups: 4, hits: 3, fills: 1 });
    expect(cacheOf(r)?.timeSeries).toEqual({ lookups: [1, 1, 1, 1], hits: [1, 1, 0, 1] });
    expect(edge(r, 'app', 'db')?.calls).toBe(1);
    // A flush past the end of the operations changes nothing (and does not lengthen the run).
    const late = run(graph({ flushAtMs: [1000] }));
    expect(cacheOf(late)).toMatchObject({ lookups: 4, hits: 4 });
    expect(late.simulatedMs).toBe(30);
    expect(late.truncated).toBeNull();
    // One past the horizon never comes and does not truncate the run at the horizon.
    const beyond = graph({ flushAtMs: [1000] });
    beyond.horizonMs = 500;
    const never = run(beyond);
    expect([never.truncated, never.simulatedMs]).toEqual([null, 30]);
  });

  it('TTL: counted from the fill, a hit does not extend it, an expired entry is a miss and is filled again', () => {
    // Empty; ttl 15. Op 0 misses, fills at 0. 10: hit (age 10). 20: expired (age 20), miss, fill at 20.
    // 30: hit (age 10). 40: expired (age 20), miss, fill. 50: hit.
    const r = run(graph({ initial: 'empty', ttlMs: 15 }, { durationMs: 60 }));
    expect(cacheOf(r)).toMatchObject({ lookups: 6, hits: 3, fills: 3 });
    expect(cacheOf(r)?.timeSeries.hits).toEqual([0, 1, 0, 1, 0, 1]);
    // Without a TTL: one fill.
    expect(cacheOf(run(graph({ initial: 'empty' }, { durationMs: 60 })))).toMatchObject({ lookups: 6, hits: 5, fills: 1 });
    // An entry is expired at exactly its TTL (age >= ttl): with ttl 10, every lookup 10 ms after the last fill misses.
    expect(cacheOf(run(graph({ initial: 'empty', ttlMs: 10 }, { durationMs: 60 })))).toMatchObject({ lookups: 6, hits: 0, fills: 6 });
  });

  it('perBackend: each backend of the calling service has its own copy; shared by default', () => {
    // app: two backends, round robin: ops at 0, 10, 20, 30 go to backends 0, 1, 0, 1.
    const app = { kind: 'pool', backends: 2, server: { concurrency: 10, serviceMs: 0 }, loadBalancer: 'round-robin' };
    const own = run(graph({ initial: 'empty', perBackend: true }, { app }));
    expect(cacheOf(own)).toMatchObject({ lookups: 4, hits: 2, fills: 2 });
    expect(edge(own, 'app', 'db')?.calls).toBe(2);
    const shared = run(graph({ initial: 'empty' }, { app }));
    expect(cacheOf(shared)).toMatchObject({ lookups: 4, hits: 3, fills: 1 });
    // A flush empties every copy: warm copies; op 0 hits at backend 0; flush at 5; ops at 10 (backend 1)
    // and 20 (backend 0) miss and fill their copies; op at 30 (backend 1) hits.
    const flushed = run(graph({ perBackend: true, flushAtMs: [5] }, { app }));
    expect(cacheOf(flushed)).toMatchObject({ lookups: 4, hits: 2, fills: 2 });
  });

  it('warm(n) fills the n most popular keys, the most popular at the head, evicting by LRU (an operator warming a cache)', () => {
    const sc = resolve(graph({ capacity: 3, keys: 10, zipf: 1, initial: 'empty', perBackend: true }, { app: { kind: 'pool', backends: 2, server: { serviceMs: 0 } } }));
    const caches = new GraphRun(sc, { seed: 1 }).caches;
    const c = caches.cache('app', 'db')!;
    expect(caches.at('services.app.endpoints.get.steps.0.calls.0.cache')).toBe(c);
    c.warm(5, 0);
    for (const copy of c.copies) expect(copy.keysInOrder()).toEqual([1, 2, 3]);
  });
});

describe('lookaside caches: request coalescing', () => {
  /** Three operations at once (a burst), one key, db answering after 10 ms. */
  const burst = (cache: Json, script: string, o: Json = {}) => graph({ initial: 'empty', ...cache }, { workload: { kind: 'burst', clients: 3, entry: { service: 'app' } }, db: { kind: 'script', script: [script] }, ...o });

  it('one miss per key in flight: the later misses wait and share its success (they count as misses)', () => {
    const r = run(burst({ coalesce: true }, '200:10'));
    expect(edge(r, 'app', 'db')?.calls).toBe(1);
    expect(cacheOf(r)).toMatchObject({ lookups: 3, hits: 0, coalesced: 2, fills: 1 });
    expect(r.operations).toMatchObject({ offered: 3, succeeded: 3 });
    expect(r.latencyMs).toMatchObject({ count: 3, p50: 10, max: 10 });
    // Without coalescing every miss calls.
    const plain = run(burst({}, '200:10'));
    expect(edge(plain, 'app', 'db')?.calls).toBe(3);
    expect(cacheOf(plain)).toMatchObject({ lookups: 3, coalesced: 0, fills: 3 });
  });

  it('and share its failure; the mark clears when the call ends (a later miss calls again)', () => {
    const r = run(burst({ coalesce: true }, '500:10'));
    expect(edge(r, 'app', 'db')?.calls).toBe(1);
    expect(r.operations).toMatchObject({ offered: 3, failed: 3 });
    expect(cacheOf(r)).toMatchObject({ lookups: 3, coalesced: 2, fills: 0 });
    // A closed loop of 2 clients: at 0 both miss (one waits); both fail at 10, start again at 20 and
    // coalesce again: 2 calls to db over 2 rounds.
    const loop = run(graph({ initial: 'empty', coalesce: true }, { clients: 2, durationMs: 30, db: { kind: 'script', script: ['500:10'] } }));
    expect(edge(loop, 'app', 'db')?.calls).toBe(2);
    expect(cacheOf(loop)).toMatchObject({ lookups: 4, coalesced: 2 });
  });

  it("coalesces the whole call, retries included: the waiters share the retry's success", () => {
    const r = run(burst({ coalesce: true }, '500:5', { stack: [{ name: 'to-db', policy: tries(2) }] }));
    // Each operation's first request at db fails, its second succeeds: the leader's call makes both.
    expect(edge(r, 'app', 'db')).toMatchObject({ calls: 2, ownRetries: 1 });
    expect(r.operations).toMatchObject({ offered: 3, succeeded: 0 });
  });

  it("a waiter whose own deadline passes first gives up with deadline; the leader's success still fills", () => {
    // Two workloads enter app: "slow" at 0 (no deadline) leads the miss (db answers at 10); "hasty"
    // starts at 2 with a 5 ms deadline: it waits, gives up at 7 with deadline; the leader succeeds at 10.
    const raw = burst({ coalesce: true }, '200:10');
    delete raw.workload;
    delete raw.stack;
    raw.workloads = {
      slow: { kind: 'burst', clients: 1, entry: { service: 'app' }, stack: [{ name: 'c', policy: tries(1) }] },
      hasty: { kind: 'burst', clients: 1, startMs: 2, deadlineMs: 5, entry: { service: 'app' }, stack: [{ name: 'c', policy: tries(1) }] },
    };
    const r = run(raw);
    expect(edge(r, 'app', 'db')?.calls).toBe(1);
    expect(cacheOf(r)).toMatchObject({ lookups: 2, coalesced: 1, fills: 1 });
    const byName = Object.fromEntries((r.workloads ?? []).map((w) => [w.workload, w]));
    expect(byName.slow).toMatchObject({ operations: { succeeded: 1 }, latencyMs: { max: 10 } });
    expect(byName.hasty).toMatchObject({ operations: { failed: 1 } });
    expect(byName.hasty?.giveUps.deadline).toBe(1);
    expect(byName.hasty?.latencyMs.count).toBe(0);
    expect(r.simulatedMs).toBe(10);
  });

  it('a coalesced call whose own handler stops waiting (its join decided, cancellation) runs on for its waiters', () => {
    // The step calls db (cached, answers at 10) and `other` (one worker, 6 ms each) and joins "any",
    // cancelling the rest. "lead" at 0 misses and calls db; "follow" at 1 waits for that call.
    // Lead's other call answers at 6 and decides its step: its db call would be cancelled, but
    // follow still waits for it (its own other call is queued until 12): it runs on, follow shares
    // its success at 10 and the success fills.
    const raw = burst({ coalesce: true }, '200:10', { extraCalls: [{ service: 'other' }], join: 'any' });
    raw.services.app.endpoints.get.steps[0].cancellation = true;
    raw.services.other.fleet = { kind: 'server', concurrency: 1, serviceMs: 6 };
    delete raw.workload;
    delete raw.stack;
    raw.workloads = {
      lead: { kind: 'burst', clients: 1, entry: { service: 'app' }, stack: [{ name: 'c', policy: tries(1) }] },
      follow: { kind: 'burst', clients: 1, startMs: 1, entry: { service: 'app' }, stack: [{ name: 'c', policy: tries(1) }] },
    };
    const r = run(raw);
    expect(edge(r, 'app', 'db')?.calls).toBe(1);
    expect(cacheOf(r)).toMatchObject({ lookups: 2, coalesced: 1, fills: 1 });
    const byName = Object.fromEntries((r.workloads ?? []).map((w) => [w.workload, w]));
    expect(byName.lead).toMatchObject({ operations: { succeeded: 1 }, latencyMs: { max: 6 } });
    expect(byName.follow).toMatchObject({ operations: { succeeded: 1 }, latencyMs: { max: 9 } });
    // Alone, lead cancels its db call at 6: nothing is filled.
    delete raw.workloads.follow;
    const alone = run(raw);
    expect(cacheOf(alone)).toMatchObject({ lookups: 1, fills: 0, lateSuccesses: 0 });
    expect(alone.simulatedMs).toBe(6);
  });

  it("the waiters share the first miss's call as it is, its deadline included", () => {
    // lead's client stops waiting at 3 (its attempt's timeout, the deadline its handler's calls work
    // to): the coalesced call gives up with deadline at 3 and follow, which waited for it, shares that.
    const raw = burst({ coalesce: true }, '200:10');
    delete raw.workload;
    delete raw.stack;
    raw.workloads = {
      lead: { kind: 'burst', clients: 1, entry: { service: 'app' }, stack: [{ name: 'c', policy: tries(1, { perAttemptTimeoutMs: 3 }) }] },
      follow: { kind: 'burst', clients: 1, startMs: 1, entry: { service: 'app' }, stack: [{ name: 'c', policy: tries(1) }] },
    };
    const r = run(raw);
    expect(edge(r, 'app', 'db')?.calls).toBe(1);
    expect(cacheOf(r)).toMatchObject({ lookups: 2, coalesced: 1, fills: 0 });
    expect(r.operations).toMatchObject({ offered: 2, failed: 2 });
    expect(r.simulatedMs).toBe(10);
  });
});

describe('lookaside caches: results, metrics and validation', () => {
  it('the counts and hit ratio are sweep metrics (services.<service>.caches.<name>.<field>); the series are not', () => {
    const m = flattenMetrics(run(graph({ flushAtMs: [15] })));
    expect([m['services.app.caches.db.lookups'], m['services.app.caches.db.hits'], m['services.app.caches.db.hitRatio'], m['services.app.caches.db.fills']]).toEqual([4, 3, 0.75, 1]);
    expect(Object.keys(m).filter((k) => k.includes('caches') && k.includes('timeSeries'))).toEqual([]);
    // A service without a cache has no caches entry.
    expect(service(run(graph({})), 'db').caches).toBeUndefined();
  });

  const errors = (patch: (s: Json) => void): string[] => {
    const s = graph({ capacity: 10, keys: 100, zipf: 0.8 });
    patch(s);
    const r = resolveScenario(s);
    return r.ok ? [] : r.errors;
  };
  const at = 'scenario.services.app.endpoints.get.steps.0.calls';
  const cache = (s: Json, j = 0): Json => s.services.app.endpoints.get.steps[0].calls[j].cache;

  it('resolves every default: named after the callee, warm, shared, 1 ms hits, no TTL, no flush', () => {
    const sc = resolve({ ...graph({}), services: { ...graph({}).services, app: { fleet: { kind: 'server', serviceMs: 0 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', cache: { capacity: 5, keys: 50, zipf: 1 } }] }] } } } } });
    const step = sc.graph?.services[0]?.endpoints[0]?.steps?.[0];
    expect(step?.kind === 'call' ? step.calls[0]?.cache : undefined).toEqual({
      name: 'db',
      capacity: 5,
      keys: 50,
      zipf: 1,
      hitLatencyMs: { dist: 'constant', value: 1 },
      perBackend: false,
      coalesce: false,
      initial: 'warm',
      flushAtMs: [],
    });
  });

  it('names the dotted path of a bad field', () => {
    expect(errors((s) => (cache(s).capacity = 0))).toEqual([`${at}.0.cache.capacity must be a positive integer (got 0)`]);
    expect(errors((s) => (cache(s).zipf = -1))).toEqual([`${at}.0.cache.zipf must be >= 0 (got -1)`]);
    expect(errors((s) => (cache(s).initial = 'cold'))[0]).toMatch(new RegExp(`^${at.replace(/\./g, '\\.')}\\.0\\.cache\\.initial must be one of warm, empty`));
    expect(errors((s) => (cache(s).ttl = 5))[0]).toMatch(/^scenario\.services\.app\.endpoints\.get\.steps\.0\.calls\.0\.cache\.ttl /);
    expect(errors((s) => (cache(s).flushAtMs = [20, 10]))).toEqual([`${at}.0.cache.flushAtMs.1 must not be earlier than the flush before it (got 10 < 20)`]);
  });

  it("refuses two caches of one service with one name, and caches that disagree on the graph's key space", () => {
    const twoCalls = (second: Json) => (s: Json) => {
      s.services.app.endpoints.get.steps[0].calls.push({ service: 'db', cache: { capacity: 10, keys: 100, zipf: 0.8, ...second } });
    };
    expect(errors(twoCalls({}))).toEqual([
      `${at}.1.cache repeats the name of the cache at services.app.endpoints.get.steps.0.calls.0.cache (its default name, the callee's, is "db"; a service's caches need distinct names: set name)`,
    ]);
    expect(errors(twoCalls({ name: 'db2' }))).toEqual([]);
    expect(errors(twoCalls({ name: 'db2', keys: 200, zipf: 1 }))).toEqual([
      `${at}.1.cache.keys must equal the keys of the cache at services.app.endpoints.get.steps.0.calls.0.cache (got 200, there 100; an operation carries one key, read alike by every cache of the graph)`,
      `${at}.1.cache.zipf must equal the zipf of the cache at services.app.endpoints.get.steps.0.calls.0.cache (got 1, there 0.8; an operation carries one key, read alike by every cache of the graph)`,
    ]);
  });

  it('the JSON schema for editors accepts a call with a cache and knows its fields', () => {
    const schema = experimentJsonSchema() as Json;
    expect(jsonSchemaCheck(schema, { name: 'x', scenario: graph({ capacity: 10, keys: 100, zipf: 0.8, ttlMs: 50, coalesce: true, flushAtMs: [1] }) })).toEqual([]);
    expect(Object.keys(schema.$defs.Cache.properties)).toEqual(['shared', 'name', 'capacity', 'keys', 'zipf', 'ttlMs', 'hitLatencyMs', 'perBackend', 'coalesce', 'initial', 'flushAtMs']);
    const bad = graph({ capacity: 10, keys: 100, zipf: 0.8 });
    cache(bad).colour = 'red';
    expect(jsonSchemaCheck(schema, { name: 'x', scenario: bad }).length).toBeGreaterThan(0);
  });
});

describe('lookaside caches in a trace', () => {
  /** One operation; app looks key 1 up before calling db (answers after 2 ms) through its sdk; hops of 1 ms. */
  const traced = (cache: Json) => ({
    name: 'trace-cache',
    scenario: {
      workload: { kind: 'burst', clients: 1, entry: { service: 'app' } },
      stack: [{ name: 'client', policy: tries(1) }],
      network: { hopMs: 1 },
      services: {
        app: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'sdk', policy: tries(1) }], cache: { capacity: 1, keys: 1, zipf: 0, ...cache } }] }] } } },
        db: { fleet: { kind: 'script', script: ['200:2'] }, endpoints: { q: {} } },
      },
    },
  });

  it('a hit answers after the hit latency without a call; a miss calls and its success fills', async () => {
    const hit = await cli(['trace', writeExperiment(tempDir(), 't.json', traced({}))]);
    expect(hit.code).toBe(0);
    expect(hit.out.split('\n').filter((l) => l !== '')).toEqual([
      't=0         client: call received (deadline none)',
      't=0         client: attempt 1 starts, timeout none',
      't=1           app.get: request received, handler starts',
      't=1           app.get: step 1: calls db.q (join all)',
      't=1           app.get: cache db: key 1 hit',
      't=2           app.get: step 1: join all decides success',
      't=2           app.get: answers 200',
      't=3         client: attempt 1 -> 200',
      't=3         client: ends: success after 1 attempt (returns 200)',
      'outcome: success after 1 attempt at t=3 ms',
    ]);
    const miss = await cli(['trace', writeExperiment(tempDir(), 't.json', traced({ initial: 'empty' }))]);
    expect(miss.out.split('\n').filter((l) => l !== '')).toEqual([
      't=0         client: call received (deadline none)',
      't=0         client: attempt 1 starts, timeout none',
      't=1           app.get: request received, handler starts',
      't=1           app.get: step 1: calls db.q (join all)',
      't=1           app.get: cache db: key 1 missed, calls',
      't=1             sdk (app -> db.q): call received (deadline none)',
      't=1             sdk (app -> db.q): attempt 1 starts, timeout none',
      't=5             sdk (app -> db.q): attempt 1 -> 200',
      't=5             sdk (app -> db.q): ends: success after 1 attempt (returns 200)',
      't=5           app.get: cache db: key 1 filled',
      't=5           app.get: step 1: join all decides success',
      't=5           app.get: answers 200',
      't=6         client: attempt 1 -> 200',
      't=6         client: ends: success after 1 attempt (returns 200)',
      'outcome: success after 1 attempt at t=6 ms',
    ]);
  });

  it('tracing a graph with caches leaves its results unchanged', () => {
    const raw = { ...graph({ capacity: 20, keys: 100, zipf: 0.8, coalesce: true, ttlMs: 30 }, { clients: 5, durationMs: 2000, db: { kind: 'server', concurrency: 2, serviceMs: { dist: 'exponential', mean: 4 } } }) };
    const sc = resolve(raw);
    const plain = new Model(sc, { seed: 3 }).run();
    const events: unknown[] = [];
    const traced = new Model(sc, { seed: 3, trace: (e) => events.push(e), traceGraph: true }).run();
    expect(events.some((e) => (e as Json).event === 'cache')).toBe(true);
    expect(traced).toEqual(plain);
  });
});
