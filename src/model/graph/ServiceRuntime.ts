import { GiveUp, Outcome } from '../../policy/outcome.js';
import type { LastHop, Leaf, LeafHost } from '../leaves/Leaf.js';
import { R_HANG, R_HOP, RequestTable } from '../RequestTable.js';
import type { Leaf as FleetSpec } from '../scenario.js';
import type { CallSite } from './CallSite.js';
import { HandlerTable } from './HandlerTable.js';
import type { Join } from './ServiceGraph.js';
import type { ServiceLeaf } from './ServiceLeaf.js';
import { upwardOutcome } from './upwardOutcome.js';

/** The hop a fleet of a graph draws for its own answers: none. */
const NO_HOP: LastHop = { stream: { client: 0 }, sample: () => 0 };

const JOIN_ALL = 0;
const JOIN_ANY = 1;
const JOIN_QUORUM = 2;

/** One `call` step of a handler, as the runtime runs it. */
export interface CallStepRuntime {
  join: number;
  /** Successes that decide a quorum (all: every call; any: 1). */
  k: number;
  cancellation: boolean;
  sites: CallSite[];
}

/** The join's code and quorum for {@link CallStepRuntime}. */
export function joinCode(join: Join, calls: number): { join: number; k: number } {
  if (join.kind === 'all') return { join: JOIN_ALL, k: calls };
  if (join.kind === 'any') return { join: JOIN_ANY, k: 1 };
  return { join: JOIN_QUORUM, k: join.k };
}

/** An endpoint as the runtime runs it: null steps, the fleet answers as a leaf does. */
export interface EndpointRuntime {
  steps: CallStepRuntime[] | null;
}

/** The backends of a fleet (the instances of its callers' layers). */
export function backendsOf(fleet: FleetSpec): number {
  return fleet.kind === 'pool' ? fleet.clusters.reduce((n, c) => n + c.backends.length, 0) : 1;
}

/**
 * One service of a graph at run time (README, "Service graphs"): its fleet (the leaf a `stack` +
 * `leaf` scenario would have, with its own request table, event kinds and random streams) and the
 * handlers of its endpoints. A request arriving from any caller ({@link ServiceLeaf}) becomes a slot
 * of the fleet's table (an endpoint without steps: answered by the fleet as a leaf answers) or a
 * handler (an endpoint with steps); the service remembers the caller and its request to answer
 * through. A handler's `call` step starts one call per call site and joins them: `all` fails at the
 * first failed required call and succeeds once every required call succeeded and every optional one
 * ended (degraded if one failed); `any` succeeds at the first success and fails when every call
 * failed; a quorum k succeeds at the k-th success and fails once fewer than k can still succeed.
 * Calls still outstanding when the join decides are cancelled (the step's `cancellation`) or run on
 * with nothing waiting for them. A failed step answers upward by {@link upwardOutcome}. It is the
 * fleet's host.
 */
export class ServiceRuntime implements LeafHost {
  readonly name: string;
  readonly req: RequestTable;
  fleet!: Leaf;
  readonly endpoints: EndpointRuntime[] = [];
  /** Every stack calling a service of the graph, by its index (shared by the graph's services). */
  private readonly callers: ServiceLeaf[];
  /** The backends of the fleet. */
  readonly backendCount: number;
  private nextBackend = 0;
  private handlers!: HandlerTable;
  /** Per fleet request: the caller and its request. */
  private upCaller = new Int32Array(64);
  private upR = new Int32Array(64);

  constructor(name: string, fleet: FleetSpec, callers: ServiceLeaf[]) {
    this.name = name;
    this.callers = callers;
    this.req = new RequestTable(64);
    this.backendCount = backendsOf(fleet);
  }

  /** Connect the fleet, once the endpoints' handlers are in {@link endpoints}. */
  connect(fleet: Leaf): void {
    this.fleet = fleet;
    const maxCalls = Math.max(1, ...this.endpoints.flatMap((e) => (e.steps ?? []).map((s) => s.sites.length)));
    this.handlers = new HandlerTable(maxCalls);
  }

  // ------------------------------------------------------------ from callers

  /** Request r of caller `leaf` arrives for endpoint `endpoint`. */
  accept(leaf: ServiceLeaf, r: number, endpoint: number, t: number): void {
    const steps = (this.endpoints[endpoint] as EndpointRuntime).steps;
    if (steps === null) this.toFleet(leaf, r, t);
    else this.startHandler(leaf, r, endpoint, t);
  }

  private toFleet(leaf: ServiceLeaf, r: number, t: number): void {
    const req = this.req;
    const up = leaf.callerReq;
    const s = req.alloc();
    if (s >= this.upR.length) {
      const n = Math.max(s + 1, this.upR.length * 2);
      const a = new Int32Array(n);
      a.set(this.upCaller);
      this.upCaller = a;
      const b = new Int32Array(n);
      b.set(this.upR);
      this.upR = b;
    }
    this.upCaller[s] = leaf.caller;
    this.upR[s] = r;
    leaf.inner[r] = s;
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
    this.fleet.route(s, s, 1);
    this.fleet.arrive(s, t);
  }

  /** The caller of request r stopped waiting: a fleet request may go on; a handler goes on. */
  abandon(leaf: ServiceLeaf, r: number, inner: number, t: number): void {
    if (inner < 0) return;
    this.fleet.abandon(inner, t);
    if (this.req.state[inner] === R_HANG) {
      this.req.release(inner);
      leaf.hung(r);
    }
  }

