import { makeSampler, type Sampler } from '../../../engine/distributions.js';
import type { Uniform } from '../../../engine/random.js';
import type { Simulator } from '../../../engine/simulator.js';
import * as outcomeModule from '../../../policy/outcome.js';
import type { OutcomeCode } from '../../../policy/outcome.js';
import { IntDeque } from '../../IntDeque.js';
import type { RequestTable } from '../../RequestTable.js';
import * as requestTableModule from '../../RequestTable.js';
import type { ServerLeaf } from '../../scenario.js';
import * as statusOutcomeModule from '../../statusOutcome.js';
import { streamIf } from '../../streams.js';
import { LeafAnswer, type LeafContext, type LeafHost } from '../Leaf.js';
import * as leafModule from '../Leaf.js';
import * as farmBinsModule from './FarmBins.js';
import { FarmStats } from './FarmStats.js';
import { OverloadDefences } from './OverloadDefences.js';
import { ServiceTimes } from './ServiceTimes.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { FarmBin } = farmBinsModule;
const { Outcome } = outcomeModule;
const { R_CANCELLED, R_DELAYED, R_HANDLER, R_QUEUED, R_SERVICE, WORK_HOLD } = requestTableModule;
const { statusOutcome } = statusOutcomeModule;
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

/** Whether backend s can answer a request on arrival without serving it (faults, outages, crashes, shedding, a bounded queue). */
const mayRefuse = (s: ServerLeaf): boolean =>
  s.faults.length > 0 || (s.outages?.length ?? 0) > 0 || s.crash !== undefined || s.shedUtilization !== undefined || s.adaptiveConcurrency !== undefined || s.queueLimit !== 'unlimited';

/**
 * What {@link Backends} reports to the farm that holds them (`ServerFarm`): where an answer or a
 * loss goes (the farm settles the load balancer and tells its host) and a crash (the farm takes the
 * backend down and schedules its restart).
 */
export interface BackendsOwner {
  /** Request r is answered `outcome` at t (Retry-After or pushback hint `retryAfterMs`; NaN: none). */
  answer(r: number, outcome: OutcomeCode, retryAfterMs: number, t: number): void;
  /** Request r is lost at t (a crash, an outage, an expired request dropped): nobody answers it. */
  lose(r: number, t: number): void;
  /** Backend b crashes at t (its queue passed the crash threshold) and restarts after `restartMs`. */
  crash(b: number, t: number, restartMs: number): void;
}

/** What {@link Backends.triage} decides: the outcome answered at once, or {@link NEEDS_SLOT} / {@link DELAYED_ANSWER}. */
export type Verdict = OutcomeCode | typeof NEEDS_SLOT | typeof DELAYED_ANSWER;

/**
 * What each backend of a farm does with the requests it is given (docs/concepts.md, "The model"): per-backend
 * state in typed arrays (workers, queue and discipline, service time, degradation, the capacity
 * schedule, faults), the triage of an arriving request (down, a fault, invalid input, the
 * server-side defences of {@link OverloadDefences}), service, the queue and its drops. The farm
 * (`ServerFarm`) holds one: it keeps the leaf contract, the load balancer and the backends'
 * availability (it owns the `down` flags read here), and is told of every answer, loss and crash
 * through {@link BackendsOwner}.
 */
export class Backends {
  /** The number of backends. */
  readonly n: number;
  /** The backends' specifications, by index. */
  readonly specs: ServerLeaf[];
  private readonly sim: Simulator;
  private readonly req: RequestTable;
  private readonly host: LeafHost;
  private readonly owner: BackendsOwner;
  private readonly kindBase: number;
  private readonly uFaults: Uniform;

  // Per backend.
  private readonly queues: IntDeque[];
  readonly busy: Int32Array;
  private readonly cancelledInQueue: Int32Array;
  /** Per backend: its workers (`concurrency`; Infinity: unlimited) outside capacity windows. */
  readonly baseConcurrency: Float64Array;
  readonly capacityNow: Float64Array;
  private readonly queueLimit: Float64Array;
  private readonly activeWindows: number[][];
  /** Per backend: 1 while it is down (the farm's array: it sets it, triage reads it). */
  private readonly down: Uint8Array;
  /** Service times: the backends' own, handlers' `work` steps', degradation. */
  readonly times: ServiceTimes;
  private readonly faultLatency: Array<Array<Sampler | null>>;
  /** The server-side defences (utilisation shedding, adaptive concurrency, CoDel). */
  readonly defences: OverloadDefences;

