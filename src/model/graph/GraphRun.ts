import { Simulator, type EventDispatcher } from '../../engine/simulator.js';
import { Layers } from '../layers/Layers.js';
import * as stackEventsModule from '../layers/stackEvents.js';
import { assembleGraph, INITIAL_ROWS, type EntryStack } from './assembleGraph.js';
import { callKey, type InterventionChange, type InterventionTarget } from '../interventions.js';
import { RunCursor } from '../RunCursor.js';
import { ServerFarm } from '../leaves/server/ServerFarm.js';
import { NO_SERVER_TOTALS, type Leaf } from '../leaves/Leaf.js';
import { Measurements } from '../Measurements.js';
import { R_HANG, R_QUEUED } from '../RequestTable.js';
import { buildResults, endOfRunMs, serviceResult, truncationOf, type ResultInput, type SimulationResults, type Truncation, type WorkloadResult } from '../results.js';
import type { Scenario } from '../scenario.js';
import type { TraceEvent } from '../trace.js';
import { GraphCaches } from './GraphCaches.js';
import { cascade, edgeResults, fleetSeries, gatherLayers, graphLeafCalls, windowEdges } from './graphResults.js';
import { endpointNamed, leafServices, type ServiceGraph } from './ServiceGraph.js';
import { ServiceLeaf } from './ServiceLeaf.js';
import { ServiceRuntime } from './ServiceRuntime.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { dispatchStackEvent } = stackEventsModule;

/** How a run ended: its measured end, the events it ran and what cut it short. */
interface RunEnd {
  endMs: number;
  events: number;
  truncated: Truncation;
}

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

