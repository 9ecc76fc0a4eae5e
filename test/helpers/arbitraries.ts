// Random small scenarios (fast-check arbitraries) shared by the randomized tests of the model:
// test/model/properties.test.ts (properties, folds, the load balancer's shortcut) and
// test/model/continuation.test.ts (a run continued from a copy of its state).
import fc from 'fast-check';
import type {
  BackoffKind,
  BackoffSpec,
  DeadlineMode,
  Dist,
  Layer,
  Leaf,
  PoolLeaf,
  RetryAfterMode,
  Scenario,
  ScriptEntry,
  ServerLeaf,
  Status,
} from '../../src/model/scenario.js';
import { burst, constant, layer, scenario, server } from './scenario.js';

const BACKOFF_KINDS: BackoffKind[] = ['none', 'constant', 'exponential', 'full-jitter', 'equal-jitter', 'decorrelated-jitter'];
const STATUSES: Status[] = [200, 200, 200, 400, 404, 429, 500, 503, 'timeout'];

const backoffArb: fc.Arbitrary<BackoffSpec> = fc
  .record({
    kind: fc.constantFrom(...BACKOFF_KINDS),
    baseMs: fc.integer({ min: 0, max: 50 }),
    extraCapMs: fc.integer({ min: 0, max: 400 }),
    multiplier: fc.constantFrom(1, 1.5, 2, 3),
    exponentOffset: fc.constantFrom(0, 1),
  })
  .map(({ kind, baseMs, extraCapMs, multiplier, exponentOffset }) => ({
    kind,
    baseMs,
    capMs: baseMs + extraCapMs,
    multiplier,
    exponentOffset,
  }));

const layerArb = (name: string): fc.Arbitrary<Layer> =>
  fc
    .record({
      maxAttempts: fc.integer({ min: 1, max: 4 }),
      perAttemptTimeoutMs: fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined }),
      deadlineMode: fc.constantFrom<DeadlineMode>('propagate', 'propagate', 'fresh', 'none'),
      backoff: backoffArb,
      tickMs: fc.constantFrom(0, 0, 1, 10),
      retryAfter: fc.constantFrom<RetryAfterMode>('honor', 'ignore', 'honor-plus-jitter'),
      hopMs: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
    })
    .map(({ perAttemptTimeoutMs, hopMs, ...p }) =>
      layer(name, { ...p, ...(perAttemptTimeoutMs !== undefined ? { perAttemptTimeoutMs } : {}) }, hopMs !== undefined ? { hopMs: constant(hopMs) } : {}),
    );

const stackArb: fc.Arbitrary<Layer[]> = fc
  .integer({ min: 1, max: 3 })
  .chain((L) => fc.tuple(...Array.from({ length: L }, (_, k) => layerArb(`l${k}`))));

const scriptEntryArb = (mayHang: boolean): fc.Arbitrary<ScriptEntry> =>
  fc.record({
    status: mayHang ? fc.constantFrom<Status | 'hang'>(...STATUSES, 'hang') : fc.constantFrom<Status | 'hang'>(...STATUSES),
    durationMs: fc.integer({ min: 0, max: 60 }),
    retryAfterMs: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
  }).map(({ retryAfterMs, ...e }) => (retryAfterMs !== undefined ? { ...e, retryAfterMs } : e));

/** A server leaf with constant times, a queue and a fault rate, as the scenarios below draw it. */
export const serverArb: fc.Arbitrary<Leaf> = fc
  .record({
    concurrency: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constant('unlimited' as const)),
    queueLimit: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant('unlimited' as const)),
    discipline: fc.constantFrom('fifo' as const, 'lifo' as const),
    serviceMs: fc.integer({ min: 0, max: 50 }),
    dropExpired: fc.boolean(),
    faultProbability: fc.double({ min: 0, max: 1, noNaN: true }),
    faultStatus: fc.constantFrom<Exclude<Status, 200>>(400, 429, 500, 503, 'timeout'),
    shedRetryAfterMs: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
  })
  .map((s) =>
    server({
      concurrency: s.concurrency,
      queueLimit: s.queueLimit,
      discipline: s.discipline,
      serviceMs: constant(s.serviceMs),
      dropExpired: s.dropExpired,
      ...(s.shedRetryAfterMs !== undefined ? { shedRetryAfterMs: s.shedRetryAfterMs } : {}),
      faults: [{ fromMs: 0, toMs: 1e9, probability: s.faultProbability, status: s.faultStatus }],
    }),
  );

