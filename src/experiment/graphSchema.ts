import { z } from 'zod';
import { DEFAULT_CALL_PROBABILITY, WORKLOAD_CALLER, type Bulkhead, type GraphEntry, type GraphService, type GraphStep, type GraphWorkload, type Join, type ServiceGraph } from '../model/graph/ServiceGraph.js';
import type { Dist, Layer, Leaf, Method, Workload } from '../model/scenario.js';
import { between } from '../policy/schema/between.js';
import { describeValue } from '../policy/schema/describeValue.js';
import { fields as f } from '../policy/schema/fields.js';
import { namedLayers, uniqueLayerNames } from './layerNames.js';
import { cacheIssues, cacheSchemas, resolveCache, resolveTiers, type GraphReport, type ParsedCache, type ParsedSharedCache } from './cacheSchema.js';
import { hint, NAME } from './graphNames.js';
import type { PathSegment } from './Problem.js';
import { policySchema } from '../policy/schema/policySchema.js';
import { doc } from '../policy/schema/schemaDocs.js';


/** The stack of a call when none is written: one layer that makes one attempt (a plain call, no retries). */
const DEFAULT_CALL_STACK = [{ name: 'client', policy: { maxAttempts: 1 } }];

/** What the graph's schemas are built from (the scenario schema's own pieces, passed in to keep imports one way). */
export interface GraphSchemaParts {
  dist: z.ZodType<Dist, unknown>;
  leaf: z.ZodType<Leaf, unknown>;
  methods: readonly [Method, ...Method[]];
}

/** A call's stack, an entry and a call step as the schema parses them (names not yet checked). */
interface ParsedCall {
  service: string;
  endpoint?: string | undefined;
  stack: Layer[];
  optional: boolean;
  probability: number;
  cache?: ParsedCache | undefined;
}
type ParsedStep =
  | { kind: 'work'; serviceMs?: Dist | undefined }
  | { kind: 'call'; calls: ParsedCall[]; join: 'all' | 'any' | { quorum: number }; cancellation?: boolean | undefined };
interface ParsedEndpoint {
  method?: Method | undefined;
  steps?: ParsedStep[] | undefined;
}
interface ParsedService {
  fleet: Leaf;
  execution: 'threaded' | 'async';
  maxInFlight?: number | 'unlimited' | undefined;
  endpoints: Record<string, ParsedEndpoint>;
}
interface ParsedEntry {
  service: string;
  endpoint?: string | undefined;
  weight?: number | undefined;
}

/** The graph fields of a scenario as parsed: `services`, `bulkheads` and the workload's `entry` (or each named workload's). */
export interface ParsedGraph {
  services: Record<string, ParsedService>;
  caches?: Record<string, ParsedSharedCache> | undefined;
  bulkheads?: Array<{ caller: string; callee: string; maxConcurrent: number }> | undefined;
  entry?: ParsedEntry | ParsedEntry[] | undefined;
  workloads?: Record<string, { entry?: ParsedEntry | ParsedEntry[] | undefined }> | undefined;
}

/** A named workload as parsed: a workload with its entry and its own stack. */
export type ParsedNamedWorkload = Workload & { entry?: ParsedEntry | ParsedEntry[] | undefined; stack: Layer[] };

const entryTarget = { service: f.nonEmptyString(), endpoint: doc(f.nonEmptyString().optional(), 'May be left out when the service has one endpoint.') };

/** Where a workload's operations arrive in a service graph (`workload.entry`): one endpoint, or a weighted mix. */
export const entrySchema = doc(
  f.union(
    [f.object(entryTarget), f.array(f.object({ ...entryTarget, weight: f.number('> 0').default(1) }), 'entries', 1)],
    'an entry { "service": ..., "endpoint": ... } or a list of weighted entries',
  ),
  'Where operations arrive in a service graph: one endpoint, or a mix (each operation picks an entry by weight).',
);

/**
 * The schemas of a service graph (docs/experiments.md, "Service graphs"): `services` (each a fleet with endpoints
 * and handlers) and `bulkheads` ({@link entrySchema} is the workload's `entry`). Checks that need the whole graph (names,
 * cycles) are {@link graphIssues}, run by the scenario.
 */
