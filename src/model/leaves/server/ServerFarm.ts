import { makeSampler, type Sampler } from '../../../engine/distributions.js';
import { stream, type Uniform } from '../../../engine/random.js';
import type { Simulator } from '../../../engine/simulator.js';
import { Timers } from '../../../engine/timers.js';
import { Outcome } from '../../../policy/outcome.js';
import { IntDeque } from '../../IntDeque.js';
import { statusOutcome } from '../../statusOutcome.js';
import { R_CANCELLED, R_DELAYED, R_QUEUED, R_SERVICE, type RequestTable } from '../../RequestTable.js';
import type { PoolLeaf, ServerLeaf } from '../../scenario.js';
import { streamIf } from '../../streams.js';
import {
  DELAYED_ANSWER,
  LeafAnswer,
  NEEDS_SLOT,
  type BackendStats,
  type Leaf,
  type LeafContext,
  type LeafHost,
  type ServerSeries,
  type ServerTotals,
} from '../Leaf.js';
import { LB_EVENT_KINDS, LoadBalancer } from './LoadBalancer.js';
import { OverloadDefences } from './OverloadDefences.js';
import { PreviousHosts } from './PreviousHosts.js';
import { FarmStats } from './FarmStats.js';

/** The farm's event kinds, relative to the first kind the model gives it; the load balancer's follow. */
const K_SERVICE_DONE = 0;
const K_FAULT_ANSWER = 1;
const K_CAPACITY = 2;
const K_OUTAGE = 3;
const K_RESTART = 4;
const K_AC_SAMPLE = 5;
const K_LB = 6;
/** How many event kinds a farm (its load balancer included) schedules. */
export const FARM_EVENT_KINDS = K_LB + LB_EVENT_KINDS;

/** How the model runs the farm. */
export interface FarmOptions {
  /** Some operations are bad input (the farm may answer on arrival even when its servers never refuse). */
  badInput: boolean;
  /** The last layer retries on other hosts (Envoy's previous_hosts predicate). */
  avoidHosts: boolean;
  /** The load balancer may take its shortcut (off in traced runs). */
  shortcuts: boolean;
}

/** Failures that count against a backend for outlier detection (Envoy consecutive_5xx: 5xx, resets, timeouts). */
function isBackendFailure(outcome: number): boolean {
  return outcome === Outcome.S500 || outcome === Outcome.S503 || outcome === Outcome.OVERLOADED || outcome === Outcome.TIMEOUT;
}

/**
 * The servers at the leaf: one server, or a fleet of backends in clusters behind a load balancer
 * (README "The model"; issue "Fleets and cascades"). Each backend is a server of its own (workers,
 * queue and discipline, service time, degradation, capacity schedule, faults, outages, crashes, and
 * the server-side defences of {@link OverloadDefences}: shedding on queue length or utilisation,
 * an adaptive concurrency limit, CoDel, dropping expired requests). The {@link LoadBalancer} picks
 * the backend. Per-backend state lives in typed arrays.
 */
export class ServerFarm implements Leaf {
  readonly n: number;
  readonly answersAtOnce: boolean;
  readonly arrivesAhead = false;
  private readonly specs: ServerLeaf[];
  private readonly clusterNames: string[];
  private readonly lb: LoadBalancer;
  private readonly defences: OverloadDefences;
  /** The backends each last-layer frame tried (null unless the last layer avoids them). */
  private readonly tried: PreviousHosts | null;
  private readonly sim: Simulator;
  private readonly req: RequestTable;
  private readonly host: LeafHost;
  private readonly kindBase: number;
  private readonly uFaults: Uniform;

  // Per backend.
  private readonly queues: IntDeque[];
  private readonly busy: Int32Array;
  private readonly cancelledInQueue: Int32Array;
  private readonly baseConcurrency: Float64Array;
  private readonly capacityNow: Float64Array;
  private readonly queueLimit: Float64Array;
  private readonly activeWindows: number[][];
  private readonly down: Uint8Array;
  private readonly samplers: Sampler[];
  /**
   * Per backend with a constant service time: the event queue's lane for its completions (-1:
   * none). Services that start in time order and last the same end in time order; backends with
   * the same constant share a lane.
   */
  private readonly serviceLane: Int32Array;
  private readonly faultLatency: Array<Array<Sampler | null>>;
  private readonly restartTimers: Timers;
  /** Scratch answer of {@link arrive} (read in the same call). */
  private readonly scratch = new LeafAnswer();

  /** What the farm measures. */
  private readonly stats: FarmStats;
  /** Some backend can answer a request on arrival without serving it (faults, outages, crashes, shedding, a bounded queue). */
  private readonly mayRefuse: boolean;

