import { Timers } from '../../../engine/timers.js';
import type { Simulator } from '../../../engine/simulator.js';
import * as outcomeModule from '../../../policy/outcome.js';
import type { OutcomeCode } from '../../../policy/outcome.js';
import type { RequestTable } from '../../RequestTable.js';
import * as requestTableModule from '../../RequestTable.js';
import type { Dist, PoolLeaf, ServerLeaf } from '../../scenario.js';
import { streamIf } from '../../streams.js';
import { LeafAnswer, type BackendStats, type Leaf, type LeafContext, type LeafHost, type ServerSeries, type ServerTotals } from '../Leaf.js';
import * as leafModule from '../Leaf.js';
import { Backends, type BackendsOwner } from './Backends.js';
import * as backendsModule from './Backends.js';
import type { FarmBinCounts } from './FarmBins.js';
import * as farmBinsModule from './FarmBins.js';
import * as cascadeTimelineModule from '../../../metrics/cascadeTimeline.js';
import type { BinnedSeries } from '../../../metrics/index.js';
import { LB_EVENT_KINDS, LoadBalancer } from './LoadBalancer.js';
import { PreviousHosts } from './PreviousHosts.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { FarmKind } = backendsModule;
const { FarmBin } = farmBinsModule;
const { Outcome } = outcomeModule;
const { WORK_HOLD } = requestTableModule;
const { DELAYED_ANSWER, NEEDS_SLOT } = leafModule;
const { utilisation } = cascadeTimelineModule;

/** How many event kinds a farm (its load balancer included) schedules. */
export const FARM_EVENT_KINDS = FarmKind.LB + LB_EVENT_KINDS;

/** How the model runs the farm. */
export interface FarmOptions {
  /** Some operations are bad input (the farm may answer on arrival even when its servers never refuse). */
  badInput: boolean;
  /** The last layer retries on other hosts (Envoy's previous_hosts predicate). */
  avoidHosts: boolean;
  /** The load balancer may take its shortcut (off in traced runs). */
  shortcuts: boolean;
  /** Timed interventions may change the queue limits during the run ({@link ServerFarm.setQueueLimit}): every arrival is triaged. */
  limitsChange?: boolean;
}

/**
 * Failures that count against a backend for outlier detection (Envoy consecutive_5xx: 5xx, resets,
 * timeouts): 500, 503, overloaded, timeouts, and 502, 504, resets, connection failures and refused
 * streams (the codes S502 to REFUSED_STREAM, which follow each other).
 */
function isBackendFailure(outcome: OutcomeCode): boolean {
  return outcome === Outcome.S500 || outcome === Outcome.S503 || outcome === Outcome.OVERLOADED || outcome === Outcome.TIMEOUT || (outcome >= Outcome.S502 && outcome <= Outcome.REFUSED_STREAM);
}

/**
 * The servers at the leaf: one server, or a fleet of backends in clusters behind a load balancer
 * (docs/concepts.md, "The model"). Each backend is a server of its own (workers, queue and discipline, service
 * time, degradation, capacity schedule, faults, outages, crashes, and the server-side defences of
 * `OverloadDefences`: shedding on queue length or utilisation, an adaptive concurrency limit, CoDel,
 * dropping expired requests). This class is the leaf contract: the {@link LoadBalancer} picks the
 * backend (Envoy's previous_hosts through {@link PreviousHosts}), the farm's events are dispatched
 * here, and backends go down and come up (outages, crashes). What a backend does with a request
 * (triage, service, its queue, capacity) is its {@link Backends}', which tells the farm of every
 * answer, loss and crash ({@link BackendsOwner}). Per-backend state lives in typed arrays.
 */