export function graphSchemas(parts: GraphSchemaParts) {
  const callLayer = f
    .object({
      name: doc(f.nonEmptyString().optional(), 'Default: layer<i> (i from 0).'),
      instances: doc(z.unknown().optional(), 'Not allowed: a call stack has one instance per backend of the calling service.'),
      hopMs: doc(parts.dist.optional(), 'Delay of the hop to the next layer down (and back); default: network.hopMs.'),
      policy: policySchema.prefault({}),
    })
    .superRefine((layer, ctx) => {
      if (layer.instances !== undefined) {
        between(ctx, ['instances'], 'is not allowed on a call stack (its layers have one instance per backend of the calling service)', layer.instances, []);
      }
    });
  const callStack = f.array(callLayer, 'layers', 1, 16).superRefine(uniqueLayerNames).transform(namedLayers);

  const { cache, sharedCache } = cacheSchemas(parts.dist);
  const call = f.object({
    service: doc(f.nonEmptyString(), 'The service called.'),
    endpoint: doc(f.nonEmptyString().optional(), 'The endpoint called; may be left out when the service has one.'),
    stack: doc(callStack.prefault(DEFAULT_CALL_STACK), 'The caller\'s retrying layers for this call (client library, sidecar...); default: one layer, one attempt.'),
    optional: doc(f.boolean().default(false), 'A failed optional call never decides its step (join "all" only); the operation is then degraded.'),
    probability: doc(
      f.number('> 0 and <= 1').default(DEFAULT_CALL_PROBABILITY),
      'The chance that the call is made each time its step runs (join "all" only below 1); a call not made neither succeeds nor fails: the join waits only for the calls made. Default 1: always.',
    ),
    cache: cache.optional(),
  });
  const join = doc(
    f.union([f.oneOf(['all', 'any']), f.object({ quorum: f.positiveInt() })], 'a join "all", "any" or { "quorum": k }'),
    'all: every required call must succeed (fails at the first failure); any: the first success; { "quorum": k }: the k-th success.',
  );
  const step = f.choice('kind', ['work', 'call'], [
    doc(
      f.object({ kind: z.literal('work'), serviceMs: doc(parts.dist.optional(), "Default: the serving backend's serviceMs.") }),
      "Service time on the service's workers (its fleet's concurrency; a full queue answers 503).",
    ),
    doc(
      f.object({
        kind: z.literal('call'),
        calls: f.array(call, 'calls', 1),
        join: join.default('all'),
        cancellation: doc(f.boolean().optional(), 'Cancel the calls left outstanding when the join decides; default: the scenario\'s cancellation.'),
      }),
      'Downstream calls sent together, each through its own stack, joined by `join`.',
    ),
  ]);
  const endpoint = f.object({
    method: doc(f.oneOf(parts.methods).optional(), "The method of calls to this endpoint; default: the method of the operation each call serves (of its workload)."),
    steps: doc(f.array(step, 'steps', 1).optional(), 'The handler, run in order; default: the fleet answers as a leaf does.'),
  });
  const service = doc(
    f.object({
      fleet: doc(parts.leaf, "The service's servers: a server (its concurrency is the workers, its queueLimit the queue), a pool, an OCC row or a script."),
      execution: doc(
        f.oneOf(['threaded', 'async']).default('async'),
        'threaded: a worker is held from the handler\'s start to its end, calls included; async: only during work steps.',
      ),
      maxInFlight: doc(f.intOrUnlimited(1).optional(), 'Async services: requests admitted and not yet answered, at most (beyond it: 503 at once). Default unlimited.'),
      endpoints: f.record(endpoint),
    }),
    'A named service: a fleet and its endpoints.',
    'Service',
  );
  const bulkheads = doc(
    f.array(f.object({ caller: f.nonEmptyString(), callee: f.nonEmptyString(), maxConcurrent: f.positiveInt() }), 'bulkheads'),
    'Caps on concurrent calls from each backend of `caller` to `callee` (Hystrix, resilience4j Bulkhead); a full one refuses with bulkhead-full.',
  );
  return {
    services: doc(f.record(service), 'Named services of a service graph (instead of `leaf`).'),
    bulkheads,
    caches: doc(f.record(sharedCache), 'Cache tiers of a service graph by name, each looked up by the calls that name it (cache: { "shared": "<name>" }).'),
  };
}

/**
 * Reports every problem of a graph that needs more than one field: names of services, endpoints and
 * entries, cycles among (service, endpoint) nodes (each named once, at the call that closes it),
 * quorums larger than their calls, optional calls and call probabilities below 1 outside `all`, handlers on fleets without workers,
 * `maxInFlight` on threaded services, bulkheads on edges that do not exist. Paths are relative to the
 * scenario.
 */
