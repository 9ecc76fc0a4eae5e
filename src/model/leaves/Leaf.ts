import type { Sampler } from '../../engine/distributions.js';
import type { Simulator } from '../../engine/simulator.js';
import type { Measurements } from '../Measurements.js';
import type { RequestTable } from '../RequestTable.js';
import type { Leaf as LeafSpec } from '../scenario.js';

/** The kinds of leaf a scenario may have; a switch over them ends in {@link unknownLeaf}. */
export type LeafKind = LeafSpec['kind'];

/** The default branch of a switch over leaf kinds: the compiler reports a kind left out. */
export function unknownLeaf(kind: never): never {
  throw new Error(`internal: unknown leaf kind ${String(kind)}`);
}

/** {@link LeafAnswer.verdict}: the request is served or queued (it needs a request slot). */
export const NEEDS_SLOT = -1;
/** {@link LeafAnswer.verdict}: a fault answers the request after a latency (it needs a request slot). */
export const DELAYED_ANSWER = -2;

/**
 * What a leaf answers a request on arrival, filled by {@link Leaf.arriveAtOnce} into an object the
 * caller owns and passes in (nothing is allocated per request, and nothing is left in the leaf's
 * fields for the caller to pick up).
 */
export class LeafAnswer {
  /** An outcome code (>= 0) answered at once, or {@link NEEDS_SLOT} / {@link DELAYED_ANSWER}. */
  verdict = 0;
  /** The answer's Retry-After or pushback hint (ms; NaN: none). */
  retryAfterMs = NaN;
  /** {@link DELAYED_ANSWER}: the outcome answered after {@link delayMs}. */
  delayedOutcome = 0;
  delayMs = 0;
  /** The backend the load balancer chose (-1: the leaf has none). */
  backend = -1;
}

/** What a leaf needs from the model: where its answers go. */
export interface LeafHost {
  /** Send request r's answer back to its caller (the model frees the slot). */
  respond(r: number, outcome: number, retryAfterMs: number, t: number): void;
  /** Whether anyone up the chain still waits for request r (work nobody waits for is wasted). */
  stillWanted(r: number): boolean;
  /** Request r is lost without an answer (a crash, an expired request dropped): its caller will time out. */
  drop(r: number, t: number): void;
  /** Free request r, withdrawn by its caller (cancellation) or no longer needed. */
  release(r: number): void;
  /** The last hop, for the leaf to draw its delays itself (asked once, when the leaf is built). */
  lastHop(): LastHop;
  /**
   * A request that holds its worker (a threaded handler's: its `RequestTable.work` is `WORK_HOLD`)
   * starts its service at t on backend b: the worker is now held for it (busy), and the farm
   * schedules nothing for it. The host runs the handler on that worker (timing its `work` steps with
   * `ServerFarm.drawServiceMs`) and frees it with `ServerFarm.releaseWorker`, unless a crash or
   * outage of b loses the request first ({@link drop}). The model's own layers never send such a
   * request.
   */
  workerTaken(r: number, b: number, t: number): void;
}

/**
 * The last hop as a leaf draws it, without a call through its host per draw: set `stream.client`
 * to the client whose network stream the draws come from, then each `sample.sample()` is the delay
 * of one of that client's messages over the last hop. The model's own hop draws set the same
 * cursor, so the draws come in the one order of the run.
 */
export interface LastHop {
  readonly stream: { client: number };
  readonly sample: Sampler;
}

/** What every leaf is built from. */
export interface LeafContext {
  sim: Simulator;
  req: RequestTable;
  host: LeafHost;
  measurements: Measurements;
  /**
   * The first event kind of the leaf's range, given by the model: the leaf schedules kinds
   * `kindBase + k` for its local kinds k in [0, its kind count), and receives them back in
   * {@link Leaf.dispatch} as k.
   */
  kindBase: number;
  seed: number;
  /** Simulated time at which the run starts (-warmupMs). */
  startMs: number;
  binMs: number;
  /** Keep counts per bin (served, refusals by reason, crashes, wasted work: a service of a graph); off, nothing is binned. */
  binCounts?: boolean;
}

/**
 * Totals of a server leaf, declared once: the results' `server` block (results.ts) reports them in
 * this order (less `concurrency`, with the model's `queuedAtEnd` before `inServiceAtEnd` and the
 * utilisation after), and a leaf without servers reports {@link NO_SERVER_TOTALS}.
 */
