import * as outcomeModule from '../../policy/outcome.js';
import type { Leaf } from '../leaves/Leaf.js';
import type { ServerFarm } from '../leaves/server/ServerFarm.js';
import { RequestTable } from '../RequestTable.js';
import * as requestTableModule from '../RequestTable.js';
import type { ServiceMeasurements } from '../Measurements.js';
import type { ServiceTracer } from '../traceGraph.js';
import type { CallSite } from './CallSite.js';
import type { HandlerTable } from './HandlerTable.js';
import { backendsOf, type CallStepRuntime, type EndpointRuntime, type StepRuntime } from './handlerSteps.js';
import * as handlerStepsModule from './handlerSteps.js';
import type { GraphService } from './ServiceGraph.js';
import type { ServiceLeaf } from './ServiceLeaf.js';
import * as upwardOutcomeModule from './upwardOutcome.js';
import { tableGrew } from '../../engine/memoryMeter.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { GiveUp, Outcome } = outcomeModule;
const { R_HANDLER, R_HOP, WORK_HOLD } = requestTableModule;
const { joinDecision, JOINED, UNDECIDED } = handlerStepsModule;
const { upwardOutcome } = upwardOutcomeModule;

/** {@link ServiceHandlers}' `slotHandler` of a fleet slot serving a plain (leaf) request. */
export const PLAIN_SLOT = -1;
/** ... of the slot of a withdrawn handler, which the fleet frees later (`LeafHost.release`). */
export const WITHDRAWN_SLOT = -2;

/**
 * What a caller's {@link ServiceLeaf.inner} holds for a request handled by handler h: -2 - h
 * (negative, and never -1, which is {@link ServiceLeaf}'s "nothing"); a fleet slot is itself (>= 0).
 */
const handlerInner = (h: number): number => -2 - h;

/**
 * The handlers of one service of a graph (README, "Service graphs"), and the slots of its fleet's
 * table that requests and handlers are served in: the part of {@link ServiceRuntime} that runs an
 * endpoint's steps. ServiceRuntime adds the fleet's host and the callers' side (arrivals, abandon,
 * withdrawal, the fleet's answers) and hands handler requests here ({@link startHandler}).
 *
 * Workers. On an `async` service a handler holds a worker only during its `work` steps: each joins
 * the worker queue of its backend under the fleet's discipline, as a leaf request does (triage:
 * down, faults, shedding, the adaptive limit, `queueLimit`; drops of expired requests, CoDel,
 * crashes), timed by the step's `serviceMs` or the backend's. On a `threaded` service the handler
 * queues so for a worker when it starts and holds it until it ends (`LeafHost.workerTaken`,
 * `ServerFarm.releaseWorker`), through its calls and their backoff waits; its `work` steps run on
 * that worker without queueing again (`ServerFarm.runHeldWork`). A work step (or a threaded
 * handler's start) the fleet refuses fails the handler with the fleet's own answer (a full queue:
 * 503), its Retry-After hint included; one the fleet loses (a crash, an outage, an expired request
 * dropped) loses the handler: its caller times out. Work done while nothing up to the entry waits
 * is wasted work at this service's fleet.
 *
 * Calls. A handler's `call` step starts one call per call site and joins them: `all` fails at the
 * first failed required call and succeeds once every required call succeeded and every optional one
 * ended (degraded if one failed); `any` succeeds at the first success and fails when every call
 * failed; a quorum k succeeds at the k-th success and fails once fewer than k can still succeed.
 * Calls still outstanding when the join decides are cancelled (the step's `cancellation`) or run on
 * with nothing waiting for them, holding no worker of this service. A failed call step answers
 * upward by {@link upwardOutcome}.
 */
export abstract class ServiceHandlers {
  readonly name: string;
  readonly req: RequestTable;
  fleet!: Leaf;
  /** The fleet as a farm of servers when the service has handlers (validation allows them only on server and pool fleets). */
  protected farm: ServerFarm | null = null;
  readonly endpoints: EndpointRuntime[] = [];
  /** Every stack calling a service of the graph, by its index (shared by the graph's services). */
  protected readonly callers: ServiceLeaf[];
  /** The backends of the fleet. */
  readonly backendCount: number;
  /** Thread-per-request: a handler holds its worker from its start to its end. */
  readonly threaded: boolean;
  /** Requests admitted and not yet answered (or lost, or withdrawn). */
  inFlight = 0;
  /** Its arrivals and requests in flight over time (set by the graph's run before it starts). */
  measure!: ServiceMeasurements;
  /** A traced run's reporter of its handlers (null when untraced). */
  tracer: ServiceTracer | null = null;
  protected handlers!: HandlerTable;
  /** Per fleet slot: the caller and its request (plain requests). */
  protected upCaller = new Int32Array(64);
  protected upR = new Int32Array(64);
  /** A held worker is being released ({@link answer}); the held handlers that ended meanwhile: handler, generation, outcome, Retry-After. */
  private releasing = false;
  private readonly endedWhileReleasing: number[] = [];
  /** Per fleet slot: the handler it serves, {@link PLAIN_SLOT} or {@link WITHDRAWN_SLOT}. */
  protected slotHandler = new Int32Array(64).fill(PLAIN_SLOT);

