import { deriveSeed, stream } from '../../engine/random.js';
import { notDrawn } from '../streams.js';
import type { Simulator } from '../../engine/simulator.js';
import { compilePolicy } from '../../policy/decision.js';
import { K_ARRIVAL, K_FRAME_WAKE, K_LEAF_RESPONSE, K_OP_START, KIND_LIMIT, LEAF_KINDS_FROM } from '../eventKinds.js';
import type { Folds } from '../folds.js';
import { callKey, laterPolicies, type StackRef } from '../interventions.js';
import { Layers, METHOD_CODES } from '../layers/Layers.js';
import type { Leaf } from '../leaves/Leaf.js';
import { leafEventKinds, makeLeaf } from '../leaves/makeLeaf.js';
import { Measurements, ServiceMeasurements } from '../Measurements.js';
import { RequestTable } from '../RequestTable.js';
import type { Layer, Scenario } from '../scenario.js';
import { ScenarioError } from '../ScenarioError.js';
import type { TraceEvent } from '../trace.js';
import { handlerLevels, ServiceTracer, siteSink, traceSite, workloadSink, type WorkloadNames } from '../traceGraph.js';
import { makeWorkload, type Workload } from '../workloads/Workload.js';
import { Bulkhead } from './Bulkhead.js';
import { CallSite } from './CallSite.js';
import { GraphCaches } from './GraphCaches.js';
import { graphEventKindsProblem, STACK_KINDS } from './graphEventKinds.js';
import { joinCode, workStep, type EndpointRuntime, type StepRuntime } from './handlerSteps.js';
import { DEFAULT_CALL_PROBABILITY, endpointNamed, WORKLOAD_CALLER, type GraphCall, type GraphEntry, type ServiceGraph } from './ServiceGraph.js';
import { ServiceLeaf, type ServiceTarget } from './ServiceLeaf.js';
import { ServiceRuntime } from './ServiceRuntime.js';
import { WorkloadMeasurements } from './WorkloadMeasurements.js';

/** A graph's stacks take no fold: what reaches a frame comes from other services too. */
const NO_FOLDS: Folds = { foldAnswers: false, sendAhead: false, readAhead: false };

/** Rows a workload's tables start with (they grow by doubling); a call site's stack starts with {@link SITE_ROWS}. */
export const INITIAL_ROWS = 1024;
const SITE_ROWS = 64;

/** The name of the stream that draws whether a call with a probability below 1 is made (with the caller, its endpoint, step and call). */
const CALL_MADE_STREAM = 'call-made';

/** How the graph is built: the run's seed, a fixed jitter draw, a trace (of the workload's stack, or of the whole graph). */
export interface AssemblyOptions {
  seed: number;
  fixedDraw?: number;
  trace?: (e: TraceEvent) => void;
  traceGraph?: boolean;
}

/** One workload of a graph run: its scenario (the graph's, with its workload and stack), measurements, stack, leaf and operations. */
export interface EntryStack {
  name: string;
  sc: Scenario;
  m: Measurements;
  layers: Layers;
  req: RequestTable;
  leaf: ServiceLeaf;
  workload: Workload;
  entries: GraphEntry[];
}

/** Per event kind, its owner: the workload whose operations it starts, the stack it belongs to, or the fleet (and the fleet's first kind). */
export interface KindOwners {
  workload: Array<EntryStack | null>;
  stack: Array<Layers | null>;
  fleet: Array<Leaf | null>;
  from: Int32Array;
}

/** The parts of a graph run, connected ({@link assembleGraph}). */
export interface GraphParts {
  m: Measurements;
  caches: GraphCaches;
  entryStacks: EntryStack[];
  services: ServiceRuntime[];
  /** Every stack's leaf: the workloads' first, then the call sites' in the order of the graph. */
  callers: ServiceLeaf[];
  /** The caller's name of each stack (index as `callers`): the workload or the calling service. */
  callerNames: string[];
  /** The stacks of the graph's calls by {@link callKey}, and the services by name (for timed interventions). */
  callStacks: Map<string, Layers>;
  serviceByName: Map<string, ServiceRuntime>;
  kinds: KindOwners;
}

