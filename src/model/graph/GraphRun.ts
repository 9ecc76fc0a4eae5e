import { deriveSeed } from '../../engine/random.js';
import { Simulator, type EventDispatcher } from '../../engine/simulator.js';
import { compilePolicy } from '../../policy/decision.js';
import { K_ARRIVAL, K_FRAME_WAKE, K_LEAF_RESPONSE, K_OP_START, KIND_LIMIT, LEAF_KINDS_FROM } from '../eventKinds.js';
import { graphEventKindsProblem, STACK_KINDS } from './graphEventKinds.js';
import type { Folds } from '../folds.js';
import { Layers, METHOD_CODES } from '../layers/Layers.js';
import * as stackEventsModule from '../layers/stackEvents.js';
import { callKey, laterPolicies, runWithInterventions, type InterventionChange, type InterventionTarget, type StackRef } from '../interventions.js';
import { ServerFarm } from '../leaves/server/ServerFarm.js';
import { NO_SERVER_TOTALS, type Leaf } from '../leaves/Leaf.js';
import { leafEventKinds, makeLeaf } from '../leaves/makeLeaf.js';
import { Measurements, ServiceMeasurements } from '../Measurements.js';
import { R_HANG, R_QUEUED, RequestTable } from '../RequestTable.js';
import { buildResults, endOfRunMs, serviceResult, truncationOf, type SimulationResults, type Truncation, type WorkloadResult } from '../results.js';
import type { Layer, Scenario } from '../scenario.js';
import { ScenarioError } from '../ScenarioError.js';
import type { TraceEvent } from '../trace.js';
import { handlerLevels, ServiceTracer, siteSink, traceSite } from '../traceGraph.js';
import { makeWorkload, type Workload } from '../workloads/Workload.js';
import { Bulkhead } from './Bulkhead.js';
import { CallSite } from './CallSite.js';
import { GraphCaches } from './GraphCaches.js';
import { cascade, edgeResults, fleetSeries, gatherLayers, graphLeafCalls, windowEdges } from './graphResults.js';
import { endpointNamed, leafServices, WORKLOAD_CALLER, type GraphCall, type GraphEntry, type ServiceGraph } from './ServiceGraph.js';
import { ServiceLeaf, type ServiceTarget } from './ServiceLeaf.js';
import { joinCode, workStep, type EndpointRuntime, type StepRuntime } from './handlerSteps.js';
import { ServiceRuntime } from './ServiceRuntime.js';
import { WorkloadMeasurements } from './WorkloadMeasurements.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { dispatchStackEvent } = stackEventsModule;

/** A graph's stacks take no fold: what reaches a frame comes from other services too. */
const NO_FOLDS: Folds = { foldAnswers: false, sendAhead: false, readAhead: false };

/** How the graph runs (the model's options). */
export interface GraphRunOptions {
  seed: number;
  fixedDraw?: number;
  trace?: (e: TraceEvent) => void;
  /** The services' handlers and their calls' layers are traced too (else only the workload's stack). */
  traceGraph?: boolean;
}

/**
 * Whether a scenario needs the graph runtime: a graph with several workloads, or whose entries are
 * more than one endpoint answered by its fleet, or whose entry service caps its requests in flight
 * (a stack + leaf run has no such cap).
 */
export function needsGraphRuntime(sc: Scenario): boolean {
  const g = sc.graph;
  if (g === undefined) return false;
  if (g.workloads !== undefined || g.entries.length !== 1) return true;
  // A cap on requests in flight set during the run needs the graph's services too.
  if (sc.interventions?.some((iv) => iv.changes.some((c) => c.kind === 'maxInFlight'))) return true;
  const entry = g.entries[0] as ServiceGraph['entries'][number];
  const service = g.services.find((s) => s.name === entry.service);
  return service !== undefined && (endpointNamed(service, entry.endpoint).steps !== undefined || service.maxInFlight !== 'unlimited');
}

