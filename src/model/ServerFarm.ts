import { makeSampler, type Sampler } from '../engine/distributions.js';
import type { Uniform } from '../engine/random.js';
import type { Simulator } from '../engine/simulator.js';
import { Timers } from '../engine/timers.js';
import { TimeWeightedSeries } from '../metrics/index.js';
import { Outcome } from '../policy/outcome.js';
import { IntDeque } from './IntDeque.js';
import { statusOutcome } from './statusOutcome.js';
import { R_CANCELLED, R_DELAYED, R_HANG, R_QUEUED, R_SERVICE, type RequestTable } from './RequestTable.js';
import type { AdaptiveConcurrencySpec, PoolLeaf, ServerLeaf } from './scenario.js';

/** Event kinds of the farm (the model forwards them; they do not collide with its own). */
export const K_SERVICE_DONE = 30;
export const K_FAULT_ANSWER = 31;
export const K_CAPACITY = 32;
export const K_OUTAGE = 33;
export const K_RESTART = 34;
export const K_UNEJECT = 35;
export const K_OD_TICK = 36;
export const K_HC_TICK = 37;
export const K_AC_SAMPLE = 38;

/** {@link ServerFarm.triage}: the request is served or queued (it needs a request slot). */
export const NEEDS_SLOT = -1;
/** {@link ServerFarm.triage}: a fault answers the request after a latency (it needs a request slot). */
export const DELAYED_ANSWER = -2;

const LB_ROUND_ROBIN = 0;
const LB_RANDOM = 1;
const LB_LEAST = 2;
const LB_P2C = 3;

/** What the farm needs from the model. */
export interface FarmHost {
  /** Send request r's answer back to its caller (the model frees the slot). */
  respond(r: number, outcome: number, retryAfterMs: number, t: number): void;
  /** Whether anyone up the chain still waits for request r. */
  stillWanted(r: number): boolean;
  /** Request r is lost without an answer (a crash, an expired request dropped): its caller will time out. */
  drop(r: number, t: number): void;
  /** Free request r, withdrawn by its caller (cancellation). */
  release(r: number): void;
}


/** Counters of one backend over the measured time. */
export interface BackendStats {
  cluster: string;
  index: number;
  utilization: number | null;
  meanBusy: number;
  maxQueue: number;
  served: number;
  shed: number;
  dropped: number;
  refused: number;
  faulted: number;
  rejected: number;
  lost: number;
  crashes: number;
  ejections: number;
  wastedWorkMs: number;
}

/**
 * The servers at the leaf: one server, or a fleet of backends in clusters behind a load balancer
 * (DESIGN.md section 2; issue "Fleets and cascades"). Each backend is a server of its own (workers,
 * queue and discipline, service time, degradation, capacity schedule, faults, outages, crashes, and
 * the server-side defences: shedding on queue length or utilisation, an adaptive concurrency limit,
 * CoDel, dropping expired requests). The load balancer picks a cluster by priority failover (Envoy's
 * overprovisioning factor) and a backend by round robin, random, least outstanding requests or power
 * of two random choices, skipping backends that outlier detection ejected or health checks found
 * down (unless the cluster is in panic). Per-backend state lives in typed arrays.
 */
export class ServerFarm {
  readonly n: number;
  private readonly specs: ServerLeaf[];
  private readonly clusterOf: Int32Array;
  private readonly clusterStart: number[];
  private readonly clusterSize: number[];
  private readonly clusterNames: string[];
  private readonly pool: PoolLeaf | null;
  private readonly lb: number;
  private rr = 0;
  private readonly rrCluster: Int32Array;
  /** Per cluster: backends the load balancer may choose (healthy and not ejected), recounted as they change. */
  private readonly eligibleIn: Int32Array;
  /** Scratch for {@link pickCluster}: each cluster's share of the traffic. */
  private readonly clusterLoads: Float64Array;

  // Per backend.
  private readonly queues: IntDeque[];
  private readonly busy: Int32Array;
  private readonly cancelledInQueue: Int32Array;
  private readonly outstanding: Int32Array;
  private readonly baseConcurrency: Float64Array;
  private readonly capacityNow: Float64Array;
  private readonly queueLimit: Float64Array;
  private readonly activeWindows: number[][];
  private readonly down: Uint8Array;
  private readonly healthy: Uint8Array;
  private readonly ejected: Uint8Array;
  private readonly ejectionCount: Int32Array;
  private readonly consecutiveFailures: Int32Array;
  private readonly intervalRequests: Int32Array;
  private readonly intervalFailures: Int32Array;
  private readonly utilEwma: Float64Array;
  private readonly utilAt: Float64Array;
  private readonly acLimit: Float64Array;
  private readonly acMinRtt: Float64Array;
  private readonly acMinRttAt: Float64Array;
  private readonly acSampleSum: Float64Array;
  private readonly acSampleCount: Int32Array;
  private readonly codelOverloaded: Uint8Array;
  private readonly codelMinSojourn: Float64Array;
  private readonly codelIntervalEnd: Float64Array;
  private readonly samplers: Sampler[];
  /**
   * Per backend with a constant service time: the event queue's lane for its completions (-1:
   * none). Services that start in time order and last the same end in time order; backends with
   * the same constant share a lane.
   */
  private readonly serviceLane: Int32Array;
  /** Per backend: 1 when it sheds on utilisation / has an adaptive limit (checked per request). */
  private readonly hasShedUtil: Uint8Array;
  private readonly hasAdaptive: Uint8Array;
  /** Per backend: 1 when requests leaving its queue may be dropped (dropExpired or CoDel). */
  private readonly dropsQueued: Uint8Array;
  private readonly faultLatency: Array<Array<Sampler | null>>;
  private readonly restartTimers: Timers;
  private ejectedNow = 0;
  /** Set by pickCluster: the clusters' healthy capacity was short of 100% of the traffic. */
  private failoverShort = false;
  private downNow = 0;

