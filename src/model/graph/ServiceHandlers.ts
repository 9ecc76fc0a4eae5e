import * as outcomeModule from '../../policy/outcome.js';
import type { OutcomeCode } from '../../policy/outcome.js';
import type { ServerFarm } from '../leaves/server/ServerFarm.js';
import type { RequestTable } from '../RequestTable.js';
import * as requestTableModule from '../RequestTable.js';
import type { ServiceTracer } from '../traceGraph.js';
import type { CacheOwner } from './CallCache.js';
import type { CallSite } from './CallSite.js';
import type { FleetSlots } from './FleetSlots.js';
import { HandlerTable } from './HandlerTable.js';
import type { CallStepRuntime, EndpointRuntime, StepRuntime } from './handlerSteps.js';
import * as handlerStepsModule from './handlerSteps.js';
import type { ServiceLeaf } from './ServiceLeaf.js';
import * as upwardOutcomeModule from './upwardOutcome.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { GiveUp, Outcome } = outcomeModule;
const { R_HANDLER, R_HOP, WORK_HOLD } = requestTableModule;
const { joinDecision, JOINED, UNDECIDED } = handlerStepsModule;
const { upwardOutcome } = upwardOutcomeModule;

/**
 * What a caller's {@link ServiceLeaf.inner} holds for a request handled by handler h: -2 - h
 * (negative, and never -1, which is {@link ServiceLeaf}'s "nothing"); a fleet slot is itself (>= 0).
 */
const handlerInner = (h: number): number => -2 - h;

/** A call of the current step that this run of the step does not make (its probability drawn against it), among a handler's frames (-1: none outstanding). */
const NOT_MADE = -2;

/** The handler of a caller's {@link ServiceLeaf.inner} value `inner` (< 0), as {@link handlerInner} made it. */
export const handlerOfInner = (inner: number): number => -2 - inner;

/** What a service's handlers ask of the service that holds them (`ServiceRuntime`): the answer to their caller. */
export interface HandlersOwner {
  /** Request r of caller `leaf` is answered `outcome` at t (`degraded`: a degraded success): it is no longer in flight. */
  answerCaller(leaf: ServiceLeaf, r: number, outcome: OutcomeCode, retryAfterMs: number, degraded: boolean, t: number): void;
  /** Request r of caller `leaf` is lost at t (nobody answers; its caller times out): it is no longer in flight. */
  loseCaller(leaf: ServiceLeaf, r: number, t: number): void;
}

/**
 * The handlers of one service of a graph (docs/experiments.md, "Service graphs"): they run an endpoint's steps.
 * The service's runtime (`ServiceRuntime`: the callers' side, the fleet's host, the cap on
 * requests in flight) holds them, hands them its handler requests ({@link start}) and what the
 * fleet says of their slots ({@link stepAnswered}, {@link workerTaken}, {@link lost}); they
 * answer the callers through it ({@link HandlersOwner}). The slots they are served in are the
 * service's {@link FleetSlots}.
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
 * Calls. A handler's `call` step starts one call per call site (a call with a probability below 1
 * only when its draw says so; a step that makes none succeeds at once) and joins the calls made: `all` fails at the
 * first failed required call and succeeds once every required call succeeded and every optional one
 * ended (degraded if one failed); `any` succeeds at the first success and fails when every call
 * failed; a quorum k succeeds at the k-th success and fails once fewer than k can still succeed.
 * Calls still outstanding when the join decides are cancelled (the step's `cancellation`) or run on
 * with nothing waiting for them, holding no worker of this service. A failed call step answers
 * upward by {@link upwardOutcome}.
 */
export class ServiceHandlers implements CacheOwner {
  /** The service's name. */
  readonly name: string;
  /** Thread-per-request: a handler holds its worker from its start to its end. */
  readonly threaded: boolean;
  /** A traced run's reporter of the handlers (null when untraced). */
  tracer: ServiceTracer | null = null;
  private readonly owner: HandlersOwner;
  private readonly endpoints: readonly EndpointRuntime[];
  /** Every stack calling a service of the graph, by its index (shared by the graph's services). */
  private readonly callers: ServiceLeaf[];
  private readonly slots: FleetSlots;
  private readonly req: RequestTable;
  /** The fleet as a farm of servers ({@link connect}; validation allows handlers only on server and pool fleets). */
  private farm!: ServerFarm;
  private handlers!: HandlerTable;
  /** A held worker is being released ({@link answer}); the held handlers that ended meanwhile: handler, generation, outcome, Retry-After. */
  private releasing = false;
  private readonly endedWhileReleasing: number[] = [];