  /** Cancellation: the caller withdraws request r; it recurses downstream. */
  withdraw(leaf: ServiceLeaf, r: number, inner: number, t: number): void {
    if (inner >= 0) {
      this.fleet.withdraw(inner, t);
      return;
    }
    const h = ~inner;
    const H = this.handlers;
    const steps = (this.endpoints[H.hEndpoint[h] as number] as EndpointRuntime).steps as CallStepRuntime[];
    const step = steps[H.hStep[h] as number];
    H.hGen[h] = (H.hGen[h] as number) + 1;
    if (step !== undefined) this.cancelOutstanding(h, step, t);
    H.release(h);
    leaf.freed(r);
  }

  // ------------------------------------------------------------ the fleet's host

  respond(s: number, outcome: number, retryAfterMs: number, t: number): void {
    const leaf = this.callers[this.upCaller[s] as number] as ServiceLeaf;
    const r = this.upR[s] as number;
    this.req.release(s);
    leaf.answer(r, outcome, retryAfterMs, false, t);
  }

  stillWanted(s: number): boolean {
    return (this.callers[this.upCaller[s] as number] as ServiceLeaf).wanted(this.upR[s] as number);
  }

  drop(s: number, t: number): void {
    const leaf = this.callers[this.upCaller[s] as number] as ServiceLeaf;
    const r = this.upR[s] as number;
    this.req.release(s);
    leaf.lost(r, t);
  }

  release(s: number): void {
    const leaf = this.callers[this.upCaller[s] as number] as ServiceLeaf;
    const r = this.upR[s] as number;
    this.req.release(s);
    leaf.freed(r);
  }

  /** Hops between services belong to the callers' stacks: the fleet's own answers take none (OCC fleets with handlers are not run). */
  lastHop(): LastHop {
    return NO_HOP;
  }

  // ------------------------------------------------------------ handlers

  private startHandler(leaf: ServiceLeaf, r: number, endpoint: number, t: number): void {
    const H = this.handlers;
    const up = leaf.callerReq;
    const h = H.alloc();
    leaf.inner[r] = ~h;
    H.hCaller[h] = leaf.caller;
    H.hR[h] = r;
    H.hEndpoint[h] = endpoint;
    H.hStep[h] = 0;
    H.hDegraded[h] = 0;
    H.hBackend[h] = this.nextBackend;
    this.nextBackend = (this.nextBackend + 1) % this.backendCount;
    H.hDeadline[h] = up.deadline[r] as number;
    H.hChain[h] = up.chain[r] as number;
    H.hBad[h] = up.bad[r] as number;
    H.hOpSeq[h] = up.opSeq[r] as number;
    this.runStep(h, t);
  }

  /** Run handler h's current step, or answer success when none is left. */
  private runStep(h: number, t: number): void {
    const H = this.handlers;
    const steps = (this.endpoints[H.hEndpoint[h] as number] as EndpointRuntime).steps as CallStepRuntime[];
    const step = steps[H.hStep[h] as number];
    if (step === undefined) {
      this.answer(h, Outcome.SUCCESS, t);
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
      const ly = site.layers;
      const f = ly.openCall(H.hBackend[h] as number, site.method, H.hBad[h] as number, H.hChain[h] as number, H.hOpSeq[h] as number, H.hDeadline[h] as number);
      site.record(f, h, gen, j);
      H.hFrames[base + j] = f;
      ly.beginCall(f, t);
    }
  }

  /** Call j of handler h's current step (generation gen) ended: the join decides, or waits. */
  callEnded(h: number, gen: number, j: number, reason: number, outcome: number, degraded: boolean, t: number): void {
    const H = this.handlers;
    if (H.hGen[h] !== gen) return;
    const steps = (this.endpoints[H.hEndpoint[h] as number] as EndpointRuntime).steps as CallStepRuntime[];
    const step = steps[H.hStep[h] as number] as CallStepRuntime;
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
    let decided: 'success' | 'failure' | null = null;
    if (step.join === JOIN_ALL) {
      if (!ok && !optional) decided = 'failure';
      else if (pending === 0) decided = 'success';
    } else if (step.join === JOIN_ANY) {
      if (ok) decided = 'success';
      else if (pending === 0) decided = 'failure';
    } else if (succ >= step.k) decided = 'success';
    else if (succ + pending < step.k) decided = 'failure';
    if (decided === null) return;
    H.hGen[h] = gen + 1;
    if (step.cancellation) this.cancelOutstanding(h, step, t);
    else H.hFrames.fill(-1, h * H.maxCalls, (h + 1) * H.maxCalls);
    if (decided === 'success') {
      H.hStep[h] = (H.hStep[h] as number) + 1;
      this.runStep(h, t);
    } else this.answer(h, upwardOutcome(outcome), t);
  }

  /** Cancel the calls of handler h's step still outstanding. */
  private cancelOutstanding(h: number, step: CallStepRuntime, t: number): void {
    const H = this.handlers;
    const base = h * H.maxCalls;
    for (let j = 0; j < step.sites.length; j++) {
      const f = H.hFrames[base + j] as number;
      if (f < 0) continue;
      H.hFrames[base + j] = -1;
      (step.sites[j] as CallSite).layers.cancelCall(f, t);
    }
  }

  /** Handler h ends: its answer goes to its caller. */
  private answer(h: number, outcome: number, t: number): void {
    const H = this.handlers;
    const leaf = this.callers[H.hCaller[h] as number] as ServiceLeaf;
    const r = H.hR[h] as number;
    const degraded = H.hDegraded[h] === 1;
    H.release(h);
    leaf.answer(r, outcome, NaN, degraded, t);
  }

  /** Whether handler h (generation gen) still waits for a call, and its own caller for it. */
  waitsFor(h: number, gen: number): boolean {
    const H = this.handlers;
    return H.hGen[h] === gen && (this.callers[H.hCaller[h] as number] as ServiceLeaf).wanted(H.hR[h] as number);
  }
}
