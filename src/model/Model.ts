import { Simulator, type EventDispatcher } from '../engine/simulator.js';
import { compilePolicy } from '../policy/decision.js';
import * as eventKindsModule from './eventKinds.js';
import * as stackEventsModule from './layers/stackEvents.js';
import { planFolds } from './folds.js';
import { GraphRun, needsGraphRuntime } from './graph/GraphRun.js';
import { unsimulatedGraphParts } from './graph/simulatedGraph.js';
import { laterPolicies, type InterventionChange, type InterventionTarget } from './interventions.js';
import { Layers } from './layers/Layers.js';
import type { Leaf } from './leaves/Leaf.js';
import { makeLeaf } from './leaves/makeLeaf.js';
import { ServerFarm } from './leaves/server/ServerFarm.js';
import { Measurements } from './Measurements.js';
import { RequestTable } from './RequestTable.js';
import { RunCursor } from './RunCursor.js';
import * as requestTableModule from './RequestTable.js';
import { buildResults, endOfRunMs, truncationOf, type SimulationResults, type Truncation } from './results.js';
import type { Scenario } from './scenario.js';
import { ScenarioError } from './ScenarioError.js';
import type { TraceEvent } from './trace.js';
import { makeWorkload, type Workload } from './workloads/Workload.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { K_ARRIVAL, K_OP_START, LEAF_KINDS_FROM } = eventKindsModule;
const { dispatchStackEvent } = stackEventsModule;
const { R_HANG, R_QUEUED } = requestTableModule;

/** Options of one simulation run. */
export interface ModelOptions {
  /** Master seed: every random stream derives from it. */
  seed: number;
  /** Fix every jitter draw to this fraction of its range (teaching and tests). */
  fixedDraw?: number;
  /** Receives a timeline of every call, attempt, outcome, wait and give-up (slow; for `trace`). */
  trace?: (e: TraceEvent) => void;
  /** In a service graph, `trace` also receives the services' handlers and their calls' layers (src/model/traceGraph.ts); otherwise only the workload's stack. */
  traceGraph?: boolean;
}

/**
 * The simulation model: a workload of operations calling down a stack of retrying layers to a
 * leaf (a capacity-limited server or a pool of them, an optimistic-concurrency resource, or a
 * scripted leaf). This class wires the parts together and runs the event loop: it dispatches each
 * event by its kind (eventKinds.ts) to the workload (workloads/), the layers (layers/) or the leaf
 * (leaves/), and hands the measurements (Measurements.ts) to `buildResults` at the end. How the
 * parts fit is in docs/architecture.md.
 */
export class Model implements EventDispatcher, InterventionTarget {
  private readonly sc: Scenario;
  private readonly sim!: Simulator;
  private readonly seed!: number;
  private readonly req!: RequestTable;
  private readonly m!: Measurements;
  private readonly layers!: Layers;
  private readonly workload!: Workload;
  private readonly leaf!: Leaf;
  /** Time of the last event that was not a stale timer. */
  private lastLiveMs = 0;
  /** A service graph with handlers or several entries runs on its own runtime (graph/GraphRun.ts); null: the stack run. */
  private readonly graphRun: GraphRun | null = null;
  /** The run in progress, from {@link begin} on (null before). */
  private cursor: RunCursor | null = null;

  constructor(scenario: Scenario, options: ModelOptions) {
    const sc = scenario;
    this.sc = sc;
    const L = sc.stack.length;
    if (L < 1) throw new ScenarioError(['scenario.stack must have at least one layer']);
    const unsimulated = sc.graph === undefined ? [] : unsimulatedGraphParts(sc.graph, sc.workload.method);
    if (unsimulated.length > 0) throw new ScenarioError(unsimulated);
    if (needsGraphRuntime(sc)) {
      this.graphRun = new GraphRun(sc, options);
      return;
    }
    // Storage starts at the size a small run needs and doubles as it grows (a sweep runs many small ones).
    const wl = sc.workload;
    const initial = wl.kind === 'open' ? 1024 : Math.min(1024, Math.max(32, 1 << Math.ceil(Math.log2(wl.clients * L + 1))));
    this.sim = new Simulator(-sc.warmupMs, initial);
    this.req = new RequestTable(initial);
    const seed = options.seed;
    this.seed = seed;
    const tracing = options.trace !== undefined;
    const policies = sc.stack.map((l) => compilePolicy(l.policy));
    const folds = planFolds(sc, policies, tracing);
    this.m = new Measurements(sc, folds.readAhead);
    const later = sc.interventions === undefined ? undefined : laterPolicies(sc.interventions, (ref) => ref.kind === 'workload', L);
    this.layers = new Layers(sc, this.sim, this.req, this.m, initial, { seed, policies, fixedDraw: options.fixedDraw, trace: options.trace, folds, laterPolicies: later });
    this.workload = makeWorkload(sc, this.sim, seed, this.layers.top);
    this.leaf = makeLeaf(
      sc,
      {
        sim: this.sim,
        req: this.req,
        host: this.layers.link,
        measurements: this.m,
        kindBase: LEAF_KINDS_FROM,
        seed,
        startMs: -sc.warmupMs,
        binMs: sc.metrics.timeSeriesBinMs,
      },
      { folds, lastHopZero: this.layers.hops.zero[L - 1] as boolean, lastHopLane: this.layers.hops.lane[L - 1] as number, tracing },
    );
    this.layers.connect(this.leaf, this.workload);
  }

  /** Run the scenario to completion (or to its horizon / event cap) and return the results. */
  run(): SimulationResults {
    this.begin();
    this.runUntil(Infinity);
    return this.end();
  }

