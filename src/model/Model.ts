import { isContinuous, makeSampler, standardExponential, type Sampler } from '../engine/distributions.js';
import { ClientRandom, deriveSeed, stream, type Uniform } from '../engine/random.js';
import { EventQueue } from '../engine/eventQueue.js';
import { Simulator } from '../engine/simulator.js';
import { Timers } from '../engine/timers.js';
import { BinnedSeries, LogHistogram, StreamingClustering, TimeWeightedSeries } from '../metrics/index.js';
import { backoffIsRandom, initialPrevSleepMs } from '../policy/backoff.js';
import { makeAdmissionControl, type AdmissionControl } from '../policy/budgets/AdmissionControl.js';
import { makeBudgetChain, type BudgetChain } from '../policy/budgets/BudgetChain.js';
import { acceptedByBackend, isIdempotent } from '../policy/classify.js';
import {
  attemptTimeoutMs,
  compilePolicy,
  CONTINUE,
  effectiveDeadlineAtMs,
  isHedgeNonFatal,
  judgeOutcome,
  planRetry,
  retryableForBudgets,
  RetryPlan,
  type CompiledPolicy,
  type PlanContext,
} from '../policy/decision.js';
import { GIVE_UP_NAMES, GiveUp, Outcome, OUTCOME_NAMES } from '../policy/outcome.js';
import { rateFunction, type RateFunction } from './rateSchedule.js';
import { statusOutcome } from './statusOutcome.js';
import { ColumnBuffer, NO_F64, NO_I32, NO_U8 } from './typedArrays.js';
import { R_CANCELLED, R_DELAYED, R_FREE, R_HANG, R_HOP, R_QUEUED, R_SERVICE, RequestTable } from './RequestTable.js';
import { K_FAULT_ANSWER, K_SERVICE_DONE, NEEDS_SLOT, ServerFarm } from './ServerFarm.js';
import { buildResults, type ResultInput, type SimulationResults, type Truncation } from './results.js';
import type { Dist, Method, Scenario, ScriptEntry, Status } from './scenario.js';
import { ScenarioError } from './ScenarioError.js';
import { MetricWindows } from '../metrics/MetricWindows.js';
import type { TraceEvent } from './trace.js';

/** Event kinds dispatched by the run loop (integers: no closure per event). */
const K_OP_START = 1;
const K_ARRIVAL = 2;
const K_FRAME_WAKE = 3;
const K_FRAME_TIMEOUT = 4;
const K_FRAME_ARRIVE = 5;
const K_FRAME_RESPONSE = 6;
const K_LEAF_ARRIVE = 7;
const K_LEAF_DONE = 8;
const K_LEAF_RESPONSE = 9;
const K_OCC_WRITE = 10;
/** An admitted attempt is sent after the admission control's delay (frame events are kinds 3-6 and 12-13). */
const K_FRAME_SEND = 12;
/** The hedging delay ran out with no answer: send another copy. */
const K_HEDGE = 13;

/** fChild value when no downstream call is outstanding; leaf requests are stored as ~r. */
const NO_CHILD = 0x7fffffff;

const METHOD_CODES: Record<Method, number> = { GET: 0, HEAD: 1, PUT: 2, DELETE: 3, POST: 4 };
const METHODS: Method[] = ['GET', 'HEAD', 'PUT', 'DELETE', 'POST'];
const GIVE_UP_COUNT = GIVE_UP_NAMES.length;

/** Options of one simulation run. */
export interface ModelOptions {
  /** Master seed: every random stream derives from it. */
  seed: number;
  /** Fix every jitter draw to this fraction of its range (teaching and tests). */
  fixedDraw?: number;
  /** Receives a timeline of every call, attempt, outcome, wait and give-up (slow; for `trace`). */
  trace?: (e: TraceEvent) => void;
}


/**
 * The stream given where the scenario never draws (building a named stream costs more than the
 * events of a small run, and skipping one leaves every other stream as it was).
 */
const notDrawn: Uniform = () => {
  throw new Error('internal: a random stream the scenario does not use was drawn from');
};

/** The stream to sample `d` from: a constant never draws, so none is built for it. */
function streamFor(d: Dist, seed: number, name: string): Uniform {
  return d.dist === 'constant' ? notDrawn : stream(seed, name);
}

/** Failures that count against a backend for outlier detection (Envoy consecutive_5xx: 5xx, resets, timeouts). */
function isBackendFailure(outcome: number): boolean {
  return outcome === Outcome.S500 || outcome === Outcome.S503 || outcome === Outcome.OVERLOADED || outcome === Outcome.TIMEOUT;
}


/**
 * The simulation model: a workload of operations calling down a stack of retrying layers to a
 * leaf (a capacity-limited server, an optimistic-concurrency resource, or a scripted leaf).
 *
 * Each layer's call for one operation is a "frame" held in typed arrays; a frame runs the retry
 * loop of its layer's policy (src/policy) against the next hop. A caller that stops waiting (an
 * attempt timeout) abandons its downstream call, which goes on unless cancellation is enabled:
 * orphaned frames keep retrying, and server time spent on requests nobody waits for is wasted
 * work. Nothing is allocated per event; per-client jitter state lives in typed arrays.
 */
export class Model {
  private readonly sc: Scenario;
  private readonly sim: Simulator;
  private readonly L: number;
  private readonly policies: CompiledPolicy[];
  /** idempotent[layer * 5 + methodCode]. */
  private readonly idempotent: Uint8Array;
  /** Per layer: the delay of its hop down (and of the answer back), drawn through {@link hopMs}. */
  private readonly hop: Sampler[];
  /** The client whose network stream the next hop draw comes from. */
  private netClient = 0;
  private readonly hopZero: boolean[];
  private readonly jitter: ClientRandom[];
  private readonly needsDraw: boolean[];
  /** Per layer: the backoff's starting "previous sleep" and whether its jitter is seeded at call start. */
  private readonly initialSleep: Float64Array;
  private readonly timeSeeded: boolean[];
  /** Per-operation constants of the workload. */
  private readonly opMethod: number = 0;
  private readonly opBadFraction: number = 0;
  private readonly opDeadlineMs: number = 0;
  private readonly closedLoop: boolean;
  private readonly durationMs: number = 0;
  private readonly horizonMs: number;
  /** The open loop's cap on operations in flight (Infinity for closed loops and bursts). */
  private readonly maxInFlight: number = 0;
  private readonly fixedDraw: number | undefined;
  private readonly trace: ((e: TraceEvent) => void) | undefined;
  private readonly plan = new RetryPlan();
  private readonly planCtx: PlanContext = { outcome: 0, callStartMs: NaN };
  /** Per layer and instance: the retry budgets and the admission control (empty / null when none). */
  private readonly chains: BudgetChain[][];
  private readonly admissions: Array<Array<AdmissionControl | null>>;
  private readonly hasBudget: boolean[];
  private readonly hasAdmission: boolean[];
  /** Per layer: it has budgets or an admission control (told of every attempt's outcome). */
  private readonly guarded: boolean[];
  private readonly instances: number[];
  private readonly hedging: boolean[];
  private readonly uAdmission: Uniform;
  /** Per layer with budgets: the first budget's gauge of each instance, their sum, and its series. */
  private readonly budgetGauge: Float64Array[];
  private readonly budgetGaugeSum: Float64Array;
  private readonly gBudget: Array<TimeWeightedSeries | null>;
  private readonly hedgeTimers = new Timers(16);
  /**
   * Per layer with a per-attempt timeout: the event queue's lane for its timeouts (-1: none). With
   * a constant timeout they come in time order, so they need no heap, and most of them are stale
   * by the time they pop (the attempt ended first).
   */
  private readonly timeoutLane: Int32Array;
  /** Per layer whose backoff is none or constant: the lane for its wake-ups (in time order but for Retry-After hints). */
  private readonly wakeLane: Int32Array;
  /** Per layer whose hop is a constant delay above 0: the lane for the messages crossing it (-1: none). */
  private readonly hopLane: Int32Array;
  /** Closed loops with a constant think time: the lane for the next operations' starts (-1: none). */
  private readonly thinkLane: number;
  /** The OCC leaf behind a constant hop above 0: the lane for the writes that follow reads (-1: none). */
  private readonly occWriteLane: number;
  private readonly clients: number;
  private readonly seed: number;

  // Random streams.
  private readonly uWorkload: Uniform;
  private readonly thinkSampler: Sampler | null;
  private readonly startSampler: Sampler | null;
  private readonly arrivalU: Uniform;
  private readonly rate: RateFunction | null;
  /** A steady open-loop rate needs no thinning. */
  private readonly steadyRate: boolean;

