import type { Uniform } from '../../../engine/random.js';
import type { Simulator } from '../../../engine/simulator.js';
import { MAX_SERIES_BINS, TimeWeightedSeries } from '../../../metrics/index.js';
import type { PoolLeaf } from '../../scenario.js';

/** The load balancer's event kinds, relative to the first kind the farm gives it. */
export const LB_UNEJECT = 0;
export const LB_OD_TICK = 1;
export const LB_HC_TICK = 2;
/** How many event kinds the load balancer schedules. */
export const LB_EVENT_KINDS = 3;

const LB_ROUND_ROBIN = 0;
const LB_RANDOM = 1;
const LB_LEAST = 2;
const LB_P2C = 3;

const LB_CODES: Record<PoolLeaf['loadBalancer'], number> = {
  'round-robin': LB_ROUND_ROBIN,
  random: LB_RANDOM,
  'least-outstanding': LB_LEAST,
  p2c: LB_P2C,
};

/** The clusters of backends a load balancer balances over (one cluster of one server for a `server` leaf). */
export interface ClusterLayout {
  names: string[];
  sizes: number[];
}

/**
 * The load balancer in front of a pool of backends (issue "Fleets and cascades"): it picks a
 * cluster by priority failover (Envoy's overprovisioning factor and panic threshold) and a backend
 * by round robin, random, least outstanding requests or power of two random choices, skipping
 * backends that outlier detection ejected or health checks found down (unless the cluster is in
 * panic). It keeps the outstanding requests per backend, the outlier detection's counters and the
 * health series. Per-backend state lives in typed arrays.
 */
export class LoadBalancer {
  readonly n: number;
  readonly clusterOf: Int32Array;
  readonly clusterStart: number[];
  readonly clusterSize: number[];
  private readonly lb: number;
  private readonly rrCluster: Int32Array;
  /** Per cluster: backends the load balancer may choose (healthy and not ejected), recounted as they change. */
  private readonly eligibleIn: Int32Array;
  /** Scratch for {@link pickCluster}: each cluster's share of the traffic. */
  private readonly clusterLoads: Float64Array;
  /** Set by pickCluster: the clusters' healthy capacity was short of 100% of the traffic. */
  private failoverShort = false;
  /**
   * Take the shortcut of {@link chooseAny} when every backend of the cluster may be chosen (off in
   * traced runs, which take no shortcut: a traced run equalling an untraced one locks the two paths
   * together).
   */
  private readonly shortcuts: boolean;

  /** Per backend: requests sent and not yet settled. */
  readonly outstanding: Int32Array;
  /** Per backend: 1 while health checks see it up. */
  private readonly healthy: Uint8Array;
  readonly ejected: Uint8Array;
  private readonly ejectionCount: Int32Array;
  private readonly consecutiveFailures: Int32Array;
  private readonly intervalRequests: Int32Array;
  private readonly intervalFailures: Int32Array;
  private ejectedNow = 0;
  /** Backends down now (kept by the farm). */
  downNow = 0;
  /** Ejections per backend over the measured time. */
  readonly ejections: Float64Array;
  readonly gDown: TimeWeightedSeries;
  readonly gEjected: TimeWeightedSeries;
  readonly gHealthy: TimeWeightedSeries;