  /**
   * Starts the run at the start of its warm-up (once): the workload and the leaf schedule their
   * first events. Then {@link runUntil} advances it in pieces and {@link end} ends it, which is
   * what {@link run} does in one go; a run advanced in pieces gives the same results.
   */
  begin(): void {
    if (this.graphRun !== null) return this.graphRun.begin();
    if (this.cursor !== null) throw new Error('internal: a run begins once');
    const sc = this.sc;
    const t0 = -sc.warmupMs;
    this.workload.start(t0);
    this.leaf.start(t0);
    this.cursor = new RunCursor(this.sim, this, { horizonMs: sc.horizonMs, maxEvents: sc.maxEvents }, sc.interventions ?? [], this);
  }

  /**
   * Runs every event at or before `tMs` (and at most `eventsAtMost` of them: a pause), timed
   * interventions applied on the way (src/model/RunCursor.ts). Returns whether the run is over (its
   * horizon reached, its events run out, or a bound stopped it).
   */
  runUntil(tMs: number, eventsAtMost?: number): boolean {
    if (this.graphRun !== null) return this.graphRun.runUntil(tMs, eventsAtMost);
    return this.begun().runUntil(tMs, eventsAtMost);
  }

  /** The simulated time now (the last event's, or the end of the last piece run). */
  nowMs(): number {
    return this.graphRun !== null ? this.graphRun.nowMs() : this.sim.nowMs;
  }

  /** The bytes this run's tables hold now, as the memory meter counts them (src/engine/memoryMeter.ts; a copy of the run counts its own). */
  memoryHeldBytes(): number {
    return this.graphRun !== null ? this.graphRun.memoryHeldBytes() : this.sim.memory.heldBytes;
  }

  /** Ends the run where it stands (the end of the run is the horizon if it reached it, else its last event) and returns the results. */
  end(): SimulationResults {
    if (this.graphRun !== null) return this.graphRun.end();
    const sc = this.sc;
    const cursor = this.begun();
    const stats = cursor.stats();
    const endMs = endOfRunMs(stats, this.lastLiveMs);
    this.m.flushReads(endMs);
    const truncated: Truncation = truncationOf(stats.truncated, this.sim.memory);
    this.m.gInFlight.finish(endMs);
    this.leaf.finish(endMs);
    this.layers.finish(endMs);
    const results = buildResults({ ...this.snapshot(endMs, stats.events, truncated), seed: this.seed, memoryPeakBytes: this.sim.memory.peakBytes });
    if (sc.interventions !== undefined) results.interventions = cursor.applied;
    return results;
  }

  /** @internal Events run so far, over every piece (0 before {@link begin}): the effort of a risk estimate. */
  eventsRun(): number {
    return this.graphRun !== null ? this.graphRun.eventsRun() : (this.cursor?.events ?? 0);
  }

  /**
   * @internal What probes of the running model read (src/riskModel/probes.ts): a stack run's leaf
   * and measurements, or a graph run's runtime.
   */
  probeParts(): { kind: 'stack'; leaf: Leaf; measurements: Measurements } | { kind: 'graph'; graph: GraphRun } {
    return this.graphRun !== null ? { kind: 'graph', graph: this.graphRun } : { kind: 'stack', leaf: this.leaf, measurements: this.m };
  }

  private begun(): RunCursor {
    if (this.cursor === null) throw new Error('internal: the run has not begun');
    return this.cursor;
  }

  /** @internal A timed intervention's change at t (src/model/interventions.ts): the stack's layers, or the leaf's queue limits. */
  apply(change: InterventionChange, t: number): void {
    switch (change.kind) {
      case 'policy':
        this.layers.swapPolicy(change.layer, change.policy, t);
        return;
      case 'queueLimit': {
        // A graph run as stack + leaf: only its entry service's fleet serves (any other receives nothing).
        if (change.service !== null && change.service !== this.sc.graph?.entries[0]?.service) return;
        const farm = this.leaf;
        if (!(farm instanceof ServerFarm)) throw new Error('internal: a queue limit changes on a leaf without servers');
        change.limits.forEach((limit, b) => farm.setQueueLimit(b, limit, t));
        return;
      }
      case 'maxInFlight':
        throw new Error('internal: maxInFlight changes only in a graph run');
      case 'warm':
        // A graph run as stack + leaf calls no service's calls: its caches see no lookup.
        return;
    }
  }

  /** @internal The run loop's {@link EventDispatcher}: one event, sent to its owner by its kind. */
  handle(kind: number, a: number, b: number, t: number): void {
    const layers = this.layers;
    // The leaf's kinds first: in an OCC run nearly every event is a write.
    if (kind >= LEAF_KINDS_FROM) {
      // Answers are work; schedules and periodic checks stop once no operation is left, and then do not count as activity.
      const active = layers.top.inFlightOps > 0 || this.workload.pending > 0;
      if (this.leaf.dispatch(kind - LEAF_KINDS_FROM, a, b, t, active)) this.lastLiveMs = t;
      return;
    }
    if (kind === K_OP_START || kind === K_ARRIVAL) {
      this.lastLiveMs = t;
      this.workload.fire(kind, a, t);
      return;
    }
    // The stack's own kinds (frames, hedges, requests): the one dispatch a graph's call sites use too.
    if (dispatchStackEvent(layers, kind, a, b, t)) this.lastLiveMs = t;
  }

  /** @internal The raw measurements, before {@link buildResults} shapes them. */
  snapshot(endMs: number, events: number, truncated: Truncation) {
    return this.m.snapshot({
      endMs,
      events,
      truncated,
      unfinished: this.layers.top.inFlightOps,
      leaf: this.leaf,
      queuedAtEnd: this.req.count(R_QUEUED),
      hanging: this.req.count(R_HANG),
      guards: this.layers.guards,
    });
  }
}
