import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import { cheHitRatio, ZipfKeys } from '../../src/model/cache/ZipfKeys.js';
import { Model } from '../../src/model/Model.js';
import type { SimulationResults } from '../../src/model/results.js';
import type { Scenario } from '../../src/model/scenario.js';
import { flattenMetrics } from '../../src/sweep/flattenMetrics.js';
import { seriesShape } from '../../src/sweep/estimateOutput.js';
import { graphSummary } from '../../src/sweep/runPlan.js';
import { flushMarks } from '../../src/report/interventionMarks.js';
import { metricInfo, metricSubjects } from '../../src/report/metrics.js';
import { missingSubject, scenarioSubjects } from '../../src/report/scenarioSubjects.js';
import { cacheSeries } from '../../src/report/selectCharts.js';
import { cell } from '../report/helpers.js';

type Json = Record<string, any>;

function resolve(raw: Json): Scenario {
  const r = resolveScenario(raw);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.scenario;
}

function errors(raw: Json): string[] {
  const r = resolveScenario(raw);
  return r.ok ? [] : r.errors;
}

const run = (raw: Json, seed = 1): SimulationResults => new Model(resolve(raw), { seed }).run();
const oneTry = { maxAttempts: 1, backoff: { kind: 'none' } };
const edgeCalls = (r: SimulationResults, caller: string) => (r.edges ?? []).find((e) => e.caller === caller && e.callee === 'db')?.calls;

/**
 * Two services, `a` and `b`, each calling `db` through the graph's shared tier `tier` (`cache`: the
 * call's cache, `tier`: the tier's settings); two workloads, each a closed loop of one client
 * thinking `thinkMs` between operations, one entering `a`, the other `b`; zero hops.
 */
function twoServices(tier: Json, o: { cache?: Json; db?: Json; thinkMs?: number; durationMs?: number; warmupMs?: number; binMs?: number } = {}): Json {
  const call = () => ({ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'sdk', policy: oneTry }], cache: { shared: 'tier', ...(o.cache ?? {}) } }] });
  const workload = (service: string) => ({ kind: 'closed', clients: 1, thinkMs: o.thinkMs ?? 10, durationMs: o.durationMs ?? 60, entry: { service }, stack: [{ name: 'client', policy: oneTry }] });
  return {
    workloads: { wa: workload('a'), wb: workload('b') },
    network: { hopMs: 0 },
    warmupMs: o.warmupMs ?? 0,
    metrics: { timeSeriesBinMs: o.binMs ?? 10 },
    caches: { tier: { capacity: 1, keys: 1, zipf: 0, hitLatencyMs: 0, ...tier } },
    services: {
      a: { fleet: { kind: 'server', concurrency: 100, serviceMs: 0 }, endpoints: { get: { steps: [call()] } } },
      b: { fleet: { kind: 'server', concurrency: 100, serviceMs: 0 }, endpoints: { get: { steps: [call()] } } },
      db: { fleet: o.db ?? { kind: 'script', script: ['200:5'] }, endpoints: { q: {} } },
    },
  };
}

describe("a shared cache tier looked up by two services: Che's approximation for the combined stream", () => {
  it('K = 10,000, capacity 1,000, s = 0.8, warm: 100,000 lookups from two services, the tier within 0.01 of Che', () => {
    // Each workload: one operation per 2 ms (think 2 ms, everything else 0 ms), 100,000 ms measured
    // after a 10,000 ms warm-up: 50,000 lookups from each service, one stream of keys into one LRU.
    const raw = twoServices({ capacity: 1000, keys: 10_000, zipf: 0.8 }, { thinkMs: 2, durationMs: 100_000, warmupMs: 10_000, db: { kind: 'script', script: ['200:0'] } });
    const r = run(raw);
    const tier = (r.caches ?? {}).tier!;
    expect(tier.lookups).toBe(100_000);
    const che = cheHitRatio(new ZipfKeys(10_000, 0.8), 1000);
    expect(Math.abs((tier.hitRatio as number) - che)).toBeLessThan(0.01);
    // One store of 1,000 entries, not one per service: Che at 2,000 entries would be far off.
    expect(cheHitRatio(new ZipfKeys(10_000, 0.8), 2000) - che).toBeGreaterThan(0.1);
    // Each service's misses are its calls to db: together, the tier's misses; each made about half.
    const a = edgeCalls(r, 'a') as number;
    const b = edgeCalls(r, 'b') as number;
    expect(a + b).toBe(tier.lookups - tier.hits);
    expect(tier.fills).toBe(tier.lookups - tier.hits);
    expect(Math.abs(a - b) / (a + b)).toBeLessThan(0.05);
    // One tier, not a cache per service: the services carry no caches of their own.
    expect((r.services ?? []).every((s) => s.caches === undefined)).toBe(true);
    // summary.csv's names: caches.<name>.<field>.
    expect(flattenMetrics(r)['caches.tier.hitRatio']).toBe(tier.hitRatio);
  });
});