export class ServerFarm implements Leaf, BackendsOwner {
  readonly answersAtOnce: boolean;
  readonly arrivesAhead = false;
  /** The number of backends. */
  readonly n: number;
  private readonly backends: Backends;
  private readonly sim: Simulator;
  private readonly req: RequestTable;
  private readonly host: LeafHost;
  private readonly kindBase: number;
  /** Per backend: 1 while it is down (an outage, a crash); read by the backends and the load balancer. */
  private readonly down: Uint8Array;
  /** A valid request may be answered on arrival (see {@link Backends.mayRefuse}; or queue limits change): every arrival is triaged. */
  private readonly mayRefuse: boolean;
  private readonly clusterNames: string[];
  private readonly lb: LoadBalancer;
  /** The backends each last-layer frame tried (null unless the last layer avoids them). */
  private readonly tried: PreviousHosts | null;
  private readonly restartTimers: Timers;
  /** Scratch answer of {@link arrive} (read in the same call). */
  private readonly scratch = new LeafAnswer();

  constructor(leaf: ServerLeaf | PoolLeaf, ctx: LeafContext, options: FarmOptions) {
    const clusters = leaf.kind === 'pool' ? leaf.clusters : [{ name: 'server', backends: [leaf] }];
    const specs = clusters.flatMap((c) => c.backends);
    this.n = specs.length;
    this.sim = ctx.sim;
    this.req = ctx.req;
    this.host = ctx.host;
    this.kindBase = ctx.kindBase;
    this.down = new Uint8Array(this.n);
    this.backends = new Backends(specs, ctx, this.down, this);
    this.clusterNames = clusters.map((c) => c.name);
    this.lb = new LoadBalancer(
      leaf.kind === 'pool' ? leaf : null,
      { names: this.clusterNames, sizes: clusters.map((c) => c.backends.length) },
      this.down,
      ctx.sim,
      this.kindBase + FarmKind.LB,
      streamIf(leaf.kind === 'pool', ctx.seed, 'load-balancer'),
      options.shortcuts,
      ctx.binMs,
      ctx.startMs,
    );
    this.tried = options.avoidHosts ? new PreviousHosts() : null;
    this.restartTimers = new Timers(this.n);
    this.mayRefuse = this.backends.mayRefuse || options.limitsChange === true;
    this.answersAtOnce = this.mayRefuse || options.badInput;
  }

  /** Schedule the farm's own timed events (capacity windows, outages, periodic checks). */
  start(t0: number): void {
    const sim = this.sim;
    const base = this.kindBase;
    this.backends.specs.forEach((s, b) => {
      s.capacity.forEach((win, i) => {
        sim.at(Math.max(t0, win.atMs), base + FarmKind.CAPACITY, b * 1024 + i, 0);
        sim.at(Math.max(t0, win.atMs + win.durationMs), base + FarmKind.CAPACITY, b * 1024 + i, 1);
      });
      (s.outages ?? []).forEach((o) => {
        sim.at(Math.max(t0, o.atMs), base + FarmKind.OUTAGE, b, 0);
        sim.at(Math.max(t0, o.atMs + o.durationMs), base + FarmKind.OUTAGE, b, 1);
      });
      if (s.adaptiveConcurrency?.kind === 'gradient') sim.at(t0 + s.adaptiveConcurrency.sampleMs, base + FarmKind.AC_SAMPLE, b, 0);
    });
    this.lb.start(t0);
  }

  /** Answers (service done, a delayed fault) are activity; schedules and periodic checks only while the run has work. */
  dispatch(kind: number, a: number, b: number, t: number, active: boolean): boolean {
    switch (kind) {
      case FarmKind.SERVICE_DONE:
        if (this.req.timers.isLive(a, b)) {
          if (this.req.work[a] === WORK_HOLD) this.heldWorkDone(a, t);
          else this.backends.serviceDone(a, t);
        }
        return true;
      case FarmKind.FAULT_ANSWER:
        if (this.req.timers.isLive(a, b)) this.answer(a, this.req.outcome[a] as OutcomeCode, this.req.retryAfter[a]!, t);
        return true;
      case FarmKind.CAPACITY:
        this.backends.capacityChange(Math.floor(a / 1024), a % 1024, b === 0, t);
        return active;
      case FarmKind.OUTAGE:
        if (b === 0) this.goDown(a, t);
        else this.comeUp(a, t);
        return active;
      case FarmKind.RESTART:
        if (this.restartTimers.isLive(a, b)) this.comeUp(a, t);
        return active;
      case FarmKind.AC_SAMPLE: {
        this.backends.defences.gradientSample(a);
        const ac = this.backends.specs[a]?.adaptiveConcurrency;
        if (active && ac?.kind === 'gradient') this.sim.at(t + ac.sampleMs, this.kindBase + FarmKind.AC_SAMPLE, a, 0);
        return active;
      }
      default:
        this.lb.dispatch(kind - FarmKind.LB, a, b, t, active);
        return active;
    }
  }

