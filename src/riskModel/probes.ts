import { WINDOWED_RISK_METRICS, type RiskMetric } from '../experiment/riskSchema.js';
import type { Leaf } from '../model/leaves/Leaf.js';
import type { ServerFarm } from '../model/leaves/server/ServerFarm.js';
import type { CacheCounts } from '../model/graph/CacheStore.js';
import type { GraphCaches } from '../model/graph/GraphCaches.js';
import type { ServiceRuntime } from '../model/graph/ServiceRuntime.js';
import type { Measurements } from '../model/Measurements.js';
import type { Model } from '../model/Model.js';
import { needsGraphRuntime } from '../model/graph/GraphRun.js';
import type { Scenario } from '../model/scenario.js';

/** The fields of a probe the risk section names: the metric and where it is read. */
export interface ProbeSpec {
  metric: RiskMetric;
  service?: string;
  cache?: string;
  windowMs?: number;
}

/**
 * A windowed metric's value over a window with nothing to count (no lookup, no arrival, no operation
 * started): the value of a system that is not failing (no misses, every hit, no retries, every
 * operation succeeded).
 */
export const EMPTY_WINDOW_VALUE: Readonly<Record<RiskMetric, number>> = {
  inFlight: 0,
  queued: 0,
  utilization: 0,
  missRatio: 0,
  hitRatio: 1,
  retryShare: 0,
  goodput: 1,
};

/** The services a run of `sc` can be probed at: a graph's services, or a stack run's one (its name if the scenario names it). */
function probedServices(sc: Scenario): { names: string[]; graph: boolean } {
  if (needsGraphRuntime(sc)) return { names: (sc.graph?.services ?? []).map((x) => x.name), graph: true };
  const entry = sc.graph?.entries[0]?.service;
  return { names: entry === undefined ? [] : [entry], graph: false };
}

/** The leaf kind the probe's service answers with: the stack run's leaf, or the graph service's fleet. */
function leafKindAt(sc: Scenario, service: string | undefined, graph: boolean): string {
  if (!graph) return sc.leaf.kind;
  const name = service ?? sc.graph?.entries[0]?.service;
  return sc.graph?.services.find((x) => x.name === name)?.fleet.kind ?? sc.leaf.kind;
}

/**
 * The caches a risk probe can name in `sc`: each shared tier by its name, each call's own cache as
 * `<service>.<name>` (its name among the calling service's caches, as in the results'
 * `services.<service>.caches.<name>`).
 */
export function cacheNames(sc: Scenario): string[] {
  const g = sc.graph;
  if (g === undefined) return [];
  const own = g.services.flatMap((s) =>
    s.endpoints.flatMap((e) => (e.steps ?? []).flatMap((st) => (st.kind === 'call' ? st.calls.flatMap((c) => (c.cache !== undefined && c.cache.shared !== true ? [`${s.name}.${c.cache.name}`] : [])) : []))),
  );
  return [...new Set([...(g.caches ?? []).map((c) => c.name), ...own])];
}

/** Problems of a cache probe's `cache` field in `sc` (which needs the graph runtime and a known cache, or the graph's one). */
function cacheProblems(sc: Scenario, spec: ProbeSpec, path: string, graph: boolean): string[] {
  const names = cacheNames(sc);
  if (!graph || names.length === 0) return [`${path}.metric: ${spec.metric} needs a cache, and ${graph ? 'the graph has none' : 'a stack run has none'}`];
  if (spec.cache === undefined) return names.length === 1 ? [] : [`${path}.cache is required: the graph has ${names.length} caches (${names.map((n) => JSON.stringify(n)).join(', ')})`];
  return names.includes(spec.cache) ? [] : [`${path}.cache: unknown cache ${JSON.stringify(spec.cache)} (known: ${names.map((n) => JSON.stringify(n)).join(', ')})`];
}

/**
 * Why a probe cannot be read on a run of `sc`, as sentences naming the field under `path` (e.g.
 * `risk.importance`) and the rule (none: it can).
 */
export function probeProblems(sc: Scenario, spec: ProbeSpec, path: string): string[] {
  const out: string[] = [];
  const { names, graph } = probedServices(sc);
  if (spec.service !== undefined && !names.includes(spec.service)) {
    const known = names.length === 0 ? 'a stack run has one service, left unnamed' : `known: ${names.map((n) => JSON.stringify(n)).join(', ')}`;
    out.push(`${path}.service: unknown service ${JSON.stringify(spec.service)} (${known})`);
  }
  if (spec.metric === 'missRatio' || spec.metric === 'hitRatio') out.push(...cacheProblems(sc, spec, path, graph));
  const kind = leafKindAt(sc, spec.service, graph);
  if ((spec.metric === 'queued' || spec.metric === 'utilization' || (spec.metric === 'inFlight' && !graph)) && kind !== 'server' && kind !== 'pool') {
    out.push(`${path}.metric: ${spec.metric} needs servers at the service (a server or pool fleet; got ${kind})`);
  }
  return out;
}

