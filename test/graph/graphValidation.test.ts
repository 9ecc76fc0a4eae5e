import { describe, expect, it } from 'vitest';
import { expandExperiment, experimentJsonSchema, resolveScenario } from '../../src/experiment/index.js';
import type { ServiceGraph } from '../../src/model/graph/ServiceGraph.js';
import { jsonSchemaCheck } from '../helpers/jsonSchemaCheck.js';

type Json = Record<string, any>;

const server = (over: Json = {}): Json => ({ kind: 'server', serviceMs: 1, ...over });

/** A valid graph: a frontend calling two mid-tier services that both call one database. */
function graph(): Json {
  return {
    workload: { kind: 'burst', clients: 10, entry: { service: 'frontend', endpoint: 'page' } },
    stack: [{ name: 'app' }],
    services: {
      frontend: {
        fleet: server({ concurrency: 8 }),
        execution: 'threaded',
        endpoints: {
          page: { steps: [{ kind: 'work' }, { kind: 'call', calls: [{ service: 'users' }, { service: 'orders', endpoint: 'list' }] }] },
          health: {},
        },
      },
      users: { fleet: server(), endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'sdk' }] }] }] } } },
      orders: { fleet: server(), endpoints: { list: { steps: [{ kind: 'call', calls: [{ service: 'db' }] }] } } },
      db: { fleet: server({ concurrency: 4 }), maxInFlight: 100, endpoints: { query: {} } },
    },
  };
}

function errors(patch: (s: Json) => void): string[] {
  const s = graph();
  patch(s);
  const r = resolveScenario(s);
  return r.ok ? [] : r.errors;
}

const fe = (s: Json): Json => s.services.frontend;
const pageCall = (s: Json): Json => fe(s).endpoints.page.steps[1];