export function graphIssues(graph: ParsedGraph, ctx: z.RefinementCtx): void {
  const check = graphCheck(graph.services, (path, message, input, related = []) => between(ctx, path, message, input, related));
  serviceIssues(check);
  const edges = callEdges(check);
  reportCycles(edges, check.report);
  cacheIssues(graph, check.report);
  entryIssues(graph, check);
  bulkheadIssues(graph, edges, check);
}


/** The edges of the (service, endpoint) graph from each node, with the path of the call that makes each. */
type CallEdges = Map<string, Array<{ to: string; path: PathSegment[] }>>;

/** What the steps of {@link graphIssues} share: the services, the report, and the resolution of a reference. */
interface GraphCheck {
  services: Record<string, ParsedService>;
  report: GraphReport;
  /** Whether a name is a (valid) service of the graph. */
  isService(name: string): boolean;
  /** Reports a name that is no service, with the nearest one. */
  unknownService(path: PathSegment[], name: string): void;
  /** The endpoint a reference resolves to, or undefined after reporting why it does not. */
  resolve(path: PathSegment[], service: string, endpoint: string | undefined): string | undefined;
}

/** The shared part of the graph's checks, reporting through `report`. */
function graphCheck(services: Record<string, ParsedService>, report: GraphReport): GraphCheck {
  const validServices = Object.keys(services).filter((name) => NAME.test(name) && name !== WORKLOAD_CALLER);
  const isService = (name: string): boolean => Object.hasOwn(services, name) && NAME.test(name) && name !== WORKLOAD_CALLER;
  const unknownService = (path: PathSegment[], name: string): void =>
    report(path, `must name a service (got ${describeValue(name)}; ${hint(name, validServices, 'the services are')})`, name);
  const resolve = (path: PathSegment[], service: string, endpoint: string | undefined): string | undefined => {
    if (!isService(service)) {
      unknownService([...path, 'service'], service);
      return undefined;
    }
    const endpoints = Object.keys((services[service] as ParsedService).endpoints);
    if (endpoint === undefined) {
      if (endpoints.length === 1) return endpoints[0];
      if (endpoints.length > 1) report([...path, 'endpoint'], `is required (${service} has endpoints ${endpoints.join(', ')})`, undefined);
      return undefined;
    }
    if (!endpoints.includes(endpoint)) {
      report([...path, 'endpoint'], `must name an endpoint of ${service} (got ${describeValue(endpoint)}; ${hint(endpoint, endpoints, `${service} has`)})`, endpoint);
      return undefined;
    }
    return endpoint;
  };
  return { services, report, isService, unknownService, resolve };
}

/** The names of services and endpoints, each service's endpoints, and `maxInFlight` on threaded services. */
function serviceIssues({ services, report }: GraphCheck): void {
  for (const name of Object.keys(services)) {
    if (!NAME.test(name)) report(['services', name], 'is not a valid service name (a letter, then letters, digits, "_" and "-")', name);
    else if (name === WORKLOAD_CALLER) report(['services', name], `is a reserved name (entry edges are named ${WORKLOAD_CALLER} -> <service>)`, name);
    const s = services[name] as ParsedService;
    const endpointNames = Object.keys(s.endpoints);
    if (endpointNames.length === 0) report(['services', name, 'endpoints'], 'must have at least 1 endpoint (got 0)', s.endpoints);
    for (const e of endpointNames) {
      if (!NAME.test(e)) report(['services', name, 'endpoints', e], 'is not a valid endpoint name (a letter, then letters, digits, "_" and "-")', e);
    }
    if (s.execution === 'threaded' && s.maxInFlight !== undefined) {
      report(['services', name, 'maxInFlight'], 'applies to async services only (this one is threaded: its workers bound what it holds)', s.maxInFlight, [['services', name, 'execution']]);
    }
  }
}