/**
 * Small valid scenarios: 1-3 layers, a burst of 1-20 clients, a scripted or server leaf with constant
 * times. With `cancellation: 'any'` cancellation is drawn freely; with `'between-layers-instant'` a
 * scenario that propagates cancellation has no delay on the hops between layers (the hop to the leaf
 * keeps its delay): a call cancelled while crossing a hop between layers is mishandled (see the
 * last property), and the other properties are checked apart from that.
 */
export function scenarios(cancellation: 'any' | 'between-layers-instant' | 'always'): fc.Arbitrary<Scenario> {
  return fc
    .record({
      stack: stackArb,
      clients: fc.integer({ min: 1, max: 20 }),
      spreadMs: fc.constantFrom(0, 0, 30),
      method: fc.constantFrom('GET' as const, 'PUT' as const, 'POST' as const),
      deadlineMs: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
      permanentErrorFraction: fc.constantFrom(0, 0, 0.2),
      hopMs: fc.integer({ min: 0, max: 10 }),
      cancellation: cancellation === 'always' ? fc.constant(true) : fc.boolean(),
      leafKind: fc.constantFrom('script' as const, 'server' as const),
      server: serverArb,
      binMs: fc.constantFrom(1, 7, 10, 100),
    })
    .chain((p) => {
      const mayHang = p.stack[p.stack.length - 1]?.policy.perAttemptTimeoutMs !== undefined;
      const script = fc.array(scriptEntryArb(mayHang), { minLength: 1, maxLength: 4 });
      const stack =
        p.cancellation && cancellation === 'between-layers-instant'
          ? p.stack.map((l, k) => (k < p.stack.length - 1 ? { ...l, hopMs: constant(0) } : { ...l, hopMs: l.hopMs ?? constant(p.hopMs) }))
          : p.stack;
      return script.map((entries) =>
        scenario({
          workload: burst(p.clients, {
            method: p.method,
            permanentErrorFraction: p.permanentErrorFraction,
            startMs: p.spreadMs > 0 ? { dist: 'uniform', min: 0, max: p.spreadMs } : constant(0),
            ...(p.deadlineMs !== undefined ? { deadlineMs: p.deadlineMs } : {}),
          }),
          stack,
          leaf: p.leafKind === 'script' ? { kind: 'script', script: entries } : p.server,
          network: { hopMs: constant(p.hopMs) },
          cancellation: p.cancellation,
          metrics: { timeSeriesBinMs: p.binMs, clusteringBinMs: [1, p.binMs] },
        }),
      );
    });
}

/** {@link scenarios} with cancellation only where its hops between layers take no time. */
export const scenarioArb = scenarios('between-layers-instant');

/**
 * The scenarios above with continuous delays (where the model decides retries when the answer
 * leaves the leaf, sends them ahead and reads optimistic-concurrency versions without an event), an
 * optimistic-concurrency leaf or a closed loop (with a warm-up at times) in place of the burst at
 * times, and a horizon that may stop the run while retries wait.
 */
/** A scenario with no timeout, deadline, timer tick or cancellation (a scripted hang answers 503 instead). */
function withoutTimeLimits(sc: Scenario): Scenario {
  const { deadlineMs: _deadline, ...w } = sc.workload as Extract<Scenario['workload'], { kind: 'burst' }>;
  const stack = sc.stack.map((l) => {
    const { perAttemptTimeoutMs: _timeout, ...p } = l.policy;
    return { ...l, policy: { ...p, tickMs: 0 } };
  });
  const leaf: Leaf =
    sc.leaf.kind === 'script' ? { kind: 'script', script: sc.leaf.script.map((e) => (e.status === 'hang' ? { ...e, status: 503 } : e)) } : sc.leaf;
  return { ...sc, workload: w, stack, leaf, cancellation: false };
}

export const continuousArb: fc.Arbitrary<Scenario> = fc
  .record({
    sc: scenarioArb,
    hop: fc.constantFrom<Dist>(
      { dist: 'abs-normal', mean: 5, sd: 2 },
      { dist: 'uniform', min: 1, max: 6 },
      { dist: 'exponential', mean: 3 },
    ),
    occ: fc.boolean(),
    closed: fc.boolean(),
    horizonMs: fc.option(fc.integer({ min: 10, max: 1500 }), { nil: undefined }),
    warmupMs: fc.constantFrom(0, 0, 150),
    // Mostly without what turns the folds off: timeouts, deadlines, a timer tick, cancellation.
    foldable: fc.constantFrom(true, true, true, false),
  })
  .map(({ sc: sc0, hop, occ, closed, horizonMs, warmupMs, foldable }) => {
    const sc = foldable ? withoutTimeLimits(sc0) : sc0;
    const stack = sc.stack.map((l) => (l.hopMs && !sc.cancellation ? { ...l, hopMs: { dist: 'uniform' as const, min: 0.5, max: 4 } } : l));
    const w = sc.workload as Extract<Scenario['workload'], { kind: 'burst' }>;
    const workload: Scenario['workload'] = closed
      ? { ...w, kind: 'closed', thinkMs: { dist: 'exponential', mean: 20 }, durationMs: 400 }
      : w;
    return {
      ...sc,
      workload,
      stack,
      leaf: occ ? ({ kind: 'occ' } as const) : sc.leaf,
      network: { hopMs: hop },
      warmupMs: closed ? warmupMs : 0,
      ...(horizonMs !== undefined ? { horizonMs } : {}),
    };
  });