describe('service graph validation', () => {
  it('accepts a graph and resolves it with every default', () => {
    const r = resolveScenario(graph());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const g = r.scenario.graph as ServiceGraph;
    expect(g.services.map((s) => [s.name, s.execution, s.maxInFlight, s.endpoints.map((e) => e.name)])).toEqual([
      ['frontend', 'threaded', 'unlimited', ['page', 'health']],
      ['users', 'async', 'unlimited', ['get']],
      ['orders', 'async', 'unlimited', ['list']],
      ['db', 'async', 100, ['query']],
    ]);
    expect(g.entries).toEqual([{ service: 'frontend', endpoint: 'page', weight: 1 }]);
    expect(g.bulkheads).toEqual([]);
    const step = g.services[0]?.endpoints[0]?.steps?.[1];
    expect(step).toMatchObject({ kind: 'call', join: { kind: 'all' }, cancellation: false });
    if (step?.kind !== 'call') return;
    // A call without a stack makes one attempt; an endpoint left out is the service's only one.
    expect(step.calls.map((c) => [c.service, c.endpoint, c.optional, c.stack.map((l) => [l.name, l.instances, l.policy.maxAttempts])])).toEqual([
      ['users', 'get', false, [['client', 1, 1]]],
      ['orders', 'list', false, [['client', 1, 1]]],
    ]);
    // The workload's stack calls the entry service: its fleet is the scenario's leaf; the entry is not a workload field.
    expect(r.scenario.leaf).toEqual(g.services[0]?.fleet);
    expect(r.scenario.workload).not.toHaveProperty('entry');
    expect(r.warnings).toEqual([]);
  });

  it('resolves joins, weighted entry mixes, per-step cancellation and bulkheads', () => {
    const s = graph();
    s.cancellation = true;
    s.workload.entry = [{ service: 'frontend', endpoint: 'page', weight: 3 }, { service: 'frontend', endpoint: 'health' }];
    pageCall(s).join = { quorum: 2 };
    fe(s).endpoints.health = { method: 'HEAD', steps: [{ kind: 'call', join: 'any', cancellation: false, calls: [{ service: 'db' }, { service: 'db' }] }] };
    s.bulkheads = [{ caller: 'frontend', callee: 'db', maxConcurrent: 4 }];
    const r = resolveScenario(s);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const g = r.scenario.graph as ServiceGraph;
    expect(g.entries).toEqual([
      { service: 'frontend', endpoint: 'page', weight: 3 },
      { service: 'frontend', endpoint: 'health', weight: 1 },
    ]);
    const [page, health] = g.services[0]?.endpoints ?? [];
    expect(page?.steps?.[1]).toMatchObject({ join: { kind: 'quorum', k: 2 }, cancellation: true });
    expect(health).toMatchObject({ method: 'HEAD', steps: [{ join: { kind: 'any' }, cancellation: false }] });
    expect(g.bulkheads).toEqual([{ caller: 'frontend', callee: 'db', maxConcurrent: 4 }]);
  });

  const invalid: Array<[string, (s: Json) => void, string[]]> = [
    [
      'an unknown service, with the nearest name',
      (s) => (pageCall(s).calls[0].service = 'user'),
      ['scenario.services.frontend.endpoints.page.steps.1.calls.0.service must name a service (got "user"; did you mean "users"?)'],
    ],
    [
      'an unknown service far from any name',
      (s) => (pageCall(s).calls[0].service = 'inventory'),
      ['scenario.services.frontend.endpoints.page.steps.1.calls.0.service must name a service (got "inventory"; the services are frontend, users, orders, db)'],
    ],
    [
      'an unknown endpoint, with the nearest name',
      (s) => (pageCall(s).calls[1].endpoint = 'lists'),
      ['scenario.services.frontend.endpoints.page.steps.1.calls.1.endpoint must name an endpoint of orders (got "lists"; did you mean "list"?)'],
    ],
    [
      'an unknown endpoint far from any name',
      (s) => (pageCall(s).calls[1].endpoint = 'checkout'),
      ['scenario.services.frontend.endpoints.page.steps.1.calls.1.endpoint must name an endpoint of orders (got "checkout"; orders has list)'],
    ],
    [
      'a call that leaves out the endpoint of a service with several',
      (s) => (s.services.users.endpoints.get.steps[0].calls = [{ service: 'frontend' }]),
      ['scenario.services.users.endpoints.get.steps.0.calls.0.endpoint is required (frontend has endpoints page, health)'],
    ],
    [
      'an entry that does not exist',
      (s) => (s.workload.entry = { service: 'frontend', endpoint: 'home' }),
      ['scenario.workload.entry.endpoint must name an endpoint of frontend (got "home"; frontend has page, health)'],
    ],
    [
      'an entry of a mix naming an unknown service',
      (s) => (s.workload.entry = [{ service: 'frontend', endpoint: 'page' }, { service: 'fronted', endpoint: 'page' }]),
      ['scenario.workload.entry.1.service must name a service (got "fronted"; did you mean "frontend"?)'],
    ],
    ['a graph without an entry', (s) => delete s.workload.entry, ['scenario.workload.entry is required with services (the service and endpoint operations arrive at)']],
    [
      'a cycle through three services, named once at the call that closes it (the first path found to it)',
      (s) => (s.services.db.endpoints.query = { steps: [{ kind: 'call', calls: [{ service: 'frontend', endpoint: 'page' }] }] }),
      ['scenario.services.db.endpoints.query.steps.0.calls.0 closes a cycle: frontend.page -> users.get -> db.query -> frontend.page'],
    ],
    [
      'an endpoint calling itself',
      (s) => (s.services.orders.endpoints.list.steps[0].calls = [{ service: 'orders' }]),
      ['scenario.services.orders.endpoints.list.steps.0.calls.0 closes a cycle: orders.list -> orders.list'],
    ],
    [
      'a call to another endpoint of the same service is no cycle, a call back is',
      (s) => {
        fe(s).endpoints.health = { steps: [{ kind: 'call', calls: [{ service: 'frontend', endpoint: 'page' }] }] };
        s.services.orders.endpoints.list.steps[0].calls = [{ service: 'frontend', endpoint: 'health' }];
      },
      ['scenario.services.frontend.endpoints.health.steps.0.calls.0 closes a cycle: frontend.page -> orders.list -> frontend.health -> frontend.page'],
    ],
    [
      'a quorum larger than its calls',
      (s) => (pageCall(s).join = { quorum: 3 }),
      ['scenario.services.frontend.endpoints.page.steps.1.join.quorum must be at most the number of calls (got 3 > 2)'],
    ],
    ['a quorum of 0', (s) => (pageCall(s).join = { quorum: 0 }), ['scenario.services.frontend.endpoints.page.steps.1.join.quorum must be a positive integer (got 0)']],
    [
      'an optional call joined by any',
      (s) => {
        pageCall(s).join = 'any';
        pageCall(s).calls[1].optional = true;
      },
      ['scenario.services.frontend.endpoints.page.steps.1.calls.1.optional is allowed only with join "all" (got join "any")'],
    ],
    [
      'an optional call in a quorum',
      (s) => {
        pageCall(s).join = { quorum: 1 };
        pageCall(s).calls[0].optional = true;
      },
      ['scenario.services.frontend.endpoints.page.steps.1.calls.0.optional is allowed only with join "all" (got join quorum 1)'],
    ],
    [
      'instances on a call stack',
      (s) => (s.services.users.endpoints.get.steps[0].calls[0].stack = [{ name: 'sdk' }, { name: 'proxy', instances: 10 }]),
      ['scenario.services.users.endpoints.get.steps.0.calls.0.stack.1.instances is not allowed on a call stack (its layers have one instance per backend of the calling service)'],
    ],
    [
      'two layers of a call stack with one name',
      (s) => (s.services.users.endpoints.get.steps[0].calls[0].stack = [{ name: 'sdk' }, { name: 'sdk' }]),
      ['scenario.services.users.endpoints.get.steps.0.calls.0.stack.1.name must be unique (layer 0 is also called "sdk")'],
    ],
    [
      'a misspelt field of a call',
      (s) => (pageCall(s).calls[0] = { service: 'users', optinal: true }),
      ['scenario.services.frontend.endpoints.page.steps.1.calls.0.optinal is not a known field (did you mean "optional"?)'],
    ],
    [
      'an unknown step kind',
      (s) => (fe(s).endpoints.page.steps[0] = { kind: 'sleep' }),
      ['scenario.services.frontend.endpoints.page.steps.0.kind must be one of work, call (got "sleep")'],
    ],
    ['a call step without calls', (s) => (pageCall(s).calls = []), ['scenario.services.frontend.endpoints.page.steps.1.calls must have at least 1 entry (got 0)']],
    [
      'a join that is neither all, any nor a quorum',
      (s) => (pageCall(s).join = 'most'),
      ['scenario.services.frontend.endpoints.page.steps.1.join must be a join "all", "any" or { "quorum": k } (got "most")'],
    ],
    [
      'maxInFlight on a threaded service',
      (s) => (fe(s).maxInFlight = 50),
      ['scenario.services.frontend.maxInFlight applies to async services only (this one is threaded: its workers bound what it holds)'],
    ],
    [
      'a handler on a scripted fleet',
      (s) => (s.services.orders.fleet = { kind: 'script', script: ['200:5'] }),
      ['scenario.services.orders.endpoints.list.steps needs a server or pool fleet to run a handler on (got a script fleet)'],
    ],
    ['a service without endpoints', (s) => (s.services.db.endpoints = {}), ['scenario.services.db.endpoints must have at least 1 endpoint (got 0)']],
    [
      'a service name that cannot appear in a dotted path',
      (s) => (s.services['db.main'] = { fleet: server(), endpoints: { q: {} } }),
      ['scenario.services.db.main is not a valid service name (a letter, then letters, digits, "_" and "-")'],
    ],
    [
      'a service named as the caller of entry edges',
      (s) => (s.services.workload = { fleet: server(), endpoints: { q: {} } }),
      ['scenario.services.workload is a reserved name (entry edges are named workload -> <service>)'],
    ],
    [
      'an endpoint name starting with a digit',
      (s) => (s.services.db.endpoints = { '2q': {} }),
      ['scenario.services.db.endpoints.2q is not a valid endpoint name (a letter, then letters, digits, "_" and "-")'],
    ],
    ['a call naming a property of every object', (s) => (pageCall(s).calls[0].service = 'constructor'), ['scenario.services.frontend.endpoints.page.steps.1.calls.0.service must name a service (got "constructor"; the services are frontend, users, orders, db)']],
    [
      'both a leaf and services',
      (s) => (s.leaf = server()),
      ['scenario.services cannot be combined with leaf (in a service graph the services are the leaves)'],
    ],
    [
      'a bulkhead on a service that does not exist',
      (s) => (s.bulkheads = [{ caller: 'frontend', callee: 'dbs', maxConcurrent: 4 }]),
      ['scenario.bulkheads.0.callee must name a service (got "dbs"; did you mean "db"?)'],
    ],
    [
      'a bulkhead on an edge that does not exist',
      (s) => (s.bulkheads = [{ caller: 'frontend', callee: 'db', maxConcurrent: 4 }]),
      ['scenario.bulkheads.0 is on an edge that does not exist (frontend never calls db)'],
    ],
    [
      'two bulkheads on one edge',
      (s) => (s.bulkheads = [{ caller: 'users', callee: 'db', maxConcurrent: 4 }, { caller: 'users', callee: 'db', maxConcurrent: 2 }]),
      ['scenario.bulkheads.1 repeats bulkheads.0 (one bulkhead per caller and callee: users -> db)'],
    ],
    ['a bulkhead of 0', (s) => (s.bulkheads = [{ caller: 'users', callee: 'db', maxConcurrent: 0 }]), ['scenario.bulkheads.0.maxConcurrent must be a positive integer (got 0)']],
    [
      'a scripted entry fleet that hangs with nothing to bound the wait',
      (s) => {
        s.services.edge = { fleet: { kind: 'script', script: ['hang'] }, endpoints: { get: {} } };
        s.workload.entry = { service: 'edge' };
      },
      ['scenario.services.edge.fleet.script contains "hang" (or "timeout" without a duration) but no layer sets policy.perAttemptTimeoutMs and the workload has no deadlineMs (the operation would never end)'],
    ],
  ];

  it.each(invalid)('reports %s, one message per problem', (_name, patch, expected) => {
    expect(errors(patch)).toEqual(expected);
  });

  it('reports every problem of a graph at once', () => {
    expect(
      errors((s) => {
        pageCall(s).calls[0].service = 'user';
        pageCall(s).join = { quorum: 5 };
        s.services.db.endpoints = {};
      }),
    ).toEqual([
      'scenario.services.db.endpoints must have at least 1 endpoint (got 0)',
      'scenario.services.frontend.endpoints.page.steps.1.join.quorum must be at most the number of calls (got 5 > 2)',
      'scenario.services.frontend.endpoints.page.steps.1.calls.0.service must name a service (got "user"; did you mean "users"?)',
    ]);
  });

  it('rejects graph fields in a stack + leaf scenario', () => {
    const r = resolveScenario({
      workload: { kind: 'burst', clients: 1, entry: { service: 'db' } },
      stack: [{}],
      leaf: server(),
      bulkheads: [],
    });
    expect(r.ok ? [] : r.errors).toEqual([
      'scenario.workload.entry needs services (a stack + leaf scenario calls its leaf)',
      'scenario.bulkheads needs services (bulkheads are between services)',
    ]);
  });

  it('warns of the services that nothing reaches, in one line, and still accepts the graph', () => {
    const s = graph();
    s.services.cache = { fleet: server(), endpoints: { get: {} } };
    // db is now reached only from orders, which nothing calls.
    pageCall(s).calls = [{ service: 'frontend', endpoint: 'health' }];
    s.services.users.endpoints.get = {};
    const r = resolveScenario(s);
    expect(r.ok && r.warnings).toEqual([
      'scenario.services: 4 services are never called (no entry reaches them, directly or through calls): users, orders, db, cache',
    ]);
  });

  it('names the first 10 services that nothing reaches and counts the rest in one line (15 services; a graph many times larger is refused for its event kinds)', () => {
    const s = graph();
    for (let i = 0; i < 15; i++) s.services[`s${i}`] = { fleet: server(), endpoints: { get: {} } };
    const r = resolveScenario(s);
    expect(r.ok && r.warnings).toEqual([
      'scenario.services: 15 services are never called (no entry reaches them, directly or through calls): s0, s1, s2, s3, s4, s5, s6, s7, s8, s9 and 5 more',
    ]);
  });

  it('names a problem set by a variant after the variant, and passes warnings on once', () => {
    const s = graph();
    s.services.cache = { fleet: server(), endpoints: { get: {} } };
    const expanded = expandExperiment(
      { root: { name: 'g', scenario: s, variants: { a: { 'services.users.endpoints.get.steps.0.calls.0.service': 'dbx' }, b: {}, c: {} } } },
      { quick: false },
    );
    expect(expanded.ok ? [] : expanded.errors).toEqual([
      'variants.a: scenario.services.users.endpoints.get.steps.0.calls.0.service must name a service (got "dbx"; did you mean "db"?)',
    ]);
    const good = expandExperiment({ root: { name: 'g', scenario: s, variants: { b: {}, c: {} } } }, { quick: false });
    expect(good.ok && good.warnings).toEqual(['scenario.services.cache is never called (no entry reaches it, directly or through calls)']);
  });
});

