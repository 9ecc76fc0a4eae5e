import * as outcomeModule from '../../policy/outcome.js';
import type { OutcomeCode } from '../../policy/outcome.js';
import type { LastHop, Leaf, LeafAnswer, LeafHost } from '../leaves/Leaf.js';
import { ServerFarm } from '../leaves/server/ServerFarm.js';
import type { ServiceMeasurements } from '../Measurements.js';
import type { RequestTable } from '../RequestTable.js';
import * as requestTableModule from '../RequestTable.js';
import { FleetSlots } from './FleetSlots.js';
import * as fleetSlotsModule from './FleetSlots.js';
import { backendsOf, type EndpointRuntime } from './handlerSteps.js';
import type { GraphService } from './ServiceGraph.js';
import { ServiceHandlers, type HandlersOwner } from './ServiceHandlers.js';
import * as serviceHandlersModule from './ServiceHandlers.js';
import type { ServiceLeaf } from './ServiceLeaf.js';
import type { ServiceTracer } from '../traceGraph.js';
import * as traceModule from '../trace.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Outcome } = outcomeModule;
const { R_HANG } = requestTableModule;
const { PLAIN_SLOT } = fleetSlotsModule;
const { handlerOfInner } = serviceHandlersModule;
const { CANCELLED_RESPONSE, LOST_RESPONSE, NO_SLOT } = traceModule;

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
 * ({@link FleetSlots}). Its handlers (workers, threads or async, and the joins of calls) are its
 * {@link ServiceHandlers}, which answer the callers through it ({@link HandlersOwner}).
 *
 * In flight. `maxInFlight` caps the requests admitted and not yet answered (handlers waiting on
 * calls, and requests at the fleet, included); one arriving beyond it is refused at once with 503.
 * It is the fleet's host.
 */
export class ServiceRuntime implements LeafHost, HandlersOwner {
  readonly name: string;
  /** The fleet's request table. */
  readonly req: RequestTable;
  /** The fleet ({@link connect}). */
  fleet!: Leaf;
  /** The endpoints, by index (filled before {@link connect}). */
  readonly endpoints: EndpointRuntime[] = [];
  /** The handlers of the endpoints with steps. */
  readonly handlers: ServiceHandlers;
  /** The backends of the fleet. */
  readonly backendCount: number;
  /** Requests admitted and not yet answered (or lost, or withdrawn). */
  inFlight = 0;
  /** Its arrivals and requests in flight over time (set by the graph's run before it starts). */
  measure!: ServiceMeasurements;
  private readonly slots: FleetSlots;
  /**
   * No endpoint has steps: the fleet answers every request as a leaf does (and a
   * {@link ServiceLeaf.direct} caller's attempt may be answered before it takes a slot).
   */
  readonly plainOnly: boolean;
  private maxInFlight: number;
  /** Requests refused on arrival because `maxInFlight` were in flight (from t = 0 on). */
  refusedInFlight = 0;

  /** The runtime of `service`, called by the graph's stacks `callers` (shared by the graph's services). */
  constructor(service: GraphService, callers: ServiceLeaf[]) {
    this.name = service.name;
    this.slots = new FleetSlots(callers);
    this.req = this.slots.req;
    this.backendCount = backendsOf(service.fleet);
    this.handlers = new ServiceHandlers(service.name, service.execution === 'threaded', this.endpoints, callers, this.slots, this);
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
    if (!this.endpoints.some((e) => e.steps !== null)) {
      this.handlers.connect(null);
      return;
    }
    if (!(fleet instanceof ServerFarm)) throw new Error(`internal: service ${this.name} has handlers but its fleet has no workers`);
    this.handlers.connect(fleet);
    for (const step of this.endpoints.flatMap((e) => e.steps ?? [])) {
      if (step.kind === 'work' && step.serviceMs !== undefined) step.code = fleet.registerWork(step.serviceMs, step.name);
    }
  }

  // ------------------------------------------------------------ from callers

  /** Request r of caller `leaf` arrives for endpoint `endpoint`. */
  accept(leaf: ServiceLeaf, r: number, endpoint: number, t: number): void {
    this.measure.arrival(leaf.callerReq.chain[r]!, t);
    if (this.inFlight >= this.maxInFlight) {
      this.refuseInFlight(leaf.callerReq.opSeq[r]!, endpoint, t);
      leaf.answer(r, Outcome.S503, NaN, false, t);
      return;
    }
    this.inFlight++;
    this.measure.inFlight(this.inFlight);
    const steps = (this.endpoints[endpoint] as EndpointRuntime).steps;
    if (steps === null) this.toFleet(leaf, r, endpoint, t);
    else this.handlers.start(leaf, r, endpoint, t);
  }