/**
 * Builds the parts of a graph run in four steps, each handing out event kinds in turn from
 * LEAF_KINDS_FROM (the first workload's stack keeps the model's kinds from 0): the services'
 * runtimes; the workloads, each with its stack, leaf and operations; the call sites, a stack of
 * layers per call of every handler step (its own frames, random streams and kinds; its requests are
 * slots of the callee fleet's table), with their bulkheads and caches; the fleets, each with its own
 * request table, kinds and streams. Then each call site's stack is connected to its leaf (which asks
 * the callee's fleet). Throws a ScenarioError when the graph needs more event kinds than the queue
 * carries.
 */
export function assembleGraph(sc: Scenario, options: AssemblyOptions, sim: Simulator): GraphParts {
  const graph = sc.graph as ServiceGraph;
  const tooManyKinds = graphEventKindsProblem(graph);
  if (tooManyKinds !== null) throw new ScenarioError([`scenario.services ${tooManyKinds}`]);
  const a = new GraphAssembly(sc, graph, options, sim);
  a.addServices();
  a.addWorkloads();
  a.addCallSites();
  a.addFleets();
  a.connectCallSites();
  return a.parts;
}

/** The state of a graph being built ({@link assembleGraph}). */
class GraphAssembly {
  readonly parts: GraphParts;
  private nextKind = LEAF_KINDS_FROM;
  private readonly runtimes = new Map<string, ServiceRuntime>();
  /** The layers that call each service (its fleet's scenario lists them). */
  private readonly callersOf = new Map<string, Layer[]>();
  /** The workloads: one (the scenario's), or each of the graph's `workloads` with its own stack. */
  private readonly specs: Array<{ name: string; workload: Scenario['workload']; stack: Layer[]; entries: GraphEntry[] }>;
  /** Each call site's stack is connected to its leaf once the callee's fleet is built (ServiceLeaf.answersAtOnce asks it). */
  private readonly siteStacks: Array<{ ly: Layers; leaf: ServiceLeaf; site: CallSite }> = [];
  /** A run traced through the graph: each service reports its handlers, each call's stack marks its events with its site, at their levels. */
  private readonly trace: ((e: TraceEvent) => void) | undefined;
  private readonly levels: Map<string, number> | null;
  /** Traced through a graph of named workloads: their names, which every event of an operation carries. */
  private readonly workloadNames: WorkloadNames;

  constructor(
    private readonly sc: Scenario,
    private readonly graph: ServiceGraph,
    private readonly options: AssemblyOptions,
    private readonly sim: Simulator,
  ) {
    const named = graph.workloads;
    const totalStack: Layer[] = named === undefined ? sc.stack : named.flatMap((w) => w.stack.map((l) => ({ ...l, name: `${w.name}.${l.name}` })));
    this.parts = {
      m: new Measurements(named === undefined ? sc : { ...sc, stack: totalStack }, false),
      caches: new GraphCaches(sim, options.seed, sc.metrics.timeSeriesBinMs, -sc.warmupMs),
      entryStacks: [],
      services: [],
      callers: [],
      callerNames: [],
      callStacks: new Map(),
      serviceByName: new Map(),
      kinds: {
        workload: new Array<EntryStack | null>(KIND_LIMIT).fill(null),
        stack: new Array<Layers | null>(KIND_LIMIT).fill(null),
        fleet: new Array<Leaf | null>(KIND_LIMIT).fill(null),
        from: new Int32Array(KIND_LIMIT),
      },
    };
    this.specs = named ?? [{ name: WORKLOAD_CALLER, workload: sc.workload, stack: sc.stack, entries: graph.entries }];
    this.trace = options.traceGraph === true ? options.trace : undefined;
    this.levels = this.trace !== undefined ? handlerLevels(graph, sc.stack.length) : null;
    this.workloadNames = this.trace !== undefined && named !== undefined ? named.map((w) => w.name) : null;
  }