  // ------------------------------------------------------------ the leaf contract

  /**
   * The load balancer chooses request r's backend as it leaves the last layer (it counts as
   * outstanding there). Not for a handler's request: {@link pickBackend} pins it once.
   */
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
    const b = this.req.backend[r]!;
    if (!this.mayRefuse && this.req.bad[r] === 0) {
      // Nothing can turn a valid request away: it is served or queued.
      this.backends.admit(r, b, t);
      return;
    }
    const ans = this.scratch;
    const o = this.backends.triage(b, this.req.bad[r] === 1, t, ans);
    if (o === NEEDS_SLOT) this.backends.admit(r, b, t);
    else if (o === DELAYED_ANSWER) this.backends.delayAnswer(r, ans, t);
    else this.answer(r, o, ans.retryAfterMs, t);
  }

  /**
   * The request reaches a backend at once: one that answers on arrival (down, a fault, an invalid
   * request, shedding) needs no request slot, and its answer ends the attempt in the same event.
   */
  arriveAtOnce(frame: number, attempt: number, bad: boolean, t: number, ans: LeafAnswer): boolean {
    const b = this.choose(frame, attempt);
    ans.backend = b;
    const o = this.backends.triage(b, bad, t, ans);
    ans.verdict = o;
    if (o === NEEDS_SLOT || o === DELAYED_ANSWER) return false;
    this.lb.sent(b);
    this.lb.settle(b, isBackendFailure(o), t);
    return true;
  }

  hold(r: number, ans: LeafAnswer, t: number): void {
    const b = ans.backend;
    this.req.backend[r] = b;
    this.req.lbOpen[r] = 1;
    this.lb.sent(b);
    if (ans.verdict === NEEDS_SLOT) this.backends.admit(r, b, t);
    else this.backends.delayAnswer(r, ans, t);
  }

  arriveAhead(): void {
    throw new Error('internal: a server leaf takes no request ahead of its arrival');
  }

  /** The load balancer counts a timed-out request as a failure of its backend (Envoy outlier detection). */
  abandon(r: number, t: number): void {
    this.settle(r, true, t);
  }

  /**
   * Cancellation: free the request's worker or its queue place (or the slot, if the request is
   * elsewhere). A handler's pinned request is settled at its backend here too (not as a failure).
   */
  withdraw(r: number, t: number): void {
    this.settle(r, false, t);
    this.handlerAnswered(r, Outcome.SUCCESS, t);
    this.backends.withdraw(r, t);
  }

  /** Tell the load balancer that request r's backend is done with it (once). */
  private settle(r: number, failed: boolean, t: number): void {
    if (this.req.lbOpen[r] !== 1) return;
    this.req.lbOpen[r] = 0;
    this.lb.settle(this.req.backend[r]!, failed, t);
  }

  /** Request r is answered: its backend is settled, and the answer goes back to the caller ({@link BackendsOwner}). */
  answer(r: number, outcome: OutcomeCode, ra: number, t: number): void {
    this.settle(r, isBackendFailure(outcome), t);
    this.host.respond(r, outcome, ra, t);
  }

  /** Request r is lost (a crash, an expired request dropped): its backend counts a failure, and nobody answers ({@link BackendsOwner}). */
  lose(r: number, t: number): void {
    this.settle(r, true, t);
    this.host.drop(r, t);
  }

  // ------------------------------------------------------------ a service's handlers

  /*
   * What a service's handler runtime uses, beside the leaf contract. A handler's request is a slot
   * of the farm's RequestTable that the runtime fills (`RequestTable.plain` first); each of its
   * `work` steps is handed to the farm with `arrive(r, t)` (never `route`: the request keeps the
   * backend {@link pickBackend} pinned it to), as a leaf request is: triage (down, faults,
   * shedding, the adaptive limit, queueLimit), the queue and its discipline, drops and crashes
   * apply alike, and the answer comes back through `LeafHost.respond` (success when the step's
   * service ends) or `LeafHost.drop`. After `respond` or `drop` the request is no longer at
   * the farm: the host sets its state (R_HANDLER while the handler goes on) or frees it.
   */

  /**
   * Pick the backend of handler request r as it arrives at the service: the load balancer's choice
   * for a leaf request (the same pick, with no previous hosts to avoid), counted as outstanding at
   * that backend until {@link handlerAnswered}. The request is pinned there: every `work` step and
   * the held worker of a threaded handler are on that backend, with no pick of their own (the host
   * does not `route` them). Returns the backend.
   */
  pickBackend(r: number): number {
    const b = this.lb.pick(null, 0, 0);
    const req = this.req;
    req.backend[r] = b;
    req.lbOpen[r] = 2;
    this.lb.sent(b);
    return b;
  }

  /**
   * The handler of request r (its backend picked by {@link pickBackend}) answered `outcome` at t, or
   * its request was lost (pass Outcome.TIMEOUT: its caller times out): the load balancer settles the
   * backend once (a 5xx, overloaded or timeout counts as its failure for outlier detection).
   */
  handlerAnswered(r: number, outcome: OutcomeCode, t: number): void {
    if (this.req.lbOpen[r] !== 2) return;
    this.req.lbOpen[r] = 0;
    this.lb.settle(this.req.backend[r]!, isBackendFailure(outcome), t);
  }

  /**
   * Register the service time of a handler's `work` step (once per step, before the run): returns
   * the value of request column `work` that makes a request's service draw from it
   * (`ServiceTimes.registerWork`; `name`, unique per farm, names its random stream).
   */
  registerWork(serviceMs: Dist, name: string): number {
    return this.backends.times.registerWork(serviceMs, name);
  }

  /**
   * A service time for a `work` step of a threaded handler running on its held worker at backend b:
   * drawn from `work`'s sampler ({@link registerWork}; 0: the backend's own `serviceMs` from the
   * `service` stream), degraded by the backend's load (the held workers count). A host that times
   * the step itself uses this; {@link runHeldWork} draws and times it. The farm keeps the worker
   * busy until {@link releaseWorker}.
   */
  drawServiceMs(b: number, work: number): number {
    return this.backends.serviceTime(b, work);
  }

  /**
   * Run a `work` step of held request r (it holds its worker: {@link LeafHost.workerTaken} was
   * called) on that worker, with no queueing: its service time is drawn as {@link drawServiceMs}
   * draws it, and when it ends the host is told with `respond(r, SUCCESS)` while r still holds its
   * worker (state R_SERVICE) until {@link releaseWorker}. A crash or outage of the backend before
   * then loses r (`LeafHost.drop`), as it loses any held request. Returns the service time.
   */
  runHeldWork(r: number, work: number, t: number): number {
    return this.backends.startHeldWork(r, work, t);
  }

  /** A held request's `work` step ({@link runHeldWork}) is done: it keeps its worker. */
  private heldWorkDone(r: number, t: number): void {
    this.host.respond(r, Outcome.SUCCESS, NaN, t);
  }

  /**
   * The handler of request r (its `work` is WORK_HOLD, in service: {@link LeafHost.workerTaken} was called and
   * the request was not lost or withdrawn since) frees its worker at t: the request counts as
   * served, its holding time as busy time (and as wasted work when nothing waits for r), r's state
   * becomes R_HANDLER, and the next queued request starts. A withdrawn held request (`withdraw`)
   * frees its worker there instead.
   */
  releaseWorker(r: number, t: number): void {
    this.backends.releaseHeld(r, t);
  }

  /**
   * Backend b's queue limit becomes `limit` at t (a timed intervention; Infinity: unlimited): what
   * its queue holds beyond it is shed at once ({@link Backends.setQueueLimit}). The farm must have
   * been built with `FarmOptions.limitsChange`.
   */
  setQueueLimit(b: number, limit: number, t: number): void {
    this.backends.setQueueLimit(b, limit, t);
  }

  // ------------------------------------------------------------ outages, crashes

  /** Backend b goes down: every request it held is lost (its callers time out), held workers' included. */
  private goDown(b: number, t: number): void {
    if (this.down[b] === 1) return;
    this.down[b] = 1;
    this.lb.downNow++;
    this.backends.loseAll(b, t);
    this.lb.noteHealth(t);
  }

  private comeUp(b: number, t: number): void {
    if (this.down[b] === 0) return;
    this.down[b] = 0;
    this.lb.downNow--;
    this.lb.noteHealth(t);
  }

  /** Backend b crashes at t (its queue passed the crash threshold): it goes down and restarts after `restartMs` ({@link BackendsOwner}). */
  crash(b: number, t: number, restartMs: number): void {
    const stats = this.backends.stats;
    if (t >= 0) {
      stats.crashes[b]!++;
      stats.bin(FarmBin.CRASHES, t);
    }
    this.goDown(b, t);
    this.sim.at(t + restartMs, this.kindBase + FarmKind.RESTART, b, this.restartTimers.arm(b));
  }

  /**
   * @internal The farm's load now, summed over its backends, for probes of a running model
   * (src/riskModel/probes.ts): busy workers, queued requests, workers now.
   */
  load(): { busy: number; queued: number; workers: number } {
    let busy = 0;
    let queued = 0;
    let workers = 0;
    const x = this.backends;
    for (let b = 0; b < this.n; b++) {
      busy += x.busy[b]!;
      queued += x.queued(b);
      workers += x.capacityNow[b]!;
    }
    return { busy, queued, workers };
  }

  // ------------------------------------------------------------ results

  finish(endMs: number): void {
    this.backends.stats.finish(endMs);
    this.lb.finish(endMs);
  }

  totals(): ServerTotals {
    return this.backends.stats.totals(this.backends.baseConcurrency);
  }

  backendStats(): BackendStats[] {
    return this.backends.stats.backendStats(this.backends.baseConcurrency, this.lb, this.clusterNames);
  }

  series(bins: number): ServerSeries {
    return this.backends.stats.series(bins, this.lb);
  }

  /** The counts per bin of the series' width over `bins` bins, and the mean workers available per bin (null unless `LeafContext.binCounts`). */
  binCounts(bins: number): { counts: FarmBinCounts; workers: number[] } | null {
    const x = this.backends.stats.bins;
    return x === null ? null : { counts: x.toCounts(bins), workers: x.workers.binMeans(bins) };
  }

  /**
   * Per 1 s bin (the cascade timeline's, `CASCADE_BIN_MS`) over `bins` bins: busy workers over workers
   * available (0 without a finite number), and crashes (null unless `LeafContext.binCounts`).
   */
  timelineBins(bins: number): { utilisation: number[]; crashes: number[] } | null {
    const stats = this.backends.stats;
    const x = stats.timelineBins ?? stats.bins;
    if (x === null) return null;
    const busy = x.busy?.binMeans(bins) ?? stats.busyMeans(bins);
    return { utilisation: utilisation(busy, x.workers.binMeans(bins)), crashes: (x.counts[FarmBin.CRASHES] as BinnedSeries).toArray(bins) };
  }
}