  constructor(leaf: ServerLeaf | PoolLeaf, ctx: LeafContext, options: FarmOptions) {
    const { sim, req, host, seed, binMs, startMs } = ctx;
    this.sim = sim;
    this.req = req;
    this.host = host;
    this.kindBase = ctx.kindBase;
    const clusters = leaf.kind === 'pool' ? leaf.clusters : [{ name: 'server', backends: [leaf] }];
    this.specs = clusters.flatMap((c) => c.backends);
    this.clusterNames = clusters.map((c) => c.name);
    const n = this.specs.length;
    this.n = n;
    const specs = this.specs;
    this.uFaults = streamIf(specs.some((b) => b.faults.length > 0), seed, 'faults');
    const uLb = streamIf(leaf.kind === 'pool', seed, 'load-balancer');
    const uService = stream(seed, 'service');
    const uFaultLatency = streamIf(specs.some((b) => b.faults.some((f) => f.latencyMs !== undefined)), seed, 'fault-latency');

    this.queues = specs.map(() => new IntDeque(64));
    this.busy = new Int32Array(n);
    this.cancelledInQueue = new Int32Array(n);
    this.baseConcurrency = Float64Array.from(specs, (s) => (s.concurrency === 'unlimited' ? Infinity : s.concurrency));
    this.capacityNow = Float64Array.from(this.baseConcurrency);
    this.queueLimit = Float64Array.from(specs, (s) => (s.queueLimit === 'unlimited' ? Infinity : s.queueLimit));
    this.activeWindows = specs.map(() => []);
    this.down = new Uint8Array(n);
    this.lb = new LoadBalancer(
      leaf.kind === 'pool' ? leaf : null,
      { names: this.clusterNames, sizes: clusters.map((c) => c.backends.length) },
      this.down,
      sim,
      this.kindBase + K_LB,
      uLb,
      options.shortcuts,
      binMs,
      startMs,
    );
    this.defences = new OverloadDefences(specs, this.busy, this.baseConcurrency, startMs);
    this.tried = options.avoidHosts ? new PreviousHosts() : null;
    this.samplers = specs.map((s) => makeSampler(s.serviceMs, uService));
    const laneOf = new Map<number, number>();
    this.serviceLane = Int32Array.from(specs, (s) => {
      if (s.serviceMs.dist !== 'constant') return -1;
      const v = s.serviceMs.value;
      let lane = laneOf.get(v);
      if (lane === undefined) laneOf.set(v, (lane = sim.addLane()));
      return lane;
    });
    this.faultLatency = specs.map((s) => s.faults.map((f) => (f.latencyMs ? makeSampler(f.latencyMs, uFaultLatency) : null)));
    this.restartTimers = new Timers(n);
    this.mayRefuse = specs.some(
      (s) =>
        s.faults.length > 0 ||
        (s.outages?.length ?? 0) > 0 ||
        s.crash !== undefined ||
        s.shedUtilization !== undefined ||
        s.adaptiveConcurrency !== undefined ||
        s.queueLimit !== 'unlimited',
    );
    this.answersAtOnce = this.mayRefuse || options.badInput;

    this.stats = new FarmStats(n, binMs, startMs);
  }

  /** Schedule the farm's own timed events (capacity windows, outages, periodic checks). */
  start(t0: number): void {
    const sim = this.sim;
    const base = this.kindBase;
    this.specs.forEach((s, b) => {
      s.capacity.forEach((win, i) => {
        sim.at(Math.max(t0, win.atMs), base + K_CAPACITY, b * 1024 + i, 0);
        sim.at(Math.max(t0, win.atMs + win.durationMs), base + K_CAPACITY, b * 1024 + i, 1);
      });
      (s.outages ?? []).forEach((o) => {
        sim.at(Math.max(t0, o.atMs), base + K_OUTAGE, b, 0);
        sim.at(Math.max(t0, o.atMs + o.durationMs), base + K_OUTAGE, b, 1);
      });
      if (s.adaptiveConcurrency?.kind === 'gradient') sim.at(t0 + s.adaptiveConcurrency.sampleMs, base + K_AC_SAMPLE, b, 0);
    });
    this.lb.start(t0);
  }