/** One workload of a graph run: its scenario (the graph's, with its workload and stack), measurements, stack, leaf and operations. */
interface EntryStack {
  name: string;
  sc: Scenario;
  m: Measurements;
  layers: Layers;
  req: RequestTable;
  leaf: ServiceLeaf;
  workload: Workload;
  entries: GraphEntry[];
}

/**
 * A run of a service graph (README, "Service graphs"; docs/architecture.md): the workload's stack
 * (a {@link Layers}, kinds from 0 like a `stack` + `leaf` run) calls the entry services through a
 * {@link ServiceLeaf}; every call of every handler has its own {@link Layers} (its own frames,
 * requests, random streams and range of event kinds) calling its callee through a ServiceLeaf;
 * every service ({@link ServiceRuntime}) has its fleet with its own request table, kinds and streams.
 * The dispatch sends each kind to its owner. The results are those of the workload's stack, with
 * the entry service's fleet as the server, plus the edges' counters and degraded operations.
 *
 * Several workloads (`workloads`) each have their own stack, operations and measurements
 * ({@link WorkloadMeasurements}, which count in the run's totals too); the first keeps the kinds
 * from 0 and the master seed, the others have kinds of their own and seeds derived from their
 * names. Their operations are told apart everywhere by their key (`opSeq`, which every request and
 * handler downstream carries): the workload's own sequence number times the number of workloads,
 * plus the workload's index, set as a request leaves a workload's stack.
 */
export class GraphRun implements EventDispatcher, InterventionTarget {
  private readonly sc: Scenario;
  private readonly sim: Simulator;
  private readonly seed: number;
  private readonly m: Measurements;
  /** The workloads' stacks (one unless the graph has `workloads`). */
  private readonly entryStacks: EntryStack[] = [];
  /** Per event kind: the workload whose events it carries, or null. */
  private readonly kindWorkload: Array<EntryStack | null> = new Array<EntryStack | null>(KIND_LIMIT).fill(null);
  private readonly services: ServiceRuntime[] = [];
  private readonly callers: ServiceLeaf[] = [];
  /** The caller's name of each stack (index as {@link callers}): the workload or the calling service. */
  private readonly callerNames: string[] = [];
  /** Per event kind: the stack that owns it, or the fleet (and the fleet's first kind). */
  private readonly kindStack: Array<Layers | null> = new Array<Layers | null>(KIND_LIMIT).fill(null);
  private readonly kindFleet: Array<Leaf | null> = new Array<Leaf | null>(KIND_LIMIT).fill(null);
  private readonly kindFrom = new Int32Array(KIND_LIMIT);
  private lastLiveMs = 0;
  /** The stacks of the graph's calls by {@link callKey}, and the services by name (for timed interventions). */
  private readonly callStacks = new Map<string, Layers>();
  private readonly serviceByName = new Map<string, ServiceRuntime>();
  /** The calls' lookaside caches (README, "Caches"). */
  readonly caches: GraphCaches;