/** The graph's call edges, checking each handler's fleet, call steps (quorum, optional calls) and call targets on the way. */
function callEdges({ services, report, resolve }: GraphCheck): CallEdges {
  const edges: CallEdges = new Map();
  for (const name of Object.keys(services)) {
    const s = services[name] as ParsedService;
    for (const [e, ep] of Object.entries(s.endpoints)) {
      const out: Array<{ to: string; path: PathSegment[] }> = [];
      edges.set(`${name}.${e}`, out);
      const steps = ep.steps ?? [];
      const at: PathSegment[] = ['services', name, 'endpoints', e];
      if (steps.length > 0 && s.fleet.kind !== 'server' && s.fleet.kind !== 'pool') {
        report([...at, 'steps'], `needs a server or pool fleet to run a handler on (got a ${s.fleet.kind} fleet)`, steps, [['services', name, 'fleet', 'kind']]);
      }
      steps.forEach((st, i) => {
        if (st.kind !== 'call') return;
        const stepPath = [...at, 'steps', i];
        if (typeof st.join === 'object' && st.join.quorum > st.calls.length) {
          report([...stepPath, 'join', 'quorum'], `must be at most the number of calls (got ${st.join.quorum} > ${st.calls.length})`, st.join.quorum, [[...stepPath, 'calls']]);
        }
        st.calls.forEach((c, j) => {
          const callPath = [...stepPath, 'calls', j];
          const got = typeof st.join === 'object' ? `quorum ${st.join.quorum}` : `"${st.join}"`;
          if (c.optional && st.join !== 'all') {
            report([...callPath, 'optional'], `is allowed only with join "all" (got join ${got})`, c.optional, [[...stepPath, 'join']]);
          }
          if (c.probability < DEFAULT_CALL_PROBABILITY && st.join !== 'all') {
            report([...callPath, 'probability'], `below 1 is allowed only with join "all" (got ${c.probability} with join ${got})`, c.probability, [[...stepPath, 'join']]);
          }
          const target = resolve(callPath, c.service, c.endpoint);
          if (target !== undefined) out.push({ to: `${c.service}.${target}`, path: callPath });
        });
      });
    }
  }
  return edges;
}

/** The workload's entry, or each named workload's name and entry. */
function entryIssues(graph: ParsedGraph, { services, report, resolve }: GraphCheck): void {
  const checkEntry = (at: PathSegment[], entry: ParsedEntry | ParsedEntry[] | undefined): void => {
    const entries = entry === undefined ? [] : Array.isArray(entry) ? entry : [entry];
    entries.forEach((en, i) => resolve(Array.isArray(entry) ? [...at, i] : at, en.service, en.endpoint));
  };
  if (graph.workloads === undefined) checkEntry(['workload', 'entry'], graph.entry);
  for (const [name, w] of Object.entries(graph.workloads ?? {})) {
    if (!NAME.test(name)) report(['workloads', name], 'is not a valid workload name (a letter, then letters, digits, "_" and "-")', name);
    else if (Object.hasOwn(services, name)) report(['workloads', name], `is also the name of a service (entry edges are named <workload> -> <service>)`, name, [['services', name]]);
    checkEntry(['workloads', name, 'entry'], w.entry);
  }
}

/** Each bulkhead: its services known, one per caller and callee, on an edge that exists. */
function bulkheadIssues(graph: ParsedGraph, edges: CallEdges, { services, report, isService, unknownService }: GraphCheck): void {
  const seen = new Map<string, number>();
  (graph.bulkheads ?? []).forEach((b, i) => {
    const at: PathSegment[] = ['bulkheads', i];
    let known = true;
    for (const field of ['caller', 'callee'] as const) {
      if (!isService(b[field])) {
        unknownService([...at, field], b[field]);
        known = false;
      }
    }
    if (!known) return;
    const key = `${b.caller} -> ${b.callee}`;
    const first = seen.get(key);
    if (first !== undefined) {
      report(at, `repeats bulkheads.${first} (one bulkhead per caller and callee: ${key})`, b, [['bulkheads', first]]);
      return;
    }
    seen.set(key, i);
    const calls = Object.keys((services[b.caller] as ParsedService).endpoints).some((e) =>
      (edges.get(`${b.caller}.${e}`) ?? []).some((edge) => edge.to.startsWith(`${b.callee}.`)),
    );
    if (!calls) report(at, `is on an edge that does not exist (${b.caller} never calls ${b.callee})`, b);
  });
}

/** Depth-first search for cycles; each cycle is reported once, at the call that closes it. */
function reportCycles(
  edges: ReadonlyMap<string, ReadonlyArray<{ to: string; path: PathSegment[] }>>,
  report: (path: PathSegment[], message: string, input: unknown) => void,
): void {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const reported = new Set<string>();
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const edge of edges.get(node) ?? []) {
      const s = state.get(edge.to);
      if (s === 'open') {
        const cycle = stack.slice(stack.indexOf(edge.to));
        const least = cycle.reduce((a, b) => (b < a ? b : a));
        const key = [...cycle.slice(cycle.indexOf(least)), ...cycle.slice(0, cycle.indexOf(least))].join(' ');
        if (!reported.has(key)) {
          reported.add(key);
          report(edge.path, `closes a cycle: ${[...cycle, edge.to].join(' -> ')}`, edge.to);
        }
      } else if (s === undefined) visit(edge.to);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of edges.keys()) if (!state.has(node)) visit(node);
}