  constructor(
    private readonly pool: PoolLeaf | null,
    layout: ClusterLayout,
    /** Per backend: 1 while it is down (the farm's array, read here). */
    private readonly down: Uint8Array,
    private readonly sim: Simulator,
    private readonly kindBase: number,
    private readonly uLb: Uniform,
    shortcuts: boolean,
    binMs: number,
    startMs: number,
  ) {
    const n = down.length;
    this.n = n;
    this.clusterOf = new Int32Array(n);
    this.clusterStart = [];
    this.clusterSize = [];
    let at = 0;
    layout.sizes.forEach((size, i) => {
      this.clusterStart.push(at);
      this.clusterSize.push(size);
      for (let b = 0; b < size; b++) this.clusterOf[at + b] = i;
      at += size;
    });
    const nc = layout.sizes.length;
    this.rrCluster = new Int32Array(nc);
    this.eligibleIn = Int32Array.from(this.clusterSize);
    this.clusterLoads = new Float64Array(nc);
    this.lb = LB_CODES[pool?.loadBalancer ?? 'round-robin'];
    this.shortcuts = shortcuts;
    this.outstanding = new Int32Array(n);
    this.healthy = new Uint8Array(n).fill(1);
    this.ejected = new Uint8Array(n);
    this.ejectionCount = new Int32Array(n);
    this.consecutiveFailures = new Int32Array(n);
    this.intervalRequests = new Int32Array(n);
    this.intervalFailures = new Int32Array(n);
    this.ejections = new Float64Array(n);
    this.gDown = new TimeWeightedSeries(binMs, MAX_SERIES_BINS, startMs, 0);
    this.gEjected = new TimeWeightedSeries(binMs, MAX_SERIES_BINS, startMs, 0);
    this.gHealthy = new TimeWeightedSeries(binMs, MAX_SERIES_BINS, startMs, n);
  }

  /** Schedule the periodic checks (outlier detection's failure percentage, health checks). */
  start(t0: number): void {
    const p = this.pool;
    if (p?.outlierDetection?.failurePercentThreshold !== undefined) this.sim.at(t0 + p.outlierDetection.intervalMs, this.kindBase + LB_OD_TICK, 0, 0);
    if (p?.healthCheck) this.sim.at(t0 + p.healthCheck.intervalMs, this.kindBase + LB_HC_TICK, 0, 0);
  }

  /** Handle one of the load balancer's events (`kind` relative to its first kind); `active`: the run still has work. */
  dispatch(kind: number, a: number, b: number, t: number, active: boolean): void {
    switch (kind) {
      case LB_UNEJECT:
        if (this.ejected[a] === 1 && this.ejectionCount[a] === b) {
          this.ejected[a] = 0;
          this.ejectedNow--;
          this.noteHealth(t);
        }
        return;
      case LB_OD_TICK: {
        const od = this.pool?.outlierDetection;
        if (!od) return;
        this.failurePercentCheck(t);
        if (active) this.sim.at(t + od.intervalMs, this.kindBase + LB_OD_TICK, 0, 0);
        return;
      }
      case LB_HC_TICK: {
        const hc = this.pool?.healthCheck;
        if (!hc) return;
        for (let i = 0; i < this.n; i++) this.healthy[i] = this.down[i] === 1 ? 0 : 1;
        this.noteHealth(t);
        if (active) this.sim.at(t + hc.intervalMs, this.kindBase + LB_HC_TICK, 0, 0);
        return;
      }
    }
  }

  private eligible(b: number): boolean {
    return this.healthy[b] === 1 && this.ejected[b] === 0;
  }

  /** Healthy share of a cluster, as the load balancer sees it. */
  private healthyShare(c: number): number {
    return this.eligibleIn[c]! / this.clusterSize[c]!;
  }

  /**
   * Priority failover (Envoy "Priority levels"): cluster 0 takes min(100%, healthy share x
   * overprovisioning factor) of the traffic, the next cluster the same of what remains, and so on;
   * when all clusters together are short of 100% the loads are scaled up to it.
   */
  private pickCluster(): number {
    const nc = this.clusterSize.length;
    this.failoverShort = false;
    if (nc === 1) return 0;
    const factor = (this.pool as PoolLeaf).overprovisioningFactor;
    let remaining = 1;
    const loads = this.clusterLoads;
    for (let c = 0; c < nc; c++) {
      const l = Math.min(remaining, this.healthyShare(c) * factor);
      loads[c] = l;
      remaining -= l;
    }
    const total = 1 - remaining;
    this.failoverShort = remaining > 1e-12;
    if (total <= 0) return 0;
    let u = this.uLb() * total;
    for (let c = 0; c < nc; c++) {
      u -= loads[c]!;
      if (u < 0) return c;
    }
    return nc - 1;
  }

  /**
   * Choose a backend for a request; `avoid` lists backends this call already tried (Envoy's
   * previous_hosts retry predicate), honoured when another choice exists.
   */
  pick(avoid: Int32Array | null, avoidFrom: number, avoidCount: number): number {
    return this.n === 1 ? 0 : this.pickAmong(avoid, avoidFrom, avoidCount);
  }

