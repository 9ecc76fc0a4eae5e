import { makeSampler, type Sampler } from '../../../engine/distributions.js';
import { stream, type Uniform } from '../../../engine/random.js';
import type { Simulator } from '../../../engine/simulator.js';
import * as outcomeModule from '../../../policy/outcome.js';
import { IntDeque } from '../../IntDeque.js';
import type { RequestTable } from '../../RequestTable.js';
import * as requestTableModule from '../../RequestTable.js';
import type { Dist, ServerLeaf } from '../../scenario.js';
import * as statusOutcomeModule from '../../statusOutcome.js';
import { streamIf } from '../../streams.js';
import * as streamsModule from '../../streams.js';
import { LeafAnswer, type LeafContext, type LeafHost } from '../Leaf.js';
import * as leafModule from '../Leaf.js';
import * as farmBinsModule from './FarmBins.js';
import { FarmStats } from './FarmStats.js';
import { OverloadDefences } from './OverloadDefences.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { FarmBin } = farmBinsModule;
const { Outcome } = outcomeModule;
const { R_CANCELLED, R_DELAYED, R_HANDLER, R_QUEUED, R_SERVICE, WORK_HOLD } = requestTableModule;
const { statusOutcome } = statusOutcomeModule;
const { notDrawn } = streamsModule;
const { DELAYED_ANSWER, NEEDS_SLOT } = leafModule;

/**
 * The farm's event kinds, relative to the first kind the model gives it; the load balancer's
 * follow from {@link FarmKind.LB} on.
 */
export const FarmKind = {
  SERVICE_DONE: 0,
  FAULT_ANSWER: 1,
  CAPACITY: 2,
  OUTAGE: 3,
  RESTART: 4,
  AC_SAMPLE: 5,
  LB: 6,
} as const;

/**
 * What each backend of a farm does with the requests it is given (docs/concepts.md, "The model"): per-backend
 * state in typed arrays (workers, queue and discipline, service time, degradation, the capacity
 * schedule, faults), the triage of an arriving request (down, a fault, invalid input, the
 * server-side defences of {@link OverloadDefences}), service, the queue and its drops. The leaf
 * contract, the load balancer and the backends' availability (outages, crashes) are the
 * {@link ServerFarm}'s, which extends this class and supplies where an answer or a loss goes.
 */
export abstract class Backends {
  /** The number of backends. */
  readonly n: number;
  protected readonly specs: ServerLeaf[];
  protected readonly sim: Simulator;
  protected readonly req: RequestTable;
  protected readonly host: LeafHost;
  protected readonly kindBase: number;
  private readonly uFaults: Uniform;

  // Per backend.
  protected readonly queues: IntDeque[];
  protected readonly busy: Int32Array;
  protected readonly cancelledInQueue: Int32Array;
  protected readonly baseConcurrency: Float64Array;
  private readonly capacityNow: Float64Array;
  private readonly queueLimit: Float64Array;
  private readonly activeWindows: number[][];
  protected readonly down: Uint8Array;
  private readonly samplers: Sampler[];
  /** The samplers of handlers' `work` steps ({@link registerWork}); request column `work` k > 0 draws from entry k - 1. */
  private readonly workSamplers: Sampler[] = [];
  private readonly workNames = new Set<string>();
  private readonly seed: number;
  /**
   * Per backend with a constant service time: the event queue's lane for its completions (-1:
   * none). Services that start in time order and last the same end in time order; backends with
   * the same constant share a lane.
   */
  private readonly serviceLane: Int32Array;
  private readonly faultLatency: Array<Array<Sampler | null>>;
  protected readonly defences: OverloadDefences;

  /** What the farm measures. */
  protected readonly stats: FarmStats;
  /** Some backend can answer a request on arrival without serving it (faults, outages, crashes, shedding, a bounded queue). */
  protected mayRefuse: boolean;