  /** What the farm measures. */
  readonly stats: FarmStats;
  /** Some backend can answer a request on arrival without serving it (faults, outages, crashes, shedding, a bounded queue). */
  readonly mayRefuse: boolean;

  /** Backends `specs` in `ctx`, down while `down[b]` is 1, reporting answers, losses and crashes to `owner`. */
  constructor(specs: ServerLeaf[], ctx: LeafContext, down: Uint8Array, owner: BackendsOwner) {
    const { sim, req, host, seed, binMs, startMs } = ctx;
    this.sim = sim;
    this.req = req;
    this.host = host;
    this.owner = owner;
    this.kindBase = ctx.kindBase;
    this.specs = specs;
    const n = specs.length;
    this.n = n;
    this.uFaults = streamIf(specs.some((b) => b.faults.length > 0), seed, 'faults');
    const uFaultLatency = streamIf(specs.some((b) => b.faults.some((f) => f.latencyMs !== undefined)), seed, 'fault-latency');
    this.queues = specs.map(() => new IntDeque(64));
    this.busy = new Int32Array(n);
    this.cancelledInQueue = new Int32Array(n);
    this.baseConcurrency = Float64Array.from(specs, (s) => (s.concurrency === 'unlimited' ? Infinity : s.concurrency));
    this.capacityNow = Float64Array.from(this.baseConcurrency);
    this.queueLimit = Float64Array.from(specs, (s) => (s.queueLimit === 'unlimited' ? Infinity : s.queueLimit));
    this.activeWindows = specs.map(() => []);
    this.down = down;
    this.defences = new OverloadDefences(specs, this.busy, this.baseConcurrency, startMs);
    this.times = new ServiceTimes(specs, sim, seed);
    this.faultLatency = specs.map((s) => s.faults.map((f) => (f.latencyMs ? makeSampler(f.latencyMs, uFaultLatency) : null)));
    this.mayRefuse = specs.some(mayRefuse);
    this.stats = new FarmStats(n, binMs, startMs, ctx.binCounts === true, this.baseConcurrency.reduce((x, y) => x + y, 0));
  }

  /** A service time on backend b at its current load, from `work`'s sampler ({@link ServiceTimes.draw}). */
  serviceTime(b: number, work: number): number {
    return this.times.draw(b, work, this.busy[b]!);
  }

