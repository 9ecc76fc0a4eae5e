import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import { callsIfEveryCallFails } from '../../src/model/graph/failureAmplification.js';
import { Model } from '../../src/model/Model.js';
import type { SimulationResults } from '../../src/model/results.js';
import type { Scenario } from '../../src/model/scenario.js';
import { flattenMetrics } from '../../src/sweep/flattenMetrics.js';

type Json = Record<string, any>;

function resolved(raw: Json): Scenario {
  const r = resolveScenario(raw);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.scenario;
}

const run = (raw: Json, seed = 1): SimulationResults => new Model(resolved(raw), { seed }).run();
const tries = (n: number) => ({ maxAttempts: n, backoff: { kind: 'none' } });
const byEdge = <T>(r: SimulationResults, f: (e: NonNullable<SimulationResults['edges']>[number]) => T) =>
  Object.fromEntries((r.edges ?? []).map((e) => [`${e.caller} -> ${e.callee}`, f(e)]));

/** web enters fe, which fans out to a and b (joined by all); batch enters b; a and b call db, which always answers 503. */
function twoWorkloads(webOps: number, batchOps: number): Json {
  return {
    workloads: {
      web: { kind: 'burst', clients: webOps, entry: { service: 'fe' }, stack: [{ name: 'browser', policy: tries(3) }] },
      batch: { kind: 'burst', clients: batchOps, entry: { service: 'b' }, stack: [{ name: 'job', policy: tries(2) }] },
    },
    network: { hopMs: 0 },
    services: {
      fe: {
        fleet: { kind: 'server', serviceMs: 1 },
        endpoints: {
          page: {
            steps: [
              {
                kind: 'call',
                calls: [
                  { service: 'a', stack: [{ name: 'a-sdk', policy: tries(2) }] },
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
}

describe('several workloads entering at different services', () => {
  const webOps = 20;
  const batchOps = 10;

  it('counts every edge per workload as the products of maxAttempts along its paths, and in total', () => {
    const r = run(twoWorkloads(webOps, batchOps));
    // Per operation of web: web -> fe 3; fe -> a 3 x 2 = 6; fe -> b 3 x 3 = 9; a -> db 6 x 2 = 12; b -> db 9 x 4 = 36.
    // Per operation of batch: batch -> b 2; b -> db 2 x 4 = 8.
    const web: Record<string, number> = { 'web -> fe': 3, 'batch -> b': 0, 'fe -> a': 6, 'fe -> b': 9, 'a -> db': 12, 'b -> db': 36 };
    const batch: Record<string, number> = { 'web -> fe': 0, 'batch -> b': 2, 'fe -> a': 0, 'fe -> b': 0, 'a -> db': 0, 'b -> db': 8 };
    expect(byEdge(r, (e) => e.workloads?.web?.amplification)).toEqual(web);
    expect(byEdge(r, (e) => e.workloads?.batch?.amplification)).toEqual(batch);
    expect(byEdge(r, (e) => e.workloads?.web?.calls)).toEqual(Object.fromEntries(Object.entries(web).map(([k, v]) => [k, v * webOps])));
    expect(byEdge(r, (e) => e.workloads?.batch?.calls)).toEqual(Object.fromEntries(Object.entries(batch).map(([k, v]) => [k, v * batchOps])));
    const total = Object.fromEntries(Object.keys(web).map((k) => [k, (web[k] as number) * webOps + (batch[k] as number) * batchOps]));
    expect(byEdge(r, (e) => e.calls)).toEqual(total);
    expect(byEdge(r, (e) => e.amplification)).toEqual(Object.fromEntries(Object.entries(total).map(([k, v]) => [k, v / (webOps + batchOps)])));
    // Retries split per workload too: of b -> db's 8 calls per batch operation, only the first is no retry anywhere; 2 are first tries of b-db.
    expect(r.edges?.find((e) => e.caller === 'b' && e.callee === 'db')?.workloads?.batch).toEqual({ calls: 8 * batchOps, retries: 7 * batchOps, ownRetries: 6 * batchOps, amplification: 8 });
    // callsIfEveryCallFails gives each workload's share.
    const sc = resolved(twoWorkloads(webOps, batchOps));
    for (const w of sc.graph!.workloads!) {
      const theory = callsIfEveryCallFails({ ...sc.graph!, entries: w.entries }, w.stack, w.name);
      const want = w.name === 'web' ? web : batch;
      expect(Object.fromEntries(theory.map((e) => [`${e.caller} -> ${e.callee}`, e.callsPerOperation]))).toEqual(Object.fromEntries(Object.entries(want).filter(([, v]) => v > 0)));
    }
  });

  it('reports operations per workload and in total, with every layer of every workload', () => {
    const r = run(twoWorkloads(webOps, batchOps));
    expect(r.operations).toMatchObject({ offered: webOps + batchOps, succeeded: 0, failed: webOps + batchOps, unfinished: 0, degraded: 0 });
    // Leaf calls are the calls at db, the one service that makes no calls: web 12 (a -> db) + 36 (b -> db) per operation, batch 8.
    expect((r.workloads ?? []).map((w) => [w.workload, w.operations.offered, w.operations.failed, w.leafCalls, w.amplification])).toEqual([
      ['web', webOps, webOps, 48 * webOps, 48],
      ['batch', batchOps, batchOps, 8 * batchOps, 8],
    ]);
    expect(r.leafCalls).toBe(48 * webOps + 8 * batchOps);
    expect(r.attempts.map((a) => [a.layer, a.first, a.retries])).toEqual([
      ['web.browser', webOps, 2 * webOps],
      ['batch.job', batchOps, batchOps],
    ]);
    const flat = flattenMetrics(r);
    expect(flat['workloads.batch.operations.offered']).toBe(batchOps);
    expect(flat['edges.b->db.workloads.web.calls']).toBe(36 * webOps);
    expect(flat['edges.b->db.workloads.batch.amplification']).toBe(8);
    expect(flat['edges.b->db.calls']).toBe(36 * webOps + 8 * batchOps);
    // Nothing succeeds: each workload's success rate is 0.
    expect([flat['workloads.web.successRate'], flat['workloads.batch.successRate']]).toEqual([0, 0]);
  });

  it('a single named workload runs as the same scenario written with workload and stack', () => {
    const raw = twoWorkloads(webOps, batchOps);
    delete raw.workloads.batch;
    const { entry, stack, ...workload } = raw.workloads.web;
    const plain = { ...raw, workloads: undefined, workload: { ...workload, entry }, stack };
    delete plain.workloads;
    const a = run(raw, 7);
    const b = run(plain, 7);
    const { workloads, edges: edgesA, ...restA } = a;
    const { edges: edgesB, ...restB } = b;
    expect({ ...restA, attempts: restA.attempts.map((l) => ({ ...l, layer: l.layer.replace('web.', '') })) }).toEqual(restB);
    expect(edgesA?.map(({ workloads: _w, ...e }) => ({ ...e, caller: e.caller === 'web' ? 'workload' : e.caller }))).toEqual(edgesB);
    expect(workloads?.[0]?.operations).toEqual(a.operations);
  });

  it("a call to an endpoint without a method makes each operation's own method, and one with a method makes that", () => {
    // web (POST) and batch (GET) both enter a, whose handler calls db (always 503) through a stack of 3 attempts.
    // A 503 is retried for idempotent methods only (RFC 9110 section 9.2.2): 1 call per POST operation, 3 per GET.
    const shared = (dbMethod?: string): Json => ({
      workloads: {
        web: { kind: 'burst', clients: 4, method: 'POST', entry: { service: 'a' }, stack: [{ name: 'w', policy: tries(1) }] },
        batch: { kind: 'burst', clients: 5, method: 'GET', entry: { service: 'a' }, stack: [{ name: 'b', policy: tries(1) }] },
      },
      network: { hopMs: 0 },
      services: {
        a: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'a-db', policy: tries(3) }] }] }] } } },
        db: { fleet: { kind: 'script', script: ['503:1'] }, endpoints: { get: dbMethod === undefined ? {} : { method: dbMethod } } },
      },
    });
    const dbCalls = (raw: Json) => {
      const row = run(raw).edges?.find((e) => e.caller === 'a' && e.callee === 'db');
      return [row?.workloads?.web?.calls, row?.workloads?.batch?.calls];
    };
    expect(dbCalls(shared())).toEqual([4 * 1, 5 * 3]);
    // Listed the other way round, so that neither workload's method is the first one's by position.
    const swapped = shared();
    swapped.workloads = { batch: swapped.workloads.batch, web: swapped.workloads.web };
    expect(dbCalls(swapped)).toEqual([4 * 1, 5 * 3]);
    expect(dbCalls(shared('GET'))).toEqual([4 * 3, 5 * 3]);
    expect(dbCalls(shared('POST'))).toEqual([4 * 1, 5 * 1]);
  });

  it('open loops of two workloads draw their own arrivals', () => {
    const raw = twoWorkloads(1, 1);
    raw.workloads.web = { kind: 'open', rate: 100, durationMs: 1000, entry: { service: 'a' }, stack: [{ name: 'w', policy: tries(1) }] };
    raw.workloads.batch = { kind: 'open', rate: 100, durationMs: 1000, entry: { service: 'a' }, stack: [{ name: 'b', policy: tries(1) }] };
    let same = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const r = run(raw, seed);
      const [w, b] = r.workloads ?? [];
      // About 100 each (Poisson, sd 10).
      expect(Math.abs(w!.operations.offered - 100)).toBeLessThan(50);
      expect(Math.abs(b!.operations.offered - 100)).toBeLessThan(50);
      expect(r.operations.offered).toBe(w!.operations.offered + b!.operations.offered);
      if (w!.operations.offered === b!.operations.offered) same++;
    }
    // Independent streams give equal counts about once in 35 runs (the difference of two Poisson counts of mean 100
    // has variance 200: P(0) ~ 1 / sqrt(2 pi 200)); shared draws would give them every time.
    expect(same).toBeLessThanOrEqual(3);
  });
});