  constructor(service: GraphService, callers: ServiceLeaf[]) {
    this.name = service.name;
    this.callers = callers;
    this.req = new RequestTable(64);
    this.backendCount = backendsOf(service.fleet);
    this.threaded = service.execution === 'threaded';
  }

  /** Room for fleet slot s (out of line: {@link serves} is on the path of every request). */
  private growSlots(s: number): void {
    const n = Math.max(s + 1, this.upR.length * 2);
    tableGrew((n - this.upR.length) * 12);
    const grow = (a: Int32Array, fill: number) => {
      const b = new Int32Array(n).fill(fill);
      b.set(a);
      return b;
    };
    this.upCaller = grow(this.upCaller, 0);
    this.upR = grow(this.upR, 0);
    this.slotHandler = grow(this.slotHandler, PLAIN_SLOT);
  }

  /** Fleet slot s serves request r of caller `leaf` (for handler `handler`, or {@link PLAIN_SLOT}). */
  protected serves(s: number, leaf: ServiceLeaf, r: number, handler: number): void {
    if (s >= this.upR.length) this.growSlots(s);
    this.upCaller[s] = leaf.caller;
    this.upR[s] = r;
    this.slotHandler[s] = handler;
    this.req.plain(s);
  }

  /** A slot of the fleet's table for a request of caller `leaf`, its fields copied from the caller's request r. */
  protected slotFor(leaf: ServiceLeaf, r: number, handler: number): number {
    const req = this.req;
    const up = leaf.callerReq;
    const s = req.alloc();
    this.serves(s, leaf, r, handler);
    req.state[s] = R_HOP;
    req.parent[s] = -1;
    req.parentGen[s] = 0;
    req.client[s] = up.client[r] as number;
    req.bad[s] = up.bad[r] as number;
    req.chain[s] = up.chain[r] as number;
    req.opSeq[s] = up.opSeq[r] as number;
    req.deadline[s] = up.deadline[r] as number;
    req.retryAfter[s] = NaN;
    req.backend[s] = -1;
    req.lbOpen[s] = 0;
    req.timers.arm(s);
    return s;
  }

  /** Free fleet slot s of a handler that has ended (`direct`: it is its caller's request, which the caller frees). */
  protected freeSlot(s: number, direct: boolean): void {
    this.slotHandler[s] = PLAIN_SLOT;
    if (!direct) this.req.release(s);
  }

  protected startHandler(leaf: ServiceLeaf, r: number, endpoint: number, t: number): void {
    const H = this.handlers;
    const up = leaf.callerReq;
    const farm = this.farm as ServerFarm;
    const h = H.alloc();
    leaf.inner[r] = handlerInner(h);
    H.hCaller[h] = leaf.caller;
    H.hR[h] = r;
    H.hEndpoint[h] = endpoint;
    H.hStep[h] = 0;
    H.hDegraded[h] = 0;
    H.hHeld[h] = 0;
    H.hDeadline[h] = up.deadline[r] as number;
    H.hChain[h] = up.chain[r] as number;
    H.hBad[h] = up.bad[r] as number;
    H.hOpSeq[h] = up.opSeq[r] as number;
    this.tracer?.handler(H.hOpSeq[h] as number, endpoint, t);
    // A direct caller's request is the handler's slot: the caller filled it as slotFor would.
    let s = r;
    if (leaf.direct) this.serves(r, leaf, r, h);
    else s = this.slotFor(leaf, r, h);
    H.hSlot[h] = s;
    this.req.state[s] = R_HANDLER;
    H.hBackend[h] = farm.pickBackend(s);
    if (!this.threaded) {
      this.runStep(h, t);
      return;
    }
    // Thread-per-request: the handler waits for a worker of its backend (workerTaken), or is refused.
    this.req.work[s] = WORK_HOLD;
    this.req.state[s] = R_HOP;
    farm.arrive(s, t);
  }