export interface ServerTotals {
  /** Workers over all backends (Infinity: unlimited). */
  concurrency: number;
  meanBusy: number;
  /** Server time spent on requests whose caller had already stopped waiting. */
  wastedWorkMs: number;
  maxQueue: number;
  served: number;
  shed: number;
  dropped: number;
  faulted: number;
  /** Requests refused because their backend was down (a pool's outages and crashes). */
  refused: number;
  /** Requests of bad input, answered 400 at once. */
  rejected: number;
  /** Requests lost when their backend went down (queued or in service; their callers time out). */
  lost: number;
  cancelled: number;
  inServiceAtEnd: number;
}

/** The totals of a leaf without servers (the OCC resource, the script): unlimited concurrency, every count 0. */
export const NO_SERVER_TOTALS: Readonly<ServerTotals> = {
  concurrency: Infinity,
  meanBusy: 0,
  wastedWorkMs: 0,
  maxQueue: 0,
  served: 0,
  shed: 0,
  dropped: 0,
  faulted: 0,
  refused: 0,
  rejected: 0,
  lost: 0,
  cancelled: 0,
  inServiceAtEnd: 0,
};

/** The time series of a server leaf (per bin means), and of its fleet when it is a pool. */
export interface ServerSeries {
  queue: number[];
  busy: number[];
  healthyBackends: number[];
  downBackends: number[];
  ejectedBackends: number[];
  backendBusy: number[][];
  backendQueue: number[][];
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
 * The contract of a leaf: what the model needs from whatever answers the last layer's requests (in
 * the spirit of SimPy's `BaseResource`, whose docstring lists what a subclass supplies). A request
 * is a slot of the {@link RequestTable} filled by the model; the leaf answers it through
 * {@link LeafHost.respond}, now or from one of its own events. Implemented by the server pool
 * (`server/ServerFarm.ts`), the optimistic-concurrency resource (`OccLeaf.ts`) and the scripted
 * leaf (`ScriptLeaf.ts`); `makeLeaf.ts` builds the one a scenario names.
 */
export interface Leaf {
  /** Whether {@link arriveAtOnce} may answer without a request slot (only asked when the last hop takes no time). */
  readonly answersAtOnce: boolean;
  /** Whether the leaf takes a request before its arrival event ({@link arriveAhead}; see folds.ts). */
  readonly arrivesAhead: boolean;
  /** Request r, attempt `attempt` of last-layer frame `frame`, leaves the last layer: a pool's load balancer chooses its backend now. */
  route(r: number, frame: number, attempt: number): void;
  /** Request r reaches the leaf at t (already counted as a leaf arrival). */
  arrive(r: number, t: number): void;
  /**
   * Attempt `attempt` of last-layer frame `frame` reaches the leaf at t with no hop and no request
   * slot yet (`bad`: invalid input; `chain`: 1 when it is retry traffic, the request's `chain`).
   * Returns true when `answer.verdict` is the outcome answered at once (nothing is held); false
   * when the model must take a slot and pass it to {@link hold}.
   */
  arriveAtOnce(frame: number, attempt: number, bad: boolean, t: number, answer: LeafAnswer, chain: number): boolean;
  /** After {@link arriveAtOnce} returned false: request r (filled) holds what `answer` says. */
  hold(r: number, answer: LeafAnswer, t: number): void;
  /** Request r (armed with generation `gen`) is sent at t: the leaf schedules its arrival's consequences itself (see folds.ts). */
  arriveAhead(r: number, gen: number, t: number): void;
  /** The caller of request r stopped waiting (its attempt timed out); the request may go on. */
  abandon(r: number, t: number): void;
  /** Cancellation: the caller withdraws request r (not free, not already withdrawn); the leaf frees it or its place. */
  withdraw(r: number, t: number): void;
  /**
   * One of the leaf's own events (`kind` relative to its first kind); `active` says whether the
   * run still has work. Returns whether the event counts as activity (moves the measured end of the run).
   */
  dispatch(kind: number, a: number, b: number, t: number, active: boolean): boolean;
  /** Schedule the leaf's own timed events at the start of the run (t0 = -warmupMs). */
  start(t0: number): void;
  /** Close the leaf's time series at the end of the run. */
  finish(endMs: number): void;
  /** The server totals (null: the leaf has no servers). */
  totals(): ServerTotals | null;
  /** The server series over `bins` bins (null: the leaf has no servers). */
  series(bins: number): ServerSeries | null;
  /** Per-backend counters (a pool only). */
  backendStats(): BackendStats[] | undefined;
}