  // Frames (one layer's call for one operation).
  private frameTimers = new Timers(16);
  private fCap = 0;
  private fFree: number[] = [];
  private fNext = 0;
  private fLayer: Int32Array = NO_I32;
  private fParent: Int32Array = NO_I32;
  private fParentGen: Int32Array = NO_I32;
  private fAttempts: Int32Array = NO_I32;
  private fClient: Int32Array = NO_I32;
  /** The instance of its layer the frame's client goes through (client % instances), set where the layer has budgets or admission control. */
  private fInst: Int32Array = NO_I32;
  private fMethod: Uint8Array = NO_U8;
  private fBad: Uint8Array = NO_U8;
  private fChain: Uint8Array = NO_U8;
  private fChild: Int32Array = NO_I32;
  private fLastOutcome: Int32Array = NO_I32;
  private fResOutcome: Int32Array = NO_I32;
  private fOpSeq: Float64Array = NO_F64;
  private fDeadline: Float64Array = NO_F64;
  private fStart: Float64Array = NO_F64;
  private fPrevSleep: Float64Array = NO_F64;
  private fLastRA: Float64Array = NO_F64;
  private fResRA: Float64Array = NO_F64;
  private fAttemptEnd: Float64Array = NO_F64;
  /** Attempts made before the last backoff reset (a gRPC pushback restarts the backoff sequence). */
  private fBackoffBase: Int32Array = NO_I32;
  /** 1 while the frame has an attempt in flight (sent, not yet ended). */
  private fInAttempt: Uint8Array = NO_U8;
  /** Hedging: copies in flight. */
  private fOutstanding: Int32Array = NO_I32;

  // Leaf requests.
  private readonly req: RequestTable;

  // The leaf: a server or a pool of them (null for the OCC and script leaves).
  private readonly farm: ServerFarm | null;
  /** Pools with Envoy's previous_hosts predicate: backends each last-layer frame tried (4 slots). */
  private readonly avoidHosts: boolean;
  /**
   * A last-layer retry is decided when the failed answer leaves the leaf ({@link Model.retryAhead}):
   * nothing can reach a frame while its answer crosses the hop. That holds when each client has one
   * operation at a time (burst, closed loop), no layer has a timeout or a deadline (nothing abandons
   * or ends a call early; no layer hedges), the last layer has no budget, admission control,
   * maxElapsedMs or timer tick, cancellation is off and no trace is taken; and the last hop's delay
   * is continuous. The wake-up is scheduled earlier than it would be at arrival, so among events at
   * exactly the same time it would come first: with a constant hop (or a timer tick) such ties are
   * common and their order changes what happens next, so the answer stays an event there.
   */
  private readonly foldAnswers: boolean;
  /**
   * Where answers fold and the leaf is not a pool, a retry decided ahead is also sent ahead: the
   * wake-up would only send the attempt, and nothing reaches the frame while it waits, so the
   * attempt is sent (counted, its hop drawn) when the retry is planned, with the wake-up's time
   * (one event less per retry). A pool is left out: its load balancer would see the request early.
   */
  private readonly sendAhead: boolean;
  /**
   * Where answers fold and the leaf is optimistic concurrency, a request reads without an event
   * ({@link occReadAhead}): one event per write. The reads wait in `pendingReads` (time, chain)
   * until the clock passes them, so that the clustering statistics still see arrivals in time order.
   */
  private readonly readAhead: boolean;
  private readonly pendingReads: EventQueue | null;
  /** Time of the last successful OCC write (-Infinity before the first). */
  private lastCommitMs = -Infinity;
  /** The servers may answer a request on arrival (refusals, faults, invalid requests): try that before taking a request slot. */
  private readonly answersOnArrival: boolean;
  private fTried: Int32Array = NO_I32;
  private fTriedCount: Uint8Array = NO_U8;
  /** Operation starts and arrivals still scheduled (the run has work while > 0 or operations are in flight). */
  private pendingStarts = 0;
  private occVersion = 0;
  private readonly script: ScriptEntry[];
  private readonly scriptIndex = new Map<number, number>();

  // Operations.
  private nextOpSeq = 0;
  /** Time of the last event that was not a stale timer. */
  private lastLiveMs = 0;
  private inFlightOps = 0;

  // Measurements (t >= 0 only).
  private offered = 0;
  private succeeded = 0;
  private failed = 0;
  private readonly giveUps = new Float64Array(GIVE_UP_COUNT);
  private readonly layerFirst: Float64Array;
  private readonly layerRetries: Float64Array;
  private readonly layerGiveUps: Float64Array;
  private readonly layerCancelled: Float64Array;
  private readonly layerHedges: Float64Array;
  private leafCalls = 0;
  private reads = 0;
  private writes = 0;
  private completionTimeMs = 0;
  /** Durations of the operations that succeeded (the latency) and of those that failed (merged into operationMs at the end). */
  private readonly latency = new LogHistogram();
  private readonly failedMs = new LogHistogram();
  private readonly clustering: StreamingClustering[];
  /** The same statistics over retry traffic alone (arrivals sent while some layer was retrying). */
  private readonly retryClustering: StreamingClustering[];
  private readonly sArrFirst: BinnedSeries;
  private readonly sArrRetry: BinnedSeries;
  private readonly sSuccess: BinnedSeries;
  /** The named metric windows, or null without any (the hot path then skips them). */
  private readonly windows: MetricWindows | null;
  private readonly sFailure: BinnedSeries;
  /** OCC leaf only. */
  private readonly sWrites: BinnedSeries | null;
  private readonly gInFlight: TimeWeightedSeries;

