import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
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

function run(raw: Json, seed = 1): SimulationResults {
  return new Model(resolved(raw), { seed }).run();
}

const constant = (n: number, ms: number) => ({ maxAttempts: n, backoff: { kind: 'constant', baseMs: ms, capMs: ms } });

/**
 * A frontend fanning out (join all) to a and b, which both call db; db answers every request 503
 * after 1 ms, every hop takes 0 ms. Per operation (all start at t = 0):
 *   t = 0     workload -> fe, fe -> a, fe -> b, a -> db, b -> db
 *   t = 101   a -> db, b -> db          (their stacks' retries after 100 ms)
 *   t = 102   a gives up (2 tries), so fe's join fails and fe answers 503
 *   t = 202   b -> db                   (b's third try)
 *   t = 1102  the app's retry (after 1000 ms): the same again, 1102 later (1102, 1203, 1304)
 * Calls per operation: workload -> fe 2, fe -> a 2, fe -> b 2, a -> db 4, b -> db 6; the leaf
 * service is db (the only service that makes no calls): 10 leaf calls per operation.
 */
describe('leaf calls and amplification of a scripted fan-out graph (calls at the services that make no calls)', () => {
  const ops = 7;
  const raw = {
    workload: { kind: 'burst', clients: ops, entry: { service: 'fe' } },
    stack: [{ name: 'app', policy: constant(2, 1000) }],
    network: { hopMs: 0 },
    metrics: {
      windows: [
        { name: 'first', fromMs: 0, toMs: 150 },
        { name: 'second', fromMs: 150, toMs: 1150 },
        { name: 'all', fromMs: 0, toMs: 100_000 },
      ],
    },
    services: {
      fe: {
        fleet: { kind: 'server', serviceMs: 1 },
        endpoints: { page: { steps: [{ kind: 'call', join: 'all', calls: [{ service: 'a' }, { service: 'b' }] }] } },
      },
      a: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'a-db', policy: constant(2, 100) }] }] }] } } },
      b: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'b-db', policy: constant(3, 100) }] }] }] } } },
      db: { fleet: { kind: 'script', script: ['503:1'] }, endpoints: { get: {} } },
    },
  };
  // By hand (see above): per operation, [calls, retries] on each edge in each window.
  const byWindow: Record<string, Record<string, [number, number]>> = {
    first: { 'workload->fe': [1, 0], 'fe->a': [1, 0], 'fe->b': [1, 0], 'a->db': [2, 1], 'b->db': [2, 1] },
    second: { 'workload->fe': [1, 1], 'fe->a': [1, 1], 'fe->b': [1, 1], 'a->db': [1, 1], 'b->db': [2, 2] },
    all: { 'workload->fe': [2, 1], 'fe->a': [2, 1], 'fe->b': [2, 1], 'a->db': [4, 3], 'b->db': [6, 5] },
  };

  it('counts the calls arriving at db, the leaf service, not the entry calls', () => {
    const r = run(raw);
    expect(r.operations).toMatchObject({ offered: ops, succeeded: 0, failed: ops, unfinished: 0 });
    expect(r.leafCalls).toBe(10 * ops);
    expect(r.amplification).toBe(10);
    expect(Object.fromEntries((r.edges ?? []).map((e) => [`${e.caller}->${e.callee}`, [e.calls, e.retries]]))).toEqual(
      Object.fromEntries(Object.entries(byWindow['all'] as Record<string, [number, number]>).map(([k, [c, rt]]) => [k, [c * ops, rt * ops]])),
    );
  });

  it("gives each window its leaf calls, amplification and every edge's calls, retries and amplification", () => {
    const r = run(raw);
    const windows = Object.fromEntries((r.windows ?? []).map((w) => [w.name, w]));
    // Every operation starts at t = 0: the windows from 0 offer them all, the second none (amplification 0 over nothing).
    const offered: Record<string, number> = { first: ops, second: 0, all: ops };
    const leaf: Record<string, number> = { first: 4, second: 3, all: 10 };
    for (const [name, edges] of Object.entries(byWindow)) {
      const w = windows[name]!;
      expect(w.offered).toBe(offered[name]);
      expect(w.leafCalls).toBe((leaf[name] as number) * ops);
      expect(w.amplification).toBe(offered[name] === 0 ? 0 : leaf[name]);
      expect(Object.fromEntries((w.edges ?? []).map((e) => [`${e.caller}->${e.callee}`, [e.calls, e.retries, e.amplification]]))).toEqual(
        Object.fromEntries(Object.entries(edges).map(([k, [c, rt]]) => [k, [c * ops, rt * ops, offered[name] === 0 ? 0 : c]])),
      );
    }
  });

  it('names them windows.<name>.edges.<caller>-><callee>.<calls|retries|amplification> among the metrics a sweep aggregates', () => {
    const flat = flattenMetrics(run(raw));
    expect(flat['leafCalls']).toBe(10 * ops);
    expect(flat['amplification']).toBe(10);
    expect(flat['windows.first.amplification']).toBe(4);
    expect(flat['windows.first.edges.b->db.calls']).toBe(2 * ops);
    expect(flat['windows.first.edges.b->db.retries']).toBe(ops);
    expect(flat['windows.first.edges.b->db.amplification']).toBe(2);
    expect(flat['windows.second.edges.b->db.calls']).toBe(2 * ops);
    expect(flat['windows.all.edges.a->db.amplification']).toBe(4);
    expect(Object.keys(flat).filter((k) => /^windows\.[^.]+\.edges\./.test(k))).toHaveLength(3 * 5 * 3);
  });

  it('counts no window edge when the scenario has no windows', () => {
    const { metrics: _omit, ...bare } = raw;
    const r = run(bare);
    expect(r.windows).toBeUndefined();
    expect(r.leafCalls).toBe(10 * ops);
    expect(Object.keys(flattenMetrics(r)).some((k) => k.startsWith('windows.'))).toBe(false);
  });
});

describe('leaf calls of a graph with several workloads', () => {
  it("counts each workload's calls at the leaf services, per operation of that workload", () => {
    const ops = 3;
    const raw = {
      network: { hopMs: 0 },
      workloads: {
        web: { kind: 'burst', clients: ops, entry: { service: 'fe' }, stack: [{ name: 'app', policy: constant(2, 1000) }] },
        batch: { kind: 'burst', clients: 2 * ops, entry: { service: 'b' }, stack: [{ name: 'job', policy: constant(1, 1000) }] },
      },
      services: {
        fe: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { page: { steps: [{ kind: 'call', calls: [{ service: 'b' }] }] } } },
        b: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'b-db', policy: constant(3, 100) }] }] }] } } },
        db: { fleet: { kind: 'script', script: ['503:1'] }, endpoints: { get: {} } },
      },
    };
    const r = run(raw);
    // web: 2 app tries x 3 b-db tries = 6 db calls per operation; batch: 1 job try x 3 = 3.
    const byName = Object.fromEntries((r.workloads ?? []).map((w) => [w.workload, [w.leafCalls, w.amplification]]));
    expect(byName).toEqual({ web: [6 * ops, 6], batch: [3 * 2 * ops, 3] });
    expect(r.leafCalls).toBe(6 * ops + 3 * 2 * ops);
    expect(r.amplification).toBe((6 * ops + 3 * 2 * ops) / (3 * ops));
  });
});