  /**
   * The handlers of service `name` (`threaded`: thread-per-request), running `endpoints` (filled
   * before {@link connect}), in `slots`, answering `owner`'s callers `callers`.
   */
  constructor(name: string, threaded: boolean, endpoints: readonly EndpointRuntime[], callers: ServiceLeaf[], slots: FleetSlots, owner: HandlersOwner) {
    this.name = name;
    this.threaded = threaded;
    this.endpoints = endpoints;
    this.callers = callers;
    this.slots = slots;
    this.req = slots.req;
    this.owner = owner;
  }

  /** Connect the fleet (null when no endpoint has steps), once the endpoints are known: their calls size the handler table. */
  connect(farm: ServerFarm | null): void {
    const steps = this.endpoints.flatMap((e) => e.steps ?? []);
    const maxCalls = Math.max(1, ...steps.map((s) => (s.kind === 'call' ? s.sites.length : 0)));
    this.handlers = new HandlerTable(maxCalls);
    if (farm !== null) this.farm = farm;
  }

  /** Request r of caller `leaf` arrives at t for endpoint `endpoint`, which has steps: a handler starts. */
  start(leaf: ServiceLeaf, r: number, endpoint: number, t: number): void {
    const H = this.handlers;
    const up = leaf.callerReq;
    const h = H.alloc();
    leaf.inner[r] = handlerInner(h);
    H.hCaller[h] = leaf.caller;
    H.hR[h] = r;
    H.hEndpoint[h] = endpoint;
    H.hStep[h] = 0;
    H.hDegraded[h] = 0;
    H.hHeld[h] = 0;
    H.hDeadline[h] = up.deadline[r]!;
    H.hChain[h] = up.chain[r]!;
    H.hBad[h] = up.bad[r]!;
    H.hOpSeq[h] = up.opSeq[r]!;
    this.tracer?.handler(H.hOpSeq[h]!, endpoint, t);
    // A direct caller's request is the handler's slot: the caller filled it as slotFor would.
    let s = r;
    if (leaf.direct) this.slots.serves(r, leaf, r, h);
    else s = this.slots.slotFor(leaf, r, h);
    H.hSlot[h] = s;
    this.req.state[s] = R_HANDLER;
    H.hBackend[h] = this.farm.pickBackend(s);
    if (!this.threaded) {
      this.runStep(h, t);
      return;
    }
    // Thread-per-request: the handler waits for a worker of its backend (workerTaken), or is refused.
    this.req.work[s] = WORK_HOLD;
    this.req.state[s] = R_HOP;
    this.farm.arrive(s, t);
  }

  /** Handler h's current step (undefined past the last). */
  private stepOf(h: number): StepRuntime | undefined {
    const H = this.handlers;
    return ((this.endpoints[H.hEndpoint[h]!] as EndpointRuntime).steps as StepRuntime[])[H.hStep[h]!];
  }

  /** Threaded handler h took its worker at t: it starts its steps on it. */
  workerTaken(h: number, t: number): void {
    this.handlers.hHeld[h] = 1;
    this.runStep(h, t);
  }

