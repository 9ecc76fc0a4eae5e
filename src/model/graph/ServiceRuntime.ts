import * as outcomeModule from '../../policy/outcome.js';
import type { LastHop, Leaf, LeafAnswer, LeafHost } from '../leaves/Leaf.js';
import { ServerFarm } from '../leaves/server/ServerFarm.js';
import * as requestTableModule from '../RequestTable.js';
import type { CacheOwner } from './CallCache.js';
import { HandlerTable } from './HandlerTable.js';
import type { EndpointRuntime } from './handlerSteps.js';
import type { GraphService } from './ServiceGraph.js';
import { ServiceHandlers } from './ServiceHandlers.js';
import * as serviceHandlersModule from './ServiceHandlers.js';
import type { ServiceLeaf } from './ServiceLeaf.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Outcome } = outcomeModule;
const { R_HANG } = requestTableModule;
const { PLAIN_SLOT, WITHDRAWN_SLOT } = serviceHandlersModule;

/** The hop a fleet of a graph draws for its own answers: none. */
const NO_HOP: LastHop = { stream: { client: 0 }, sample: { sample: () => 0 } };

/**
 * One service of a graph at run time (docs/experiments.md, "Service graphs"): its fleet (the leaf a `stack` +
 * `leaf` scenario would have, with its own request table, event kinds and random streams) and the
 * handlers of its endpoints. A request arriving from any caller ({@link ServiceLeaf}) becomes a slot
 * of the fleet's table (an endpoint without steps: answered by the fleet as a leaf answers) or a
 * handler (an endpoint with steps) with a slot in the fleet's table, pinned to the backend the load
 * balancer picks on its arrival (`ServerFarm.pickBackend`); the service remembers the caller and
 * its request to answer through. A call site's requests are slots of the callee fleet's table
 * already ({@link ServiceLeaf.direct}): the request is the slot, and its caller frees it; a
 * workload's entry stack keeps a table of its own, and its request is copied into a slot
 * (`ServiceHandlers.slotFor`). Its handlers (workers, threads or async, and the joins of calls)
 * are those of {@link ServiceHandlers}, which it extends.
 *
 * In flight. `maxInFlight` caps the requests admitted and not yet answered (handlers waiting on
 * calls, and requests at the fleet, included); one arriving beyond it is refused at once with 503.
 * It is the fleet's host.
 */
export class ServiceRuntime extends ServiceHandlers implements LeafHost, CacheOwner {
  /**
   * No endpoint has steps: the fleet answers every request as a leaf does (and a
   * {@link ServiceLeaf.direct} caller's attempt may be answered before it takes a slot).
   */
  readonly plainOnly: boolean;
  private maxInFlight: number;
  /** Requests refused on arrival because `maxInFlight` were in flight (from t = 0 on). */
  refusedInFlight = 0;

  constructor(service: GraphService, callers: ServiceLeaf[]) {
    super(service, callers);
    this.plainOnly = service.endpoints.every((e) => e.steps === undefined);
    this.maxInFlight = service.maxInFlight === 'unlimited' ? Infinity : service.maxInFlight;
  }

  /** At most `value` requests in flight from now on (a timed intervention; Infinity: unlimited): those beyond it already admitted go on. */
  setMaxInFlight(value: number): void {
    this.maxInFlight = value;
  }

  /** Connect the fleet, once the endpoints' handlers are in {@link endpoints}: the work steps' samplers are registered with it. */
  connect(fleet: Leaf): void {
    this.fleet = fleet;
    const steps = this.endpoints.flatMap((e) => e.steps ?? []);
    const maxCalls = Math.max(1, ...steps.map((s) => (s.kind === 'call' ? s.sites.length : 0)));
    this.handlers = new HandlerTable(maxCalls);
    if (!this.endpoints.some((e) => e.steps !== null)) return;
    if (!(fleet instanceof ServerFarm)) throw new Error(`internal: service ${this.name} has handlers but its fleet has no workers`);
    this.farm = fleet;
    for (const step of steps) {
      if (step.kind === 'work' && step.serviceMs !== undefined) step.code = fleet.registerWork(step.serviceMs, step.name);
    }
  }

  // ------------------------------------------------------------ from callers

  /** Request r of caller `leaf` arrives for endpoint `endpoint`. */
  accept(leaf: ServiceLeaf, r: number, endpoint: number, t: number): void {
    this.measure.arrival(leaf.callerReq.chain[r] as number, t);
    if (this.inFlight >= this.maxInFlight) {
      this.refuseInFlight(t);
      leaf.answer(r, Outcome.S503, NaN, false, t);
      return;
    }
    this.inFlight++;
    this.measure.inFlight(this.inFlight);
    const steps = (this.endpoints[endpoint] as EndpointRuntime).steps;
    if (steps === null) this.toFleet(leaf, r, t);
    else this.startHandler(leaf, r, endpoint, t);
  }


  /**
   * An attempt of a {@link ServiceLeaf.direct} caller (last-layer frame `frame`) arrives for a plain
   * endpoint with no hop and no request slot yet (`ServiceLeaf.answersAtOnce`): counted and capped
   * as {@link accept} does, then the fleet answers at once (true, the answer in `ans`, as
   * {@link respond} would have answered it) or the caller takes a slot for {@link hold}.
   */
  acceptAtOnce(frame: number, bad: boolean, chain: number, t: number, ans: LeafAnswer): boolean {
    this.measure.arrival(chain, t);
    if (this.inFlight >= this.maxInFlight) {
      this.refuseInFlight(t);
      ans.verdict = Outcome.S503;
      ans.retryAfterMs = NaN;
      return true;
    }
    this.inFlight++;
    this.measure.inFlight(this.inFlight);
    // As toFleet routes a plain request: its first attempt at the fleet.
    if (!this.fleet.arriveAtOnce(frame, 1, bad, t, ans, chain)) return false;
    this.inFlight--;
    this.measure.inFlight(this.inFlight);
    this.measure.answered(ans.verdict !== Outcome.SUCCESS, t);
    return true;
  }