  constructor(sc: Scenario, options: GraphRunOptions) {
    const graph = sc.graph as ServiceGraph;
    const tooManyKinds = graphEventKindsProblem(graph);
    if (tooManyKinds !== null) throw new ScenarioError([`scenario.services ${tooManyKinds}`]);
    this.sc = sc;
    const seed = options.seed;
    this.seed = seed;
    const initial = 1024;
    this.sim = new Simulator(-sc.warmupMs, initial);
    this.caches = new GraphCaches(this.sim, seed, sc.metrics.timeSeriesBinMs, -sc.warmupMs);
    const stackOptions = (policies: Layer[], s: number, kindBase: number, isStack: (ref: StackRef) => boolean) => ({
      seed: s,
      policies: policies.map((l) => compilePolicy(l.policy)),
      fixedDraw: options.fixedDraw,
      trace: undefined,
      folds: NO_FOLDS,
      kindBase,
      laterPolicies: sc.interventions === undefined ? undefined : laterPolicies(sc.interventions, isStack, policies.length),
    });
    const runtimes = new Map<string, ServiceRuntime>();
    // A run traced through the graph: each service reports its handlers, each call's stack marks its events with its site, at their levels.
    const trace = options.traceGraph === true ? options.trace : undefined;
    const levels = trace !== undefined ? handlerLevels(graph, sc.stack.length) : null;
    for (const s of graph.services) {
      const rt = new ServiceRuntime(s, this.callers);
      rt.measure = new ServiceMeasurements(sc.metrics.timeSeriesBinMs, -sc.warmupMs, this.sim);
      if (trace !== undefined) rt.tracer = new ServiceTracer(trace, s, levels?.get(s.name) ?? 0);
      runtimes.set(s.name, rt);
      this.serviceByName.set(s.name, rt);
      this.services.push(rt);
    }
    const target = (service: string, endpoint: string, weight: number): ServiceTarget => {
      const rt = runtimes.get(service) as ServiceRuntime;
      const spec = graph.services.find((s) => s.name === service);
      return { service: rt, endpoint: spec?.endpoints.findIndex((e) => e.name === endpoint) ?? -1, weight };
    };
    let nextKind = LEAF_KINDS_FROM;
    // The workloads: one (the scenario's), or each of `workloads` with its own stack.
    const named = graph.workloads;
    const W = named?.length ?? 1;
    const totalStack: Layer[] = named === undefined ? sc.stack : named.flatMap((w) => w.stack.map((l) => ({ ...l, name: `${w.name}.${l.name}` })));
    this.m = new Measurements(named === undefined ? sc : { ...sc, stack: totalStack }, false);
    const specs = named ?? [{ name: WORKLOAD_CALLER, workload: sc.workload, stack: sc.stack, entries: graph.entries }];
    specs.forEach((w, i) => {
      const wSc: Scenario = named === undefined ? sc : { ...sc, workload: w.workload, stack: w.stack };
      const wSeed = i === 0 ? seed : deriveSeed(seed, 'workload', w.name);
      let stackBase = 0;
      let workloadBase = 0;
      if (i > 0) {
        stackBase = nextKind - K_FRAME_WAKE;
        nextKind += STACK_KINDS;
        workloadBase = nextKind - K_OP_START;
        nextKind += K_ARRIVAL - K_OP_START + 1;
        this.checkKinds(nextKind);
      }
      const req = new RequestTable(initial);
      const m = named === undefined ? this.m : new WorkloadMeasurements(wSc, this.m);
      const isWorkload = (ref: StackRef) => ref.kind === 'workload' && (named === undefined ? ref.workload === null : ref.workload === w.name);
      const layers = new Layers(wSc, this.sim, req, m, initial, { ...stackOptions(w.stack, wSeed, stackBase, isWorkload), trace: i === 0 ? options.trace : undefined });
      this.claimStack(layers);
      const workload = makeWorkload(wSc, this.sim, wSeed, layers, workloadBase);
      const leaf = new ServiceLeaf(
        req,
        layers,
        this.callers.length,
        w.entries.map((e) => target(e.service, e.endpoint, e.weight)),
        wSeed,
        null,
        named === undefined ? null : { count: W, index: i },
      );
      this.callers.push(leaf);
      this.callerNames.push(w.name);
      layers.connect(leaf, workload);
      const entry: EntryStack = { name: w.name, sc: wSc, m, layers, req, leaf, workload, entries: w.entries };
      this.entryStacks.push(entry);
      this.kindWorkload[workloadBase + K_OP_START] = entry;
      this.kindWorkload[workloadBase + K_ARRIVAL] = entry;
    });
    // The call sites: a stack of layers per call, one instance per backend of the calling service.
    const bulkheads = new Map<string, Bulkhead>();
    for (const b of graph.bulkheads) {
      const backends = (runtimes.get(b.caller) as ServiceRuntime).backendCount;
      bulkheads.set(`${b.caller}\u0000${b.callee}`, new Bulkhead(b.caller, b.callee, b.maxConcurrent, backends));
    }
    // A call to an endpoint that declares no method makes the operation's: that of its workload.
    const workloadMethods = Int8Array.from(specs, (w) => METHOD_CODES[w.workload.method]);
    const callersOf = new Map<string, Layer[]>();
    // Each call site's stack is connected to its leaf once the callee's fleet is built (ServiceLeaf.answersAtOnce asks it).
    const siteStacks: Array<{ ly: Layers; leaf: ServiceLeaf; site: CallSite }> = [];
    for (const w of specs) for (const e of w.entries) callersOf.set(e.service, [...(callersOf.get(e.service) ?? []), ...w.stack]);
    for (const s of graph.services) {
      const rt = runtimes.get(s.name) as ServiceRuntime;
      const backends = rt.backendCount;
      const endpoints: EndpointRuntime[] = s.endpoints.map((ep, e) => {
        if (ep.steps === undefined) return { steps: null };
        const steps = ep.steps.map((step, i): StepRuntime => {
          if (step.kind === 'work') return workStep(step.serviceMs, ep.name, i);
          const sites = step.calls.map((call, j) => {
            const siteSc = callSiteScenario(sc, call, backends, graph);
            const kb = nextKind - K_FRAME_WAKE;
            nextKind += STACK_KINDS;
            this.checkKinds(nextKind);
            // A call's requests are slots of the callee fleet's own table (ServiceLeaf.direct).
            const siteReq = (runtimes.get(call.service) as ServiceRuntime).req;
            const siteTrace = trace !== undefined ? siteSink(trace, traceSite(s.name, call, levels?.get(s.name) ?? 0)) : undefined;
            const isCall = (ref: StackRef) => ref.kind === 'call' && callKey(ref.service, ref.endpoint, ref.step, ref.call) === callKey(s.name, ep.name, i, j);
            const ly = new Layers(siteSc, this.sim, siteReq, new Measurements(callSiteMetrics(siteSc), false), 64, { ...stackOptions(siteSc.stack, deriveSeed(seed, 'call', s.name, ep.name, i, j), kb, isCall), trace: siteTrace });
            this.claimStack(ly);
            this.callStacks.set(callKey(s.name, ep.name, i, j), ly);
            const bulkhead = bulkheads.get(`${s.name}\u0000${call.service}`) ?? null;
            const leaf = new ServiceLeaf(siteReq, ly, this.callers.length, [target(call.service, call.endpoint, 1)], seed, bulkhead, named === undefined ? null : { count: W, index: -1 });
            this.callers.push(leaf);
            this.callerNames.push(s.name);
            const declared = endpointNamed(graph.services.find((x) => x.name === call.service) as (typeof graph.services)[number], call.endpoint).method;
            const takeKinds = (n: number): number => {
              const from = nextKind;
              nextKind += n;
              this.checkKinds(nextKind);
              return from;
            };
            const cache = call.cache === undefined ? null : this.caches.add(rt, call.cache, ly, `services.${s.name}.endpoints.${ep.name}.steps.${i}.calls.${j}.cache`, e, takeKinds);
            const site = new CallSite(rt, ly, leaf, declared === undefined ? workloadMethods : Int8Array.of(METHOD_CODES[declared]), call.optional, cache);
            siteStacks.push({ ly, leaf, site });
            const list = callersOf.get(call.service) ?? [];
            list.push(...siteSc.stack);
            callersOf.set(call.service, list);
            return site;
          });
          return { kind: 'call', ...joinCode(step.join, step.calls.length), cancellation: step.cancellation, sites };
        });
        return { steps };
      });
      rt.endpoints.push(...endpoints);
    }
    // The fleets: each its own request table, kinds and streams.
    for (const s of graph.services) {
      const rt = runtimes.get(s.name) as ServiceRuntime;
      const kinds = leafEventKinds(s.fleet.kind);
      const kindBase = nextKind;
      nextKind += kinds;
      this.checkKinds(nextKind);
      const fleetSc: Scenario = { ...sc, leaf: s.fleet, stack: callersOf.get(s.name) ?? [] };
      const fleet = makeLeaf(
        fleetSc,
        { sim: this.sim, req: rt.req, host: rt, measurements: this.m, kindBase, seed: deriveSeed(seed, 'service', s.name), startMs: -sc.warmupMs, binMs: sc.metrics.timeSeriesBinMs, binCounts: true },
        { folds: NO_FOLDS, lastHopZero: false, lastHopLane: -1, tracing: options.trace !== undefined },
      );
      for (let k = kindBase; k < kindBase + kinds; k++) {
        this.kindFleet[k] = fleet;
        this.kindFrom[k] = kindBase;
      }
      rt.connect(fleet);
    }
    for (const { ly, leaf, site } of siteStacks) ly.connectCallSite(leaf, site, leaf.bulkhead === null ? null : leaf);
    // The edges' calls per metric window are counted only when there are windows.
    const windows = sc.metrics.windows ?? [];
    if (windows.length > 0) for (const c of this.callers) c.countInWindows(windows);
  }