  /**
   * An attempt of a {@link ServiceLeaf.direct} caller (last-layer frame `frame`) arrives for a plain
   * endpoint with no hop and no request slot yet (`ServiceLeaf.answersAtOnce`): counted and capped
   * as {@link accept} does, then the fleet answers at once (true, the answer in `ans`, as
   * {@link respond} would have answered it) or the caller takes a slot for {@link hold}.
   */
  acceptAtOnce(frame: number, bad: boolean, chain: number, t: number, ans: LeafAnswer, op: number, endpoint: number): boolean {
    this.measure.arrival(chain, t);
    if (this.inFlight >= this.maxInFlight) {
      this.refuseInFlight(op, endpoint, t);
      ans.verdict = Outcome.S503;
      ans.retryAfterMs = NaN;
      return true;
    }
    this.inFlight++;
    this.measure.inFlight(this.inFlight);
    // As toFleet routes a plain request: its first attempt at the fleet.
    if (!this.fleet.arriveAtOnce(frame, 1, bad, t, ans, chain)) return false;
    if (this.handlers.tracer !== null) this.traceAtOnce(op, endpoint, ans.verdict, t);
    this.inFlight--;
    this.measure.inFlight(this.inFlight);
    this.measure.answered(ans.verdict !== Outcome.SUCCESS, t);
    return true;
  }

  /** A traced run: a request of operation `op` for `endpoint` answered `outcome` on arrival, without a slot: by the fleet, or refused because `maxInFlight` are in flight (apart, off the path of untraced runs). */
  private traceAtOnce(op: number, endpoint: number, outcome: number, t: number): void {
    const tracer = this.handlers.tracer as ServiceTracer;
    tracer.fleetRequest(op, endpoint, NO_SLOT, t);
    tracer.fleetAnswer(op, endpoint, NO_SLOT, outcome, t);
  }

  /** After {@link acceptAtOnce} returned false: request r of `leaf` (a slot of the fleet's table) holds what `ans` says. */
  hold(leaf: ServiceLeaf, r: number, ans: LeafAnswer, t: number): void {
    this.slots.serves(r, leaf, r, PLAIN_SLOT);
    leaf.inner[r] = r;
    if (this.handlers.tracer !== null) this.handlers.tracer.fleetRequest(this.req.opSeq[r]!, leaf.endpointOf(r), r, t);
    this.fleet.hold(r, ans, t);
  }

  /** The request of operation `op` for `endpoint` arriving at t is refused because `maxInFlight` are in flight (answered 503 at once): counted, and traced as a request answered on arrival. */
  private refuseInFlight(op: number, endpoint: number, t: number): void {
    if (this.handlers.tracer !== null) this.traceAtOnce(op, endpoint, Outcome.S503, t);
    if (t >= 0) {
      this.refusedInFlight++;
      this.measure.refusedInFlight(t);
    }
    this.measure.answered(true, t);
  }


  /**
   * A plain request r of caller `leaf` for `endpoint` goes to the fleet: in a slot of its own, or, when the caller's
   * requests are slots of the fleet's table ({@link ServiceLeaf.direct}), as it is (the caller
   * filled its fields, and frees it).
   */
  private toFleet(leaf: ServiceLeaf, r: number, endpoint: number, t: number): void {
    let s = r;
    if (leaf.direct) this.slots.serves(r, leaf, r, PLAIN_SLOT);
    else s = this.slots.slotFor(leaf, r, PLAIN_SLOT);
    leaf.inner[r] = s;
    this.fleet.route(s, s, 1);
    if (this.handlers.tracer !== null) this.handlers.tracer.fleetRequest(this.req.opSeq[s]!, endpoint, s, t);
    this.fleet.arrive(s, t);
  }

  /** The caller of request r stopped waiting: a fleet request may go on; a handler goes on. */
  abandon(leaf: ServiceLeaf, r: number, inner: number, t: number): void {
    if (inner < 0) return;
    this.fleet.abandon(inner, t);
    if (this.req.state[inner] === R_HANG) {
      this.slots.freePlainSlot(inner, leaf.direct);
      this.inFlight--;
      this.measure.inFlight(this.inFlight);
      leaf.hung(r);
    }
  }