  private pickAmong(avoid: Int32Array | null, avoidFrom: number, avoidCount: number): number {
    const c = this.pickCluster();
    const start = this.clusterStart[c]!;
    const size = this.clusterSize[c]!;
    // Panic (balance over every backend, healthy or not) only when failover cannot place all the traffic.
    const panic =
      (this.clusterSize.length === 1 || this.failoverShort) && this.healthyShare(c) * 100 < (this.pool as PoolLeaf).panicThresholdPercent;
    // Every backend of the cluster may be chosen and none is to be avoided (the common case): no test per backend.
    if (this.shortcuts && (panic || this.eligibleIn[c] === size) && avoidCount === 0) return this.chooseAny(start, size);
    let choice = this.choose(start, size, panic, avoid, avoidFrom, avoidCount);
    if (choice < 0 && avoid !== null) choice = this.choose(start, size, panic, null, 0, 0);
    if (choice < 0) choice = start + Math.floor(this.uLb() * size);
    return choice;
  }

  /** Whether the load balancer may send to b: eligible (or in panic) and not among the backends to avoid. */
  private acceptable(b: number, panic: boolean, avoid: Int32Array | null, avoidFrom: number, avoidCount: number): boolean {
    if (!panic && !this.eligible(b)) return false;
    if (avoid !== null) for (let i = 0; i < avoidCount; i++) if (avoid[avoidFrom + i] === b) return false;
    return true;
  }

  /** How many backends of the cluster at `start` are acceptable (counted without a scan when none is avoided). */
  private acceptableCount(start: number, size: number, panic: boolean, avoid: Int32Array | null, avoidFrom: number, avoidCount: number): number {
    if (avoid === null || avoidCount === 0) return panic ? size : this.eligibleIn[this.clusterOf[start]!]!;
    let count = 0;
    for (let b = start; b < start + size; b++) if (this.acceptable(b, panic, avoid, avoidFrom, avoidCount)) count++;
    return count;
  }

  /** The k-th (from 0) acceptable backend of the cluster at `start`, or -1. */
  private nthAcceptable(
    k: number,
    start: number,
    size: number,
    panic: boolean,
    avoid: Int32Array | null,
    avoidFrom: number,
    avoidCount: number,
  ): number {
    for (let b = start; b < start + size; b++) if (this.acceptable(b, panic, avoid, avoidFrom, avoidCount) && k-- === 0) return b;
    return -1;
  }

  /** {@link choose} when every backend of the cluster is acceptable: the same choice and the same draws. */
  private chooseAny(start: number, size: number): number {
    switch (this.lb) {
      case LB_ROUND_ROBIN: {
        const c = this.clusterOf[start]!;
        const b = start + (this.rrCluster[c]! % size);
        this.rrCluster[c] = ((b - start + 1) % size) | 0;
        return b;
      }
      case LB_RANDOM:
        return start + Math.floor(this.uLb() * size);
      case LB_LEAST: {
        let best = start;
        for (let b = start + 1; b < start + size; b++) if (this.outstanding[b]! < this.outstanding[best]!) best = b;
        return best;
      }
      default: {
        const x = start + Math.floor(this.uLb() * size);
        const y = start + Math.floor(this.uLb() * size);
        return this.outstanding[y]! < this.outstanding[x]! ? y : x;
      }
    }
  }