  /** Answers (service done, a delayed fault) are activity; schedules and periodic checks only while the run has work. */
  dispatch(kind: number, a: number, b: number, t: number, active: boolean): boolean {
    switch (kind) {
      case K_SERVICE_DONE:
        if (this.req.timers.isLive(a, b)) this.serviceDone(a, t);
        return true;
      case K_FAULT_ANSWER:
        if (this.req.timers.isLive(a, b)) this.answer(a, this.req.outcome[a] as number, this.req.retryAfter[a] as number, t);
        return true;
      case K_CAPACITY:
        this.capacityChange(Math.floor(a / 1024), a % 1024, b === 0, t);
        return active;
      case K_OUTAGE:
        if (b === 0) this.goDown(a, t);
        else this.comeUp(a, t);
        return active;
      case K_RESTART:
        if (this.restartTimers.isLive(a, b)) this.comeUp(a, t);
        return active;
      case K_AC_SAMPLE: {
        this.defences.gradientSample(a);
        const ac = this.specs[a]?.adaptiveConcurrency;
        if (active && ac?.kind === 'gradient') this.sim.at(t + ac.sampleMs, this.kindBase + K_AC_SAMPLE, a, 0);
        return active;
      }
      default:
        this.lb.dispatch(kind - K_LB, a, b, t, active);
        return active;
    }
  }

  // ------------------------------------------------------------ the leaf contract

  /** The load balancer chooses request r's backend as it leaves the last layer (it counts as outstanding there). */
  route(r: number, frame: number, attempt: number): void {
    const b = this.choose(frame, attempt);
    this.req.backend[r] = b;
    this.req.lbOpen[r] = 1;
    this.lb.sent(b);
  }

  /** The backend for attempt n of last-layer frame f (Envoy's previous_hosts when set). */
  private choose(f: number, n: number): number {
    const tried = this.tried;
    if (tried === null) return this.lb.pick(null, 0, 0);
    if (n === 1) tried.reset(f);
    const count = tried.count(f);
    const b = this.lb.pick(n > 1 ? tried.hosts : null, f * 4, count);
    tried.add(f, n, b);
    return b;
  }

  /** Request r reaches its backend. */
  arrive(r: number, t: number): void {
    const b = this.req.backend[r] as number;
    if (!this.mayRefuse && this.req.bad[r] === 0) {
      // Nothing can turn a valid request away: it is served or queued.
      this.admit(r, b, t);
      return;
    }
    const ans = this.scratch;
    const o = this.triage(b, this.req.bad[r] === 1, t, ans);
    if (o === NEEDS_SLOT) this.admit(r, b, t);
    else if (o === DELAYED_ANSWER) this.delayAnswer(r, ans, t);
    else this.answer(r, o, ans.retryAfterMs, t);
  }

  /**
   * The request reaches a backend at once: one that answers on arrival (down, a fault, an invalid
   * request, shedding) needs no request slot, and its answer ends the attempt in the same event.
   */
  arriveAtOnce(frame: number, attempt: number, bad: boolean, t: number, ans: LeafAnswer): boolean {
    const b = this.choose(frame, attempt);
    ans.backend = b;
    const o = this.triage(b, bad, t, ans);
    ans.verdict = o;
    if (o < 0) return false;
    this.lb.sent(b);
    this.lb.settle(b, isBackendFailure(o), t);
    return true;
  }

  hold(r: number, ans: LeafAnswer, t: number): void {
    const b = ans.backend;
    this.req.backend[r] = b;
    this.req.lbOpen[r] = 1;
    this.lb.sent(b);
    if (ans.verdict === NEEDS_SLOT) this.admit(r, b, t);
    else this.delayAnswer(r, ans, t);
  }

  arriveAhead(): void {
    throw new Error('internal: a server leaf takes no request ahead of its arrival');
  }

  /** The load balancer counts a timed-out request as a failure of its backend (Envoy outlier detection). */
  abandon(r: number, t: number): void {
    this.settle(r, true, t);
  }

  /** Cancellation: free the request's worker or its queue place (or the slot, if the request is elsewhere). */
  withdraw(r: number, t: number): void {
    this.settle(r, false, t);
    const req = this.req;
    const b = req.backend[r] as number;
    switch (req.state[r]) {
      case R_QUEUED:
        req.state[r] = R_CANCELLED;
        req.timers.cancel(r);
        this.cancelledInQueue[b] = (this.cancelledInQueue[b] as number) + 1;
        if (t >= 0) this.stats.cancelled++;
        this.noteQueue(b, t, -1);
        return;
      case R_SERVICE:
        this.setBusy(b, -1, t);
        if (t >= 0) {
          this.stats.wasted[b] = (this.stats.wasted[b] as number) + (t - (req.serviceStart[r] as number));
          this.stats.cancelled++;
        }
        this.host.release(r);
        this.pump(b, t);
        return;
      default:
        this.host.release(r);
    }
  }