/** The counts of the cache `name` names ({@link cacheNames}; absent: the graph's one cache) in a running graph's caches. */
function cacheCounts(caches: GraphCaches, name: string | undefined): CacheCounts {
  const shared = name === undefined ? undefined : caches.shared.get(name);
  if (shared !== undefined) return shared.counts;
  const own = name === undefined ? caches.list[0] : caches.list.find((c) => !c.spec.shared && `${c.service}.${c.name}` === name);
  const store = own?.store ?? (name === undefined ? [...caches.shared.values()][0] : undefined);
  if (store === undefined) throw new Error(`internal: no cache ${name}`);
  return store.counts;
}

/**
 * A metric of a running model read at the points of the check grid: at a stack run's leaf, or at a
 * graph's service (its requests admitted and not yet answered, its fleet's servers), a graph's
 * cache (its lookups and hits), and goodput over the run's operations. Instant metrics read the model's state now; windowed ones (`WINDOWED_RISK_METRICS`) keep the cumulative counts of their
 * numerator and denominator at the last `windowChecks` + 1 checks in a ring buffer, and read the
 * ratio of their increase over the window (over what there is until the window is full). Its state
 * is plain fields referring to parts of the model, so it is copied with the model.
 */
export class Probe {
  /** Cumulative numerator and denominator at the checks kept, a ring buffer (empty for instant metrics). */
  private readonly num: Float64Array;
  private readonly den: Float64Array;
  /** The slot the next sample goes to, and the samples held. */
  private head = 0;
  private held = 0;

  /**
   * `metric` read on the stack run's `leaf` and `measurements`; a windowed metric over
   * `windowChecks` check intervals.
   */
  constructor(
    readonly metric: RiskMetric,
    private readonly leaf: Leaf,
    private readonly m: Measurements,
    windowChecks: number,
    private readonly service: ServiceRuntime | null = null,
    private readonly cache: CacheCounts | null = null,
  ) {
    const slots = WINDOWED_RISK_METRICS.has(metric) ? windowChecks + 1 : 0;
    this.num = new Float64Array(slots);
    this.den = new Float64Array(slots);
  }

  /** The probe of `spec` on `model` (checked first by {@link probeProblems}), windows of `windowChecks` checks. */
  static on(model: Model, spec: ProbeSpec, windowChecks: number): Probe {
    const parts = model.probeParts();
    if (parts.kind === 'stack') return new Probe(spec.metric, parts.leaf, parts.measurements, windowChecks);
    const g = parts.graph.probeParts(spec.service);
    if (g.service === undefined) throw new Error(`internal: no service ${spec.service}`);
    const cache = spec.metric === 'missRatio' || spec.metric === 'hitRatio' ? cacheCounts(parts.graph.caches, spec.cache) : null;
    return new Probe(spec.metric, g.service.fleet, g.measurements, windowChecks, g.service, cache);
  }

  /** The metric now; a windowed one takes its sample of this check (call once per check). */
  read(): number {
    switch (this.metric) {
      case 'inFlight': {
        if (this.service !== null) return this.service.inFlight;
        const x = (this.leaf as ServerFarm).load();
        return x.busy + x.queued;
      }
      case 'queued':
        return (this.leaf as ServerFarm).load().queued;
      case 'utilization': {
        const x = (this.leaf as ServerFarm).load();
        return x.workers > 0 ? Math.min(1, x.busy / x.workers) : x.busy > 0 ? 1 : 0;
      }
      case 'goodput':
        return this.windowed(this.m.succeeded, this.m.offered);
      case 'missRatio': {
        const c = this.cache as CacheCounts;
        return this.windowed(c.lookups - c.hits, c.lookups);
      }
      case 'hitRatio': {
        const c = this.cache as CacheCounts;
        return this.windowed(c.hits, c.lookups);
      }
      case 'retryShare':
        return this.service !== null
          ? this.windowed(this.service.measure.retryArrivals, this.service.measure.arrivals)
          : this.windowed(this.m.leafRetryCalls, this.m.leafCalls);
      default:
        throw new Error(`internal: ${this.metric} is not read by a probe`);
    }
  }

  /** Takes the sample (numerator, denominator) of this check; the ratio of their increase over the window. */
  private windowed(num: number, den: number): number {
    const slots = this.num.length;
    this.num[this.head] = num;
    this.den[this.head] = den;
    this.head = (this.head + 1) % slots;
    if (this.held < slots) this.held++;
    // The oldest sample held: the window's start (or the first check, until the window is full).
    const oldest = this.held < slots ? 0 : this.head;
    const dNum = num - (this.num[oldest] as number);
    const dDen = den - (this.den[oldest] as number);
    return dDen > 0 ? dNum / dDen : EMPTY_WINDOW_VALUE[this.metric];
  }
}