describe('the JSON Schema of service graphs', () => {
  const schema = experimentJsonSchema() as Json;

  it('accepts a graph and describes services, steps and joins', () => {
    expect(jsonSchemaCheck(schema, { name: 'g', scenario: graph() })).toEqual([]);
    const defs = schema.$defs as Json;
    expect(Object.keys(defs.Service.properties)).toEqual(['fleet', 'execution', 'maxInFlight', 'endpoints']);
    expect(defs.Service.properties.execution).toMatchObject({ enum: ['threaded', 'async'], default: 'async' });
    expect(defs.Scenario.properties.services.additionalProperties.$ref).toBe('#/$defs/Service');
  });

  it('asks for exactly one of leaf and services', () => {
    const both = { ...graph(), leaf: server() };
    expect(jsonSchemaCheck(schema, { name: 'g', scenario: both })).toContain('$.scenario: matches 0 of oneOf');
    const { services: _s, ...neither } = graph();
    expect(jsonSchemaCheck(schema, { name: 'g', scenario: neither })).toContain('$.scenario: matches 0 of oneOf');
  });

  it('rejects an unknown field of a call step', () => {
    const s = graph();
    pageCall(s).joins = 'all';
    expect(jsonSchemaCheck(schema, { name: 'g', scenario: s })).toEqual(['$.scenario.services.frontend.endpoints.page.steps.1: matches 0 of oneOf']);
  });
});