  constructor(scenario: Scenario, options: ModelOptions) {
    const sc = scenario;
    this.sc = sc;
    this.L = sc.stack.length;
    if (this.L < 1) throw new ScenarioError(['scenario.stack must have at least one layer']);
    // Storage starts at the size a small run needs and doubles as it grows (a sweep runs many small ones).
    const wl = sc.workload;
    const initial = wl.kind === 'open' ? 1024 : Math.min(1024, Math.max(32, 1 << Math.ceil(Math.log2(wl.clients * this.L + 1))));
    this.sim = new Simulator(-sc.warmupMs, initial);
    this.req = new RequestTable(initial);
    this.fixedDraw = options.fixedDraw;
    this.trace = options.trace;
    const seed = options.seed;
    this.seed = seed;
    this.clients = sc.workload.clients;

    this.policies = sc.stack.map((l) => compilePolicy(l.policy));
    this.idempotent = new Uint8Array(this.L * 5);
    sc.stack.forEach((l, k) => {
      METHODS.forEach((m, i) => {
        this.idempotent[k * 5 + i] = isIdempotent(m, l.policy.idempotency) ? 1 : 0;
      });
    });
    const hopDists = sc.stack.map((l) => l.hopMs ?? sc.network.hopMs);
    // Each client's messages draw their hops from the client's own stream, in the client's own order.
    const net = hopDists.some((d) => d.dist !== 'constant')
      ? new ClientRandom(this.clients, deriveSeed(seed, 'network'), { kind: 'independent' })
      : null;
    const uNet: Uniform = net ? () => net.next(this.netClient) : notDrawn;
    this.hop = hopDists.map((d) => makeSampler(d, uNet));
    // What a constant delay above 0 schedules comes in time order: a lane of the event queue (-1: the heap).
    const constantDelay = (d: Dist): boolean => d.dist === 'constant' && d.value > 0;
    this.hopLane = Int32Array.from(hopDists, (d) => (constantDelay(d) ? this.sim.addLane() : -1));
    this.occWriteLane = sc.leaf.kind === 'occ' && constantDelay(hopDists[hopDists.length - 1] as Dist) ? this.sim.addLane() : -1;
    this.thinkLane = sc.workload.kind === 'closed' && sc.workload.thinkMs.dist === 'constant' ? this.sim.addLane() : -1;
    this.hopZero = sc.stack.map((l) => {
      const d = l.hopMs ?? sc.network.hopMs;
      return d.dist === 'constant' && d.value === 0;
    });
    this.jitter = sc.stack.map(
      (l, k) => new ClientRandom(this.clients, deriveSeed(seed, 'jitter', k), l.policy.seeding ?? { kind: 'independent' }),
    );
    this.needsDraw = sc.stack.map((l) => backoffIsRandom(l.policy.backoff.kind, l.policy.backoff));
    this.initialSleep = Float64Array.from(sc.stack, (l) => initialPrevSleepMs(l.policy.backoff));
    this.timeSeeded = sc.stack.map((l) => l.policy.seeding?.kind === 'time-seeded');
    this.opMethod = METHOD_CODES[sc.workload.method];
    this.opBadFraction = sc.workload.permanentErrorFraction;
    this.opDeadlineMs = sc.workload.deadlineMs ?? Infinity;
    this.closedLoop = sc.workload.kind === 'closed';
    // Closed loops and bursts hold at most one operation per client: only an open loop can pile up.
    this.maxInFlight = sc.workload.kind === 'open' ? sc.maxInFlight : Infinity;
    this.durationMs = sc.workload.kind === 'burst' ? Infinity : sc.workload.durationMs;
    this.horizonMs = sc.horizonMs;
    this.instances = sc.stack.map((l) => l.instances);
    this.timeoutLane = Int32Array.from(sc.stack, (l) => (l.policy.perAttemptTimeoutMs !== undefined ? this.sim.addLane() : -1));
    this.wakeLane = Int32Array.from(sc.stack, (l) => {
      const kind = l.policy.backoff.kind;
      return l.policy.maxAttempts !== 1 && (kind === 'none' || kind === 'constant') ? this.sim.addLane() : -1;
    });
    this.chains = sc.stack.map((l) => Array.from({ length: l.instances }, () => makeBudgetChain(l.policy.budget)));
    this.hasBudget = sc.stack.map((l) => (l.policy.budget?.length ?? 0) > 0);
    this.admissions = sc.stack.map((l) =>
      Array.from({ length: l.instances }, () => (l.policy.admission ? makeAdmissionControl(l.policy.admission) : null)),
    );
    this.hasAdmission = sc.stack.map((l) => l.policy.admission !== undefined);
    this.guarded = sc.stack.map((_, k) => (this.hasBudget[k] as boolean) || (this.hasAdmission[k] as boolean));
    this.hedging = sc.stack.map((l) => l.policy.hedging !== undefined);
    this.uAdmission = this.hasAdmission.some((a) => a) ? stream(seed, 'admission') : notDrawn;
    this.budgetGauge = sc.stack.map((l, k) => {
      const g = new Float64Array(l.instances);
      if (this.hasBudget[k]) for (let i = 0; i < l.instances; i++) g[i] = (this.chains[k]?.[i]?.budgets[0]?.gauge(-sc.warmupMs) ?? 0);
      return g;
    });
    this.budgetGaugeSum = new Float64Array(this.L);
    this.budgetGauge.forEach((g, k) => (this.budgetGaugeSum[k] = g.reduce((a, b) => a + b, 0)));

    const w = sc.workload;
    const picksClients = w.kind === 'open' && w.clients > 1;
    this.uWorkload = picksClients || w.permanentErrorFraction > 0 ? stream(seed, 'workload') : notDrawn;
    this.arrivalU = w.kind === 'open' ? stream(seed, 'arrivals') : notDrawn;
    this.thinkSampler = w.kind === 'closed' ? makeSampler(w.thinkMs, streamFor(w.thinkMs, seed, 'think')) : null;
    this.startSampler = w.kind !== 'open' ? makeSampler(w.startMs, streamFor(w.startMs, seed, 'start')) : null;
    this.rate = w.kind === 'open' ? rateFunction(w.rate) : null;
    this.steadyRate = w.kind === 'open' && w.rate.kind === 'steady';

    const leaf = sc.leaf;
    const backends = leaf.kind === 'server' ? [leaf] : leaf.kind === 'pool' ? leaf.clusters.flatMap((c) => c.backends) : [];
    this.script = leaf.kind === 'script' ? leaf.script : [];
    if (leaf.kind === 'script') this.checkScript();
    this.farm =
      leaf.kind === 'server' || leaf.kind === 'pool'
        ? new ServerFarm(
            leaf,
            this.sim,
            this.req,
            {
              respond: (r, outcome, ra, t) => this.leafRespond(r, outcome, ra, t),
              stillWanted: (r) => this.stillWanted(r),
              drop: (r, t) => this.dropRequest(r, t),
              release: (r) => this.freeRequest(r),
            },
            backends.some((b) => b.faults.length > 0) ? stream(seed, 'faults') : notDrawn,
            leaf.kind === 'pool' ? stream(seed, 'load-balancer') : notDrawn,
            stream(seed, 'service'),
            backends.some((b) => b.faults.some((f) => f.latencyMs !== undefined)) ? stream(seed, 'fault-latency') : notDrawn,
            sc.metrics.timeSeriesBinMs,
            -sc.warmupMs,
          )
        : null;
    this.avoidHosts = leaf.kind === 'pool' && sc.stack[this.L - 1]?.policy.retryHostPredicate === 'previous-hosts';
    this.answersOnArrival = this.farm !== null && (this.farm.mayRefuse || this.opBadFraction > 0);
    const last = this.L - 1;
    const lastPolicy = this.policies[last] as CompiledPolicy;
    this.foldAnswers =
      isContinuous(sc.stack[last]?.hopMs ?? sc.network.hopMs) &&
      sc.workload.kind !== 'open' &&
      sc.workload.deadlineMs === undefined &&
      this.policies.every((q) => q.perAttemptTimeoutMs === Infinity && q.totalTimeoutMs === Infinity) &&
      !this.hedging.some((h) => h) &&
      !this.hasBudget[last] &&
      !this.hasAdmission[last] &&
      lastPolicy.maxElapsedMs === Infinity &&
      lastPolicy.tickMs === 0 &&
      !sc.cancellation &&
      this.trace === undefined;
    this.sendAhead = this.foldAnswers && leaf.kind !== 'pool';
    this.readAhead = this.foldAnswers && leaf.kind === 'occ';
    this.pendingReads = this.readAhead ? new EventQueue(Math.min(1024, this.clients + 1)) : null;

    this.layerFirst = new Float64Array(this.L);
    this.layerRetries = new Float64Array(this.L);
    this.layerGiveUps = new Float64Array(this.L * GIVE_UP_COUNT);
    this.layerCancelled = new Float64Array(this.L);
    this.layerHedges = new Float64Array(this.L);
    const m = sc.metrics;
    this.clustering = m.clusteringBinMs.map((b) => new StreamingClustering(b));
    this.retryClustering = m.clusteringBinMs.map((b) => new StreamingClustering(b));
    this.sArrFirst = new BinnedSeries(m.timeSeriesBinMs);
    this.sArrRetry = new BinnedSeries(m.timeSeriesBinMs);
    this.sSuccess = new BinnedSeries(m.timeSeriesBinMs);
    this.windows = m.windows && m.windows.length > 0 ? new MetricWindows(m.windows) : null;
    this.sFailure = new BinnedSeries(m.timeSeriesBinMs);
    this.sWrites = sc.leaf.kind === 'occ' ? new BinnedSeries(m.timeSeriesBinMs) : null;
    this.gInFlight = new TimeWeightedSeries(m.timeSeriesBinMs, 1_000_000, -sc.warmupMs, 0);
    this.gBudget = sc.stack.map((l, k) =>
      this.hasBudget[k]
        ? new TimeWeightedSeries(m.timeSeriesBinMs, 1_000_000, -sc.warmupMs, (this.budgetGaugeSum[k] as number) / l.instances)
        : null,
    );

    this.growFrames(initial);
  }

  private checkScript(): void {
    if (this.script.length === 0) throw new ScenarioError(['scenario.leaf.script must not be empty']);
    const hangs = this.script.some((e) => e.status === 'hang');
    // The same rule as the experiment schema: some layer's per-attempt timeout, or a deadline, ends a hung attempt.
    const bounded =
      this.sc.workload.deadlineMs !== undefined || this.sc.stack.some((l) => l.policy.perAttemptTimeoutMs !== undefined);
    if (hangs && !bounded) {
      throw new ScenarioError([
        'scenario.leaf.script has "hang", which never answers: set a per-attempt timeout or a deadline',
      ]);
    }
  }

  // ---------------------------------------------------------------- storage

  private growFrames(n: number): void {
    const c = new ColumnBuffer(n, 7, 11, 5);
    this.fOpSeq = c.f64(this.fOpSeq);
    this.fDeadline = c.f64(this.fDeadline);
    this.fStart = c.f64(this.fStart);
    this.fPrevSleep = c.f64(this.fPrevSleep);
    this.fLastRA = c.f64(this.fLastRA);
    this.fResRA = c.f64(this.fResRA);
    this.fAttemptEnd = c.f64(this.fAttemptEnd);
    this.fLayer = c.i32(this.fLayer);
    this.fParent = c.i32(this.fParent);
    this.fParentGen = c.i32(this.fParentGen);
    this.fAttempts = c.i32(this.fAttempts);
    this.fClient = c.i32(this.fClient);
    this.fInst = c.i32(this.fInst);
    this.fChild = c.i32(this.fChild);
    this.fLastOutcome = c.i32(this.fLastOutcome);
    this.fResOutcome = c.i32(this.fResOutcome);
    this.fBackoffBase = c.i32(this.fBackoffBase);
    this.fOutstanding = c.i32(this.fOutstanding);
    this.fMethod = c.u8(this.fMethod);
    this.fBad = c.u8(this.fBad);
    this.fChain = c.u8(this.fChain);
    this.fInAttempt = c.u8(this.fInAttempt);
    this.fTriedCount = c.u8(this.fTriedCount);
    if (this.avoidHosts) {
      const tried = new Int32Array(n * 4);
      tried.set(this.fTried);
      this.fTried = tried;
    }
    this.hedgeTimers.ensure(n);
    this.frameTimers.ensure(n);
    this.fCap = n;
  }

  private allocFrame(): number {
    const f = this.fFree.length > 0 ? (this.fFree.pop() as number) : this.fNext++;
    if (f >= this.fCap) this.growFrames(this.fCap * 2);
    return f;
  }

  private freeFrame(f: number): void {
    this.frameTimers.cancel(f);
    this.hedgeTimers.cancel(f);
    this.fInAttempt[f] = 0;
    this.fChild[f] = NO_CHILD;
    this.fFree.push(f);
  }

  private allocRequest(): number {
    return this.req.alloc();
  }

  /** Release a request slot; the load balancer settles the backend it was sent to. */
  private freeRequest(r: number): void {
    this.req.release(r);
  }

  // ---------------------------------------------------------------- run