describe('a shared cache tier: one flush empties it for every service', () => {
  it('K = 1, warm, flushed at 25: both services hit before it, both miss right after it and call db, then both hit again', () => {
    // Each workload's operations: 0, 10, 20 (hits of the warm key); the flush at 25; at 30 both
    // services miss (db answers after 5 ms; the calls are distinct services' and do not coalesce),
    // both fill at 35; next operations at 45, 55: hits.
    const r = run(twoServices({ flushAtMs: [25] }));
    const tier = (r.caches ?? {}).tier!;
    expect(tier).toMatchObject({ lookups: 12, hits: 10, fills: 2, coalesced: 0, lateSuccesses: 0 });
    expect(edgeCalls(r, 'a')).toBe(1);
    expect(edgeCalls(r, 'b')).toBe(1);
    // Per 10 ms bin: two lookups each (one per service); the bin of 30 has both lookups and no hit.
    expect(tier.timeSeries.lookups).toEqual([2, 2, 2, 2, 2, 2]);
    expect(tier.timeSeries.hits).toEqual([2, 2, 2, 0, 2, 2]);
  });

  it('without the flush neither service calls db: the warm key answers every lookup', () => {
    const r = run(twoServices({}));
    expect((r.caches ?? {}).tier).toMatchObject({ lookups: 12, hits: 12, fills: 0 });
    expect(edgeCalls(r, 'a')).toBe(0);
    expect(edgeCalls(r, 'b')).toBe(0);
  });

  it('a fill by one service is a hit for the other: a starts at 0 and b at 2 on an empty tier', () => {
    const raw = twoServices({ initial: 'empty' }, { durationMs: 10, db: { kind: 'script', script: ['200:0'] } });
    raw.workloads.wb.kind = 'closed';
    raw.workloads.wb.startMs = 2;
    const r = run(raw);
    expect((r.caches ?? {}).tier).toMatchObject({ lookups: 2, hits: 1, fills: 1 });
    expect(edgeCalls(r, 'a')).toBe(1);
    expect(edgeCalls(r, 'b')).toBe(0);
  });

  it('an intervention warms the tier by name (caches.<name>.warm), for both services', () => {
    const raw = twoServices({ initial: 'empty' }, { db: { kind: 'script', script: ['500:0'] } });
    raw.interventions = [{ atMs: 15, set: { 'caches.tier.warm': 1 } }];
    const r = run(raw);
    // Before 15 every lookup misses (db fails, nothing fills); from 20 on, both hit.
    expect((r.caches ?? {}).tier).toMatchObject({ lookups: 12, hits: 8, fills: 0 });
    expect(edgeCalls(r, 'a')).toBe(2);
    expect(edgeCalls(r, 'b')).toBe(2);
  });
});