  /** Cancellation: the caller withdraws request r; it recurses downstream, and frees what the handler holds at the fleet. */
  withdraw(leaf: ServiceLeaf, r: number, inner: number, t: number): void {
    if (inner >= 0) {
      if (this.handlers.tracer !== null) this.handlers.tracer.fleetResponse(this.req.opSeq[inner]!, leaf.endpointOf(r), inner, CANCELLED_RESPONSE, t);
      this.fleet.withdraw(inner, t);
      return;
    }
    const s = this.handlers.withdraw(handlerOfInner(inner), t);
    this.inFlight--;
    this.measure.inFlight(this.inFlight);
    this.slots.withdrawn(s);
    // The fleet frees the worker or the queue place (or nothing) and then the slot, through release
    // (a direct caller's request with it).
    this.fleet.withdraw(s, t);
    if (!leaf.direct) leaf.freed(r);
  }

  // ------------------------------------------------------------ the fleet's host

  respond(s: number, outcome: number, retryAfterMs: number, t: number): void {
    const slots = this.slots;
    const h = slots.handlerOf(s);
    if (h >= 0) {
      this.handlers.stepAnswered(h, s, outcome as OutcomeCode, retryAfterMs, t);
      return;
    }
    const leaf = slots.callerOf(s);
    const r = slots.requestOf(s);
    if (this.handlers.tracer !== null) this.handlers.tracer.fleetAnswer(this.req.opSeq[s]!, leaf.endpointOf(r), s, outcome, t);
    slots.freePlainSlot(s, leaf.direct);
    this.answerCaller(leaf, r, outcome as OutcomeCode, retryAfterMs, false, t);
  }

  stillWanted(s: number): boolean {
    const slots = this.slots;
    const h = slots.handlerOf(s);
    if (h >= 0) return this.handlers.callerWants(h);
    return slots.callerOf(s).wanted(slots.requestOf(s));
  }

  drop(s: number, t: number): void {
    const slots = this.slots;
    const h = slots.handlerOf(s);
    if (h >= 0) {
      this.handlers.lost(h, t);
      return;
    }
    const leaf = slots.callerOf(s);
    const r = slots.requestOf(s);
    if (this.handlers.tracer !== null) this.handlers.tracer.fleetResponse(this.req.opSeq[s]!, leaf.endpointOf(r), s, LOST_RESPONSE, t);
    slots.freePlainSlot(s, leaf.direct);
    this.loseCaller(leaf, r, t);
  }

  release(s: number): void {
    const slots = this.slots;
    const leaf = slots.callerOf(s);
    const r = slots.requestOf(s);
    if (slots.handlerOf(s) !== PLAIN_SLOT) {
      // A withdrawn handler's slot: the handler is gone already; a direct caller's request is free now.
      slots.freeHandlerSlot(s, leaf.direct);
      if (leaf.direct) leaf.freed(r);
      return;
    }
    slots.freePlainSlot(s, leaf.direct);
    this.inFlight--;
    this.measure.inFlight(this.inFlight);
    leaf.freed(r);
  }

  /** A threaded handler's slot s took its worker at t: the handler starts its steps on it. */
  workerTaken(s: number, _b: number, t: number): void {
    const h = this.slots.handlerOf(s);
    if (h < 0) throw new Error(`internal: request ${s} of service ${this.name} holds a worker but serves no handler`);
    this.handlers.workerTaken(h, t);
  }

  // ------------------------------------------------------------ answers to the callers

  /** Request r of caller `leaf` is answered at t (by the fleet or a handler): no longer in flight ({@link HandlersOwner}). */
  answerCaller(leaf: ServiceLeaf, r: number, outcome: OutcomeCode, retryAfterMs: number, degraded: boolean, t: number): void {
    this.inFlight--;
    this.measure.inFlight(this.inFlight);
    this.measure.answered(outcome !== Outcome.SUCCESS, t);
    leaf.answer(r, outcome, retryAfterMs, degraded, t);
  }

  /** Request r of caller `leaf` is lost at t: no longer in flight, its caller times out ({@link HandlersOwner}). */
  loseCaller(leaf: ServiceLeaf, r: number, t: number): void {
    this.inFlight--;
    this.measure.inFlight(this.inFlight);
    this.measure.answered(true, t);
    leaf.lost(r, t);
  }

  /** Hops between services belong to the callers' stacks: the fleet's own answers take none (OCC fleets with handlers are not run). */
  lastHop(): LastHop {
    return NO_HOP;
  }
}
