import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
import { burst, constant, layer, scenario, server, simulate, simulateTraced, sum, total } from '../helpers/scenario.js';

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

const serverArb: fc.Arbitrary<Leaf> = fc
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
function scenarios(cancellation: 'any' | 'between-layers-instant' | 'always'): fc.Arbitrary<Scenario> {
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

const scenarioArb = scenarios('between-layers-instant');

const product = (xs: number[]) => xs.reduce((a, b) => a * b, 1);
const caps = (sc: Scenario) => sc.stack.map((l) => l.policy.maxAttempts as number);

describe('properties of random small scenarios', () => {
  it('every operation ends exactly once, and nothing is left running', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (sc, seed) => {
        const r = simulate(sc, seed);
        const n = sc.workload.clients;
        expect(r.truncated).toBeNull();
        expect(r.operations.offered).toBe(n);
        expect(r.operations.unfinished).toBe(0);
        expect(r.operations.succeeded + r.operations.failed).toBe(n);
        expect(total(r.giveUps)).toBe(n);
        expect(r.giveUps.success).toBe(r.operations.succeeded);
        expect(total(r.attempts[0]?.giveUps ?? {})).toBe(n);
        expect(r.latencyMs.count).toBe(r.operations.succeeded);
        expect(r.operationMs.count).toBe(n);
      }),
      { numRuns: 300 },
    );
  });

  it("leaf calls never exceed the product of the layers' attempt caps per operation", () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (sc, seed) => {
        const r = simulate(sc, seed);
        const bound = product(caps(sc));
        expect(r.leafCalls).toBeLessThanOrEqual(sc.workload.clients * bound);
        expect(r.amplification).toBeLessThanOrEqual(bound);
        // Layer by layer: a call makes at most A_k attempts, and each attempt at most one call below.
        r.attempts.forEach((l, k) => {
          expect(l.first + l.retries).toBeLessThanOrEqual(l.first * (caps(sc)[k] as number));
          const below = r.attempts[k + 1];
          if (below) expect(below.first).toBeLessThanOrEqual(l.first + l.retries);
        });
      }),
      { numRuns: 300 },
    );
  });

  it("first tries + retries of each layer are that layer's attempts, as the timeline shows them", () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (sc, seed) => {
        const { results: r, timeline } = simulateTraced(sc, seed);
        sc.stack.forEach((_, k) => {
          const attempts = timeline.filter((e) => e.layer === k && e.event === 'attempt');
          const layerK = r.attempts[k];
          expect(layerK?.first).toBe(attempts.filter((e) => e.event === 'attempt' && e.attempt === 1).length);
          expect((layerK?.first as number) + (layerK?.retries as number)).toBe(attempts.length);
        });
        expect(r.attempts[0]?.first).toBe(sc.workload.clients);
        // Without cancellation every request of the last layer reaches the leaf.
        const last = r.attempts[r.attempts.length - 1] as { first: number; retries: number };
        if (!sc.cancellation) expect(r.leafCalls).toBe(last.first + last.retries);
        else expect(r.leafCalls).toBeLessThanOrEqual(last.first + last.retries);
        // Tracing observes the run without changing it.
        expect(simulate(sc, seed)).toEqual(r);
      }),
      { numRuns: 200 },
    );
  });

  it('without any timeout or deadline nobody stops waiting: no wasted work and nothing cancelled', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (sc0, seed) => {
        const { deadlineMs: _deadline, ...w } = sc0.workload;
        const stack = sc0.stack.map((l) => {
          const { perAttemptTimeoutMs: _t, ...policy } = l.policy;
          return { ...l, policy };
        });
        const leaf: Leaf =
          sc0.leaf.kind === 'script'
            ? { kind: 'script', script: sc0.leaf.script.map((e) => (e.status === 'hang' ? { ...e, status: 503 } : e)) }
            : sc0.leaf;
        const r = simulate({ ...sc0, workload: w, stack, leaf }, seed);
        expect(r.server.wastedWorkMs).toBe(0);
        expect(r.server.cancelled).toBe(0);
        expect(r.server.dropped).toBe(0);
        expect(r.giveUps['deadline'] ?? 0).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  it('the same seed gives identical results', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (sc, seed) => {
        expect(simulate(sc, seed)).toEqual(simulate(sc, seed));
      }),
      { numRuns: 100 },
    );
  });

  it('time series counts, away from the last instant of the run, never exceed the totals', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (sc, seed) => {
        const r = simulate(sc, seed);
        const ts = r.timeSeries;
        expect(ts.tMs[0]).toBe(0);
        expect(ts.arrivalsFirst).toHaveLength(ts.tMs.length);
        expect(sum(ts.arrivalsFirst)).toBeLessThanOrEqual(r.operations.offered);
        expect(sum(ts.arrivalsFirst) + sum(ts.arrivalsRetry)).toBeLessThanOrEqual(r.leafCalls);
        expect(sum(ts.successes)).toBeLessThanOrEqual(r.operations.succeeded);
        expect(sum(ts.failures)).toBeLessThanOrEqual(r.operations.failed);
      }),
      { numRuns: 200 },
    );
  });

  // The series drop whatever happens at exactly the run's end when it falls on a bin boundary
  // (ceil(endMs / binMs) bins leave out the bin that holds endMs); this property holds once every event is binned.
  it('time series counts sum to the totals', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (sc, seed) => {
        const r = simulate(sc, seed);
        const ts = r.timeSeries;
        expect(sum(ts.arrivalsFirst) + sum(ts.arrivalsRetry)).toBe(r.leafCalls);
        expect(sum(ts.successes)).toBe(r.operations.succeeded);
        expect(sum(ts.failures)).toBe(r.operations.failed);
      }),
      { numRuns: 200, seed: 20240601 },
    );
  });

  // A call still on its way to the next layer when its caller times out is cancelled: no operation
  // may be lost and no frame freed twice.
  it('with cancellation across delayed hops, every operation still ends exactly once', () => {
    fc.assert(
      fc.property(scenarios('always'), fc.nat(), (sc, seed) => {
        const r = simulate(sc, seed);
        expect(r.truncated).toBeNull();
        expect(r.operations.unfinished).toBe(0);
        expect(total(r.giveUps)).toBe(sc.workload.clients);
      }),
      { numRuns: 300, seed: 20240601 },
    );
  });
});

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