/**
 * The scenarios above with a pool of backends as the leaf: 2 to 4 backends in one or two clusters
 * behind each load balancer, at times with an outage, outlier detection, health checks or Envoy's
 * previous_hosts predicate. A traced run takes no shortcut, so its load balancer tests every
 * backend (`choose`) where an untraced one takes the shortcut for a cluster whose backends may all
 * be chosen (`chooseAny`): equal results lock the two paths together.
 */
export const poolArb: fc.Arbitrary<Scenario> = fc
  .record({
    sc: continuousArb,
    backends: fc.integer({ min: 2, max: 4 }),
    clusters: fc.constantFrom(1, 1, 2),
    loadBalancer: fc.constantFrom('round-robin' as const, 'random' as const, 'least-outstanding' as const, 'p2c' as const),
    server: serverArb,
    outage: fc.boolean(),
    outlierDetection: fc.boolean(),
    failurePercent: fc.boolean(),
    healthCheck: fc.boolean(),
    previousHosts: fc.boolean(),
  })
  .map(({ sc, backends, clusters, loadBalancer, server, outage, outlierDetection, failurePercent, healthCheck, previousHosts }) => {
    const s = server as ServerLeaf;
    const backend = (i: number): ServerLeaf => (outage && i === 0 ? { ...s, outages: [{ atMs: 20, durationMs: 150 }] } : s);
    const leaf: PoolLeaf = {
      kind: 'pool',
      clusters: Array.from({ length: clusters }, (_, c) => ({ name: `c${c}`, backends: Array.from({ length: backends }, (_, i) => backend(c * backends + i)) })),
      loadBalancer,
      overprovisioningFactor: 1.4,
      panicThresholdPercent: 50,
      ...(outlierDetection
        ? {
            outlierDetection: {
              consecutiveFailures: 2,
              minRequests: 3,
              intervalMs: 40,
              baseEjectionMs: 60,
              maxEjectionMs: 600,
              maxEjectionPercent: 50,
              ...(failurePercent ? { failurePercentThreshold: 50 } : {}),
            },
          }
        : {}),
      ...(healthCheck ? { healthCheck: { intervalMs: 25 } } : {}),
    };
    const last = sc.stack.length - 1;
    const stack = previousHosts
      ? sc.stack.map((l, k) => (k === last ? { ...l, policy: { ...l.policy, retryHostPredicate: 'previous-hosts' as const } } : l))
      : sc.stack;
    return { ...sc, stack, leaf };
  });


/** A retry policy as an experiment file writes it (1-3 attempts, at times a timeout). */
const policyJsonArb = fc.record({
  maxAttempts: fc.integer({ min: 1, max: 3 }),
  kind: fc.constantFrom('none', 'full-jitter', 'exponential', 'decorrelated-jitter'),
  baseMs: fc.integer({ min: 1, max: 20 }),
  timeoutMs: fc.option(fc.integer({ min: 5, max: 80 }), { nil: undefined }),
}).map(({ maxAttempts, kind, baseMs, timeoutMs }) => ({
  maxAttempts,
  backoff: kind === 'none' ? { kind } : { kind, baseMs, capMs: baseMs * 8 },
  ...(timeoutMs !== undefined ? { perAttemptTimeoutMs: timeoutMs } : {}),
}));

/** A stack of 1-2 layers as an experiment file writes it. */
const stackJsonArb = fc.array(policyJsonArb, { minLength: 1, maxLength: 2 }).map((ps) => ps.map((policy, k) => ({ name: `s${k}`, policy })));