  constructor(specs: ServerLeaf[], ctx: LeafContext) {
    const { sim, req, host, seed, binMs, startMs } = ctx;
    this.sim = sim;
    this.req = req;
    this.host = host;
    this.kindBase = ctx.kindBase;
    this.seed = seed;
    this.specs = specs;
    const n = specs.length;
    this.n = n;
    this.uFaults = streamIf(specs.some((b) => b.faults.length > 0), seed, 'faults');
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
    this.defences = new OverloadDefences(specs, this.busy, this.baseConcurrency, startMs);
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
    this.mayRefuse = specs.some(
      (s) =>
        s.faults.length > 0 ||
        (s.outages?.length ?? 0) > 0 ||
        s.crash !== undefined ||
        s.shedUtilization !== undefined ||
        s.adaptiveConcurrency !== undefined ||
        s.queueLimit !== 'unlimited',
    );
    this.stats = new FarmStats(n, binMs, startMs, ctx.binCounts === true, this.baseConcurrency.reduce((x, y) => x + y, 0));
  }

  /**
   * Register the service time of a handler's `work` step (once per step, before the run): returns
   * the value of request column `work` that makes a request's service draw from it instead of its
   * backend's own `serviceMs`. Each step draws from its own stream, named by `name` (unique per
   * farm, e.g. `endpoint/step`), so the backends' `service` stream and every other step's draws are
   * the same whatever else is registered or run. A backend's degradation applies to these draws too.
   */
  registerWork(serviceMs: Dist, name: string): number {
    if (this.workNames.has(name)) throw new Error(`internal: work sampler ${name} registered twice`);
    this.workNames.add(name);
    this.workSamplers.push(makeSampler(serviceMs, serviceMs.dist === 'constant' ? notDrawn : stream(this.seed, 'work', name)));
    return this.workSamplers.length;
  }

  /**
   * A service time on backend b at its current load: a draw from `work`'s sampler (0: the backend's
   * own `serviceMs`, from the `service` stream), degraded as the backend's degradation says.
   */
  protected serviceTime(b: number, work: number): number {
    const d = work === 0 ? (this.samplers[b] as Sampler).sample() : (this.workSamplers[work - 1] as Sampler).sample();
    return (this.specs[b] as ServerLeaf).degradation === undefined ? d : this.degraded(b, d);
  }

  /** Service time `d` on backend b as its degradation makes it at the current load. */
  private degraded(b: number, d: number): number {
    const deg = (this.specs[b] as ServerLeaf).degradation;
    if (deg === undefined) return d;
    const busy = this.busy[b] as number;
    if (deg.kind === 'linear') return d + deg.perInFlightMs * busy;
    return busy > deg.inFlightAbove ? d * deg.factor : d;
  }

  /** Request r is answered: its backend is settled, and the answer goes back to the caller. */
  protected abstract answer(r: number, outcome: number, ra: number, t: number): void;

  /** Request r is lost (a crash, an expired request dropped): its backend counts a failure, and nobody answers. */
  protected abstract lose(r: number, t: number): void;

  /** Backend b crashes at t (its queue passed the crash threshold) and restarts after `restartMs`. */
  protected abstract crash(b: number, t: number, restartMs: number): void;