describe('validation of several workloads', () => {
  const services = { fe: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { page: {} } } };
  const errors = (raw: Json) => {
    const r = resolveScenario(raw);
    return r.ok ? [] : r.errors;
  };

  it('names each problem by its dotted path', () => {
    expect(
      errors({
        workloads: { web: { kind: 'burst', clients: 0, stack: [{}] }, fe: { kind: 'burst', clients: 1, entry: { service: 'fee' }, stack: [{}] }, '9x': { kind: 'burst', clients: 1, entry: { service: 'fe' } } },
        services,
      }),
    ).toEqual([
      'scenario.workloads.web.clients must be a positive integer (got 0)',
      'scenario.workloads.9x.stack is required',
    ]);
    expect(
      errors({
        workloads: { web: { kind: 'burst', clients: 1, stack: [{}] }, fe: { kind: 'burst', clients: 1, entry: { service: 'fee' }, stack: [{}] }, '9x': { kind: 'burst', clients: 1, entry: { service: 'fe' }, stack: [{}] } },
        services,
      }),
    ).toEqual([
      'scenario.workloads.web.entry is required with services (the service and endpoint operations arrive at)',
      'scenario.workloads.fe is also the name of a service (entry edges are named <workload> -> <service>)',
      'scenario.workloads.fe.entry.service must name a service (got "fee"; did you mean "fe"?)',
      'scenario.workloads.9x is not a valid workload name (a letter, then letters, digits, "_" and "-")',
    ]);
    expect(errors({ workloads: { web: { kind: 'burst', clients: 1, entry: { service: 'fe' }, stack: [{}] } }, stack: [{}], services })).toEqual([
      'scenario.workloads cannot be combined with stack (each named workload has its own entry and stack)',
    ]);
    expect(errors({ workloads: {}, services })).toEqual(['scenario.workloads must have at least 1 workload (got 0)']);
    expect(errors({ workloads: { web: { kind: 'burst', clients: 1, stack: [{}] } }, leaf: { kind: 'server', serviceMs: 1 } })).toEqual([
      'scenario.workloads needs services (several workloads enter a service graph)',
    ]);
  });

  it('leaves the usual form and its messages as they were', () => {
    expect(errors({ leaf: { kind: 'server', serviceMs: 'x' } })).toEqual([
      'scenario.workload is required',
      'scenario.stack is required',
      'scenario.leaf.serviceMs must be a number >= 0 or a distribution object (got "x")',
    ]);
  });
});