  private choose(start: number, size: number, panic: boolean, avoid: Int32Array | null, avoidFrom: number, avoidCount: number): number {
    switch (this.lb) {
      case LB_ROUND_ROBIN: {
        const c = this.clusterOf[start]!;
        for (let i = 0; i < size; i++) {
          const b = start + (this.rrCluster[c]! + i) % size;
          if (this.acceptable(b, panic, avoid, avoidFrom, avoidCount)) {
            this.rrCluster[c] = ((b - start + 1) % size) | 0;
            return b;
          }
        }
        return -1;
      }
      case LB_RANDOM: {
        const count = this.acceptableCount(start, size, panic, avoid, avoidFrom, avoidCount);
        if (count === 0) return -1;
        return this.nthAcceptable(Math.floor(this.uLb() * count), start, size, panic, avoid, avoidFrom, avoidCount);
      }
      case LB_LEAST: {
        let best = -1;
        for (let b = start; b < start + size; b++) {
          if (this.acceptable(b, panic, avoid, avoidFrom, avoidCount) && (best < 0 || this.outstanding[b]! < this.outstanding[best]!)) best = b;
        }
        return best;
      }
      default: {
        // Power of two random choices (Mitzenmacher 2001): the less loaded of two random eligible backends.
        const count = this.acceptableCount(start, size, panic, avoid, avoidFrom, avoidCount);
        if (count === 0) return -1;
        const x = this.nthAcceptable(Math.floor(this.uLb() * count), start, size, panic, avoid, avoidFrom, avoidCount);
        const y = this.nthAcceptable(Math.floor(this.uLb() * count), start, size, panic, avoid, avoidFrom, avoidCount);
        return this.outstanding[y]! < this.outstanding[x]! ? y : x;
      }
    }
  }

  /** A request was sent to backend b (counted as outstanding until settled). */
  sent(b: number): void {
    this.outstanding[b] = this.outstanding[b]! + 1;
  }

  /** The load balancer's view of a finished request: outstanding counts and outlier detection. */
  settle(b: number, failed: boolean, t: number): void {
    this.outstanding[b] = this.outstanding[b]! - 1;
    const od = this.pool?.outlierDetection;
    if (!od) return;
    this.intervalRequests[b] = this.intervalRequests[b]! + 1;
    if (!failed) {
      this.consecutiveFailures[b] = 0;
      return;
    }
    this.intervalFailures[b] = this.intervalFailures[b]! + 1;
    const k = this.consecutiveFailures[b]! + 1;
    this.consecutiveFailures[b] = k;
    if (k >= od.consecutiveFailures) this.eject(b, t);
  }

  /** Eject b for baseEjectionMs x its ejections (at most maxEjectionMs), within maxEjectionPercent (Envoy outlier detection). */
  private eject(b: number, t: number): void {
    const od = this.pool?.outlierDetection;
    if (!od || this.ejected[b] === 1) return;
    const maxEjected = Math.max(1, Math.floor((od.maxEjectionPercent / 100) * this.n));
    if (this.ejectedNow >= maxEjected) return;
    this.ejected[b] = 1;
    this.ejectedNow++;
    this.consecutiveFailures[b] = 0;
    const count = this.ejectionCount[b]! + 1;
    this.ejectionCount[b] = count;
    if (t >= 0) this.ejections[b] = this.ejections[b]! + 1;
    this.sim.at(t + Math.min(od.maxEjectionMs, od.baseEjectionMs * count), this.kindBase + LB_UNEJECT, b, count);
    this.noteHealth(t);
  }

  private failurePercentCheck(t: number): void {
    const od = this.pool?.outlierDetection;
    if (!od || od.failurePercentThreshold === undefined) return;
    for (let b = 0; b < this.n; b++) {
      const req = this.intervalRequests[b]!;
      if (req >= od.minRequests && (100 * this.intervalFailures[b]!) / req >= od.failurePercentThreshold) this.eject(b, t);
      this.intervalRequests[b] = 0;
      this.intervalFailures[b] = 0;
    }
  }

  /** Recount the eligible backends of each cluster and follow health into the series (after any change). */
  noteHealth(t: number): void {
    for (let c = 0; c < this.clusterSize.length; c++) {
      const start = this.clusterStart[c]!;
      const size = this.clusterSize[c]!;
      let h = 0;
      for (let b = start; b < start + size; b++) if (this.eligible(b)) h++;
      this.eligibleIn[c] = h;
    }
    let healthy = 0;
    for (let b = 0; b < this.n; b++) if (this.down[b] === 0 && this.ejected[b] === 0) healthy++;
    this.gHealthy.set(t, healthy);
    this.gEjected.set(t, this.ejectedNow);
    this.gDown.set(t, this.downNow);
  }

  /** Close the health series at the end of the run. */
  finish(endMs: number): void {
    this.gDown.finish(endMs);
    this.gEjected.finish(endMs);
    this.gHealthy.finish(endMs);
  }
}