  /** Run handler h's current step, or answer success when none is left. */
  private runStep(h: number, t: number): void {
    const H = this.handlers;
    const step = this.stepOf(h);
    if (step === undefined) {
      this.answer(h, Outcome.SUCCESS, NaN, t);
      return;
    }
    this.tracer?.step(H.hOpSeq[h]!, H.hEndpoint[h]!, H.hStep[h]!, t);
    if (step.kind === 'work') {
      const s = H.hSlot[h]!;
      if (H.hHeld[h] === 1) this.farm.runHeldWork(s, step.code, t);
      else {
        this.req.work[s] = step.code;
        this.req.state[s] = R_HOP;
        this.farm.arrive(s, t);
      }
      return;
    }
    const gen = H.hGen[h]!;
    const sites = step.sites;
    const base = h * H.maxCalls;
    const sampled = step.sampled;
    const made = sampled ? this.drawCalls(sites, base) : sites.length;
    H.hSucc[h] = 0;
    H.hPending[h] = made;
    if (made === 0) {
      this.noCallMade(h, t);
      return;
    }
    // Calls are sent in order; one that ends at once (a spent deadline, a refusal) may decide the join before the rest are sent.
    for (let j = 0; j < sites.length && H.hGen[h] === gen; j++) {
      if (sampled && H.hFrames[base + j] === NOT_MADE) continue;
      const site = sites[j] as CallSite;
      // A lookaside cache answers the call itself (a hit, or a miss waiting for the same key's call in flight).
      if (site.cache !== null && site.cache.lookup(h, gen, j, H.hBackend[h]!, H.hOpSeq[h]!, H.hDeadline[h]!, t)) {
        H.hFrames[base + j] = -1;
        continue;
      }
      const top = site.top;
      const f = top.openCall(H.hBackend[h]!, site.methodFor(H.hOpSeq[h]!), H.hBad[h]!, H.hChain[h]!, H.hOpSeq[h]!, H.hDeadline[h]!, t);
      site.record(f, h, gen, j);
      H.hFrames[base + j] = f;
      top.startCall(f, t);
    }
  }

  /**
   * Which calls of a step whose calls have probabilities run this time: each call below 1 is made
   * with its probability (a draw from its own stream), the others always; a call not made is marked
   * {@link NOT_MADE} among the handler's frames (from `base`). Returns the calls made.
   */
  private drawCalls(sites: readonly CallSite[], base: number): number {
    const frames = this.handlers.hFrames;
    let made = 0;
    for (let j = 0; j < sites.length; j++) {
      const site = sites[j] as CallSite;
      const makes = site.probability >= 1 || site.made() < site.probability;
      frames[base + j] = makes ? -1 : NOT_MADE;
      if (makes) made++;
    }
    return made;
  }

  /** Handler h's call step made none of its calls (each has a probability): the step succeeds at once and the next runs. */
  private noCallMade(h: number, t: number): void {
    const H = this.handlers;
    this.tracer?.join(H.hOpSeq[h]!, H.hEndpoint[h]!, H.hStep[h]!, true, H.hDegraded[h] === 1, t);
    H.hGen[h]!++;
    H.hStep[h]!++;
    this.runStep(h, t);
  }