type WrittenEntry = NonNullable<z.output<typeof entrySchema>>;

/** The first (or only) entry as written. */
export function firstEntry(entry: WrittenEntry | undefined): { service: string } | undefined {
  return Array.isArray(entry) ? entry[0] : entry;
}

/** The fleet of the first entry's service: what the workload's stack calls (undefined when the entry names no service). */
export function entryFleet(services: Record<string, { fleet: Leaf }> | undefined, entry: WrittenEntry | undefined): Leaf | undefined {
  const first = firstEntry(entry);
  return first === undefined || services === undefined || !Object.hasOwn(services, first.service) ? undefined : services[first.service]?.fleet;
}

/** The only endpoint of `service`, or the one named (the graph was checked by {@link graphIssues}). */
function endpointOf(services: Record<string, ParsedService>, service: string, endpoint: string | undefined): string {
  return endpoint ?? (Object.keys((services[service] as ParsedService).endpoints)[0] as string);
}

function resolveJoin(join: 'all' | 'any' | { quorum: number }): Join {
  return typeof join === 'object' ? { kind: 'quorum', k: join.quorum } : { kind: join };
}

/** The resolved entries of a checked entry (one, or a mix). */
function resolveEntries(services: Record<string, ParsedService>, entry: ParsedEntry | ParsedEntry[] | undefined): GraphEntry[] {
  const written = entry === undefined ? [] : Array.isArray(entry) ? entry : [entry];
  return written.map((en) => ({ service: en.service, endpoint: endpointOf(services, en.service, en.endpoint), weight: en.weight ?? 1 }));
}

/**
 * The resolved graph of a checked {@link ParsedGraph}; `cancellation` is the scenario's default for
 * call steps. With named `workloads`, each is resolved with its own entries, and `entries` are the first one's.
 */
export function resolveGraph(graph: Omit<ParsedGraph, 'workloads'> & { workloads?: Record<string, ParsedNamedWorkload> | undefined }, cancellation: boolean): ServiceGraph {
  const services = graph.services;
  const resolved: GraphService[] = Object.entries(services).map(([name, s]) => ({
    name,
    fleet: s.fleet,
    execution: s.execution,
    maxInFlight: s.maxInFlight ?? 'unlimited',
    endpoints: Object.entries(s.endpoints).map(([e, ep]) => ({
      name: e,
      ...(ep.method !== undefined ? { method: ep.method } : {}),
      ...(ep.steps !== undefined
        ? {
            steps: ep.steps.map((st): GraphStep =>
              st.kind === 'work'
                ? { kind: 'work', ...(st.serviceMs !== undefined ? { serviceMs: st.serviceMs } : {}) }
                : {
                    kind: 'call',
                    calls: st.calls.map((c) => ({
                      service: c.service,
                      endpoint: endpointOf(services, c.service, c.endpoint),
                      stack: c.stack,
                      optional: c.optional,
                      probability: c.probability,
                      ...(c.cache !== undefined ? { cache: resolveCache(c.cache, c.service, graph.caches ?? {}) } : {}),
                    })),
                    join: resolveJoin(st.join),
                    cancellation: st.cancellation ?? cancellation,
                  },
            ),
          }
        : {}),
    })),
  }));
  const bulkheads: Bulkhead[] = (graph.bulkheads ?? []).map((b) => ({ caller: b.caller, callee: b.callee, maxConcurrent: b.maxConcurrent }));
  const caches = graph.caches === undefined ? {} : { caches: resolveTiers(graph.caches) };
  if (graph.workloads === undefined) return { services: resolved, entries: resolveEntries(services, graph.entry), bulkheads, ...caches };
  const workloads: GraphWorkload[] = Object.entries(graph.workloads).map(([name, { entry, stack, ...workload }]) => ({
    name,
    workload: workload as Workload,
    stack,
    entries: resolveEntries(services, entry),
  }));
  return { services: resolved, entries: workloads[0]?.entries ?? [], bulkheads, ...caches, workloads };
}