  /** Run the scenario to completion (or to its horizon / event cap) and return the results. */
  run(): SimulationResults {
    const sc = this.sc;
    const sim = this.sim;
    const w = sc.workload;
    const t0 = -sc.warmupMs;
    if (w.kind === 'open') {
      this.scheduleNextArrival(t0);
    } else {
      const start = this.startSampler as Sampler;
      const base = w.kind === 'closed' ? t0 : 0;
      // Clients that all start at the same instant start in order: a lane holds them without a heap.
      const lane = w.startMs.dist === 'constant' ? sim.addLane() : -1;
      for (let c = 0; c < w.clients; c++) sim.atInLane(lane, base + start(), K_OP_START, c, 0);
      this.pendingStarts += w.clients;
    }
    this.farm?.start(t0);
    const stats = sim.run((kind, a, b, t) => this.dispatch(kind, a, b, t), {
      horizonMs: sc.horizonMs,
      maxEvents: sc.maxEvents,
    });
    // Stale (tombstoned) timers still pop and move the clock: measure up to the last live event.
    const endMs = Math.max(0, stats.truncated === 'horizon' ? stats.nowMs : this.lastLiveMs);
    if (this.readAhead) this.flushReads(endMs);
    const truncated: Truncation = stats.truncated === 'stopped' ? 'in-flight-cap' : stats.truncated;
    this.gInFlight.finish(endMs);
    this.farm?.finish(endMs);
    for (const g of this.gBudget) g?.finish(endMs);
    return buildResults({ ...this.snapshot(endMs, stats.events, truncated), seed: this.seed });
  }

  private dispatch(kind: number, a: number, b: number, t: number): void {
    switch (kind) {
      case K_OP_START:
        this.pendingStarts--;
        this.lastLiveMs = t;
        this.startOperation(a, t);
        return;
      case K_ARRIVAL:
        this.pendingStarts--;
        this.lastLiveMs = t;
        this.openArrival(t);
        return;
    }
    if (kind >= K_SERVICE_DONE) {
      const farm = this.farm as ServerFarm;
      if (kind <= K_FAULT_ANSWER) {
        // Answers (the common case) are work; the liveness check happens in the farm.
        this.lastLiveMs = t;
        farm.dispatch(kind, a, b, t, true);
        return;
      }
      // Schedules and periodic checks: they stop once no operation is left, and then do not count as activity.
      const active = this.inFlightOps > 0 || this.pendingStarts > 0;
      if (active) this.lastLiveMs = t;
      farm.dispatch(kind, a, b, t, active);
      return;
    }
    if (kind === K_HEDGE) {
      if (!this.hedgeTimers.isLive(a, b)) return;
      this.lastLiveMs = t;
      this.hedgeDue(a, t);
      return;
    }
    if (kind <= K_FRAME_RESPONSE || kind === K_FRAME_SEND) {
      if (!this.frameTimers.isLive(a, b)) return;
    } else if (!this.req.timers.isLive(a, b)) return;
    this.lastLiveMs = t;
    switch (kind) {
      case K_FRAME_WAKE:
        this.startAttempt(a, t);
        return;
      case K_FRAME_SEND:
        this.sendAttempt(a, t);
        return;
      case K_FRAME_TIMEOUT:
        this.attemptTimedOut(a, t);
        return;
      case K_FRAME_ARRIVE:
        this.beginCall(a, t);
        return;
      case K_FRAME_RESPONSE:
        this.frameResponseArrived(a, t);
        return;
      case K_LEAF_ARRIVE:
        this.leafArrive(a, t);
        return;
      case K_LEAF_DONE:
        this.leafRespond(a, this.req.outcome[a] as number, this.req.retryAfter[a] as number, t);
        return;
      case K_LEAF_RESPONSE:
        this.leafResponseArrived(a, t);
        return;
      case K_OCC_WRITE:
        this.occWrite(a, t);
        return;
    }
  }

  // ---------------------------------------------------------------- workload

  private scheduleNextArrival(fromMs: number): void {
    const rf = this.rate;
    if (rf === null) return;
    const max = rf.maxRatePerSec;
    if (!(max > 0)) return;
    const t = this.steadyRate ? fromMs + (standardExponential(this.arrivalU) * 1000) / max : this.thinnedArrival(rf, fromMs);
    if (t >= this.durationMs) return;
    this.sim.at(t, K_ARRIVAL, 0, 0);
    this.pendingStarts++;
  }

  /**
   * The next arrival of a time-varying rate by thinning (Lewis & Shedler 1979): candidates at the
   * maximum rate, each kept with probability rate(t)/max; the first candidate past the end of the
   * workload is returned as it is (no arrival).
   */
  private thinnedArrival(rf: RateFunction, fromMs: number): number {
    const max = rf.maxRatePerSec;
    const u = this.arrivalU;
    let t = fromMs;
    for (;;) {
      t += (standardExponential(u) * 1000) / max;
      if (t >= this.durationMs) return t;
      const r = rf.ratePerSec(t);
      if (r >= max || u() * max < r) return t;
    }
  }

  private openArrival(t: number): void {
    const client = this.clients > 1 ? Math.floor(this.uWorkload() * this.clients) : 0;
    this.startOperation(client, t);
    this.scheduleNextArrival(t);
  }

  private startOperation(client: number, t: number): void {
    const f = this.allocFrame();
    this.fLayer[f] = 0;
    this.fParent[f] = -1;
    this.fParentGen[f] = 0;
    this.fClient[f] = client;
    if (this.guarded[0]) this.fInst[f] = client % (this.instances[0] as number);
    this.fMethod[f] = this.opMethod;
    const bad = this.opBadFraction;
    this.fBad[f] = bad > 0 && this.uWorkload() < bad ? 1 : 0;
    this.fChain[f] = 0;
    this.fOpSeq[f] = this.nextOpSeq++;
    this.fDeadline[f] = t + this.opDeadlineMs;
    this.inFlightOps++;
    this.gInFlight.set(t, this.inFlightOps);
    // Each operation in flight holds memory until it ends: past the cap the run stops (say so rather than run out of memory).
    if (this.inFlightOps > this.maxInFlight) this.sim.stop();
    if (t >= 0) {
      this.offered++;
      this.windows?.offered(t);
    }
    this.beginCall(f, t);
  }

  // ---------------------------------------------------------------- layers

  /** A call arrives at frame f's layer: start its retry loop. fDeadline holds the incoming deadline. */
  private beginCall(f: number, t: number): void {
    const k = this.fLayer[f] as number;
    const p = this.policies[k] as CompiledPolicy;
    this.fDeadline[f] = effectiveDeadlineAtMs(p, this.fDeadline[f] as number, t);
    this.fAttempts[f] = 0;
    this.fBackoffBase[f] = 0;
    this.fInAttempt[f] = 0;
    this.fOutstanding[f] = 0;
    if (this.timeSeeded[k]) (this.jitter[k] as ClientRandom).start(this.fClient[f] as number, t);
    this.fStart[f] = t;
    this.fPrevSleep[f] = this.initialSleep[k] as number;
    this.fLastOutcome[f] = Outcome.DEADLINE_EXCEEDED;
    this.fLastRA[f] = NaN;
    this.fChild[f] = NO_CHILD;
    if (this.trace) this.traceCall(f, k, t);
    this.startAttempt(f, t);
  }

  // Trace events are built out of line: the hot methods stay small enough for V8 to inline.
  private traceCall(f: number, k: number, t: number): void {
    this.trace?.({ tMs: t, op: this.fOpSeq[f] as number, layer: k, event: 'call', deadlineAtMs: this.fDeadline[f] as number });
  }

  private traceAttempt(f: number, k: number, attempt: number, timeoutMs: number, t: number): void {
    this.trace?.({ tMs: t, op: this.fOpSeq[f] as number, layer: k, event: 'attempt', attempt, timeoutMs });
  }

  /** Before an attempt: a spent deadline ends the call; the admission control may refuse or delay it. */
  private startAttempt(f: number, t: number): void {
    const k = this.fLayer[f] as number;
    const deadline = this.fDeadline[f] as number;
    if (deadline - t <= 0) {
      this.endFrame(f, GiveUp.DEADLINE, this.fLastOutcome[f] as number, this.fLastRA[f] as number, t);
      return;
    }
    if (this.hasAdmission[k]) this.admitAttempt(f, k, deadline, t);
    else this.sendAttempt(f, t);
  }

  /** The admission control refuses the attempt, delays it, or lets it go now. */
  private admitAttempt(f: number, k: number, deadline: number, t: number): void {
    const adm = this.admissionOf(k, f);
    const d = adm.admit(t, this.uAdmission());
    if (d < 0) {
      const last = (this.fAttempts[f] as number) > 0 ? (this.fLastOutcome[f] as number) : Outcome.LOCAL_THROTTLED;
      this.endFrame(f, GiveUp.THROTTLED, last, this.fLastRA[f] as number, t);
      return;
    }
    if (d > 0) {
      if (t + d >= deadline) {
        this.endFrame(f, GiveUp.DEADLINE, this.fLastOutcome[f] as number, this.fLastRA[f] as number, t);
        return;
      }
      this.sim.at(t + d, K_FRAME_SEND, f, this.frameTimers.arm(f));
      return;
    }
    this.sendAttempt(f, t);
  }