/**
 * A run of a service graph (docs/experiments.md, "Service graphs"; docs/architecture.md): the workload's stack
 * (a {@link Layers}, kinds from 0 like a `stack` + `leaf` run) calls the entry services through a
 * {@link ServiceLeaf}; every call of every handler has its own {@link Layers} (its own frames,
 * random streams and range of event kinds; its requests are slots of the callee fleet's table)
 * calling its callee through a ServiceLeaf; the parts are built by {@link assembleGraph};
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
  private readonly entryStacks: EntryStack[];
  /** Per event kind: the workload whose events it carries, or null. */
  private readonly kindWorkload: Array<EntryStack | null>;
  private readonly services: ServiceRuntime[];
  private readonly callers: ServiceLeaf[];
  /** The caller's name of each stack (index as {@link callers}): the workload or the calling service. */
  private readonly callerNames: string[];
  /** Per event kind: the stack that owns it, or the fleet (and the fleet's first kind). */
  private readonly kindStack: Array<Layers | null>;
  private readonly kindFleet: Array<Leaf | null>;
  private readonly kindFrom: Int32Array;
  /** The run in progress, from {@link begin} on (null before). */
  private cursor: RunCursor | null = null;
  private lastLiveMs = 0;
  /** The stacks of the graph's calls by {@link callKey}, and the services by name (for timed interventions). */
  private readonly callStacks: Map<string, Layers>;
  private readonly serviceByName: Map<string, ServiceRuntime>;
  /** The calls' lookaside caches (docs/experiments.md, "Caches"). */
  readonly caches: GraphCaches;

  constructor(sc: Scenario, options: GraphRunOptions) {
    this.sc = sc;
    this.seed = options.seed;
    this.sim = new Simulator(-sc.warmupMs, INITIAL_ROWS);
    const parts = assembleGraph(sc, options, this.sim);
    this.m = parts.m;
    this.caches = parts.caches;
    this.entryStacks = parts.entryStacks;
    this.services = parts.services;
    this.callers = parts.callers;
    this.callerNames = parts.callerNames;
    this.callStacks = parts.callStacks;
    this.serviceByName = parts.serviceByName;
    this.kindWorkload = parts.kinds.workload;
    this.kindStack = parts.kinds.stack;
    this.kindFleet = parts.kinds.fleet;
    this.kindFrom = parts.kinds.from;
  }

  /** Run the graph to completion (or to its horizon / event cap) and return the results. */
  run(): SimulationResults {
    this.begin();
    this.runUntil(Infinity);
    return this.end();
  }

  /** Starts the run at the start of its warm-up (once); see `Model.begin`. */
  begin(): void {
    if (this.cursor !== null) throw new Error('internal: a run begins once');
    const sc = this.sc;
    const t0 = -sc.warmupMs;
    for (const e of this.entryStacks) e.workload.start(t0);
    for (const s of this.services) s.fleet.start(t0);
    this.caches.start(sc.horizonMs);
    this.cursor = new RunCursor(this.sim, this, { horizonMs: sc.horizonMs, maxEvents: sc.maxEvents }, sc.interventions ?? [], this);
  }

  /** Runs every event at or before `tMs` (at most `eventsAtMost`); see `Model.runUntil`. Returns whether the run is over. */
  runUntil(tMs: number, eventsAtMost?: number): boolean {
    return this.begun().runUntil(tMs, eventsAtMost);
  }

  /** The simulated time now. */
  nowMs(): number {
    return this.sim.nowMs;
  }

  /** The bytes this run's tables hold now; see `Model.memoryHeldBytes`. */
  memoryHeldBytes(): number {
    return this.sim.memory.heldBytes;
  }

  /** Ends the run where it stands and returns the results; see `Model.end`. */
  end(): SimulationResults {
    const sc = this.sc;
    const cursor = this.begun();
    const stats = cursor.stats();
    const end: RunEnd = { endMs: endOfRunMs(stats, this.lastLiveMs), events: stats.events, truncated: truncationOf(stats.truncated, this.sim.memory) };
    this.finish(end.endMs);
    const several = this.entryStacks.length > 1 || (sc.graph as ServiceGraph).workloads !== undefined;
    if (several) gatherLayers(this.m, this.entryStacks.map((e) => e.m));
    const raw = this.snapshot(this.m, this.entryStacks, end);
    const perWorkload = several ? this.workloadResults(raw, end) : undefined;
    const results = buildResults({ ...raw, seed: this.seed, memoryPeakBytes: this.sim.memory.peakBytes });
    results.operations.degraded = this.entryStacks.reduce((n, e) => n + e.leaf.degradedAnswers, 0);
    if (perWorkload !== undefined) {
      // Each workload's goodput is over its own demand (results.ts, demandMs); the run's is their sum.
      results.goodputPerSec = perWorkload.reduce((n, w) => n + w.goodputPerSec, 0);
      results.workloads = perWorkload;
    }
    this.addGraphResults(results, perWorkload, end.endMs);
    if (sc.interventions !== undefined) results.interventions = cursor.applied;
    return results;
  }

  /**
   * @internal What probes of the running graph read (src/riskModel/probes.ts): the service named
   * `name` (absent: the first entry's; undefined: no such service) and the run's totals.
   */
  probeParts(name?: string): { service: ServiceRuntime | undefined; measurements: Measurements } {
    return { service: this.serviceByName.get(name ?? (this.sc.graph?.entries[0]?.service as string)), measurements: this.m };
  }

  /** @internal Events run so far, over every piece (0 before `begin`): see `Model.eventsRun`. */
  eventsRun(): number {
    return this.cursor?.events ?? 0;
  }

  private begun(): RunCursor {
    if (this.cursor === null) throw new Error('internal: the run has not begun');
    return this.cursor;
  }

  /** Close every time-weighted series at the end of the run, endMs. */
  private finish(endMs: number): void {
    this.m.gInFlight.finish(endMs);
    for (const s of this.services) {
      s.fleet.finish(endMs);
      s.measure.finish(endMs);
    }
    for (const e of this.entryStacks) {
      if (e.m !== this.m) e.m.gInFlight.finish(endMs);
      e.layers.finish(endMs);
    }
  }

  /** The snapshot of measurements `m` of the workloads `stacks`, with the fleet of the first one's entry service as the server. */
  private snapshot(m: Measurements, stacks: EntryStack[], end: RunEnd): Omit<ResultInput, 'seed'> {
    const first = stacks[0] as EntryStack;
    const entryService = this.services.find((s) => s.name === first.entries[0]?.service) as ServiceRuntime;
    return m.snapshot({
      endMs: end.endMs,
      events: end.events,
      truncated: end.truncated,
      unfinished: stacks.reduce((n, e) => n + e.layers.top.inFlightOps, 0),
      leaf: entryService.fleet,
      queuedAtEnd: entryService.req.count(R_QUEUED),
      hanging: stacks.reduce((n, e) => n + e.req.count(R_HANG), 0),
      guards: first.layers.guards,
    });
  }

  /** With several workloads: each one's results, and the run's in-flight and budget series (in `raw`) summed over them. */
  private workloadResults(raw: Omit<ResultInput, 'seed'>, end: RunEnd): WorkloadResult[] {
    const bins = raw.series.bins;
    const inFlight = new Array<number>(bins).fill(0);
    for (const e of this.entryStacks) e.m.gInFlight.binMeans(bins).forEach((v, k) => (inFlight[k] = inFlight[k]! + v));
    raw.series.inFlight = inFlight;
    raw.series.budgets = this.entryStacks.flatMap((e) => e.layers.guards.series(e.sc, bins).map((b) => ({ ...b, layer: `${e.name}.${b.layer}` })));
    return this.entryStacks.map((e) => {
      const r = buildResults({ ...this.snapshot(e.m, [e], end), seed: this.seed, memoryPeakBytes: this.sim.memory.peakBytes });
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

  /** The graph's own results: its edges (and per metric window), leaf calls, services, caches and cascade timeline. */
  private addGraphResults(results: SimulationResults, perWorkload: WorkloadResult[] | undefined, endMs: number): void {
    results.edges = edgeResults(this.callers, this.callerNames, results.operations.offered, perWorkload);
    if (results.windows !== undefined) windowEdges(this.callers, this.callerNames, results.windows);
    graphLeafCalls(results, leafServices(this.sc.graph as ServiceGraph));
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
    const shared = this.caches.sharedResults(((this.sc.graph as ServiceGraph).caches ?? []).map((c) => c.name), bins);
    if (shared !== undefined) results.caches = shared;
    results.cascade = cascade(this.services, endMs);
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
        const cache = change.service === null ? this.caches.shared.get(change.cache) : this.caches.cache(change.service, change.cache);
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
    if (fleet.dispatch(kind - this.kindFrom[kind]!, a, b, t, this.active())) this.lastLiveMs = t;
  }

  /** Whether some workload still has operations in flight or to come. */
  private active(): boolean {
    for (const e of this.entryStacks) if (e.layers.top.inFlightOps > 0 || e.workload.pending > 0) return true;
    return false;
  }
}