  /** The next `n` event kinds. */
  private takeKinds(n: number): number {
    const from = this.nextKind;
    this.nextKind += n;
    if (this.nextKind > KIND_LIMIT) {
      throw new Error(`internal: the graph's event kinds reach ${this.nextKind}, more than ${KIND_LIMIT} (graphEventKinds counted fewer)`);
    }
    return from;
  }

  /** The options of a stack's layers: its compiled policies, seed, kinds and the policies timed interventions give it later. */
  private stackOptions(policies: Layer[], seed: number, kindBase: number, isStack: (ref: StackRef) => boolean) {
    return {
      seed,
      policies: policies.map((l) => compilePolicy(l.policy)),
      fixedDraw: this.options.fixedDraw,
      trace: undefined,
      folds: NO_FOLDS,
      kindBase,
      laterPolicies: this.sc.interventions === undefined ? undefined : laterPolicies(this.sc.interventions, isStack, policies.length),
    };
  }

  /** A stack's kinds are its own: claimed in the kinds' owners. */
  private claimStack(ly: Layers): void {
    for (let k = ly.kb + K_FRAME_WAKE; k <= ly.kb + K_LEAF_RESPONSE; k++) this.parts.kinds.stack[k] = ly;
  }

  private target(service: string, endpoint: string, weight: number): ServiceTarget {
    const rt = this.runtimes.get(service) as ServiceRuntime;
    const spec = this.graph.services.find((s) => s.name === service);
    return { service: rt, endpoint: spec?.endpoints.findIndex((e) => e.name === endpoint) ?? -1, weight };
  }

  /** Every service's runtime, its measurements and (traced through the graph) its tracer. */
  addServices(): void {
    const { sc, graph, parts } = this;
    for (const s of graph.services) {
      const rt = new ServiceRuntime(s, parts.callers);
      rt.measure = new ServiceMeasurements(sc.metrics.timeSeriesBinMs, -sc.warmupMs, this.sim);
      if (this.trace !== undefined) rt.handlers.tracer = new ServiceTracer(this.trace, s, this.levels?.get(s.name) ?? 0, this.workloadNames);
      this.runtimes.set(s.name, rt);
      parts.serviceByName.set(s.name, rt);
      parts.services.push(rt);
    }
  }

  /** The workloads: the first keeps the model's kinds from 0 and the master seed; the others take kinds of their own and seeds derived from their names. */
  addWorkloads(): void {
    const { sc, parts } = this;
    const named = this.graph.workloads;
    const W = named?.length ?? 1;
    this.specs.forEach((w, i) => {
      const wSc: Scenario = named === undefined ? sc : { ...sc, workload: w.workload, stack: w.stack };
      const wSeed = i === 0 ? this.options.seed : deriveSeed(this.options.seed, 'workload', w.name);
      let stackBase = 0;
      let workloadBase = 0;
      if (i > 0) {
        stackBase = this.takeKinds(STACK_KINDS) - K_FRAME_WAKE;
        workloadBase = this.takeKinds(K_ARRIVAL - K_OP_START + 1) - K_OP_START;
      }
      const req = new RequestTable(INITIAL_ROWS);
      const m = named === undefined ? parts.m : new WorkloadMeasurements(wSc, parts.m);
      const isWorkload = (ref: StackRef) => ref.kind === 'workload' && (named === undefined ? ref.workload === null : ref.workload === w.name);
      // Traced through a graph of named workloads, every workload's stack is traced, its operations keyed as the graph keys them.
      const trace = this.workloadNames !== null && this.trace !== undefined ? workloadSink(this.trace, this.workloadNames, i) : i === 0 ? this.options.trace : undefined;
      const layers = new Layers(wSc, this.sim, req, m, INITIAL_ROWS, { ...this.stackOptions(w.stack, wSeed, stackBase, isWorkload), trace });
      this.claimStack(layers);
      const workload = makeWorkload(wSc, this.sim, wSeed, layers.top, workloadBase);
      const leaf = new ServiceLeaf(
        req,
        layers,
        parts.callers.length,
        w.entries.map((e) => this.target(e.service, e.endpoint, e.weight)),
        wSeed,
        null,
        named === undefined ? null : { count: W, index: i },
      );
      parts.callers.push(leaf);
      parts.callerNames.push(w.name);
      layers.connect(leaf, workload);
      const entry: EntryStack = { name: w.name, sc: wSc, m, layers, req, leaf, workload, entries: w.entries };
      parts.entryStacks.push(entry);
      parts.kinds.workload[workloadBase + K_OP_START] = entry;
      parts.kinds.workload[workloadBase + K_ARRIVAL] = entry;
    });
  }