  private chainOf(k: number, f: number): BudgetChain {
    return (this.chains[k] as BudgetChain[])[this.fInst[f] as number] as BudgetChain;
  }

  private admissionOf(k: number, f: number): AdmissionControl {
    return (this.admissions[k] as AdmissionControl[])[this.fInst[f] as number] as AdmissionControl;
  }

  /** Follow the first budget's gauge of the frame's instance into the layer's time series. */
  private noteBudget(k: number, f: number, t: number): void {
    const inst = this.fInst[f] as number;
    const v = this.chainOf(k, f).budgets[0]?.gauge(t) ?? 0;
    const g = this.budgetGauge[k] as Float64Array;
    const sum = (this.budgetGaugeSum[k] as number) + v - (g[inst] as number);
    g[inst] = v;
    this.budgetGaugeSum[k] = sum;
    (this.gBudget[k] as TimeWeightedSeries).set(t, sum / (this.instances[k] as number));
  }

  /** Send an attempt (admitted): count it, arm its timeout, and call the next hop. */
  private sendAttempt(f: number, t: number): void {
    const k = this.fLayer[f] as number;
    const p = this.policies[k] as CompiledPolicy;
    const deadline = this.fDeadline[f] as number;
    const n = (this.fAttempts[f] as number) + 1;
    this.fAttempts[f] = n;
    const hedged = this.hedging[k] as boolean;
    if (t >= 0) {
      if (n === 1) this.layerFirst[k] = (this.layerFirst[k] as number) + 1;
      else if (hedged) this.layerHedges[k] = (this.layerHedges[k] as number) + 1;
      else this.layerRetries[k] = (this.layerRetries[k] as number) + 1;
    }
    if (this.hasBudget[k]) this.chainOf(k, f).onAttempt(t, n > 1);
    this.fInAttempt[f] = 1;
    let gen: number;
    let end: number;
    if (hedged) {
      end = deadline;
      gen = this.armHedgedAttempt(f, k, p, n, end, t);
    } else {
      const timeout = attemptTimeoutMs(p, t, deadline);
      end = t + timeout;
      gen = this.frameTimers.arm(f);
      if (end < Infinity) this.sim.atInLane(this.timeoutLane[k] as number, end, K_FRAME_TIMEOUT, f, gen);
      if (this.trace) this.traceAttempt(f, k, n, timeout, t);
    }
    this.fAttemptEnd[f] = end;
    const chain = this.fChain[f] === 1 || n > 1 ? 1 : 0;
    if (k < this.L - 1) this.callNextLayer(f, k, gen, chain, end, t);
    else this.callLeaf(f, k, n, gen, chain, end, t);
  }

  /** Every copy of a hedged call answers to the same generation and waits up to the call's deadline (`end`). */
  private armHedgedAttempt(f: number, k: number, p: CompiledPolicy, n: number, end: number, t: number): number {
    let gen: number;
    if (n === 1) {
      gen = this.frameTimers.arm(f);
      if (end < Infinity) this.sim.at(end, K_FRAME_TIMEOUT, f, gen);
    } else {
      gen = this.frameTimers.current(f);
    }
    this.fOutstanding[f] = (this.fOutstanding[f] as number) + 1;
    const hs = p.spec.hedging;
    if (hs && n < hs.maxAttempts) this.sim.at(t + hs.hedgingDelayMs, K_HEDGE, f, this.hedgeTimers.arm(f));
    if (this.trace) this.traceAttempt(f, k, n, end - t, t);
    return gen;
  }

  /** Frame f's attempt calls the next layer down: a new frame, its call starting after the hop. */
  private callNextLayer(f: number, k: number, gen: number, chain: number, end: number, t: number): void {
    const c = this.allocFrame();
    this.fLayer[c] = k + 1;
    this.fParent[c] = f;
    this.fParentGen[c] = gen;
    this.fClient[c] = this.fClient[f] as number;
    if (this.guarded[k + 1]) this.fInst[c] = (this.fClient[f] as number) % (this.instances[k + 1] as number);
    this.fMethod[c] = this.fMethod[f] as number;
    this.fBad[c] = this.fBad[f] as number;
    this.fChain[c] = chain;
    this.fOpSeq[c] = this.fOpSeq[f] as number;
    this.fDeadline[c] = end;
    this.fChild[c] = NO_CHILD;
    this.fChild[f] = c;
    const cg = this.frameTimers.arm(c);
    if (this.hopZero[k]) this.beginCall(c, t);
    else this.sim.atInLane(this.hopLane[k] as number, t + this.hopMs(k, this.fClient[c] as number), K_FRAME_ARRIVE, c, cg);
  }

  /** Last-layer frame f's attempt n calls the leaf. */
  private callLeaf(f: number, k: number, n: number, gen: number, chain: number, end: number, t: number): void {
    const farm = this.farm;
    const hopZero = this.hopZero[k] as boolean;
    if (hopZero && this.answersOnArrival) {
      this.callFarm(farm as ServerFarm, f, n, gen, chain, end, t);
      return;
    }
    const r = this.allocRequest();
    this.fillRequest(r, f, gen, chain, end);
    if (farm) this.sendToBackend(farm, r, this.pickBackend(farm, f, n));
    this.fChild[f] = ~r;
    const rg = this.req.timers.arm(r);
    if (hopZero) this.leafArrive(r, t);
    else if (this.readAhead && this.fBad[f] === 0) this.occReadAhead(r, k, rg, t);
    else this.sim.atInLane(this.hopLane[k] as number, t + this.hopMs(k, this.fClient[f] as number), K_LEAF_ARRIVE, r, rg);
  }

  /** The delay of a message of `client` over layer k's hop, from the client's network stream. */
  private hopMs(k: number, client: number): number {
    this.netClient = client;
    return (this.hop[k] as Sampler)();
  }

  /** A request slot for frame f's attempt (armed with generation `gen`) to the leaf. */
  private fillRequest(r: number, f: number, gen: number, chain: number, end: number): void {
    const req = this.req;
    req.state[r] = R_HOP;
    req.parent[r] = f;
    req.parentGen[r] = gen;
    req.client[r] = this.fClient[f] as number;
    req.bad[r] = this.fBad[f] as number;
    req.chain[r] = chain;
    req.opSeq[r] = this.fOpSeq[f] as number;
    req.deadline[r] = end;
    req.retryAfter[r] = NaN;
    req.backend[r] = -1;
    req.lbOpen[r] = 0;
  }

  /** The load balancer's choice of backend for attempt n of last-layer frame f (Envoy's previous_hosts when set). */
  private pickBackend(farm: ServerFarm, f: number, n: number): number {
    if (!this.avoidHosts) return farm.pick(null, 0, 0);
    if (n === 1) this.fTriedCount[f] = 0;
    const count = this.fTriedCount[f] as number;
    const b = farm.pick(n > 1 ? this.fTried : null, f * 4, count);
    this.fTried[f * 4 + (count < 4 ? count : (n - 1) % 4)] = b;
    if (count < 4) this.fTriedCount[f] = count + 1;
    return b;
  }

  private sendToBackend(farm: ServerFarm, r: number, b: number): void {
    this.req.backend[r] = b;
    this.req.lbOpen[r] = 1;
    farm.sent(b);
  }

  /**
   * Attempt n of last-layer frame f reaches the servers at once (no hop): a backend that answers on
   * arrival (down, a fault, an invalid request, shedding) needs no request slot, and its answer ends
   * the attempt in the same event; otherwise the request takes a slot and is served or queued.
   */
  private callFarm(farm: ServerFarm, f: number, n: number, gen: number, chain: number, end: number, t: number): void {
    const b = this.pickBackend(farm, f, n);
    this.countLeafArrival(chain, t);
    const o = farm.triage(b, this.fBad[f] === 1, t);
    if (o >= 0) {
      farm.sent(b);
      farm.settle(b, isBackendFailure(o), t);
      this.attemptEnded(f, o, farm.answerRetryAfterMs, t);
      return;
    }
    const r = this.allocRequest();
    this.fillRequest(r, f, gen, chain, end);
    this.sendToBackend(farm, r, b);
    this.fChild[f] = ~r;
    this.req.timers.arm(r);
    if (o === NEEDS_SLOT) farm.admit(r, b, t);
    else farm.delayAnswer(r, t);
  }

  private attemptTimedOut(f: number, t: number): void {
    const c = this.fChild[f] as number;
    if (c !== NO_CHILD && c < 0) {
      // The load balancer counts a timed-out request as a failure of its backend (Envoy outlier detection).
      this.settleRequest(~c, true, t);
      if (this.req.state[~c] === R_HANG) {
        this.fChild[f] = NO_CHILD;
        this.freeRequest(~c);
      }
    }
    if (this.sc.cancellation) this.cancelDownstream(f, t);
    this.attemptEnded(f, Outcome.TIMEOUT, NaN, t);
  }

