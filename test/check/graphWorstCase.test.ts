import { describe, expect, it } from 'vitest';
import { graphWorstCase } from '../../src/check/graphWorstCase.js';
import { checkStack, FAILURE_CLASSES, formatCheckReport, loadStacks } from '../../src/check/index.js';
import { resolveScenario } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import type { Scenario } from '../../src/model/scenario.js';

type Json = Record<string, any>;

function resolved(raw: Json): Scenario {
  const r = resolveScenario(raw);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.scenario;
}

const tries = (n: number, over: Json = {}) => ({ maxAttempts: n, backoff: { kind: 'none' }, ...over });

/**
 * A frontend calling a and b together; a first calls an optional cache, then the database; b calls
 * the database through a stack that retries 503 only. Every leaf (cache, db) answers `status`.
 */
function graph(status: string, ops = 10): Json {
  return {
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
                calls: [
                  { service: 'a', stack: [{ name: 'a-sdk', policy: tries(2) }, { name: 'a-proxy', policy: tries(2) }] },
                  { service: 'b', stack: [{ name: 'b-sdk', policy: tries(3, { retryOn: ['503'] }) }] },
                ],
              },
            ],
          },
        },
      },
      a: {
        fleet: { kind: 'server', serviceMs: 1 },
        endpoints: {
          get: {
            steps: [
              { kind: 'call', calls: [{ service: 'cache', optional: true, stack: [{ name: 'a-cache', policy: tries(2) }] }] },
              { kind: 'call', calls: [{ service: 'db', stack: [{ name: 'a-db', policy: tries(2) }] }] },
            ],
          },
        },
      },
      b: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'b-db', policy: tries(4) }] }] }] } } },
      cache: { fleet: { kind: 'script', script: [`${status}:1`] }, endpoints: { get: {} } },
      db: { fleet: { kind: 'script', script: [`${status}:1`] }, endpoints: { get: {} } },
    },
  };
}

function checked(raw: Json, cls: '503' | '500' | '429' | '400' | '404') {
  const sc = resolved(raw);
  const w = graphWorstCase({ graph: sc.graph!, caller: 'workload', entries: sc.graph!.entries, entryPolicies: sc.stack.map((l) => l.policy), method: sc.workload.method }, cls);
  return { w, edges: Object.fromEntries(w.edges.map((e) => [`${e.caller} -> ${e.callee}`, e.callsPerOperation])) };
}

describe("check's worst case of a graph: calls on every edge per entry operation, per failure class", () => {
  it('multiplies maxAttempts along every path when every leaf refuses with 503 (an optional step does not end the handler)', () => {
    const { w, edges } = checked(graph('503'), '503');
    expect(w.entryAnswer).toBe('503');
    expect(edges).toEqual({ 'workload -> fe': 3, 'fe -> a': 12, 'fe -> b': 9, 'a -> cache': 24, 'a -> db': 24, 'b -> db': 36 });
  });

  it('follows what each handler answers upward: a 404 below is not retried, a 500 above is, where the layer retries it', () => {
    // db answers 404: a-db and b-db make one attempt; a and b answer 500 upward; a's stack retries 500, b-sdk (503 only) does not; fe answers 500.
    const { w, edges } = checked(graph('404'), '404');
    expect(w.entryAnswer).toBe('500');
    expect(edges).toEqual({ 'workload -> fe': 3, 'fe -> a': 12, 'fe -> b': 3, 'a -> cache': 12, 'a -> db': 12, 'b -> db': 3 });
  });

  for (const cls of ['503', '500', '429', '400', '404'] as const) {
    it(`equals the calls a simulation counts on every edge when every leaf answers ${cls}`, () => {
      const ops = 10;
      const raw = graph(cls, ops);
      const { edges } = checked(raw, cls);
      const r = new Model(resolved(raw), { seed: 1 }).run();
      expect(r.operations).toMatchObject({ offered: ops, succeeded: 0, unfinished: 0 });
      expect(Object.fromEntries((r.edges ?? []).map((e) => [`${e.caller} -> ${e.callee}`, e.calls / ops]))).toEqual(edges);
    });
  }

  it('an all-optional handler succeeds, so its callers make one attempt; an entry mix weighs its entries', () => {
    const raw = graph('503');
    raw.services.fe.endpoints.page.steps[0].calls.forEach((c: Json) => (c.optional = true));
    raw.services.fe.endpoints.lite = { steps: [{ kind: 'call', calls: [{ service: 'b', stack: [{ name: 'b-lite', policy: tries(2) }] }] }] };
    raw.workload.entry = [
      { service: 'fe', endpoint: 'page', weight: 3 },
      { service: 'fe', endpoint: 'lite', weight: 1 },
    ];
    const { w, edges } = checked(raw, '503');
    // page (3/4): succeeds degraded, so app makes 1 attempt; fe -> a 4, fe -> b 3 (b-sdk retries 503), a -> cache 8, a -> db 8, b -> db 12.
    // lite (1/4): fails with 503: app 3 attempts; fe -> b 3 x 2 = 6; b -> db 24.
    expect(w.entryAnswer).toBe('503');
    expect(edges).toEqual({
      'workload -> fe': 0.75 * 1 + 0.25 * 3,
      'fe -> a': 0.75 * 4,
      'fe -> b': 0.75 * 3 + 0.25 * 6,
      'a -> cache': 0.75 * 8,
      'a -> db': 0.75 * 8,
      'b -> db': 0.75 * 12 + 0.25 * 24,
    });
  });
});