  // Measurements (t >= 0).
  private readonly served: Float64Array;
  private readonly shed: Float64Array;
  private readonly dropped: Float64Array;
  private readonly refused: Float64Array;
  private readonly faulted: Float64Array;
  private readonly rejected: Float64Array;
  private readonly lost: Float64Array;
  private readonly crashes: Float64Array;
  private readonly ejections: Float64Array;
  private readonly wasted: Float64Array;
  private readonly maxQueue: Float64Array;
  cancelled = 0;
  private readonly gBusy: TimeWeightedSeries[];
  private readonly gQueue: TimeWeightedSeries[];
  private readonly gBusyTotal: TimeWeightedSeries;
  private readonly gQueueTotal: TimeWeightedSeries;
  private readonly gDown: TimeWeightedSeries;
  private readonly gEjected: TimeWeightedSeries;
  private readonly gHealthy: TimeWeightedSeries;
  private busyTotal = 0;
  private queueTotal = 0;
  /** Some backend can answer a request on arrival without serving it (faults, outages, crashes, shedding, a bounded queue). */
  readonly mayRefuse: boolean;
  /** Set by {@link triage}: the Retry-After (ms, NaN = none) of the answer it returned. */
  answerRetryAfterMs = NaN;
  private delayedOutcome = 0;
  private delayedMs = 0;

  constructor(
    leaf: ServerLeaf | PoolLeaf,
    private readonly sim: Simulator,
    private readonly req: RequestTable,
    private readonly host: FarmHost,
    private readonly uFaults: Uniform,
    private readonly uLb: Uniform,
    uService: Uniform,
    uFaultLatency: Uniform,
    binMs: number,
    startMs: number,
  ) {
    const clusters = leaf.kind === 'pool' ? leaf.clusters : [{ name: 'server', backends: [leaf] }];
    this.pool = leaf.kind === 'pool' ? leaf : null;
    this.specs = clusters.flatMap((c) => c.backends);
    this.clusterNames = clusters.map((c) => c.name);
    const n = this.specs.length;
    this.n = n;
    this.clusterOf = new Int32Array(n);
    this.clusterStart = [];
    this.clusterSize = [];
    let at = 0;
    clusters.forEach((c, i) => {
      this.clusterStart.push(at);
      this.clusterSize.push(c.backends.length);
      for (let b = 0; b < c.backends.length; b++) this.clusterOf[at + b] = i;
      at += c.backends.length;
    });
    this.rrCluster = new Int32Array(clusters.length);
    this.eligibleIn = Int32Array.from(this.clusterSize);
    this.clusterLoads = new Float64Array(clusters.length);
    const lbName = leaf.kind === 'pool' ? leaf.loadBalancer : 'round-robin';
    this.lb = { 'round-robin': LB_ROUND_ROBIN, random: LB_RANDOM, 'least-outstanding': LB_LEAST, p2c: LB_P2C }[lbName];

    this.queues = this.specs.map(() => new IntDeque(64));
    this.busy = new Int32Array(n);
    this.cancelledInQueue = new Int32Array(n);
    this.outstanding = new Int32Array(n);
    this.baseConcurrency = Float64Array.from(this.specs, (s) => (s.concurrency === 'unlimited' ? Infinity : s.concurrency));
    this.capacityNow = Float64Array.from(this.baseConcurrency);
    this.queueLimit = Float64Array.from(this.specs, (s) => (s.queueLimit === 'unlimited' ? Infinity : s.queueLimit));
    this.activeWindows = this.specs.map(() => []);
    this.down = new Uint8Array(n);
    this.healthy = new Uint8Array(n).fill(1);
    this.ejected = new Uint8Array(n);
    this.ejectionCount = new Int32Array(n);
    this.consecutiveFailures = new Int32Array(n);
    this.intervalRequests = new Int32Array(n);
    this.intervalFailures = new Int32Array(n);
    this.utilEwma = new Float64Array(n);
    this.utilAt = new Float64Array(n).fill(startMs);
    this.acLimit = Float64Array.from(this.specs, (s) => s.adaptiveConcurrency?.initialLimit ?? Infinity);
    this.acMinRtt = new Float64Array(n).fill(Infinity);
    this.acMinRttAt = new Float64Array(n).fill(startMs);
    this.acSampleSum = new Float64Array(n);
    this.acSampleCount = new Int32Array(n);
    this.codelOverloaded = new Uint8Array(n);
    this.codelMinSojourn = new Float64Array(n).fill(Infinity);
    this.codelIntervalEnd = Float64Array.from(this.specs, (s) => startMs + (s.codel?.intervalMs ?? 0));
    this.samplers = this.specs.map((s) => makeSampler(s.serviceMs, uService));
    const laneOf = new Map<number, number>();
    this.serviceLane = Int32Array.from(this.specs, (s) => {
      if (s.serviceMs.dist !== 'constant') return -1;
      const v = s.serviceMs.value;
      let lane = laneOf.get(v);
      if (lane === undefined) laneOf.set(v, (lane = sim.addLane()));
      return lane;
    });
    this.hasShedUtil = Uint8Array.from(this.specs, (s) => (s.shedUtilization ? 1 : 0));
    this.hasAdaptive = Uint8Array.from(this.specs, (s) => (s.adaptiveConcurrency ? 1 : 0));
    this.dropsQueued = Uint8Array.from(this.specs, (s) => (s.dropExpired || s.codel ? 1 : 0));
    this.faultLatency = this.specs.map((s) => s.faults.map((f) => (f.latencyMs ? makeSampler(f.latencyMs, uFaultLatency) : null)));
    this.restartTimers = new Timers(n);
    this.mayRefuse = this.specs.some(
      (s) =>
        s.faults.length > 0 ||
        (s.outages?.length ?? 0) > 0 ||
        s.crash !== undefined ||
        s.shedUtilization !== undefined ||
        s.adaptiveConcurrency !== undefined ||
        s.queueLimit !== 'unlimited',
    );

    this.served = new Float64Array(n);
    this.shed = new Float64Array(n);
    this.dropped = new Float64Array(n);
    this.refused = new Float64Array(n);
    this.faulted = new Float64Array(n);
    this.rejected = new Float64Array(n);
    this.lost = new Float64Array(n);
    this.crashes = new Float64Array(n);
    this.ejections = new Float64Array(n);
    this.wasted = new Float64Array(n);
    this.maxQueue = new Float64Array(n);
    const perBackend = n > 1 && n <= 64;
    this.gBusy = perBackend ? this.specs.map(() => new TimeWeightedSeries(binMs, 1_000_000, startMs, 0)) : [];
    this.gQueue = perBackend ? this.specs.map(() => new TimeWeightedSeries(binMs, 1_000_000, startMs, 0)) : [];
    this.gBusyTotal = new TimeWeightedSeries(binMs, 1_000_000, startMs, 0);
    this.gQueueTotal = new TimeWeightedSeries(binMs, 1_000_000, startMs, 0);
    this.gDown = new TimeWeightedSeries(binMs, 1_000_000, startMs, 0);
    this.gEjected = new TimeWeightedSeries(binMs, 1_000_000, startMs, 0);
    this.gHealthy = new TimeWeightedSeries(binMs, 1_000_000, startMs, n);
  }