  /** The status a refusing backend answers: "overloaded; don't retry" (Google SRE book ch. 21) or a 503, with a Retry-After or gRPC pushback hint. */
  private refusal(b: number, s: ServerLeaf, t: number, ans: LeafAnswer): number {
    if (t >= 0) {
      this.stats.shed[b] = (this.stats.shed[b] as number) + 1;
      this.stats.bin(FarmBin.SHED, t);
    }
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
  protected triage(b: number, bad: boolean, t: number, ans: LeafAnswer): number {
    const s = this.specs[b] as ServerLeaf;
    if (this.down[b] === 1) {
      // Connection refused: a fast failure, as a proxy reports it.
      if (t >= 0) {
        this.stats.refused[b] = (this.stats.refused[b] as number) + 1;
        this.stats.bin(FarmBin.REFUSED, t);
      }
      ans.retryAfterMs = NaN;
      return Outcome.S503;
    }
    const faults = s.faults;
    for (let i = 0; i < faults.length; i++) {
      const fault = faults[i] as ServerLeaf['faults'][number];
      if (t >= fault.fromMs && t < fault.toMs && this.uFaults() < fault.probability) return this.faultAnswer(b, i, fault, t, ans);
    }
    if (bad) {
      if (t >= 0) {
        this.stats.rejected[b] = (this.stats.rejected[b] as number) + 1;
        this.stats.bin(FarmBin.REJECTED, t);
      }
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
    if (t >= 0) {
      this.stats.faulted[b] = (this.stats.faulted[b] as number) + 1;
      this.stats.bin(FarmBin.FAULTED, t);
    }
    const outcome = statusOutcome(fault.status);
    ans.retryAfterMs = fault.retryAfterMs ?? NaN;
    const lat = this.faultLatency[b]?.[i];
    const d = lat ? lat.sample() : 0;
    if (d > 0) {
      ans.delayedOutcome = outcome;
      ans.delayMs = d;
      return DELAYED_ANSWER;
    }
    return outcome;
  }

  /** After {@link triage} said {@link DELAYED_ANSWER}: request r is answered after the fault's latency. */
  protected delayAnswer(r: number, ans: LeafAnswer, t: number): void {
    const req = this.req;
    req.state[r] = R_DELAYED;
    req.outcome[r] = ans.delayedOutcome;
    req.retryAfter[r] = ans.retryAfterMs;
    this.sim.at(t + ans.delayMs, this.kindBase + FarmKind.FAULT_ANSWER, r, req.timers.arm(r));
  }

  /** After {@link triage} said {@link NEEDS_SLOT}: request r starts service, or waits in the queue. */
  protected admit(r: number, b: number, t: number): void {
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

  protected noteQueue(b: number, t: number, delta: number): void {
    this.stats.queueChanged(b, (this.queues[b] as IntDeque).length - (this.cancelledInQueue[b] as number), delta, t);
  }

  protected setBusy(b: number, delta: number, t: number): void {
    if (this.defences.hasShedUtil[b] === 1) this.defences.utilization(b, t);
    this.busy[b] = (this.busy[b] as number) + delta;
    this.stats.busyChanged(b, this.busy[b] as number, delta, t);
  }

  /** Request r starts service on backend b: its completion is scheduled (a handler's request: {@link startHandlerService}). */
  private startService(r: number, b: number, t: number): void {
    const req = this.req;
    const work = req.work[r] as number;
    if (work !== 0) {
      this.startHandlerService(r, b, work, t);
      return;
    }
    this.setBusy(b, 1, t);
    const d = this.serviceTime(b, 0);
    req.state[r] = R_SERVICE;
    req.serviceStart[r] = t;
    req.serviceMs[r] = d;
    this.sim.atInLane(this.serviceLane[b] as number, t + d, this.kindBase + FarmKind.SERVICE_DONE, r, req.timers.arm(r));
  }

  /**
   * A handler's request r starts service on backend b: timed by its step's sampler `work`, or, when
   * it holds its worker ({@link WORK_HOLD}), the host is told ({@link LeafHost.workerTaken}) and
   * nothing is scheduled.
   */
  private startHandlerService(r: number, b: number, work: number, t: number): void {
    const req = this.req;
    this.setBusy(b, 1, t);
    req.state[r] = R_SERVICE;
    req.serviceStart[r] = t;
    if (work === WORK_HOLD) {
      req.serviceMs[r] = 0;
      this.host.workerTaken(r, b, t);
      return;
    }
    const d = this.serviceTime(b, work);
    req.serviceMs[r] = d;
    // A step's own service time does not come in the order of the backend's lane: the heap.
    this.sim.at(t + d, this.kindBase + FarmKind.SERVICE_DONE, r, req.timers.arm(r));
  }

  protected serviceDone(r: number, t: number): void {
    const b = this.req.backend[r] as number;
    this.workerDone(r, b, this.req.serviceMs[r] as number, t);
    this.answer(r, Outcome.SUCCESS, NaN, t);
    this.pump(b, t);
  }

  /**
   * Request r's worker on backend b is free at t after `workMs` of work: the worker is no longer
   * busy, the request counts as served (and its work as wasted when nothing waits for it), and the
   * adaptive concurrency limit takes its latency as a sample.
   */
  private workerDone(r: number, b: number, workMs: number, t: number): void {
    this.setBusy(b, -1, t);
    if (t >= 0) {
      this.stats.served[b] = (this.stats.served[b] as number) + 1;
      this.stats.bin(FarmBin.SERVED, t);
      if (!this.host.stillWanted(r)) this.wastedWork(b, workMs, t);
    }
    if (this.defences.hasAdaptive[b] === 1) this.adaptiveSample(r, b, t);
  }

  /** `workMs` of work done on backend b at t >= 0 for a request nothing waits for any more. */
  private wastedWork(b: number, workMs: number, t: number): void {
    this.stats.wasted[b] = (this.stats.wasted[b] as number) + workMs;
    this.stats.bin(FarmBin.WASTED, t, workMs);
  }

  /** The adaptive concurrency limit of backend b takes request r's latency at t as a sample. */
  private adaptiveSample(r: number, b: number, t: number): void {
    const inflight = (this.busy[b] as number) + (this.queues[b] as IntDeque).length - (this.cancelledInQueue[b] as number) + 1;
    this.defences.concurrencySample(b, t - (this.req.enqueuedAt[r] as number), inflight, t);
  }

  /**
   * Free the worker held by request r (see {@link LeafHost.workerTaken}) at t: the request counts as
   * served, its whole holding time is busy time (and wasted work when nothing waits for r any
   * more), r goes to state R_HANDLER, and the backend's queue is pumped.
   */
  protected releaseHeld(r: number, t: number): void {
    const req = this.req;
    if (req.state[r] !== R_SERVICE || req.work[r] !== WORK_HOLD) throw new Error(`internal: request ${r} holds no worker`);
    const b = req.backend[r] as number;
    req.state[r] = R_HANDLER;
    this.workerDone(r, b, t - (req.serviceStart[r] as number), t);
    this.pump(b, t);
  }

  /** Start queued requests while workers are free (FIFO front, LIFO back), dropping what must be dropped. */
  protected pump(b: number, t: number): void {
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
      if (t >= 0) {
        this.stats.dropped[b] = (this.stats.dropped[b] as number) + 1;
        this.stats.bin(FarmBin.DROPPED, t);
      }
      this.lose(r, t);
      return true;
    }
    if (s.codel && this.defences.codelDrops(b, s.codel, t - (req.enqueuedAt[r] as number), t)) {
      if (t >= 0) {
        this.stats.dropped[b] = (this.stats.dropped[b] as number) + 1;
        this.stats.bin(FarmBin.DROPPED, t);
      }
      this.answer(r, Outcome.S503, NaN, t);
      return true;
    }
    return false;
  }

  /**
   * Backend b's queue limit becomes `limit` at t (a timed intervention; Infinity: unlimited): the
   * requests its queue holds beyond the limit, the newest first, are shed at once, each answered as
   * a full queue answers (503, or `overloaded` where the server says so, with its hint). The farm
   * must have been built knowing that limits change (it then triages every arrival).
   */
  setQueueLimit(b: number, limit: number, t: number): void {
    this.queueLimit[b] = limit;
    const q = this.queues[b] as IntDeque;
    const req = this.req;
    const s = this.specs[b] as ServerLeaf;
    const ans = new LeafAnswer();
    while (q.length - (this.cancelledInQueue[b] as number) > limit) {
      const r = q.popBack();
      if (req.state[r] === R_CANCELLED) {
        this.cancelledInQueue[b] = (this.cancelledInQueue[b] as number) - 1;
        this.host.release(r);
        continue;
      }
      this.noteQueue(b, t, -1);
      const outcome = this.refusal(b, s, t, ans);
      this.answer(r, outcome, ans.retryAfterMs, t);
    }
  }

  protected capacityChange(b: number, i: number, starts: boolean, t: number): void {
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
    if (this.stats.bins !== null) this.stats.workersChanged(this.capacityNow.reduce((x, y) => x + y, 0), t);
    this.pump(b, t);
  }
}