  /** Tell the load balancer that request r's backend is done with it (once). */
  private settleRequest(r: number, failed: boolean, t: number): void {
    if (this.req.lbOpen[r] !== 1 || !this.farm) return;
    this.req.lbOpen[r] = 0;
    this.farm.settle(this.req.backend[r] as number, failed, t);
  }

  /**
   * Work the leaf lost (a crash, an expired request dropped): nobody answers. The slot is kept while
   * its caller still waits (the caller's timeout frees it), so the caller's reference stays valid.
   */
  private dropRequest(r: number, t: number): void {
    this.settleRequest(r, true, t);
    if (this.frameTimers.isLive(this.req.parent[r] as number, this.req.parentGen[r] as number)) {
      this.req.state[r] = R_HANG;
      this.req.timers.cancel(r);
    } else this.freeRequest(r);
  }

  /** The retry decision of DESIGN.md section 1 after frame f's current attempt ended. */
  private attemptEnded(f: number, outcome: number, retryAfterMs: number, t: number): void {
    const k = this.fLayer[f] as number;
    if (this.hedging[k]) {
      this.hedgeEnded(f, outcome, retryAfterMs, t);
      return;
    }
    const p = this.policies[k] as CompiledPolicy;
    const gen = this.frameTimers.arm(f);
    this.fChild[f] = NO_CHILD;
    this.fInAttempt[f] = 0;
    this.fLastOutcome[f] = outcome;
    this.fLastRA[f] = retryAfterMs;
    const attempts = this.fAttempts[f] as number;
    if (this.trace) this.traceOutcome(f, k, attempts, outcome, retryAfterMs, t);
    const deadline = this.fDeadline[f] as number;
    const idem = this.idempotent[k * 5 + (this.fMethod[f] as number)] === 1;
    const guarded = this.guarded[k] as boolean;
    if (guarded) this.tellGuards(f, k, p, outcome, attempts, idem, retryAfterMs, t);
    const g = judgeOutcome(p, attempts, outcome, idem, t, deadline, retryAfterMs);
    if (g !== CONTINUE) {
      this.endFrame(f, g, outcome, retryAfterMs, t);
      return;
    }
    if (guarded && this.hasBudget[k] && this.budgetRefuses(f, k, outcome, retryAfterMs, t)) return;
    this.retryLater(f, k, p, outcome, retryAfterMs, attempts, deadline, gen, t);
  }

  /** The budgets and the admission control of layer k learn how frame f's attempt ended. */
  private tellGuards(
    f: number,
    k: number,
    p: CompiledPolicy,
    outcome: number,
    attempts: number,
    idem: boolean,
    retryAfterMs: number,
    t: number,
  ): void {
    if (this.hasBudget[k]) {
      this.chainOf(k, f).onOutcome(t, outcome, attempts > 1, retryableForBudgets(p, outcome, idem, retryAfterMs));
      this.noteBudget(k, f, t);
    }
    if (this.hasAdmission[k]) this.admissionOf(k, f).onOutcome(t, outcome, acceptedByBackend(outcome));
  }

  /** A retry budget refuses frame f's retry: the frame gives up (returns true). */
  private budgetRefuses(f: number, k: number, outcome: number, retryAfterMs: number, t: number): boolean {
    const refusal = this.chainOf(k, f).refuse(t, outcome);
    if (refusal === CONTINUE) return false;
    this.endFrame(f, refusal, outcome, retryAfterMs, t);
    return true;
  }

  /** Frame f retries after its backoff: plan the wait from the attempt that ended at t and arm the wake-up. */
  private retryLater(
    f: number,
    k: number,
    p: CompiledPolicy,
    outcome: number,
    retryAfterMs: number,
    attempts: number,
    deadline: number,
    gen: number,
    t: number,
    ahead = false,
  ): void {
    const u = this.needsDraw[k] ? this.draw(k, this.fClient[f] as number) : 0;
    const ctx = this.planCtx;
    ctx.outcome = outcome;
    ctx.callStartMs = this.fStart[f] as number;
    const base = this.fBackoffBase[f] as number;
    const plan = planRetry(p, attempts - base, this.fPrevSleep[f] as number, retryAfterMs, t, deadline, u, this.plan, ctx);
    if (this.trace) this.traceWait(f, k, attempts, plan, t);
    if (plan.giveUp !== CONTINUE) {
      this.endFrame(f, plan.giveUp, outcome, retryAfterMs, t);
      return;
    }
    if (this.hasBudget[k]) {
      this.chainOf(k, f).onRetryScheduled(t, outcome);
      this.noteBudget(k, f, t);
    }
    if (plan.resetBackoff) this.fBackoffBase[f] = attempts;
    this.fPrevSleep[f] = plan.nextPrevSleepMs;
    // Sent ahead only if the wake-up would run before the horizon. (A run stopped by its event cap
    // is the exception: its last retries sent ahead may be counted after its last event.)
    if (ahead && plan.wakeAtMs <= this.horizonMs) this.sendAttempt(f, plan.wakeAtMs);
    else this.sim.atInLane(this.wakeLane[k] as number, plan.wakeAtMs, K_FRAME_WAKE, f, gen);
  }

  /**
   * The retry decision of a last-layer frame whose answer is still crossing the hop back, taken when
   * the answer leaves the leaf instead of when it arrives at `arriveMs` (one event less per retry).
   * Only where nothing can reach the frame in between (see `foldAnswers`): the decision, the draw and
   * the wake-up are the same as at arrival. Returns false, having changed nothing, when the attempt
   * does not lead to a retry (the answer then crosses the hop as an event).
   */
  private retryAhead(f: number, outcome: number, retryAfterMs: number, arriveMs: number): boolean {
    const k = this.L - 1;
    const p = this.policies[k] as CompiledPolicy;
    const attempts = this.fAttempts[f] as number;
    const deadline = this.fDeadline[f] as number;
    if (deadline !== Infinity) return false;
    const idem = this.idempotent[k * 5 + (this.fMethod[f] as number)] === 1;
    if (judgeOutcome(p, attempts, outcome, idem, arriveMs, deadline, retryAfterMs) !== CONTINUE) return false;
    const gen = this.frameTimers.arm(f);
    this.fChild[f] = NO_CHILD;
    this.fInAttempt[f] = 0;
    this.fLastOutcome[f] = outcome;
    this.fLastRA[f] = retryAfterMs;
    // With no deadline and no maxElapsedMs (required by foldAnswers) a planned wait always fits.
    this.retryLater(f, k, p, outcome, retryAfterMs, attempts, deadline, gen, arriveMs, this.sendAhead);
    return true;
  }

  private traceWait(f: number, k: number, attempts: number, plan: RetryPlan, t: number): void {
    this.trace?.({
      tMs: t,
      op: this.fOpSeq[f] as number,
      layer: k,
      event: 'wait',
      retry: attempts,
      ceilingMs: plan.ceilingMs,
      backoffMs: plan.backoffMs,
      waitMs: plan.waitMs,
      wakeAtMs: plan.wakeAtMs,
      fits: plan.giveUp === CONTINUE,
    });
  }

  private traceOutcome(f: number, k: number, attempt: number, outcome: number, retryAfterMs: number, t: number): void {
    this.trace?.({
      tMs: t,
      op: this.fOpSeq[f] as number,
      layer: k,
      event: 'outcome',
      attempt,
      outcome: OUTCOME_NAMES[outcome] as string,
      ...(retryAfterMs === retryAfterMs ? { retryAfterMs } : {}),
    });
  }

  /**
   * A copy of a hedged call answered (gRPC A6 hedging): a success or a fatal status ends the call;
   * a non-fatal one sends the next copy at once if any are left, and otherwise the call ends when
   * the last copy in flight has answered. Hedges are asked of and charged to the retry budgets.
   */
  private hedgeEnded(f: number, outcome: number, retryAfterMs: number, t: number): void {
    const k = this.fLayer[f] as number;
    const p = this.policies[k] as CompiledPolicy;
    const outstanding = (this.fOutstanding[f] as number) - 1;
    this.fOutstanding[f] = outstanding;
    this.fLastOutcome[f] = outcome;
    this.fLastRA[f] = retryAfterMs;
    const attempts = this.fAttempts[f] as number;
    if (this.trace) this.traceOutcome(f, k, attempts, outcome, retryAfterMs, t);
    if (this.hasBudget[k]) {
      this.chainOf(k, f).onOutcome(t, outcome, attempts > 1, outcome !== Outcome.SUCCESS && isHedgeNonFatal(p, outcome));
      this.noteBudget(k, f, t);
    }
    if (this.hasAdmission[k]) this.admissionOf(k, f).onOutcome(t, outcome, acceptedByBackend(outcome));
    if ((this.fDeadline[f] as number) - t <= 0) {
      this.endFrame(f, GiveUp.DEADLINE, outcome, retryAfterMs, t);
      return;
    }
    if (outcome === Outcome.SUCCESS) {
      this.endFrame(f, GiveUp.SUCCESS, outcome, retryAfterMs, t);
      return;
    }
    if (!isHedgeNonFatal(p, outcome)) {
      this.endFrame(f, GiveUp.NOT_RETRYABLE, outcome, retryAfterMs, t);
      return;
    }
    const max = p.spec.hedging?.maxAttempts ?? 1;
    if (attempts < max) {
      this.hedgeTimers.cancel(f);
      if (this.sendHedge(f, t)) return;
    }
    if (outstanding <= 0) this.endFrame(f, attempts < max ? this.lastHedgeRefusal : GiveUp.ATTEMPT_LIMIT, outcome, retryAfterMs, t);
  }