describe('check reads a service graph from an experiment file', () => {
  const file = {
    name: 'shop',
    scenario: {
      workload: { kind: 'open', rate: 50, durationMs: 10_000, method: 'PUT', entry: { service: 'fe', endpoint: 'page' } },
      stack: [{ name: 'browser', policy: { maxAttempts: 2 } }],
      services: {
        fe: {
          fleet: { kind: 'server', concurrency: 8, serviceMs: 2 },
          endpoints: {
            page: {
              steps: [
                {
                  kind: 'call',
                  calls: [
                    { service: 'users', stack: [{ name: 'sdk', policy: { preset: 'aws-sdk-js-standard' } }, { name: 'sidecar', policy: { maxAttempts: 3, perAttemptTimeoutMs: 500 } }] },
                    { service: 'recs', optional: true },
                  ],
                },
              ],
            },
          },
        },
        users: { fleet: { kind: 'server', concurrency: 4, serviceMs: 5 }, endpoints: { get: { method: 'GET' } } },
        recs: { fleet: { kind: 'server', concurrency: 2, serviceMs: 20 }, endpoints: { get: {} } },
      },
    },
  };

  it("checks the workload's stack with the graph's edges, then each call stack on its own (the callee's method)", () => {
    const stacks = loadStacks(JSON.stringify(file), 'shop.json');
    expect(stacks.map((s) => [s.name, s.method, s.layers.map((l) => `${l.name}: ${l.origin}`), s.graph !== undefined])).toEqual([
      ['shop', 'PUT', ['browser: inline'], true],
      ['shop (fe.page -> users.get)', 'GET', ['sdk: preset aws-sdk-js-standard', 'sidecar: inline'], false],
    ]);
    const report = checkStack(stacks[0]!);
    expect(report.graph?.map((g) => g.failureClass)).toEqual([...FAILURE_CLASSES]);
    const at503 = report.graph?.find((g) => g.failureClass === '503');
    // browser 2 x (sdk 3 x sidecar 3) on fe -> users; the optional recs call is made once per fe request.
    expect(at503?.edges.map((e) => [`${e.caller} -> ${e.callee}`, e.callsPerOperation])).toEqual([
      ['workload -> fe', 2],
      ['fe -> users', 18],
      ['fe -> recs', 2],
    ]);
    const text = formatCheckReport(report);
    expect(text).toContain('Calls on each edge of the service graph per entry operation when every leaf service fails every request (worst case):');
    expect(text).toMatch(/fe -> users +18 +18 +18 +9 +2 +2 +6\n/);
    expect(checkStack(stacks[1]!).graph).toBeUndefined();
  });
});

describe('check reads a graph of several workloads', () => {
  const tries2 = (n: number) => ({ maxAttempts: n, backoff: { kind: 'none' } });
  const file = {
    name: 'two',
    scenario: {
      workloads: {
        web: { kind: 'burst', clients: 20, entry: { service: 'fe' }, stack: [{ name: 'browser', policy: tries2(3) }] },
        batch: { kind: 'burst', clients: 10, entry: { service: 'b' }, stack: [{ name: 'job', policy: { preset: 'botocore-legacy', maxAttempts: 2, backoff: { kind: 'none' } } }] },
      },
      network: { hopMs: 0 },
      services: {
        fe: {
          fleet: { kind: 'server', serviceMs: 1 },
          endpoints: { page: { steps: [{ kind: 'call', calls: [{ service: 'a', stack: [{ name: 'a-sdk', policy: tries2(2) }] }, { service: 'b', stack: [{ name: 'b-sdk', policy: tries2(3) }] }] }] } },
        },
        a: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'a-db', policy: tries2(2) }] }] }] } } },
        b: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'b-db', policy: tries2(4) }] }] }] } } },
        db: { fleet: { kind: 'script', script: ['503:1'] }, endpoints: { get: {} } },
      },
    },
  };

  it("checks each workload's own stack with the edges its operations reach, as a simulation counts them per workload", () => {
    const stacks = loadStacks(JSON.stringify(file), 'two.json');
    expect(stacks.map((s) => [s.name, s.method, s.layers.map((l) => `${l.name}: ${l.origin}`), s.graph?.caller ?? null])).toEqual([
      ['two (workload web)', 'GET', ['browser: inline'], 'web'],
      ['two (workload batch)', 'GET', ['job: preset botocore-legacy with overrides'], 'batch'],
      ['two (fe.page -> a.get)', 'GET', ['a-sdk: inline'], null],
      ['two (fe.page -> b.get)', 'GET', ['b-sdk: inline'], null],
      ['two (a.get -> db.get)', 'GET', ['a-db: inline'], null],
      ['two (b.get -> db.get)', 'GET', ['b-db: inline'], null],
    ]);
    const sim = new Model(resolved(file.scenario), { seed: 1 }).run();
    for (const s of stacks.slice(0, 2)) {
      const at503 = checkStack(s).graph?.find((g) => g.failureClass === '503');
      const w = s.graph!.caller;
      const simulated = Object.fromEntries((sim.edges ?? []).filter((e) => (e.workloads?.[w]?.calls ?? 0) > 0).map((e) => [`${e.caller} -> ${e.callee}`, e.workloads![w]!.amplification]));
      expect(Object.fromEntries(at503!.edges.map((e) => [`${e.caller} -> ${e.callee}`, e.callsPerOperation]))).toEqual(simulated);
    }
  });
});