  /** Schedule the farm's own timed events (capacity windows, outages, periodic checks). */
  start(t0: number): void {
    const sim = this.sim;
    this.specs.forEach((s, b) => {
      s.capacity.forEach((win, i) => {
        sim.at(Math.max(t0, win.atMs), K_CAPACITY, b * 1024 + i, 0);
        sim.at(Math.max(t0, win.atMs + win.durationMs), K_CAPACITY, b * 1024 + i, 1);
      });
      (s.outages ?? []).forEach((o) => {
        sim.at(Math.max(t0, o.atMs), K_OUTAGE, b, 0);
        sim.at(Math.max(t0, o.atMs + o.durationMs), K_OUTAGE, b, 1);
      });
      if (s.adaptiveConcurrency?.kind === 'gradient') sim.at(t0 + s.adaptiveConcurrency.sampleMs, K_AC_SAMPLE, b, 0);
    });
    const p = this.pool;
    if (p?.outlierDetection?.failurePercentThreshold !== undefined) sim.at(t0 + p.outlierDetection.intervalMs, K_OD_TICK, 0, 0);
    if (p?.healthCheck) sim.at(t0 + p.healthCheck.intervalMs, K_HC_TICK, 0, 0);
  }

  /** True while the farm has periodic events that would keep a drained run going. */
  get hasPeriodicEvents(): boolean {
    const p = this.pool;
    return !!(p?.healthCheck || p?.outlierDetection?.failurePercentThreshold !== undefined || this.specs.some((s) => s.adaptiveConcurrency?.kind === 'gradient'));
  }