  /**
   * The fleet answered handler h's slot s: a work step ended (success: the next step runs; else the
   * handler fails with the fleet's answer), or a threaded handler was refused a worker.
   */
  stepAnswered(h: number, s: number, outcome: OutcomeCode, retryAfterMs: number, t: number): void {
    const H = this.handlers;
    if (H.hHeld[h] === 1) {
      // A work step on the held worker is done; the worker stays held.
      H.hStep[h]!++;
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
    H.hStep[h]!++;
    this.runStep(h, t);
  }

  /** Call j of handler h's current step (generation gen) ended: the join decides, or waits. */
  callEnded(h: number, gen: number, j: number, reason: number, outcome: number, degraded: boolean, t: number): void {
    const H = this.handlers;
    if (H.hGen[h] !== gen) return;
    const step = this.stepOf(h) as CallStepRuntime;
    H.hFrames[h * H.maxCalls + j] = -1;
    const pending = H.hPending[h]! - 1;
    H.hPending[h] = pending;
    const ok = reason === GiveUp.SUCCESS;
    const optional = (step.sites[j] as CallSite).optional;
    let succ = H.hSucc[h]!;
    if (ok) {
      succ++;
      H.hSucc[h] = succ;
      if (degraded) H.hDegraded[h] = 1;
    } else if (optional) H.hDegraded[h] = 1;
    const decided = joinDecision(step, ok, optional, succ, pending);
    if (decided === UNDECIDED) return;
    this.tracer?.join(H.hOpSeq[h]!, H.hEndpoint[h]!, H.hStep[h]!, decided === JOINED, H.hDegraded[h] === 1, t);
    H.hGen[h] = gen + 1;
    if (step.cancellation) this.cancelOutstanding(h, step, t);
    else H.forgetCalls(h);
    if (decided === JOINED) {
      H.hStep[h]!++;
      this.runStep(h, t);
    } else this.answer(h, upwardOutcome(outcome), NaN, t);
  }

  /** Cancel the calls of handler h's step still outstanding. */
  private cancelOutstanding(h: number, step: CallStepRuntime, t: number): void {
    const H = this.handlers;
    const base = h * H.maxCalls;
    for (let j = 0; j < step.sites.length; j++) {
      const f = H.hFrames[base + j]!;
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
  private answer(h: number, outcome: OutcomeCode, retryAfterMs: number, t: number): void {
    const H = this.handlers;
    if (H.hHeld[h] === 0) {
      this.end(h, outcome, retryAfterMs, t);
      return;
    }
    const ended = this.endedWhileReleasing;
    if (this.releasing) {
      ended.push(h, H.hGen[h]!, outcome, retryAfterMs);
      return;
    }
    this.releasing = true;
    this.end(h, outcome, retryAfterMs, t);
    // Withdrawn or lost since (a generation moved on): already ended.
    for (let i = 0; i < ended.length; i += 4) {
      const e = ended[i]!;
      if (H.hGen[e] === ended[i + 1]) this.end(e, ended[i + 2] as OutcomeCode, ended[i + 3]!, t);
    }
    ended.length = 0;
    this.releasing = false;
  }

  /** {@link answer}, at once. */
  private end(h: number, outcome: OutcomeCode, retryAfterMs: number, t: number): void {
    const H = this.handlers;
    const farm = this.farm;
    const s = H.hSlot[h]!;
    if (H.hHeld[h] === 1) farm.releaseWorker(s, t);
    farm.handlerAnswered(s, outcome, t);
    const leaf = this.callers[H.hCaller[h]!] as ServiceLeaf;
    const r = H.hR[h]!;
    const degraded = H.hDegraded[h] === 1;
    this.tracer?.answer(H.hOpSeq[h]!, H.hEndpoint[h]!, outcome, t);
    this.slots.freeHandlerSlot(s, leaf.direct);
    H.release(h);
    this.owner.answerCaller(leaf, r, outcome, retryAfterMs, degraded, t);
  }

  /**
   * The fleet lost handler h's request (a crash or outage of its backend, an expired request
   * dropped from the queue): nobody answers, its caller times out. Calls of its current step still
   * outstanding are cancelled if the step's `cancellation` is on, and run on otherwise.
   */
  lost(h: number, t: number): void {
    const H = this.handlers;
    const step = this.stepOf(h);
    H.hGen[h]!++;
    if (step !== undefined && step.kind === 'call') {
      if (step.cancellation) this.cancelOutstanding(h, step, t);
      else H.forgetCalls(h);
    }
    const s = H.hSlot[h]!;
    this.tracer?.lost(H.hOpSeq[h]!, H.hEndpoint[h]!, t);
    this.farm.handlerAnswered(s, Outcome.TIMEOUT, t);
    const leaf = this.callers[H.hCaller[h]!] as ServiceLeaf;
    const r = H.hR[h]!;
    this.slots.freeHandlerSlot(s, leaf.direct);
    H.release(h);
    this.owner.loseCaller(leaf, r, t);
  }

  /**
   * The caller withdraws handler h's request at t (cancellation): the calls of its current step
   * still outstanding are cancelled and the handler is gone. Returns its fleet slot, which the
   * fleet still holds (its worker or queue place): the runtime withdraws it there.
   */
  withdraw(h: number, t: number): number {
    const H = this.handlers;
    const step = this.stepOf(h);
    H.hGen[h]!++;
    if (step !== undefined && step.kind === 'call') this.cancelOutstanding(h, step, t);
    const s = H.hSlot[h]!;
    H.release(h);
    return s;
  }

  /** Whether handler h's own caller still waits for it. */
  callerWants(h: number): boolean {
    const H = this.handlers;
    return (this.callers[H.hCaller[h]!] as ServiceLeaf).wanted(H.hR[h]!);
  }

  /** Whether handler h still waits for its current step's calls (its generation is still gen), whether or not its caller still waits for it. */
  awaits(h: number, gen: number): boolean {
    return this.handlers.hGen[h] === gen;
  }

  /** Whether handler h (generation gen) still waits for a call, and its own caller for it. */
  waitsFor(h: number, gen: number): boolean {
    const H = this.handlers;
    return H.hGen[h] === gen && (this.callers[H.hCaller[h]!] as ServiceLeaf).wanted(H.hR[h]!);
  }
}