const continuousArb: fc.Arbitrary<Scenario> = fc
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

describe('the folds of the model', () => {
  it('change no result: a traced run (which takes none) equals an untraced one, in fewer events or as many', () => {
    fc.assert(
      fc.property(continuousArb, fc.nat(), (sc, seed) => {
        const plain = simulateTraced(sc, seed).results;
        const folded = simulate(sc, seed);
        expect(folded.events).toBeLessThanOrEqual(plain.events);
        expect({ ...folded, events: 0 }).toEqual({ ...plain, events: 0 });
      }),
      { numRuns: 400 },
    );
  });
});

/**
 * The scenarios above with a pool of backends as the leaf: 2 to 4 backends in one or two clusters
 * behind each load balancer, at times with an outage, outlier detection, health checks or Envoy's
 * previous_hosts predicate. A traced run takes no shortcut, so its load balancer tests every
 * backend (`choose`) where an untraced one takes the shortcut for a cluster whose backends may all
 * be chosen (`chooseAny`): equal results lock the two paths together.
 */
const poolArb: fc.Arbitrary<Scenario> = fc
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

describe("the load balancer's shortcut", () => {
  it('changes no result: a traced run (which tests every backend) equals an untraced one', () => {
    fc.assert(
      fc.property(poolArb, fc.nat(), (sc, seed) => {
        const plain = simulateTraced(sc, seed).results;
        const fast = simulate(sc, seed);
        expect(fast.events).toBeLessThanOrEqual(plain.events);
        expect({ ...fast, events: 0 }).toEqual({ ...plain, events: 0 });
      }),
      { numRuns: 100 },
    );
  }, 600_000);
});