  /** Handler h's current step (undefined past the last). */
  protected stepOf(h: number): StepRuntime | undefined {
    const H = this.handlers;
    return ((this.endpoints[H.hEndpoint[h] as number] as EndpointRuntime).steps as StepRuntime[])[H.hStep[h] as number];
  }

  /** Run handler h's current step, or answer success when none is left. */
  protected runStep(h: number, t: number): void {
    const H = this.handlers;
    const step = this.stepOf(h);
    if (step === undefined) {
      this.answer(h, Outcome.SUCCESS, NaN, t);
      return;
    }
    this.tracer?.step(H.hOpSeq[h] as number, H.hEndpoint[h] as number, H.hStep[h] as number, t);
    if (step.kind === 'work') {
      const s = H.hSlot[h] as number;
      const farm = this.farm as ServerFarm;
      if (H.hHeld[h] === 1) farm.runHeldWork(s, step.code, t);
      else {
        this.req.work[s] = step.code;
        this.req.state[s] = R_HOP;
        farm.arrive(s, t);
      }
      return;
    }
    const gen = H.hGen[h] as number;
    const sites = step.sites;
    const base = h * H.maxCalls;
    H.hSucc[h] = 0;
    H.hPending[h] = sites.length;
    // Calls are sent in order; one that ends at once (a spent deadline, a refusal) may decide the join before the rest are sent.
    for (let j = 0; j < sites.length && H.hGen[h] === gen; j++) {
      const site = sites[j] as CallSite;
      // A lookaside cache answers the call itself (a hit, or a miss waiting for the same key's call in flight).
      if (site.cache !== null && site.cache.lookup(h, gen, j, H.hBackend[h] as number, H.hOpSeq[h] as number, H.hDeadline[h] as number, t)) {
        H.hFrames[base + j] = -1;
        continue;
      }
      const top = site.layers.top;
      const f = top.openCall(H.hBackend[h] as number, site.methodFor(H.hOpSeq[h] as number), H.hBad[h] as number, H.hChain[h] as number, H.hOpSeq[h] as number, H.hDeadline[h] as number, t);
      site.record(f, h, gen, j);
      H.hFrames[base + j] = f;
      top.startCall(f, t);
    }
  }

  /**
   * The fleet answered handler h's slot s: a work step ended (success: the next step runs; else the
   * handler fails with the fleet's answer), or a threaded handler was refused a worker.
   */
  protected stepAnswered(h: number, s: number, outcome: number, retryAfterMs: number, t: number): void {
    const H = this.handlers;
    if (H.hHeld[h] === 1) {
      // A work step on the held worker is done; the worker stays held.
      H.hStep[h] = (H.hStep[h] as number) + 1;
      this.runStep(h, t);
      return;
    }
    if (this.req.work[s] === WORK_HOLD) {
      if (outcome === Outcome.SUCCESS) throw new Error(`internal: a threaded handler of service ${this.name} was answered before it took a worker`);
      this.answer(h, outcome, retryAfterMs, t);
      return;
    }
    this.req.state[s] = R_HANDLER;
    if (outcome !== Outcome.SUCCESS) {
      this.answer(h, outcome, retryAfterMs, t);
      return;
    }
    H.hStep[h] = (H.hStep[h] as number) + 1;
    this.runStep(h, t);
  }

  /** Call j of handler h's current step (generation gen) ended: the join decides, or waits. */
  callEnded(h: number, gen: number, j: number, reason: number, outcome: number, degraded: boolean, t: number): void {
    const H = this.handlers;
    if (H.hGen[h] !== gen) return;
    const step = this.stepOf(h) as CallStepRuntime;
    H.hFrames[h * H.maxCalls + j] = -1;
    const pending = (H.hPending[h] as number) - 1;
    H.hPending[h] = pending;
    const ok = reason === GiveUp.SUCCESS;
    const optional = (step.sites[j] as CallSite).optional;
    let succ = H.hSucc[h] as number;
    if (ok) {
      succ++;
      H.hSucc[h] = succ;
      if (degraded) H.hDegraded[h] = 1;
    } else if (optional) H.hDegraded[h] = 1;
    const decided = joinDecision(step, ok, optional, succ, pending);
    if (decided === UNDECIDED) return;
    this.tracer?.join(H.hOpSeq[h] as number, H.hEndpoint[h] as number, H.hStep[h] as number, decided === JOINED, H.hDegraded[h] === 1, t);
    H.hGen[h] = gen + 1;
    if (step.cancellation) this.cancelOutstanding(h, step, t);
    else H.hFrames.fill(-1, h * H.maxCalls, (h + 1) * H.maxCalls);
    if (decided === JOINED) {
      H.hStep[h] = (H.hStep[h] as number) + 1;
      this.runStep(h, t);
    } else this.answer(h, upwardOutcome(outcome), NaN, t);
  }