  /** Tell the load balancer that request r's backend is done with it (once). */
  private settle(r: number, failed: boolean, t: number): void {
    if (this.req.lbOpen[r] !== 1) return;
    this.req.lbOpen[r] = 0;
    this.lb.settle(this.req.backend[r] as number, failed, t);
  }

  /** Request r is answered: its backend is settled, and the answer goes back to the caller. */
  private answer(r: number, outcome: number, ra: number, t: number): void {
    this.settle(r, isBackendFailure(outcome), t);
    this.host.respond(r, outcome, ra, t);
  }

  /** Request r is lost (a crash, an expired request dropped): its backend counts a failure, and nobody answers. */
  private lose(r: number, t: number): void {
    this.settle(r, true, t);
    this.host.drop(r, t);
  }

  // ------------------------------------------------------------ one backend

  /** The status a refusing backend answers: "overloaded; don't retry" (Google SRE book ch. 21) or a 503, with a Retry-After or gRPC pushback hint. */
  private refusal(b: number, s: ServerLeaf, t: number, ans: LeafAnswer): number {
    if (t >= 0) this.stats.shed[b] = (this.stats.shed[b] as number) + 1;
    ans.retryAfterMs = s.pushbackMs ?? s.shedRetryAfterMs ?? NaN;
    return s.shedStatus === 'overloaded' ? Outcome.OVERLOADED : Outcome.S503;
  }

  /**
   * What backend b does with a request arriving at t (`bad`: the request is invalid), in this order:
   * a backend that is down refuses the connection (503); an active fault answers its status to its
   * fraction of requests; an invalid request gets a 400; shedding on utilisation, the adaptive
   * concurrency limit and a full queue refuse it. Returns that answer's outcome (its Retry-After in
   * `ans`), {@link DELAYED_ANSWER} for a fault answered after its latency (see {@link delayAnswer})
   * or {@link NEEDS_SLOT} when the request is served or queued (see {@link admit}).
   */
  private triage(b: number, bad: boolean, t: number, ans: LeafAnswer): number {
    const s = this.specs[b] as ServerLeaf;
    if (this.down[b] === 1) {
      // Connection refused: a fast failure, as a proxy reports it.
      if (t >= 0) this.stats.refused[b] = (this.stats.refused[b] as number) + 1;
      ans.retryAfterMs = NaN;
      return Outcome.S503;
    }
    const faults = s.faults;
    for (let i = 0; i < faults.length; i++) {
      const fault = faults[i] as ServerLeaf['faults'][number];
      if (t >= fault.fromMs && t < fault.toMs && this.uFaults() < fault.probability) return this.faultAnswer(b, i, fault, t, ans);
    }
    if (bad) {
      if (t >= 0) this.stats.rejected[b] = (this.stats.rejected[b] as number) + 1;
      ans.retryAfterMs = NaN;
      return Outcome.S400;
    }
    const busy = this.busy[b] as number;
    const queued = (this.queues[b] as IntDeque).length - (this.cancelledInQueue[b] as number);
    const d = this.defences;
    if (d.hasShedUtil[b] === 1 && d.utilization(b, t) > (s.shedUtilization?.above as number)) return this.refusal(b, s, t, ans);
    if (busy + queued >= (d.acLimit[b] as number)) {
      d.aimdDrop(b);
      return this.refusal(b, s, t, ans);
    }
    if (busy < (this.capacityNow[b] as number) || queued < (this.queueLimit[b] as number)) return NEEDS_SLOT;
    return this.refusal(b, s, t, ans);
  }

  private faultAnswer(b: number, i: number, fault: ServerLeaf['faults'][number], t: number, ans: LeafAnswer): number {
    if (t >= 0) this.stats.faulted[b] = (this.stats.faulted[b] as number) + 1;
    const outcome = statusOutcome(fault.status);
    ans.retryAfterMs = fault.retryAfterMs ?? NaN;
    const lat = this.faultLatency[b]?.[i];
    const d = lat ? lat() : 0;
    if (d > 0) {
      ans.delayedOutcome = outcome;
      ans.delayMs = d;
      return DELAYED_ANSWER;
    }
    return outcome;
  }

  /** After {@link triage} said {@link DELAYED_ANSWER}: request r is answered after the fault's latency. */
  private delayAnswer(r: number, ans: LeafAnswer, t: number): void {
    const req = this.req;
    req.state[r] = R_DELAYED;
    req.outcome[r] = ans.delayedOutcome;
    req.retryAfter[r] = ans.retryAfterMs;
    this.sim.at(t + ans.delayMs, this.kindBase + K_FAULT_ANSWER, r, req.timers.arm(r));
  }