  private claimStack(ly: Layers): void {
    for (let k = ly.kb + K_FRAME_WAKE; k <= ly.kb + K_LEAF_RESPONSE; k++) this.kindStack[k] = ly;
  }

  private checkKinds(next: number): void {
    if (next > KIND_LIMIT) {
      throw new Error(`internal: the graph's event kinds reach ${next}, more than ${KIND_LIMIT} (graphEventKinds counted fewer)`);
    }
  }

  /** Run the graph to completion (or to its horizon / event cap) and return the results. */
  run(): SimulationResults {
    const sc = this.sc;
    const t0 = -sc.warmupMs;
    for (const e of this.entryStacks) e.workload.start(t0);
    for (const s of this.services) s.fleet.start(t0);
    this.caches.start(sc.horizonMs);
    const { stats, applied } = runWithInterventions(
      this.sim,
      this,
      { horizonMs: sc.horizonMs, maxEvents: sc.maxEvents },
      sc.interventions,
      this,
    );
    const endMs = endOfRunMs(stats, this.lastLiveMs);
    const truncated: Truncation = truncationOf(stats.truncated);
    this.m.gInFlight.finish(endMs);
    for (const s of this.services) {
      s.fleet.finish(endMs);
      s.measure.finish(endMs);
    }
    const several = this.entryStacks.length > 1 || (sc.graph as ServiceGraph).workloads !== undefined;
    for (const e of this.entryStacks) {
      if (e.m !== this.m) e.m.gInFlight.finish(endMs);
      e.layers.finish(endMs);
    }
    const serviceOf = (e: EntryStack) => this.services.find((s) => s.name === e.entries[0]?.service) as ServiceRuntime;
    const snapshot = (m: Measurements, stacks: EntryStack[]) => {
      const entryService = serviceOf(stacks[0] as EntryStack);
      return m.snapshot({
        endMs,
        events: stats.events,
        truncated,
        unfinished: stacks.reduce((n, e) => n + e.layers.inFlightOps, 0),
        leaf: entryService.fleet,
        queuedAtEnd: entryService.req.count(R_QUEUED),
        hanging: stacks.reduce((n, e) => n + e.req.count(R_HANG), 0),
        guards: (stacks[0] as EntryStack).layers.guards,
      });
    };
    if (several) gatherLayers(this.m, this.entryStacks.map((e) => e.m));
    const raw = snapshot(this.m, this.entryStacks);
    let perWorkload: WorkloadResult[] | undefined;
    if (several) {
      const bins = raw.series.bins;
      const inFlight = new Array<number>(bins).fill(0);
      for (const e of this.entryStacks) e.m.gInFlight.binMeans(bins).forEach((v, k) => (inFlight[k] = (inFlight[k] as number) + v));
      raw.series.inFlight = inFlight;
      raw.series.budgets = this.entryStacks.flatMap((e) => e.layers.guards.series(e.sc, bins).map((b) => ({ ...b, layer: `${e.name}.${b.layer}` })));
      perWorkload = this.entryStacks.map((e) => {
        const r = buildResults({ ...snapshot(e.m, [e]), seed: this.seed });
        return {
          workload: e.name,
          operations: { ...r.operations, degraded: e.leaf.degradedAnswers },
          giveUps: r.giveUps,
          leafCalls: r.leafCalls,
          amplification: r.amplification,
          latencyMs: r.latencyMs,
          goodputPerSec: r.goodputPerSec,
        };
      });
    }
    const results = buildResults({ ...raw, seed: this.seed });
    results.operations.degraded = this.entryStacks.reduce((n, e) => n + e.leaf.degradedAnswers, 0);
    if (perWorkload !== undefined) {
      // Each workload's goodput is over its own demand (results.ts, demandMs); the run's is their sum.
      results.goodputPerSec = perWorkload.reduce((n, w) => n + w.goodputPerSec, 0);
      results.workloads = perWorkload;
    }
    results.edges = edgeResults(this.callers, this.callerNames, results.operations.offered, perWorkload);
    if (results.windows !== undefined) windowEdges(this.callers, this.callerNames, results.windows);
    graphLeafCalls(results, leafServices(sc.graph as ServiceGraph));
    const bins = results.timeSeries.tMs.length;
    results.services = this.services.map((s) => {
      const into = (results.edges ?? []).filter((e) => e.callee === s.name);
      return serviceResult({
        service: s.name,
        arrivals: into.reduce((n, e) => n + e.calls, 0),
        retries: into.reduce((n, e) => n + e.retries, 0),
        totals: s.fleet.totals() ?? NO_SERVER_TOTALS,
        refusedInFlight: s.refusedInFlight,
        backends: s.fleet.backendStats(),
        timeSeries: s.measure.series(bins, fleetSeries(s, bins)),
      });
    });
    this.caches.attach(results.services, bins);
    results.cascade = cascade(this.services, endMs);
    if (sc.interventions !== undefined) results.interventions = applied;
    return results;
  }

