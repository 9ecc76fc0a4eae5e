import { WINDOWED_RISK_METRICS, type RiskMetric } from '../experiment/riskSchema.js';
import type { Leaf } from '../model/leaves/Leaf.js';
import { ServerFarm } from '../model/leaves/server/ServerFarm.js';
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

/** Where a stack run's probes read: its one service (a graph run as stack + leaf: the entry's), if it is named. */
function stackService(sc: Scenario): string | undefined {
  return sc.graph?.entries[0]?.service;
}

/**
 * Why a probe cannot be read on a run of `sc`, as sentences naming the field under `path` (e.g.
 * `risk.importance`) and the rule (none: it can).
 */
export function probeProblems(sc: Scenario, spec: ProbeSpec, path: string): string[] {
  if (needsGraphRuntime(sc)) return [`${path}.metric: ${spec.metric} is not read on a service graph with handlers or several entries yet (a stack with a server or pool leaf only)`];
  const out: string[] = [];
  const service = stackService(sc);
  if (spec.service !== undefined && spec.service !== service) {
    out.push(`${path}.service: unknown service ${JSON.stringify(spec.service)} (${service === undefined ? 'a stack run has one service, left unnamed' : `the run's one service is ${JSON.stringify(service)}`})`);
  }
  if (spec.cache !== undefined) out.push(`${path}.cache: unknown cache ${JSON.stringify(spec.cache)} (a stack run has no cache)`);
  if (spec.metric === 'missRatio' || spec.metric === 'hitRatio') out.push(`${path}.metric: ${spec.metric} needs a cache, and a stack run has none`);
  if (spec.metric === 'retryShare') out.push(`${path}.metric: retryShare is not read on a stack run yet`);
  if (INSTANT_SERVER_METRICS.has(spec.metric) && sc.leaf.kind !== 'server' && sc.leaf.kind !== 'pool') {
    out.push(`${path}.metric: ${spec.metric} needs servers at the leaf (a server or pool leaf; got ${sc.leaf.kind})`);
  }
  return out;
}

/** The metrics read from the servers' load now. */
const INSTANT_SERVER_METRICS: ReadonlySet<RiskMetric> = new Set(['inFlight', 'queued', 'utilization']);

/**
 * A metric of a running model read at the points of the check grid. Instant metrics read the
 * model's state now; windowed ones (`WINDOWED_RISK_METRICS`) keep the cumulative counts of their
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
  ) {
    const slots = WINDOWED_RISK_METRICS.has(metric) ? windowChecks + 1 : 0;
    this.num = new Float64Array(slots);
    this.den = new Float64Array(slots);
  }

  /** The probe of `spec` on `model` (checked first by {@link probeProblems}), windows of `windowChecks` checks. */
  static on(model: Model, spec: ProbeSpec, windowChecks: number): Probe {
    const parts = model.probeParts();
    if (parts.kind !== 'stack') throw new Error('internal: a probe on a graph run');
    return new Probe(spec.metric, parts.leaf, parts.measurements, windowChecks);
  }

  /** The metric now; a windowed one takes its sample of this check (call once per check). */
  read(): number {
    switch (this.metric) {
      case 'inFlight': {
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
      default:
        throw new Error(`internal: ${this.metric} is not read on a stack run`);
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