  /** Handle one of the farm's events; `active` says whether the run still has work (periodic events stop otherwise). */
  dispatch(kind: number, a: number, b: number, t: number, active: boolean): void {
    switch (kind) {
      case K_SERVICE_DONE:
        if (this.req.timers.isLive(a, b)) this.serviceDone(a, t);
        return;
      case K_FAULT_ANSWER:
        if (this.req.timers.isLive(a, b)) this.host.respond(a, this.req.outcome[a] as number, this.req.retryAfter[a] as number, t);
        return;
      case K_CAPACITY:
        this.capacityChange(Math.floor(a / 1024), a % 1024, b === 0, t);
        return;
      case K_OUTAGE:
        if (b === 0) this.goDown(a, t);
        else this.comeUp(a, t);
        return;
      case K_RESTART:
        if (this.restartTimers.isLive(a, b)) this.comeUp(a, t);
        return;
      case K_UNEJECT:
        if (this.ejected[a] === 1 && this.ejectionCount[a] === b) {
          this.ejected[a] = 0;
          this.ejectedNow--;
          this.noteHealth(t);
        }
        return;
      case K_OD_TICK:
        this.failurePercentCheck(t);
        if (active) this.sim.at(t + (this.pool?.outlierDetection?.intervalMs ?? 1000), K_OD_TICK, 0, 0);
        return;
      case K_HC_TICK:
        for (let i = 0; i < this.n; i++) this.healthy[i] = this.down[i] === 1 ? 0 : 1;
        this.noteHealth(t);
        if (active) this.sim.at(t + (this.pool?.healthCheck?.intervalMs ?? 1000), K_HC_TICK, 0, 0);
        return;
      case K_AC_SAMPLE:
        this.gradientSample(a, t);
        if (active) {
          const ac = this.specs[a]?.adaptiveConcurrency;
          if (ac?.kind === 'gradient') this.sim.at(t + ac.sampleMs, K_AC_SAMPLE, a, 0);
        }
        return;
    }
  }

  // ------------------------------------------------------------ load balancing

  private eligible(b: number): boolean {
    return this.healthy[b] === 1 && this.ejected[b] === 0;
  }