/**
 * Small service graphs, as an experiment file writes them (resolve them with `resolveScenario`):
 * an open or closed loop entering `app` (or a weighted mix of `app` and `edge`), whose handler
 * works, then calls `db` through a stack of its own (at times behind a lookaside cache, coalescing
 * or not), and at times `aux` too (joined by all or any); `db` is a server with a fault rate and
 * a bounded queue, at times with an outage; `app` at times caps its requests in flight; random
 * hop delays; at times a metric window and a timed intervention (a policy or queue change) in the
 * middle of the run.
 */
export const graphJsonArb = fc
  .record({
    open: fc.boolean(),
    rate: fc.integer({ min: 50, max: 400 }),
    clients: fc.integer({ min: 1, max: 6 }),
    durationMs: fc.integer({ min: 100, max: 400 }),
    mix: fc.boolean(),
    entryStack: stackJsonArb,
    callStack: stackJsonArb,
    cache: fc.option(fc.record({ keys: fc.integer({ min: 1, max: 30 }), capacity: fc.integer({ min: 1, max: 10 }), zipf: fc.constantFrom(0, 0.8, 1.2), coalesce: fc.boolean() }), { nil: undefined }),
    aux: fc.option(fc.constantFrom('all', 'any'), { nil: undefined }),
    dbConcurrency: fc.integer({ min: 1, max: 4 }),
    dbQueue: fc.integer({ min: 0, max: 20 }),
    dbFault: fc.double({ min: 0, max: 0.5, noNaN: true }),
    outage: fc.boolean(),
    maxInFlight: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
    hopMs: fc.constantFrom<unknown>(0, 1, { dist: 'uniform', min: 0, max: 3 }),
    window: fc.boolean(),
    intervention: fc.constantFrom('none', 'none', 'attempts', 'queue'),
  })
  .map((p) => {
    const callPath = 'services.app.endpoints.get.steps.1.calls.0';
    const calls: unknown[] = [{ service: 'db', stack: p.callStack, ...(p.cache !== undefined ? { cache: { ...p.cache, hitLatencyMs: 0 } } : {}) }];
    if (p.aux !== undefined) calls.push({ service: 'aux', stack: [{ name: 'to-aux', policy: { maxAttempts: 2, backoff: { kind: 'none' } } }] });
    const entry = p.mix ? [{ service: 'app', endpoint: 'get', weight: 3 }, { service: 'edge', endpoint: 'get', weight: 1 }] : { service: 'app', endpoint: 'get' };
    const workload = p.open
      ? { kind: 'open', rate: p.rate, durationMs: p.durationMs, clients: p.clients, entry }
      : { kind: 'closed', clients: p.clients, thinkMs: { dist: 'exponential', mean: 10 }, durationMs: p.durationMs, entry };
    const half = Math.round(p.durationMs / 2);
    const interventions =
      p.intervention === 'attempts'
        ? [{ atMs: half, set: { [`${callPath}.stack.0.policy.maxAttempts`]: 1 } }]
        : p.intervention === 'queue'
          ? [{ atMs: half, set: { 'services.db.fleet.queueLimit': 1 } }]
          : undefined;
    return {
      workload,
      stack: p.entryStack,
      network: { hopMs: p.hopMs },
      metrics: { timeSeriesBinMs: 10, ...(p.window ? { windows: [{ name: 'mid', fromMs: Math.round(p.durationMs / 4), toMs: half }] } : {}) },
      ...(interventions !== undefined ? { interventions } : {}),
      services: {
        app: {
          fleet: { kind: 'server', concurrency: 4, serviceMs: { dist: 'exponential', mean: 1 } },
          ...(p.maxInFlight !== undefined ? { maxInFlight: p.maxInFlight } : {}),
          endpoints: { get: { steps: [{ kind: 'work' }, { kind: 'call', ...(p.aux !== undefined ? { join: p.aux } : {}), calls }] } },
        },
        edge: { fleet: { kind: 'server', concurrency: 2, serviceMs: 1 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'to-db', policy: { maxAttempts: 2, backoff: { kind: 'full-jitter', baseMs: 5, capMs: 40 } } }] }] }] } } },
        db: {
          fleet: {
            kind: 'server',
            concurrency: p.dbConcurrency,
            queueLimit: p.dbQueue,
            serviceMs: { dist: 'exponential', mean: 4 },
            faults: [{ fromMs: 0, toMs: 1e9, probability: p.dbFault, status: 503 }],
            ...(p.outage ? { capacity: [{ atMs: Math.round(p.durationMs / 3), durationMs: 40, concurrency: 0 }] } : {}),
          },
          endpoints: { get: {} },
        },
        aux: { fleet: { kind: 'server', concurrency: 2, serviceMs: { dist: 'uniform', min: 0, max: 3 } }, endpoints: { get: {} } },
      },
    };
  });