describe('shared cache tiers: validation', () => {
  const at = 'scenario.services.a.endpoints.get.steps.0.calls.0.cache';

  it('a call naming an unknown tier is refused, naming the tiers that exist', () => {
    const raw = twoServices({});
    raw.services.a.endpoints.get.steps[0].calls[0].cache = { shared: 'redis' };
    expect(errors(raw)).toEqual([`${at}.shared must name a shared cache of caches (got "redis"; the caches are tier)`]);
    delete raw.caches;
    expect(errors(raw)[0]).toBe(`${at}.shared must name a shared cache of caches (got "redis"; the graph declares no caches)`);
    raw.caches = { tier: { capacity: 1, keys: 1, zipf: 0 } };
    raw.services.b.endpoints.get.steps[0].calls[0].cache = { shared: 'tir' };
    expect(errors(raw)).toContain('scenario.services.b.endpoints.get.steps.0.calls.0.cache.shared must name a shared cache of caches (got "tir"; did you mean "tier"?)');
  });

  it('perBackend and the tier\'s own settings are refused on a call naming a tier; coalesce is the call\'s', () => {
    const raw = twoServices({});
    raw.services.a.endpoints.get.steps[0].calls[0].cache = { shared: 'tier', perBackend: true, capacity: 5 };
    expect(errors(raw)).toEqual([
      `${at}.perBackend does not apply to a shared cache (caches.tier is one store for every call naming it; per-backend copies are a call's own cache)`,
      `${at}.capacity is a setting of the shared cache caches.tier (a call naming a shared cache may set only coalesce beside shared)`,
    ]);
    raw.services.a.endpoints.get.steps[0].calls[0].cache = { shared: 'tier', coalesce: true };
    expect(errors(raw)).toEqual([]);
  });

  it('a tier no call names, a bad tier name, a key space that differs, caches without services', () => {
    const raw = twoServices({});
    raw.caches.spare = { capacity: 1, keys: 2, zipf: 0 };
    expect(errors(raw)).toEqual([
      'scenario.caches.spare.keys must equal the keys of the cache at caches.tier (got 2, there 1; an operation carries one key, read alike by every cache of the graph)',
      'scenario.caches.spare is looked up by no call (a call names it with cache: { "shared": "spare" })',
    ]);
    const own = twoServices({});
    own.services.b.endpoints.get.steps[0].calls[0].cache = { capacity: 1, keys: 3, zipf: 0 };
    expect(errors(own)).toContain(
      'scenario.services.b.endpoints.get.steps.0.calls.0.cache.keys must equal the keys of the cache at caches.tier (got 3, there 1; an operation carries one key, read alike by every cache of the graph)',
    );
    const missing = twoServices({});
    missing.services.b.endpoints.get.steps[0].calls[0].cache = { keys: 1, zipf: 0 };
    expect(errors(missing)).toContain(
      'scenario.services.b.endpoints.get.steps.0.calls.0.cache.capacity is required (a call\'s own cache; or name a shared tier of caches with "shared")',
    );
    const leafOnly = { workload: { kind: 'burst', clients: 1 }, stack: [{ policy: oneTry }], leaf: { kind: 'script', script: ['200:0'] }, caches: { t: { capacity: 1, keys: 1, zipf: 0 } } };
    expect(errors(leafOnly)).toEqual(["scenario.caches needs services (shared caches are looked up by services' calls)"]);
  });
});

describe('shared cache tiers in the output estimate', () => {
  it("a tier named by two calls adds its two series (lookups, hits) once, as a call's own cache does", () => {
    const shared = resolve(twoServices({}));
    const own = twoServices({});
    for (const name of ['a', 'b']) own.services[name].endpoints.get.steps[0].calls[0].cache = { capacity: 1, keys: 1, zipf: 0, hitLatencyMs: 0 };
    delete own.caches;
    const none = twoServices({});
    for (const name of ['a', 'b']) delete none.services[name].endpoints.get.steps[0].calls[0].cache;
    delete none.caches;
    const base = seriesShape(resolve(none)).serviceSeries;
    expect(seriesShape(shared).serviceSeries).toBe(base + 2);
    expect(seriesShape(resolve(own)).serviceSeries).toBe(base + 4);
  });
});

describe('shared cache tiers in metrics and reports', () => {
  const sc = resolve(twoServices({ flushAtMs: [25] }));
  const r = new Model(sc, { seed: 1 }).run();

  it('names its metrics caches.<name>.<field>, a subject the scenario must have', () => {
    expect(metricInfo('caches.tier.hitRatio')).toMatchObject({ title: 'Hit ratio of shared cache tier', unit: 'hits / lookups' });
    expect(metricSubjects('caches.tier.hits')).toEqual([{ kind: 'sharedCache', name: 'tier' }]);
    expect(missingSubject({ kind: 'sharedCache', name: 'tier' }, scenarioSubjects(sc))).toBeNull();
    expect(missingSubject({ kind: 'sharedCache', name: 'redis' }, scenarioSubjects(sc))).toEqual({ what: 'a shared cache of caches', known: 'shared caches: tier' });
    // A shared tier is no service's own cache.
    expect(scenarioSubjects(sc).caches.get('a')).toEqual([]);
  });

  it('keeps the tier\'s series in the summary, draws it on the hit-ratio panel as "shared tier", and marks its flush once', () => {
    const c = cell({ scenario: sc, series: r.timeSeries as never });
    c.graph = graphSummary(r);
    expect(c.graph?.caches).toEqual({ tier: { lookups: [2, 2, 2, 2, 2, 2], hits: [2, 2, 2, 0, 2, 2] } });
    expect(cacheSeries(c)).toEqual([{ name: 'shared tier', lookups: [2, 2, 2, 2, 2, 2], hits: [2, 2, 2, 0, 2, 2] }]);
    expect(flushMarks(sc)).toEqual([{ atMs: 25, label: '25 ms: shared cache tier flushed' }]);
  });
});