  /** The call sites: a stack of layers per call of every handler step, one instance per backend of the calling service. */
  addCallSites(): void {
    const graph = this.graph;
    const bulkheads = new Map<string, Bulkhead>();
    for (const b of graph.bulkheads) {
      const backends = (this.runtimes.get(b.caller) as ServiceRuntime).backendCount;
      bulkheads.set(`${b.caller}\u0000${b.callee}`, new Bulkhead(b.caller, b.callee, b.maxConcurrent, backends));
    }
    // A call to an endpoint that declares no method makes the operation's: that of its workload.
    const workloadMethods = Int8Array.from(this.specs, (w) => METHOD_CODES[w.workload.method]);
    for (const w of this.specs) for (const e of w.entries) this.callersOf.set(e.service, [...(this.callersOf.get(e.service) ?? []), ...w.stack]);
    for (const s of graph.services) {
      const rt = this.runtimes.get(s.name) as ServiceRuntime;
      const endpoints: EndpointRuntime[] = s.endpoints.map((ep, e) => {
        if (ep.steps === undefined) return { steps: null };
        const steps = ep.steps.map((step, i): StepRuntime => {
          if (step.kind === 'work') return workStep(step.serviceMs, ep.name, i);
          const sites = step.calls.map((call, j) => this.callSite(rt, s.name, ep.name, e, i, j, call, bulkheads, workloadMethods));
          const sampled = step.calls.some((call) => call.probability < DEFAULT_CALL_PROBABILITY);
          return { kind: 'call', ...joinCode(step.join, step.calls.length), cancellation: step.cancellation, sites, sampled };
        });
        return { steps };
      });
      rt.endpoints.push(...endpoints);
    }
  }

  /** Call `j` of step `i` of endpoint `endpoint` (index `e`) of service `service`: its stack, leaf, bulkhead and cache. */
  private callSite(
    rt: ServiceRuntime,
    service: string,
    endpoint: string,
    e: number,
    i: number,
    j: number,
    call: GraphCall,
    bulkheads: ReadonlyMap<string, Bulkhead>,
    workloadMethods: Int8Array,
  ): CallSite {
    const { sc, graph, parts } = this;
    const named = graph.workloads;
    const siteSc = callSiteScenario(sc, call, rt.backendCount, graph);
    const kb = this.takeKinds(STACK_KINDS) - K_FRAME_WAKE;
    // A call's requests are slots of the callee fleet's own table (ServiceLeaf.direct).
    const siteReq = (this.runtimes.get(call.service) as ServiceRuntime).req;
    const siteTrace = this.trace !== undefined ? siteSink(this.trace, traceSite(service, call, this.levels?.get(service) ?? 0), this.workloadNames) : undefined;
    const key = callKey(service, endpoint, i, j);
    const isCall = (ref: StackRef) => ref.kind === 'call' && callKey(ref.service, ref.endpoint, ref.step, ref.call) === key;
    const ly = new Layers(siteSc, this.sim, siteReq, new Measurements(callSiteMetrics(siteSc), false), SITE_ROWS, {
      ...this.stackOptions(siteSc.stack, deriveSeed(this.options.seed, 'call', service, endpoint, i, j), kb, isCall),
      trace: siteTrace,
    });
    this.claimStack(ly);
    parts.callStacks.set(key, ly);
    const bulkhead = bulkheads.get(`${service}\u0000${call.service}`) ?? null;
    const leaf = new ServiceLeaf(siteReq, ly, parts.callers.length, [this.target(call.service, call.endpoint, 1)], this.options.seed, bulkhead, named === undefined ? null : { count: named.length, index: -1 });
    parts.callers.push(leaf);
    parts.callerNames.push(service);
    const declared = endpointNamed(graph.services.find((x) => x.name === call.service) as (typeof graph.services)[number], call.endpoint).method;
    const cache = call.cache === undefined ? null : parts.caches.add(rt, call.cache, ly, `services.${service}.endpoints.${endpoint}.steps.${i}.calls.${j}.cache`, e, (n) => this.takeKinds(n));
    // Whether the call is made: a stream of its own, built only for a call that is not always made (so no other stream moves).
    const made = call.probability < DEFAULT_CALL_PROBABILITY ? stream(this.options.seed, CALL_MADE_STREAM, service, endpoint, i, j) : notDrawn;
    const site = new CallSite(rt.handlers, ly, leaf, declared === undefined ? workloadMethods : Int8Array.of(METHOD_CODES[declared]), call.optional, cache, call.probability, made);
    this.siteStacks.push({ ly, leaf, site });
    const list = this.callersOf.get(call.service) ?? [];
    list.push(...siteSc.stack);
    this.callersOf.set(call.service, list);
    return site;
  }