  /** Why the last hedge was not sent (a budget refusal or the admission control). */
  private lastHedgeRefusal: number = GiveUp.BUDGET_EXHAUSTED;

  /** The hedging delay passed with no answer: send another copy if the budgets allow. */
  private hedgeDue(f: number, t: number): void {
    if ((this.fDeadline[f] as number) - t <= 0) return;
    this.sendHedge(f, t);
  }

  /** Send the next copy of a hedged call if the budgets and the admission control allow it now. */
  private sendHedge(f: number, t: number): boolean {
    const k = this.fLayer[f] as number;
    const outcome = this.fLastOutcome[f] as number;
    if (this.hasBudget[k]) {
      const refusal = this.chainOf(k, f).refuse(t, outcome);
      if (refusal !== CONTINUE) {
        this.lastHedgeRefusal = refusal;
        return false;
      }
    }
    if (this.hasAdmission[k] && this.admissionOf(k, f).admit(t, this.uAdmission()) !== 0) {
      this.lastHedgeRefusal = GiveUp.THROTTLED;
      return false;
    }
    if (this.hasBudget[k]) {
      this.chainOf(k, f).onRetryScheduled(t, outcome);
      this.noteBudget(k, f, t);
    }
    this.sendAttempt(f, t);
    return true;
  }

  private draw(k: number, client: number): number {
    if (this.fixedDraw !== undefined) return this.fixedDraw;
    return (this.jitter[k] as ClientRandom).next(client);
  }

  /** Frame f gives up (or succeeds): report to its caller, or end the operation at the top. */
  private endFrame(f: number, reason: number, outcome: number, retryAfterMs: number, t: number): void {
    const k = this.fLayer[f] as number;
    if (this.hedging[k]) this.hedgeTimers.cancel(f);
    if (t >= 0) this.layerGiveUps[k * GIVE_UP_COUNT + reason] = (this.layerGiveUps[k * GIVE_UP_COUNT + reason] as number) + 1;
    if (this.trace) this.traceGiveUp(f, k, reason, outcome, t);
    const parent = this.fParent[f] as number;
    if (parent < 0) {
      this.endOperation(f, reason, t);
      this.freeFrame(f);
      return;
    }
    this.answerParent(f, k, parent, reason === GiveUp.SUCCESS ? Outcome.SUCCESS : outcome, retryAfterMs, t);
  }

  private traceGiveUp(f: number, k: number, reason: number, outcome: number, t: number): void {
    this.trace?.({
      tMs: t,
      op: this.fOpSeq[f] as number,
      layer: k,
      event: 'give-up',
      reason: GIVE_UP_NAMES[reason] as string,
      attempts: this.fAttempts[f] as number,
      outcome: OUTCOME_NAMES[reason === GiveUp.SUCCESS ? Outcome.SUCCESS : outcome] as string,
    });
  }

  /** Frame f (of layer k) answers `result` to its parent's attempt, across the hop between them. */
  private answerParent(f: number, k: number, parent: number, result: number, retryAfterMs: number, t: number): void {
    const pg = this.fParentGen[f] as number;
    if (!this.frameTimers.isLive(parent, pg)) {
      this.freeFrame(f);
      return;
    }
    const pk = k - 1;
    if (this.hopZero[pk]) {
      this.freeFrame(f);
      this.attemptEnded(parent, result, retryAfterMs, t);
      return;
    }
    this.fResOutcome[f] = result;
    this.fResRA[f] = retryAfterMs;
    const g = this.frameTimers.arm(f);
    this.sim.atInLane(this.hopLane[pk] as number, t + this.hopMs(pk, this.fClient[f] as number), K_FRAME_RESPONSE, f, g);
  }

  private frameResponseArrived(f: number, t: number): void {
    const parent = this.fParent[f] as number;
    const pg = this.fParentGen[f] as number;
    const result = this.fResOutcome[f] as number;
    const ra = this.fResRA[f] as number;
    this.freeFrame(f);
    if (this.frameTimers.isLive(parent, pg)) this.attemptEnded(parent, result, ra, t);
  }

  private endOperation(f: number, reason: number, t: number): void {
    this.inFlightOps--;
    this.gInFlight.set(t, this.inFlightOps);
    const start = this.fStart[f] as number;
    if (start >= 0) {
      this.giveUps[reason] = (this.giveUps[reason] as number) + 1;
      const dur = t - start;
      if (reason === GiveUp.SUCCESS) {
        this.succeeded++;
        this.latency.record(dur);
        this.sSuccess.add(t);
        this.windows?.succeeded(start, t);
      } else {
        this.failed++;
        this.failedMs.record(dur);
        this.sFailure.add(t);
      }
      if (t > this.completionTimeMs) this.completionTimeMs = t;
    }
    if (this.closedLoop) {
      const next = t + (this.thinkSampler as Sampler)();
      if (next < this.durationMs) {
        this.sim.atInLane(this.thinkLane, next, K_OP_START, this.fClient[f] as number, 0);
        this.pendingStarts++;
      }
    }
  }

  /** Cancellation propagated downstream: the abandoned call stops, its leaf work is withdrawn. */
  private cancelDownstream(f: number, t: number): void {
    const c = this.fChild[f] as number;
    if (c === NO_CHILD) return;
    this.fChild[f] = NO_CHILD;
    if (c >= 0) {
      this.cancelDownstream(c, t);
      const ck = this.fLayer[c] as number;
      if (this.fInAttempt[c] === 1 && this.hasBudget[ck]) {
        // The withdrawn attempt ends for the budgets too (concurrency-based budgets count it as active).
        this.chainOf(ck, c).onOutcome(t, Outcome.TIMEOUT, (this.fAttempts[c] as number) > 1, false);
      }
      if (t >= 0) {
        const k = this.fLayer[c] as number;
        this.layerCancelled[k] = (this.layerCancelled[k] as number) + 1;
      }
      this.freeFrame(c);
      return;
    }
    const r = ~c;
    const state = this.req.state[r];
    if (state === R_FREE || state === R_CANCELLED) return;
    this.settleRequest(r, false, t);
    if ((state === R_QUEUED || state === R_SERVICE) && this.farm) {
      this.farm.withdraw(r, t);
      return;
    }
    this.freeRequest(r);
  }

  // ---------------------------------------------------------------- leaf

  private leafArrive(r: number, t: number): void {
    this.countLeafArrival(this.req.chain[r] as number, t);
    const farm = this.farm;
    if (farm) {
      const b = this.req.backend[r] as number;
      farm.arrive(r, b, t);
    } else if (this.sc.leaf.kind === 'occ') this.occRead(r, t);
    else this.scriptArrive(r, t);
  }

  /** A call reaches the leaf at t (`chain` 1: sent while some layer was retrying). */
  private countLeafArrival(chain: number, t: number): void {
    if (t < 0) return;
    if (this.readAhead) this.flushReads(t);
    this.countArrival(chain, t);
  }

  /** Count a leaf arrival at t >= 0 in the totals, the series and the clustering statistics (in time order). */
  private countArrival(chain: number, t: number): void {
    this.leafCalls++;
    this.windows?.leafCall(t);
    if (chain === 1) {
      this.sArrRetry.add(t);
      const rc = this.retryClustering;
      for (let i = 0; i < rc.length; i++) (rc[i] as StreamingClustering).record(t);
    } else this.sArrFirst.add(t);
    const cl = this.clustering;
    for (let i = 0; i < cl.length; i++) (cl[i] as StreamingClustering).record(t);
  }

  /** The leaf answers request r: the answer crosses the last hop back to its caller. */
  private leafRespond(r: number, outcome: number, retryAfterMs: number, t: number): void {
    if (this.farm) this.settleRequest(r, isBackendFailure(outcome), t);
    const f = this.req.parent[r] as number;
    const pg = this.req.parentGen[r] as number;
    if (!this.frameTimers.isLive(f, pg)) {
      this.freeRequest(r);
      return;
    }
    const k = this.L - 1;
    if (this.hopZero[k]) {
      this.freeRequest(r);
      this.attemptEnded(f, outcome, retryAfterMs, t);
      return;
    }
    this.answerOverHop(r, f, k, outcome, retryAfterMs, t);
  }

  /** The leaf's answer to request r crosses the last hop (layer k's) back to frame f. */
  private answerOverHop(r: number, f: number, k: number, outcome: number, retryAfterMs: number, t: number): void {
    const arriveMs = t + this.hopMs(k, this.fClient[f] as number);
    if (this.foldAnswers && outcome !== Outcome.SUCCESS && this.retryAhead(f, outcome, retryAfterMs, arriveMs)) {
      this.freeRequest(r);
      return;
    }
    const g = this.req.timers.arm(r);
    this.req.state[r] = R_HOP;
    this.req.outcome[r] = outcome;
    this.req.retryAfter[r] = retryAfterMs;
    this.sim.atInLane(this.hopLane[k] as number, arriveMs, K_LEAF_RESPONSE, r, g);
  }