  /** After {@link acceptAtOnce} returned false: request r of `leaf` (a slot of the fleet's table) holds what `ans` says. */
  hold(leaf: ServiceLeaf, r: number, ans: LeafAnswer, t: number): void {
    this.serves(r, leaf, r, PLAIN_SLOT);
    leaf.inner[r] = r;
    this.fleet.hold(r, ans, t);
  }

  /** A request arriving at t is refused because `maxInFlight` are in flight (answered 503 at once). */
  private refuseInFlight(t: number): void {
    if (t >= 0) {
      this.refusedInFlight++;
      this.measure.refusedInFlight(t);
    }
    this.measure.answered(true, t);
  }


  /**
   * A plain request r of caller `leaf` goes to the fleet: in a slot of its own, or, when the caller's
   * requests are slots of the fleet's table ({@link ServiceLeaf.direct}), as it is (the caller
   * filled its fields, and frees it).
   */
  private toFleet(leaf: ServiceLeaf, r: number, t: number): void {
    let s = r;
    if (leaf.direct) this.serves(r, leaf, r, PLAIN_SLOT);
    else s = this.slotFor(leaf, r, PLAIN_SLOT);
    leaf.inner[r] = s;
    this.fleet.route(s, s, 1);
    this.fleet.arrive(s, t);
  }

  /** The caller of request r stopped waiting: a fleet request may go on; a handler goes on. */
  abandon(leaf: ServiceLeaf, r: number, inner: number, t: number): void {
    if (inner < 0) return;
    this.fleet.abandon(inner, t);
    if (this.req.state[inner] === R_HANG) {
      if (!leaf.direct) this.req.release(inner);
      this.inFlight--;
      this.measure.inFlight(this.inFlight);
      leaf.hung(r);
    }
  }

  /** Cancellation: the caller withdraws request r; it recurses downstream, and frees what the handler holds at the fleet. */
  withdraw(leaf: ServiceLeaf, r: number, inner: number, t: number): void {
    if (inner >= 0) {
      this.fleet.withdraw(inner, t);
      return;
    }
    const h = -2 - inner;
    const H = this.handlers;
    const step = this.stepOf(h);
    H.hGen[h] = (H.hGen[h] as number) + 1;
    if (step !== undefined && step.kind === 'call') this.cancelOutstanding(h, step, t);
    const s = H.hSlot[h] as number;
    H.release(h);
    this.inFlight--;
    this.measure.inFlight(this.inFlight);
    this.slotHandler[s] = WITHDRAWN_SLOT;
    // The fleet frees the worker or the queue place (or nothing) and then the slot, through release
    // (a direct caller's request with it).
    (this.farm as ServerFarm).withdraw(s, t);
    if (!leaf.direct) leaf.freed(r);
  }

  // ------------------------------------------------------------ the fleet's host

  respond(s: number, outcome: number, retryAfterMs: number, t: number): void {
    const h = this.slotHandler[s] as number;
    if (h >= 0) {
      this.stepAnswered(h, s, outcome, retryAfterMs, t);
      return;
    }
    const leaf = this.callers[this.upCaller[s] as number] as ServiceLeaf;
    const r = this.upR[s] as number;
    if (!leaf.direct) this.req.release(s);
    this.inFlight--;
    this.measure.inFlight(this.inFlight);
    this.measure.answered(outcome !== Outcome.SUCCESS, t);
    leaf.answer(r, outcome, retryAfterMs, false, t);
  }

  stillWanted(s: number): boolean {
    const h = this.slotHandler[s] as number;
    if (h >= 0) return (this.callers[this.handlers.hCaller[h] as number] as ServiceLeaf).wanted(this.handlers.hR[h] as number);
    return (this.callers[this.upCaller[s] as number] as ServiceLeaf).wanted(this.upR[s] as number);
  }

  drop(s: number, t: number): void {
    const h = this.slotHandler[s] as number;
    if (h >= 0) {
      this.handlerLost(h, t);
      return;
    }
    const leaf = this.callers[this.upCaller[s] as number] as ServiceLeaf;
    const r = this.upR[s] as number;
    if (!leaf.direct) this.req.release(s);
    this.inFlight--;
    this.measure.inFlight(this.inFlight);
    this.measure.answered(true, t);
    leaf.lost(r, t);
  }

  release(s: number): void {
    const leaf = this.callers[this.upCaller[s] as number] as ServiceLeaf;
    const r = this.upR[s] as number;
    if (this.slotHandler[s] !== PLAIN_SLOT) {
      // A withdrawn handler's slot: the handler is gone already; a direct caller's request is free now.
      this.freeSlot(s, leaf.direct);
      if (leaf.direct) leaf.freed(r);
      return;
    }
    if (!leaf.direct) this.req.release(s);
    this.inFlight--;
    this.measure.inFlight(this.inFlight);
    leaf.freed(r);
  }

  /** A threaded handler's slot s took its worker at t: the handler starts its steps on it. */
  workerTaken(s: number, _b: number, t: number): void {
    const h = this.slotHandler[s] as number;
    if (h < 0) throw new Error(`internal: request ${s} of service ${this.name} holds a worker but serves no handler`);
    this.handlers.hHeld[h] = 1;
    this.runStep(h, t);
  }

  /** Hops between services belong to the callers' stacks: the fleet's own answers take none (OCC fleets with handlers are not run). */
  lastHop(): LastHop {
    return NO_HOP;
  }
}