  /** The status a refusing backend answers: "overloaded; don't retry" (Google SRE book ch. 21) or a 503, with a Retry-After or gRPC pushback hint. */
  private refusal(b: number, s: ServerLeaf, t: number, ans: LeafAnswer): OutcomeCode {
    if (t >= 0) {
      this.stats.shed[b]!++;
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
  triage(b: number, bad: boolean, t: number, ans: LeafAnswer): Verdict {
    const s = this.specs[b] as ServerLeaf;
    if (this.down[b] === 1) {
      // Connection refused: a fast failure, as a proxy reports it.
      if (t >= 0) {
        this.stats.refused[b]!++;
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
        this.stats.rejected[b]!++;
        this.stats.bin(FarmBin.REJECTED, t);
      }
      ans.retryAfterMs = NaN;
      return Outcome.S400;
    }
    const busy = this.busy[b]!;
    const queued = this.queued(b);
    const d = this.defences;
    if (d.hasShedUtil[b] === 1 && d.utilization(b, t) > (s.shedUtilization?.above as number)) return this.refusal(b, s, t, ans);
    if (busy + queued >= d.acLimit[b]!) {
      d.aimdDrop(b);
      return this.refusal(b, s, t, ans);
    }
    if (busy < this.capacityNow[b]! || queued < this.queueLimit[b]!) return NEEDS_SLOT;
    return this.refusal(b, s, t, ans);
  }

  /** The requests waiting in backend b's queue (those cancelled there not counted). */
  queued(b: number): number {
    return (this.queues[b] as IntDeque).length - this.cancelledInQueue[b]!;
  }

  private faultAnswer(b: number, i: number, fault: ServerLeaf['faults'][number], t: number, ans: LeafAnswer): Verdict {
    if (t >= 0) {
      this.stats.faulted[b]!++;
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
  delayAnswer(r: number, ans: LeafAnswer, t: number): void {
    const req = this.req;
    req.state[r] = R_DELAYED;
    req.outcome[r] = ans.delayedOutcome;
    req.retryAfter[r] = ans.retryAfterMs;
    this.sim.at(t + ans.delayMs, this.kindBase + FarmKind.FAULT_ANSWER, r, req.timers.arm(r));
  }

  /** After {@link triage} said {@link NEEDS_SLOT}: request r starts service on backend b, or waits in its queue. */
  admit(r: number, b: number, t: number): void {
    const s = this.specs[b] as ServerLeaf;
    this.req.enqueuedAt[r] = t;
    const queued = this.queued(b);
    if (this.busy[b]! < this.capacityNow[b]!) {
      this.startService(r, b, t);
      return;
    }
    this.req.state[r] = R_QUEUED;
    (this.queues[b] as IntDeque).pushBack(r);
    this.noteQueue(b, t, 1);
    if (s.crash && queued + 1 > s.crash.queueAbove) this.owner.crash(b, t, s.crash.restartMs);
  }

  private noteQueue(b: number, t: number, delta: number): void {
    this.stats.queueChanged(b, this.queued(b), delta, t);
  }

  private setBusy(b: number, delta: number, t: number): void {
    if (this.defences.hasShedUtil[b] === 1) this.defences.utilization(b, t);
    const busy = this.busy[b]! + delta;
    this.busy[b] = busy;
    this.stats.busyChanged(b, busy, delta, t);
  }

  /** Request r starts service on backend b: its completion is scheduled (a handler's request: {@link startHandlerService}). */
  private startService(r: number, b: number, t: number): void {
    const req = this.req;
    const work = req.work[r]!;
    if (work !== 0) {
      this.startHandlerService(r, b, work, t);
      return;
    }
    this.setBusy(b, 1, t);
    const d = this.serviceTime(b, 0);
    req.state[r] = R_SERVICE;
    req.serviceStart[r] = t;
    req.serviceMs[r] = d;
    this.sim.atInLane(this.times.lane[b]!, t + d, this.kindBase + FarmKind.SERVICE_DONE, r, req.timers.arm(r));
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

  /**
   * A `work` step of held request r (it holds its worker, `ServerFarm.runHeldWork`) starts on that
   * worker at t with no queueing: its service time is drawn and its end scheduled. Returns the service time.
   */
  startHeldWork(r: number, work: number, t: number): number {
    const req = this.req;
    if (req.state[r] !== R_SERVICE || req.work[r] !== WORK_HOLD) throw new Error(`internal: request ${r} holds no worker`);
    const d = this.serviceTime(req.backend[r]!, work);
    this.sim.at(t + d, this.kindBase + FarmKind.SERVICE_DONE, r, req.timers.arm(r));
    return d;
  }

  /** Request r's service ends at t: its worker is free, it is answered success, and the backend's queue moves on. */
  serviceDone(r: number, t: number): void {
    const b = this.req.backend[r]!;
    this.workerDone(r, b, this.req.serviceMs[r]!, t);
    this.owner.answer(r, Outcome.SUCCESS, NaN, t);
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
      this.stats.served[b]!++;
      this.stats.bin(FarmBin.SERVED, t);
      if (!this.host.stillWanted(r)) this.wastedWork(b, workMs, t);
    }
    if (this.defences.hasAdaptive[b] === 1) this.adaptiveSample(r, b, t);
  }

  /** `workMs` of work done on backend b at t >= 0 for a request nothing waits for any more. */
  private wastedWork(b: number, workMs: number, t: number): void {
    this.stats.wasted[b]! += workMs;
    this.stats.bin(FarmBin.WASTED, t, workMs);
  }

  /** The adaptive concurrency limit of backend b takes request r's latency at t as a sample. */
  private adaptiveSample(r: number, b: number, t: number): void {
    const inflight = this.busy[b]! + this.queued(b) + 1;
    this.defences.concurrencySample(b, t - this.req.enqueuedAt[r]!, inflight, t);
  }

  /**
   * Free the worker held by request r (see {@link LeafHost.workerTaken}) at t: the request counts as
   * served, its whole holding time is busy time (and wasted work when nothing waits for r any
   * more), r goes to state R_HANDLER, and the backend's queue is pumped.
   */
  releaseHeld(r: number, t: number): void {
    const req = this.req;
    if (req.state[r] !== R_SERVICE || req.work[r] !== WORK_HOLD) throw new Error(`internal: request ${r} holds no worker`);
    const b = req.backend[r]!;
    req.state[r] = R_HANDLER;
    this.workerDone(r, b, t - req.serviceStart[r]!, t);
    this.pump(b, t);
  }

  /**
   * Request r is withdrawn at t (cancellation): its queue place is left (cancelled there) or its
   * worker freed (its work so far wasted); a request elsewhere is released at once.
   */
  withdraw(r: number, t: number): void {
    const req = this.req;
    const b = req.backend[r]!;
    switch (req.state[r]) {
      case R_QUEUED:
        req.state[r] = R_CANCELLED;
        req.timers.cancel(r);
        this.cancelledInQueue[b]!++;
        if (t >= 0) this.stats.cancelled++;
        this.noteQueue(b, t, -1);
        return;
      case R_SERVICE:
        this.setBusy(b, -1, t);
        if (t >= 0) {
          const workMs = t - req.serviceStart[r]!;
          this.stats.wasted[b]! += workMs;
          this.stats.bin(FarmBin.WASTED, t, workMs);
          this.stats.cancelled++;
        }
        this.host.release(r);
        this.pump(b, t);
        return;
      default:
        this.host.release(r);
    }
  }

  /** Start queued requests while workers are free (FIFO front, LIFO back), dropping what must be dropped. */
  private pump(b: number, t: number): void {
    const s = this.specs[b] as ServerLeaf;
    const q = this.queues[b] as IntDeque;
    const req = this.req;
    const lifo = s.discipline === 'lifo';
    const drops = this.defences.dropsQueued[b] === 1;
    while (this.busy[b]! < this.capacityNow[b]! && q.length > 0) {
      const r = lifo ? q.popBack() : q.popFront();
      if (req.state[r] === R_CANCELLED) {
        this.cancelledInQueue[b]!--;
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
    if (s.dropExpired && req.deadline[r]! <= t) {
      this.countDropped(b, t);
      this.owner.lose(r, t);
      return true;
    }
    if (s.codel && this.defences.codelDrops(b, s.codel, t - req.enqueuedAt[r]!, t)) {
      this.countDropped(b, t);
      this.owner.answer(r, Outcome.S503, NaN, t);
      return true;
    }
    return false;
  }

  private countDropped(b: number, t: number): void {
    if (t >= 0) {
      this.stats.dropped[b]!++;
      this.stats.bin(FarmBin.DROPPED, t);
    }
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
    while (this.queued(b) > limit) {
      const r = q.popBack();
      if (req.state[r] === R_CANCELLED) {
        this.cancelledInQueue[b]!--;
        this.host.release(r);
        continue;
      }
      this.noteQueue(b, t, -1);
      const outcome = this.refusal(b, s, t, ans);
      this.owner.answer(r, outcome, ans.retryAfterMs, t);
    }
  }

  /** Capacity window i of backend b starts (`starts`) or ends at t: its workers become the smallest of the active windows'. */
  capacityChange(b: number, i: number, starts: boolean, t: number): void {
    const s = this.specs[b] as ServerLeaf;
    const active = this.activeWindows[b]!;
    if (starts) active.push(i);
    else {
      const at = active.indexOf(i);
      if (at >= 0) active.splice(at, 1);
    }
    let c = this.baseConcurrency[b]!;
    if (active.length > 0) {
      c = Infinity;
      for (const w of active) c = Math.min(c, (s.capacity[w] as { concurrency: number }).concurrency);
    }
    this.capacityNow[b] = c;
    if (this.stats.bins !== null) this.stats.workersChanged(this.capacityNow.reduce((x, y) => x + y, 0), t);
    this.pump(b, t);
  }

  /**
   * Backend b goes down at t (the farm has set its `down` flag): every request it holds, queued,
   * in service or holding a worker, is lost (`BackendsOwner.lose`; their callers time out).
   */
  loseAll(b: number, t: number): void {
    const req = this.req;
    const q = this.queues[b] as IntDeque;
    let lostQueued = 0;
    while (q.length > 0) {
      const r = q.popFront();
      if (req.state[r] !== R_CANCELLED) {
        lostQueued++;
        this.countLost(b, t);
        this.owner.lose(r, t);
      } else this.host.release(r);
    }
    this.cancelledInQueue[b] = 0;
    if (lostQueued > 0) this.noteQueue(b, t, -lostQueued);
    // In-service requests: find them by scanning (a crash is rare).
    for (let r = 0; r < req.next; r++) {
      if (req.state[r] === R_SERVICE && req.backend[r] === b) {
        this.setBusy(b, -1, t);
        this.countLost(b, t);
        this.owner.lose(r, t);
      }
    }
  }

  private countLost(b: number, t: number): void {
    if (t >= 0) {
      this.stats.lost[b]!++;
      this.stats.bin(FarmBin.LOST, t);
    }
  }
}