  /** @internal A timed intervention's change at t (src/model/interventions.ts): a stack's layer, a fleet's queue limits or a service's cap. */
  apply(change: InterventionChange, t: number): void {
    switch (change.kind) {
      case 'policy': {
        const ref = change.stack;
        const layers =
          ref.kind === 'call'
            ? this.callStacks.get(callKey(ref.service, ref.endpoint, ref.step, ref.call))
            : this.entryStacks.find((e) => (ref.workload === null ? e === this.entryStacks[0] : e.name === ref.workload))?.layers;
        if (layers === undefined) throw new Error('internal: an intervention names a stack the graph does not run');
        layers.swapPolicy(change.layer, change.policy, t);
        return;
      }
      case 'queueLimit': {
        const fleet = this.serviceByName.get(change.service ?? '')?.fleet;
        if (!(fleet instanceof ServerFarm)) throw new Error('internal: a queue limit changes on a fleet without servers');
        change.limits.forEach((limit, b) => fleet.setQueueLimit(b, limit, t));
        return;
      }
      case 'maxInFlight':
        this.serviceByName.get(change.service)?.setMaxInFlight(change.value);
        return;
      case 'warm': {
        const cache = this.caches.cache(change.service, change.cache);
        if (cache === undefined) throw new Error('internal: an intervention warms a cache the graph does not run');
        cache.warm(change.keys, t);
        return;
      }
    }
  }

  /** @internal The run loop's {@link EventDispatcher}. */
  handle(kind: number, a: number, b: number, t: number): void {
    const w = this.kindWorkload[kind];
    if (w !== null && w !== undefined) {
      this.lastLiveMs = t;
      w.workload.fire(kind, a, t);
      return;
    }
    const ly = this.kindStack[kind];
    if (ly !== null && ly !== undefined) {
      if (dispatchStackEvent(ly, kind - ly.kb, a, b, t)) this.lastLiveMs = t;
      return;
    }
    if (this.caches.owns(kind)) {
      if (this.caches.fire(kind, a, b, t)) this.lastLiveMs = t;
      return;
    }
    const fleet = this.kindFleet[kind] as Leaf;
    if (fleet.dispatch(kind - (this.kindFrom[kind] as number), a, b, t, this.active())) this.lastLiveMs = t;
  }

  /** Whether some workload still has operations in flight or to come. */
  private active(): boolean {
    for (const e of this.entryStacks) if (e.layers.inFlightOps > 0 || e.workload.pending > 0) return true;
    return false;
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