  /** After {@link triage} said {@link NEEDS_SLOT}: request r starts service, or waits in the queue. */
  private admit(r: number, b: number, t: number): void {
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

  private noteQueue(b: number, t: number, delta: number): void {
    this.stats.queueChanged(b, (this.queues[b] as IntDeque).length - (this.cancelledInQueue[b] as number), delta, t);
  }

  private setBusy(b: number, delta: number, t: number): void {
    if (this.defences.hasShedUtil[b] === 1) this.defences.utilization(b, t);
    this.busy[b] = (this.busy[b] as number) + delta;
    this.stats.busyChanged(b, this.busy[b] as number, delta, t);
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
    this.sim.atInLane(this.serviceLane[b] as number, t + d, this.kindBase + K_SERVICE_DONE, r, req.timers.arm(r));
  }

  private serviceDone(r: number, t: number): void {
    const req = this.req;
    const b = req.backend[r] as number;
    this.setBusy(b, -1, t);
    if (t >= 0) {
      this.stats.served[b] = (this.stats.served[b] as number) + 1;
      if (!this.host.stillWanted(r)) this.stats.wasted[b] = (this.stats.wasted[b] as number) + (req.serviceMs[r] as number);
    }
    if (this.defences.hasAdaptive[b] === 1) {
      const inflight = (this.busy[b] as number) + (this.queues[b] as IntDeque).length - (this.cancelledInQueue[b] as number) + 1;
      this.defences.concurrencySample(b, t - (req.enqueuedAt[r] as number), inflight, t);
    }
    this.answer(r, Outcome.SUCCESS, NaN, t);
    this.pump(b, t);
  }

  /** Start queued requests while workers are free (FIFO front, LIFO back), dropping what must be dropped. */
  private pump(b: number, t: number): void {
    const s = this.specs[b] as ServerLeaf;
    const q = this.queues[b] as IntDeque;
    const req = this.req;
    const lifo = s.discipline === 'lifo';
    const drops = this.defences.dropsQueued[b] === 1;
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
      if (t >= 0) this.stats.dropped[b] = (this.stats.dropped[b] as number) + 1;
      this.lose(r, t);
      return true;
    }
    if (s.codel && this.defences.codelDrops(b, s.codel, t - (req.enqueuedAt[r] as number), t)) {
      if (t >= 0) this.stats.dropped[b] = (this.stats.dropped[b] as number) + 1;
      this.answer(r, Outcome.S503, NaN, t);
      return true;
    }
    return false;
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
    this.lb.downNow++;
    const req = this.req;
    const q = this.queues[b] as IntDeque;
    let lostQueued = 0;
    while (q.length > 0) {
      const r = q.popFront();
      if (req.state[r] !== R_CANCELLED) {
        lostQueued++;
        if (t >= 0) this.stats.lost[b] = (this.stats.lost[b] as number) + 1;
        this.lose(r, t);
      } else this.host.release(r);
    }
    this.cancelledInQueue[b] = 0;
    if (lostQueued > 0) this.noteQueue(b, t, -lostQueued);
    // In-service requests: find them by scanning (a crash is rare).
    for (let r = 0; r < req.next; r++) {
      if (req.state[r] === R_SERVICE && req.backend[r] === b) {
        this.setBusy(b, -1, t);
        if (t >= 0) this.stats.lost[b] = (this.stats.lost[b] as number) + 1;
        this.lose(r, t);
      }
    }
    this.lb.noteHealth(t);
  }

  private comeUp(b: number, t: number): void {
    if (this.down[b] === 0) return;
    this.down[b] = 0;
    this.lb.downNow--;
    this.lb.noteHealth(t);
  }

  private crash(b: number, t: number, restartMs: number): void {
    if (t >= 0) this.stats.crashes[b] = (this.stats.crashes[b] as number) + 1;
    this.goDown(b, t);
    this.sim.at(t + restartMs, this.kindBase + K_RESTART, b, this.restartTimers.arm(b));
  }

  // ------------------------------------------------------------ results

  finish(endMs: number): void {
    this.stats.finish(endMs);
    this.lb.finish(endMs);
  }

  totals(): ServerTotals {
    return this.stats.totals(this.baseConcurrency);
  }

  backendStats(): BackendStats[] {
    return this.stats.backendStats(this.baseConcurrency, this.lb, this.clusterNames);
  }

  series(bins: number): ServerSeries {
    return this.stats.series(bins, this.lb);
  }
}