  /** The fleets: each service's servers, with its own request table, kinds and streams, serving the layers that call it. */
  addFleets(): void {
    const { sc, parts } = this;
    for (const s of this.graph.services) {
      const rt = this.runtimes.get(s.name) as ServiceRuntime;
      const kinds = leafEventKinds(s.fleet.kind);
      const kindBase = this.takeKinds(kinds);
      const fleetSc: Scenario = { ...sc, leaf: s.fleet, stack: this.callersOf.get(s.name) ?? [] };
      const fleet = makeLeaf(
        fleetSc,
        { sim: this.sim, req: rt.req, host: rt, measurements: parts.m, kindBase, seed: deriveSeed(this.options.seed, 'service', s.name), startMs: -sc.warmupMs, binMs: sc.metrics.timeSeriesBinMs, binCounts: true },
        { folds: NO_FOLDS, lastHopZero: false, lastHopLane: -1, tracing: this.options.trace !== undefined },
      );
      for (let k = kindBase; k < kindBase + kinds; k++) {
        parts.kinds.fleet[k] = fleet;
        parts.kinds.from[k] = kindBase;
      }
      rt.connect(fleet);
    }
  }

  /** Each call site's stack connected to its leaf; the edges' calls per metric window counted only when there are windows. */
  connectCallSites(): void {
    for (const { ly, leaf, site } of this.siteStacks) ly.connectCallSite(leaf, site, leaf.bulkhead === null ? null : leaf);
    const windows = this.sc.metrics.windows ?? [];
    if (windows.length > 0) for (const c of this.parts.callers) c.countInWindows(windows);
  }
}

/**
 * What a call site's own measurements keep: the results report the edges' counters and the
 * services' fleets, not the call sites' leaf-arrival statistics, so their clustering statistics and
 * metric windows, which every call would update, are left out.
 */
function callSiteMetrics(siteSc: Scenario): Scenario {
  return { ...siteSc, metrics: { ...siteSc.metrics, clusteringBinMs: [], windows: [] } };
}

/**
 * The scenario a call site's layers run on: the call's stack, one instance of each layer per backend
 * of the calling service (the clients of its jitter streams are those backends), the callee's fleet.
 */
function callSiteScenario(sc: Scenario, call: GraphCall, backends: number, graph: ServiceGraph): Scenario {
  const callee = graph.services.find((s) => s.name === call.service);
  return {
    ...sc,
    stack: call.stack.map((l) => ({ ...l, instances: backends })),
    workload: { ...sc.workload, clients: backends, deadlineMs: undefined },
    leaf: callee?.fleet ?? sc.leaf,
  };
}