  /** Cancel the calls of handler h's step still outstanding. */
  protected cancelOutstanding(h: number, step: CallStepRuntime, t: number): void {
    const H = this.handlers;
    const base = h * H.maxCalls;
    for (let j = 0; j < step.sites.length; j++) {
      const f = H.hFrames[base + j] as number;
      if (f < 0) continue;
      H.hFrames[base + j] = -1;
      (step.sites[j] as CallSite).cancel(f, t);
    }
  }

  /**
   * Handler h ends: its held worker is released (its holding time wasted if nothing waits for the
   * answer any more), its backend settled, and its answer goes to its caller. Releasing a worker
   * starts the next queued handler, which may end at once (a call refused at once, with no hop) and
   * release its worker in turn: a held handler ending while a worker of its service is being
   * released ends just after that release, in order, so the stack does not grow with the queue.
   */
  private answer(h: number, outcome: number, retryAfterMs: number, t: number): void {
    const H = this.handlers;
    if (H.hHeld[h] === 0) {
      this.end(h, outcome, retryAfterMs, t);
      return;
    }
    const ended = this.endedWhileReleasing;
    if (this.releasing) {
      ended.push(h, H.hGen[h] as number, outcome, retryAfterMs);
      return;
    }
    this.releasing = true;
    this.end(h, outcome, retryAfterMs, t);
    // Withdrawn or lost since (a generation moved on): already ended.
    for (let i = 0; i < ended.length; i += 4) {
      const e = ended[i] as number;
      if (H.hGen[e] === ended[i + 1]) this.end(e, ended[i + 2] as number, ended[i + 3] as number, t);
    }
    ended.length = 0;
    this.releasing = false;
  }

  /** {@link answer}, at once. */
  private end(h: number, outcome: number, retryAfterMs: number, t: number): void {
    const H = this.handlers;
    const farm = this.farm as ServerFarm;
    const s = H.hSlot[h] as number;
    if (H.hHeld[h] === 1) farm.releaseWorker(s, t);
    farm.handlerAnswered(s, outcome, t);
    const leaf = this.callers[H.hCaller[h] as number] as ServiceLeaf;
    const r = H.hR[h] as number;
    const degraded = H.hDegraded[h] === 1;
    this.tracer?.answer(H.hOpSeq[h] as number, H.hEndpoint[h] as number, outcome, t);
    this.freeSlot(s, leaf.direct);
    H.release(h);
    this.inFlight--;
    this.measure.inFlight(this.inFlight);
    this.measure.answered(outcome !== Outcome.SUCCESS, t);
    leaf.answer(r, outcome, retryAfterMs, degraded, t);
  }

  /**
   * The fleet lost handler h's request (a crash or outage of its backend, an expired request
   * dropped from the queue): nobody answers, its caller times out. Calls of its current step still
   * outstanding are cancelled if the step's `cancellation` is on, and run on otherwise.
   */
  protected handlerLost(h: number, t: number): void {
    const H = this.handlers;
    const step = this.stepOf(h);
    H.hGen[h] = (H.hGen[h] as number) + 1;
    if (step !== undefined && step.kind === 'call') {
      if (step.cancellation) this.cancelOutstanding(h, step, t);
      else H.hFrames.fill(-1, h * H.maxCalls, (h + 1) * H.maxCalls);
    }
    const s = H.hSlot[h] as number;
    this.tracer?.lost(H.hOpSeq[h] as number, H.hEndpoint[h] as number, t);
    (this.farm as ServerFarm).handlerAnswered(s, Outcome.TIMEOUT, t);
    const leaf = this.callers[H.hCaller[h] as number] as ServiceLeaf;
    const r = H.hR[h] as number;
    this.freeSlot(s, leaf.direct);
    H.release(h);
    this.inFlight--;
    this.measure.inFlight(this.inFlight);
    this.measure.answered(true, t);
    leaf.lost(r, t);
  }

  /** Whether handler h still waits for its current step's calls (its generation is still gen), whether or not its caller still waits for it. */
  awaits(h: number, gen: number): boolean {
    return this.handlers.hGen[h] === gen;
  }

  /** Whether handler h (generation gen) still waits for a call, and its own caller for it. */
  waitsFor(h: number, gen: number): boolean {
    const H = this.handlers;
    return H.hGen[h] === gen && (this.callers[H.hCaller[h] as number] as ServiceLeaf).wanted(H.hR[h] as number);
  }
}