  private leafResponseArrived(r: number, t: number): void {
    const f = this.req.parent[r] as number;
    const pg = this.req.parentGen[r] as number;
    const outcome = this.req.outcome[r] as number;
    const ra = this.req.retryAfter[r] as number;
    this.freeRequest(r);
    if (this.frameTimers.isLive(f, pg)) this.attemptEnded(f, outcome, ra, t);
  }

  /**
   * Whether anyone still waits for request r's answer: its caller's attempt is live, and so on up
   * the chain to an operation that has not ended. Work nobody waits for is wasted.
   */
  private stillWanted(r: number): boolean {
    let f = this.req.parent[r] as number;
    if (!this.frameTimers.isLive(f, this.req.parentGen[r] as number)) return false;
    for (;;) {
      const p = this.fParent[f] as number;
      if (p < 0) return true;
      if (!this.frameTimers.isLive(p, this.fParentGen[f] as number)) return false;
      f = p;
    }
  }

  private occRead(r: number, t: number): void {
    if (this.req.bad[r] === 1) {
      // Bad input is refused before the read.
      this.leafRespond(r, Outcome.S400, NaN, t);
      return;
    }
    if (t >= 0) this.reads++;
    this.req.read[r] = this.occVersion;
    const k = this.L - 1;
    const c = this.req.client[r] as number;
    // The read's reply and the write's request are folded into one delay: nothing decides between them.
    const d = this.hopZero[k] ? 0 : this.hopMs(k, c) + this.hopMs(k, c);
    this.req.state[r] = R_HOP;
    // With a constant hop the writes come in the order of the reads: the write lane.
    this.sim.atInLane(this.occWriteLane, t + d, K_OCC_WRITE, r, this.req.timers.arm(r));
  }

  /**
   * Request r (armed with generation `rg`), sent at t, reads without an event of its own (see
   * `readAhead`): its read reaches the leaf at tr = t + hop, so only the write at tr + 2 hops is
   * scheduled, and `read` keeps tr. The write succeeds when no write committed since tr, which is
   * what reading the version at tr and comparing it at the write decides. The read is counted as
   * a leaf arrival once the clock passes tr ({@link flushReads}).
   */
  private occReadAhead(r: number, k: number, rg: number, t: number): void {
    const c = this.req.client[r] as number;
    const tr = t + this.hopMs(k, c);
    const d = this.hopMs(k, c) + this.hopMs(k, c);
    this.req.read[r] = tr;
    // A read during the warm-up is not counted: it need not wait (the queue would grow with the warm-up).
    if (tr >= 0) (this.pendingReads as EventQueue).push(tr, this.req.chain[r] as number, 0, 0);
    this.sim.at(tr + d, K_OCC_WRITE, r, rg);
  }

  /** Count the reads made ahead (times >= 0) whose time is at or before t, in time order. */
  private flushReads(t: number): void {
    const q = this.pendingReads as EventQueue;
    while (q.peekTime() <= t) {
      q.pop();
      const tr = q.lastTimeMs;
      this.reads++;
      this.countArrival(q.lastKind, tr);
    }
  }

  private occWrite(r: number, t: number): void {
    this.countLeafArrival(this.req.chain[r] as number, t);
    if (t >= 0) {
      this.writes++;
      (this.sWrites as BinnedSeries).add(t);
    }
    if (this.readAhead ? (this.req.read[r] as number) > this.lastCommitMs : this.req.read[r] === this.occVersion) {
      this.occVersion++;
      this.lastCommitMs = t;
      this.leafRespond(r, Outcome.SUCCESS, NaN, t);
    } else {
      this.leafRespond(r, Outcome.CONFLICT, NaN, t);
    }
  }

  private scriptArrive(r: number, t: number): void {
    const op = this.req.opSeq[r] as number;
    const i = this.scriptIndex.get(op) ?? 0;
    this.scriptIndex.set(op, i + 1);
    const e = this.script[Math.min(i, this.script.length - 1)] as ScriptEntry;
    if (e.status === 'hang') {
      this.req.state[r] = R_HANG;
      return;
    }
    const outcome = statusOutcome(e.status);
    const ra = e.retryAfterMs ?? NaN;
    if (e.durationMs === 0) {
      this.leafRespond(r, outcome, ra, t);
      return;
    }
    this.req.state[r] = R_DELAYED;
    this.req.outcome[r] = outcome;
    this.req.retryAfter[r] = ra;
    this.sim.at(t + e.durationMs, K_LEAF_DONE, r, this.req.timers.arm(r));
  }

  // ---------------------------------------------------------------- results

  /** @internal The raw measurements, before {@link buildResults} shapes them. */
  snapshot(endMs: number, events: number, truncated: Truncation): Omit<ResultInput, 'seed'> {
    const sc = this.sc;
    const binMs = sc.metrics.timeSeriesBinMs;
    // The bin holding endMs is included (an event exactly at the end belongs to it).
    const bins = Math.min(1_000_000, Math.floor(endMs / binMs) + 1);
    const giveUps = (arr: Float64Array, offset: number) => {
      const o: Record<string, number> = {};
      GIVE_UP_NAMES.forEach((n, i) => (o[n] = arr[offset + i] as number));
      return o;
    };
    const queuedAtEnd = this.req.count(R_QUEUED);
    const hanging = this.req.count(R_HANG);
    const farm = this.farm;
    const totals = farm?.totals();
    const farmSeries = farm?.series(bins);
    const zeros = () => new Array<number>(bins).fill(0);
    // Every operation's duration: the same buckets, count, min and max as recording each one here
    // (the sum is added in two parts, so the mean may differ from that in its last bits). When one
    // side is empty the other is the whole.
    const operationMs = this.failedMs.count === 0 ? this.latency : this.latency.count === 0 ? this.failedMs : new LogHistogram();
    if (operationMs !== this.latency && operationMs !== this.failedMs) {
      operationMs.merge(this.latency);
      operationMs.merge(this.failedMs);
    }
    return {
      scenario: sc,
      endMs,
      events,
      truncated,
      unfinished: this.inFlightOps,
      offered: this.offered,
      succeeded: this.succeeded,
      failed: this.failed,
      giveUps: giveUps(this.giveUps, 0),
      layers: sc.stack.map((l, k) => ({
        name: l.name,
        first: this.layerFirst[k] as number,
        retries: this.layerRetries[k] as number,
        giveUps: giveUps(this.layerGiveUps, k * GIVE_UP_COUNT),
        cancelled: this.layerCancelled[k] as number,
        hedges: this.layerHedges[k] as number,
      })),
      leafCalls: this.leafCalls,
      reads: this.reads,
      writes: this.writes,
      latency: this.latency,
      operationMs,
      completionTimeMs: this.completionTimeMs,
      windows: this.windows?.results() ?? null,
      server: {
        kind: sc.leaf.kind,
        concurrency: totals?.concurrency ?? Infinity,
        meanBusy: totals?.meanBusy ?? 0,
        wastedWorkMs: totals?.wastedWorkMs ?? 0,
        maxQueue: totals?.maxQueue ?? 0,
        served: totals?.served ?? 0,
        shed: totals?.shed ?? 0,
        dropped: totals?.dropped ?? 0,
        faulted: totals?.faulted ?? 0,
        refused: totals?.refused ?? 0,
        rejected: totals?.rejected ?? 0,
        lost: totals?.lost ?? 0,
        cancelled: totals?.cancelled ?? 0,
        queuedAtEnd,
        inServiceAtEnd: totals?.inServiceAtEnd ?? 0,
        hanging,
      },
      backends: sc.leaf.kind === 'pool' && farm ? farm.backendStats() : undefined,
      clustering: this.clustering.map((c) => c.result(0, endMs)),
      retryClustering: this.retryClustering.map((c) => c.result(0, endMs)),
      series: {
        binMs,
        bins,
        arrivalsFirst: this.sArrFirst.toArray(bins),
        arrivalsRetry: this.sArrRetry.toArray(bins),
        successes: this.sSuccess.toArray(bins),
        failures: this.sFailure.toArray(bins),
        writes: this.sWrites?.toArray(bins),
        queue: farmSeries?.queue ?? zeros(),
        inFlight: this.gInFlight.binMeans(bins),
        busy: farmSeries?.busy ?? zeros(),
        fleet:
          sc.leaf.kind === 'pool' && farmSeries
            ? {
                healthyBackends: farmSeries.healthyBackends,
                downBackends: farmSeries.downBackends,
                ejectedBackends: farmSeries.ejectedBackends,
                backendBusy: farmSeries.backendBusy,
                backendQueue: farmSeries.backendQueue,
              }
            : undefined,
        budgets: sc.stack.flatMap((l, k) => {
          const g = this.gBudget[k];
          const kind = l.policy.budget?.[0]?.kind;
          return g && kind ? [{ layer: l.name, kind, values: g.binMeans(bins) }] : [];
        }),
      },
    };
  }
}