  /** Healthy share of a cluster, as the load balancer sees it. */
  private healthyShare(c: number): number {
    return (this.eligibleIn[c] as number) / (this.clusterSize[c] as number);
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
    const factor = this.pool?.overprovisioningFactor ?? 1.4;
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
      u -= loads[c] as number;
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
    const start = this.clusterStart[c] as number;
    const size = this.clusterSize[c] as number;
    // Panic (balance over every backend, healthy or not) only when failover cannot place all the traffic.
    const panic =
      (this.clusterSize.length === 1 || this.failoverShort) && this.healthyShare(c) * 100 < (this.pool?.panicThresholdPercent ?? 50);
    // Every backend of the cluster may be chosen and none is to be avoided (the common case): no test per backend.
    if ((panic || this.eligibleIn[c] === size) && avoidCount === 0) return this.chooseAny(start, size);
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
    if (avoid === null || avoidCount === 0) return panic ? size : (this.eligibleIn[this.clusterOf[start] as number] as number);
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
        const c = this.clusterOf[start] as number;
        const b = start + ((this.rrCluster[c] as number) % size);
        this.rrCluster[c] = ((b - start + 1) % size) | 0;
        return b;
      }
      case LB_RANDOM:
        return start + Math.floor(this.uLb() * size);
      case LB_LEAST: {
        let best = start;
        for (let b = start + 1; b < start + size; b++) if ((this.outstanding[b] as number) < (this.outstanding[best] as number)) best = b;
        return best;
      }
      default: {
        const x = start + Math.floor(this.uLb() * size);
        const y = start + Math.floor(this.uLb() * size);
        return (this.outstanding[y] as number) < (this.outstanding[x] as number) ? y : x;
      }
    }
  }

  private choose(start: number, size: number, panic: boolean, avoid: Int32Array | null, avoidFrom: number, avoidCount: number): number {
    switch (this.lb) {
      case LB_ROUND_ROBIN: {
        const c = this.clusterOf[start] as number;
        for (let i = 0; i < size; i++) {
          const b = start + ((this.rrCluster[c] as number) + i) % size;
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
          if (this.acceptable(b, panic, avoid, avoidFrom, avoidCount) && (best < 0 || (this.outstanding[b] as number) < (this.outstanding[best] as number))) best = b;
        }
        return best;
      }
      default: {
        // Power of two random choices (Mitzenmacher 2001): the less loaded of two random eligible backends.
        const count = this.acceptableCount(start, size, panic, avoid, avoidFrom, avoidCount);
        if (count === 0) return -1;
        const x = this.nthAcceptable(Math.floor(this.uLb() * count), start, size, panic, avoid, avoidFrom, avoidCount);
        const y = this.nthAcceptable(Math.floor(this.uLb() * count), start, size, panic, avoid, avoidFrom, avoidCount);
        return (this.outstanding[y] as number) < (this.outstanding[x] as number) ? y : x;
      }
    }
  }

  /** The load balancer's view of a finished request: outstanding counts and outlier detection. */
  settle(b: number, failed: boolean, t: number): void {
    this.outstanding[b] = (this.outstanding[b] as number) - 1;
    const od = this.pool?.outlierDetection;
    if (!od) return;
    this.intervalRequests[b] = (this.intervalRequests[b] as number) + 1;
    if (!failed) {
      this.consecutiveFailures[b] = 0;
      return;
    }
    this.intervalFailures[b] = (this.intervalFailures[b] as number) + 1;
    const k = (this.consecutiveFailures[b] as number) + 1;
    this.consecutiveFailures[b] = k;
    if (k >= od.consecutiveFailures) this.eject(b, t);
  }

  /** A request was sent to backend b (counted as outstanding until settled). */
  sent(b: number): void {
    this.outstanding[b] = (this.outstanding[b] as number) + 1;
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
    const count = (this.ejectionCount[b] as number) + 1;
    this.ejectionCount[b] = count;
    if (t >= 0) this.ejections[b] = (this.ejections[b] as number) + 1;
    this.sim.at(t + Math.min(od.maxEjectionMs, od.baseEjectionMs * count), K_UNEJECT, b, count);
    this.noteHealth(t);
  }

  private failurePercentCheck(t: number): void {
    const od = this.pool?.outlierDetection;
    if (!od || od.failurePercentThreshold === undefined) return;
    for (let b = 0; b < this.n; b++) {
      const req = this.intervalRequests[b] as number;
      if (req >= od.minRequests && (100 * (this.intervalFailures[b] as number)) / req >= od.failurePercentThreshold) this.eject(b, t);
      this.intervalRequests[b] = 0;
      this.intervalFailures[b] = 0;
    }
  }

  private noteHealth(t: number): void {
    for (let c = 0; c < this.clusterSize.length; c++) {
      const start = this.clusterStart[c] as number;
      const size = this.clusterSize[c] as number;
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

  // ------------------------------------------------------------ one backend

  private answer(r: number, outcome: number, ra: number, t: number): void {
    this.host.respond(r, outcome, ra, t);
  }

  /** The status a refusing backend answers: "overloaded; don't retry" (Google SRE book ch. 21) or a 503, with a Retry-After or gRPC pushback hint. */
  private refusal(b: number, s: ServerLeaf, t: number): number {
    if (t >= 0) this.shed[b] = (this.shed[b] as number) + 1;
    this.answerRetryAfterMs = s.pushbackMs ?? s.shedRetryAfterMs ?? NaN;
    return s.shedStatus === 'overloaded' ? Outcome.OVERLOADED : Outcome.S503;
  }

  /** Request r reaches backend b. */
  arrive(r: number, b: number, t: number): void {
    if (!this.mayRefuse && this.req.bad[r] === 0) {
      // Nothing can turn a valid request away: it is served or queued.
      this.admit(r, b, t);
      return;
    }
    const o = this.triage(b, this.req.bad[r] === 1, t);
    if (o === NEEDS_SLOT) this.admit(r, b, t);
    else if (o === DELAYED_ANSWER) this.delayAnswer(r, t);
    else this.answer(r, o, this.answerRetryAfterMs, t);
  }

  /**
   * What backend b does with a request arriving at t (`bad`: the request is invalid), in this order:
   * a backend that is down refuses the connection (503); an active fault answers its status to its
   * fraction of requests; an invalid request gets a 400; shedding on utilisation, the adaptive
   * concurrency limit and a full queue refuse it. Returns that answer's outcome (its Retry-After in
   * {@link answerRetryAfterMs}), {@link DELAYED_ANSWER} for a fault answered after its latency (see
   * {@link delayAnswer}) or {@link NEEDS_SLOT} when the request is served or queued (see {@link admit}).
   * A request answered at once needs no request slot: the model calls this before allocating one.
   */
  triage(b: number, bad: boolean, t: number): number {
    const s = this.specs[b] as ServerLeaf;
    if (this.down[b] === 1) {
      // Connection refused: a fast failure, as a proxy reports it.
      if (t >= 0) this.refused[b] = (this.refused[b] as number) + 1;
      this.answerRetryAfterMs = NaN;
      return Outcome.S503;
    }
    const faults = s.faults;
    for (let i = 0; i < faults.length; i++) {
      const fault = faults[i] as ServerLeaf['faults'][number];
      if (t >= fault.fromMs && t < fault.toMs && this.uFaults() < fault.probability) return this.faultAnswer(b, i, fault, t);
    }
    if (bad) {
      if (t >= 0) this.rejected[b] = (this.rejected[b] as number) + 1;
      this.answerRetryAfterMs = NaN;
      return Outcome.S400;
    }
    const busy = this.busy[b] as number;
    const queued = (this.queues[b] as IntDeque).length - (this.cancelledInQueue[b] as number);
    if (this.hasShedUtil[b] === 1 && this.utilization(b, t) > (s.shedUtilization?.above as number)) return this.refusal(b, s, t);
    if (busy + queued >= (this.acLimit[b] as number)) {
      this.aimdDrop(b);
      return this.refusal(b, s, t);
    }
    if (busy < (this.capacityNow[b] as number) || queued < (this.queueLimit[b] as number)) return NEEDS_SLOT;
    return this.refusal(b, s, t);
  }

  private faultAnswer(b: number, i: number, fault: ServerLeaf['faults'][number], t: number): number {
    if (t >= 0) this.faulted[b] = (this.faulted[b] as number) + 1;
    const outcome = statusOutcome(fault.status);
    this.answerRetryAfterMs = fault.retryAfterMs ?? NaN;
    const lat = this.faultLatency[b]?.[i];
    const d = lat ? lat() : 0;
    if (d > 0) {
      this.delayedOutcome = outcome;
      this.delayedMs = d;
      return DELAYED_ANSWER;
    }
    return outcome;
  }

  /** After {@link triage} said {@link DELAYED_ANSWER}: request r is answered after the fault's latency. */
  delayAnswer(r: number, t: number): void {
    const req = this.req;
    req.state[r] = R_DELAYED;
    req.outcome[r] = this.delayedOutcome;
    req.retryAfter[r] = this.answerRetryAfterMs;
    this.sim.at(t + this.delayedMs, K_FAULT_ANSWER, r, req.timers.arm(r));
  }

  /** After {@link triage} said {@link NEEDS_SLOT}: request r starts service, or waits in the queue. */
  admit(r: number, b: number, t: number): void {
    const s = this.specs[b] as ServerLeaf;
    this.req.enqueuedAt[r] = t;
    const queued = (this.queues[b] as IntDeque).length - (this.cancelledInQueue[b] as number);
    if ((this.busy[b] as number) < (this.capacityNow[b] as number)) {
      this.startService(r, b, t);
      return;
    }
    this.req.state[r] = R_QUEUED;
    (this.queues[b] as IntDeque).pushBack(r);
    this.noteQueue(b, t, 1);
    if (s.crash && queued + 1 > s.crash.queueAbove) this.crash(b, t, s.crash.restartMs);
  }

  /** The busy fraction of backend b, an EWMA over shedUtilization.windowMs (time-weighted). */
  private utilization(b: number, t: number): number {
    const s = this.specs[b] as ServerLeaf;
    const w = s.shedUtilization?.windowMs ?? 1000;
    const dt = t - (this.utilAt[b] as number);
    const cap = this.baseConcurrency[b] as number;
    const now = Number.isFinite(cap) ? (this.busy[b] as number) / cap : 0;
    if (dt > 0) {
      const alpha = 1 - Math.exp(-dt / w);
      this.utilEwma[b] = (this.utilEwma[b] as number) + alpha * (now - (this.utilEwma[b] as number));
      this.utilAt[b] = t;
    }
    return this.utilEwma[b] as number;
  }

  private noteQueue(b: number, t: number, delta: number): void {
    const q = (this.queues[b] as IntDeque).length - (this.cancelledInQueue[b] as number);
    this.gQueue[b]?.set(t, q);
    this.queueTotal += delta;
    this.gQueueTotal.set(t, this.queueTotal);
    if (t >= 0 && q > (this.maxQueue[b] as number)) this.maxQueue[b] = q;
  }

  private setBusy(b: number, delta: number, t: number): void {
    if (this.hasShedUtil[b] === 1) this.utilization(b, t);
    this.busy[b] = (this.busy[b] as number) + delta;
    this.gBusy[b]?.set(t, this.busy[b] as number);
    this.busyTotal += delta;
    this.gBusyTotal.set(t, this.busyTotal);
  }

  private startService(r: number, b: number, t: number): void {
    const s = this.specs[b] as ServerLeaf;
    const req = this.req;
    this.setBusy(b, 1, t);
    let d = (this.samplers[b] as Sampler)();
    const deg = s.degradation;
    if (deg !== undefined) {
      const busy = this.busy[b] as number;
      if (deg.kind === 'linear') d += deg.perInFlightMs * busy;
      else if (busy > deg.inFlightAbove) d *= deg.factor;
    }
    req.state[r] = R_SERVICE;
    req.serviceStart[r] = t;
    req.serviceMs[r] = d;
    this.sim.atInLane(this.serviceLane[b] as number, t + d, K_SERVICE_DONE, r, req.timers.arm(r));
  }

  private serviceDone(r: number, t: number): void {
    const req = this.req;
    const b = req.backend[r] as number;
    this.setBusy(b, -1, t);
    if (t >= 0) {
      this.served[b] = (this.served[b] as number) + 1;
      if (!this.host.stillWanted(r)) this.wasted[b] = (this.wasted[b] as number) + (req.serviceMs[r] as number);
    }
    if (this.hasAdaptive[b] === 1) {
      this.concurrencySample(b, this.specs[b]?.adaptiveConcurrency as AdaptiveConcurrencySpec, t - (req.enqueuedAt[r] as number), t);
    }
    this.answer(r, Outcome.SUCCESS, NaN, t);
    this.pump(b, t);
  }

  /** The model withdrew request r (cancellation): free its worker or its queue place. */
  withdraw(r: number, t: number): boolean {
    const req = this.req;
    const b = req.backend[r] as number;
    switch (req.state[r]) {
      case R_QUEUED:
        req.state[r] = R_CANCELLED;
        req.timers.cancel(r);
        this.cancelledInQueue[b] = (this.cancelledInQueue[b] as number) + 1;
        if (t >= 0) this.cancelled++;
        this.noteQueue(b, t, -1);
        return false;
      case R_SERVICE:
        this.setBusy(b, -1, t);
        if (t >= 0) {
          this.wasted[b] = (this.wasted[b] as number) + (t - (req.serviceStart[r] as number));
          this.cancelled++;
        }
        this.host.release(r);
        this.pump(b, t);
        return true;
      default:
        return false;
    }
  }

  /** Start queued requests while workers are free (FIFO front, LIFO back), dropping what must be dropped. */
  private pump(b: number, t: number): void {
    const s = this.specs[b] as ServerLeaf;
    const q = this.queues[b] as IntDeque;
    const req = this.req;
    const lifo = s.discipline === 'lifo';
    const drops = this.dropsQueued[b] === 1;
    while ((this.busy[b] as number) < (this.capacityNow[b] as number) && q.length > 0) {
      const r = lifo ? q.popBack() : q.popFront();
      if (req.state[r] === R_CANCELLED) {
        this.cancelledInQueue[b] = (this.cancelledInQueue[b] as number) - 1;
        this.host.release(r);
        continue;
      }
      this.noteQueue(b, t, -1);
      if (drops && this.dropQueued(r, b, s, t)) continue;
      this.startService(r, b, t);
    }
  }

  /** A request leaving the queue is dropped when expired (dropExpired) or failed fast by CoDel; true if so. */
  private dropQueued(r: number, b: number, s: ServerLeaf, t: number): boolean {
    const req = this.req;
    if (s.dropExpired && (req.deadline[r] as number) <= t) {
      if (t >= 0) this.dropped[b] = (this.dropped[b] as number) + 1;
      this.host.drop(r, t);
      return true;
    }
    if (s.codel && this.codelDrops(b, s.codel, t - (req.enqueuedAt[r] as number), t)) {
      if (t >= 0) this.dropped[b] = (this.dropped[b] as number) + 1;
      this.answer(r, Outcome.S503, NaN, t);
      return true;
    }
    return false;
  }

  /**
   * CoDel for RPC queues (Maurer, "Fail at Scale", ACM Queue 2015, after Nichols & Jacobson 2012):
   * track the smallest sojourn time of each interval; if it stayed above the target the queue is
   * overloaded and a request that waited more than the target is failed fast; otherwise only one
   * that waited more than a whole interval is.
   */
  private codelDrops(b: number, c: { targetMs: number; intervalMs: number }, sojourn: number, t: number): boolean {
    if (t >= (this.codelIntervalEnd[b] as number)) {
      this.codelOverloaded[b] = (this.codelMinSojourn[b] as number) > c.targetMs ? 1 : 0;
      this.codelMinSojourn[b] = Infinity;
      this.codelIntervalEnd[b] = t + c.intervalMs;
    }
    if (sojourn < (this.codelMinSojourn[b] as number)) this.codelMinSojourn[b] = sojourn;
    return sojourn > (this.codelOverloaded[b] === 1 ? c.targetMs : c.intervalMs);
  }

  // ------------------------------------------------------------ adaptive concurrency

  private aimdDrop(b: number): void {
    const ac = this.specs[b]?.adaptiveConcurrency;
    if (ac?.kind === 'aimd') this.acLimit[b] = Math.max(ac.minLimit, (this.acLimit[b] as number) * ac.backoffRatio);
  }

  private concurrencySample(b: number, ac: AdaptiveConcurrencySpec, rtt: number, t: number): void {
    if (ac.kind === 'aimd') {
      // Netflix concurrency-limits AIMDLimit: a drop (here: slower than timeoutMs) backs off; a success while at least half the limit is in use adds 1.
      const limit = this.acLimit[b] as number;
      const inflight = (this.busy[b] as number) + (this.queues[b] as IntDeque).length - (this.cancelledInQueue[b] as number) + 1;
      if (rtt > ac.timeoutMs) this.acLimit[b] = Math.max(ac.minLimit, limit * ac.backoffRatio);
      else if (inflight * 2 >= limit) this.acLimit[b] = Math.min(ac.maxLimit, limit + 1);
      return;
    }
    if (t - (this.acMinRttAt[b] as number) > ac.minRttWindowMs) {
      this.acMinRtt[b] = Infinity;
      this.acMinRttAt[b] = t;
    }
    if (rtt < (this.acMinRtt[b] as number)) this.acMinRtt[b] = rtt;
    this.acSampleSum[b] = (this.acSampleSum[b] as number) + rtt;
    this.acSampleCount[b] = (this.acSampleCount[b] as number) + 1;
  }

  /** Gradient controller step (Envoy adaptive concurrency): limit x clamp(minRtt / sampleRtt) + sqrt(limit), smoothed. */
  private gradientSample(b: number, _t: number): void {
    const ac = this.specs[b]?.adaptiveConcurrency;
    const count = this.acSampleCount[b] as number;
    if (ac?.kind !== 'gradient' || count === 0) return;
    const sample = (this.acSampleSum[b] as number) / count;
    this.acSampleSum[b] = 0;
    this.acSampleCount[b] = 0;
    const minRtt = this.acMinRtt[b] as number;
    const limit = this.acLimit[b] as number;
    const gradient = Math.min(2, Math.max(0.5, minRtt / sample));
    const target = limit * gradient + Math.sqrt(limit);
    const next = (1 - ac.smoothing) * limit + ac.smoothing * target;
    this.acLimit[b] = Math.min(ac.maxLimit, Math.max(ac.minLimit, next));
  }

  // ------------------------------------------------------------ capacity, outages, crashes

  private capacityChange(b: number, i: number, starts: boolean, t: number): void {
    const s = this.specs[b] as ServerLeaf;
    const active = this.activeWindows[b] as number[];
    if (starts) active.push(i);
    else {
      const at = active.indexOf(i);
      if (at >= 0) active.splice(at, 1);
    }
    let c = this.baseConcurrency[b] as number;
    if (active.length > 0) {
      c = Infinity;
      for (const w of active) c = Math.min(c, (s.capacity[w] as { concurrency: number }).concurrency);
    }
    this.capacityNow[b] = c;
    this.pump(b, t);
  }

  /** Backend b goes down: every request it held is lost (its callers time out). */
  private goDown(b: number, t: number): void {
    if (this.down[b] === 1) return;
    this.down[b] = 1;
    this.downNow++;
    const req = this.req;
    const q = this.queues[b] as IntDeque;
    let lostQueued = 0;
    while (q.length > 0) {
      const r = q.popFront();
      if (req.state[r] !== R_CANCELLED) {
        lostQueued++;
        if (t >= 0) this.lost[b] = (this.lost[b] as number) + 1;
        this.host.drop(r, t);
      } else this.host.release(r);
    }
    this.cancelledInQueue[b] = 0;
    if (lostQueued > 0) this.noteQueue(b, t, -lostQueued);
    // In-service requests: find them by scanning (a crash is rare).
    for (let r = 0; r < req.next; r++) {
      if (req.state[r] === R_SERVICE && req.backend[r] === b) {
        this.setBusy(b, -1, t);
        if (t >= 0) this.lost[b] = (this.lost[b] as number) + 1;
        this.host.drop(r, t);
      }
    }
    this.noteHealth(t);
  }

  private comeUp(b: number, t: number): void {
    if (this.down[b] === 0) return;
    this.down[b] = 0;
    this.downNow--;
    this.noteHealth(t);
  }

  private crash(b: number, t: number, restartMs: number): void {
    if (t >= 0) this.crashes[b] = (this.crashes[b] as number) + 1;
    this.goDown(b, t);
    this.sim.at(t + restartMs, K_RESTART, b, this.restartTimers.arm(b));
  }

  // ------------------------------------------------------------ results

  finish(endMs: number): void {
    for (const g of this.gBusy) g.finish(endMs);
    for (const g of this.gQueue) g.finish(endMs);
    this.gBusyTotal.finish(endMs);
    this.gQueueTotal.finish(endMs);
    this.gDown.finish(endMs);
    this.gEjected.finish(endMs);
    this.gHealthy.finish(endMs);
  }

  /** Totals over all backends, as the single-server results report them. */
  totals() {
    const sum = (a: Float64Array) => a.reduce((x, y) => x + y, 0);
    const concurrency = this.baseConcurrency.reduce((x, y) => x + y, 0);
    return {
      concurrency,
      meanBusy: this.gBusyTotal.mean(),
      wastedWorkMs: sum(this.wasted),
      maxQueue: this.n === 1 ? (this.maxQueue[0] as number) : this.gQueueTotal.max,
      served: sum(this.served),
      shed: sum(this.shed),
      dropped: sum(this.dropped),
      faulted: sum(this.faulted),
      refused: sum(this.refused),
      rejected: sum(this.rejected),
      lost: sum(this.lost),
      cancelled: this.cancelled,
      inServiceAtEnd: this.busyTotal,
    };
  }

  /** Per-backend counters (pools only). */
  backendStats(): BackendStats[] {
    return this.specs.map((s, b) => {
      const c = this.clusterOf[b] as number;
      const cap = this.baseConcurrency[b] as number;
      const meanBusy = this.n === 1 ? this.gBusyTotal.mean() : (this.gBusy[b]?.mean() ?? NaN);
      return {
        cluster: this.clusterNames[c] as string,
        index: b - (this.clusterStart[c] as number),
        utilization: Number.isFinite(cap) && Number.isFinite(meanBusy) ? meanBusy / cap : null,
        meanBusy,
        maxQueue: this.maxQueue[b] as number,
        served: this.served[b] as number,
        shed: this.shed[b] as number,
        dropped: this.dropped[b] as number,
        refused: this.refused[b] as number,
        faulted: this.faulted[b] as number,
        rejected: this.rejected[b] as number,
        lost: this.lost[b] as number,
        crashes: this.crashes[b] as number,
        ejections: this.ejections[b] as number,
        wastedWorkMs: this.wasted[b] as number,
      };
    });
  }

  series(bins: number) {
    return {
      queue: this.gQueueTotal.binMeans(bins),
      busy: this.gBusyTotal.binMeans(bins),
      healthyBackends: this.gHealthy.binMeans(bins),
      downBackends: this.gDown.binMeans(bins),
      ejectedBackends: this.gEjected.binMeans(bins),
      backendBusy: this.gBusy.map((g) => g.binMeans(bins)),
      backendQueue: this.gQueue.map((g) => g.binMeans(bins)),
    };
  }
}
