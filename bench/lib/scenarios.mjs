// The scenarios the benchmarks run through the full model, written as the `scenario` object of an
// experiment file and resolved by the real parser (defaults filled in, validated).
import { parseScenario } from '../../dist/experiment/index.js';
import { STORM_DEFAULTS } from '../reference/storm.mjs';

/** Resolve an experiment-file scenario object into the model's Scenario (throws on invalid input). */
export function resolve(scenario) {
  return parseScenario(scenario, ['scenario']);
}

/**
 * M/M/1 at utilisation 0.8 (as experiments/validation/mm1.json): Poisson arrivals at 80/s, one
 * non-retrying layer, one server, exponential service with mean 10 ms, unlimited FIFO queue, open
 * loop, no network delay. About `ops` operations.
 */
export function mm1Scenario(ops) {
  return resolve({
    workload: { kind: 'open', rate: 80, durationMs: (ops / 80) * 1000 },
    stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
    leaf: { kind: 'server', concurrency: 1, queueLimit: 'unlimited', discipline: 'fifo', serviceMs: { dist: 'exponential', mean: 10 } },
    horizonMs: 1e15,
    maxEvents: 1e12,
    metrics: { timeSeriesBinMs: 60_000, clusteringBinMs: [10] },
  });
}

/**
 * The storm: 10,000 closed-loop clients (think time exponential, mean 1 s; first operations spread
 * over the first second) call a server through 3 layers (app, sdk, proxy) of 3 attempts each with
 * full jitter (base 10 ms, cap 1 s). The server fails every request with a 503 during the first
 * 10 s (a fault window), then serves them (200 workers, exponential service with mean 10 ms,
 * utilisation about 0.5). Clients stop starting operations at 20 s. Hops between layers take no
 * time (the schema's default network). Same model as bench/reference/storm.mjs.
 */
export function stormScenario(options = {}) {
  const o = { ...STORM_DEFAULTS, ...options };
  const policy = { maxAttempts: o.attempts, backoff: { kind: 'full-jitter', baseMs: o.baseMs, capMs: o.capMs } };
  const names = ['app', 'sdk', 'proxy', 'mesh', 'lib'];
  return resolve({
    workload: {
      kind: 'closed',
      clients: o.clients,
      durationMs: o.durationMs,
      thinkMs: { dist: 'exponential', mean: o.thinkMeanMs },
      startMs: { dist: 'uniform', min: 0, max: o.startMaxMs },
    },
    stack: Array.from({ length: o.layers }, (_, k) => ({ name: names[k] ?? `layer${k}`, policy })),
    leaf: {
      kind: 'server',
      concurrency: o.concurrency,
      serviceMs: { dist: 'exponential', mean: o.serviceMeanMs },
      faults: [{ fromMs: o.faultFromMs, toMs: o.faultToMs, probability: o.faultProbability, status: 503 }],
    },
  });
}

/**
 * The graph benchmark: 10,000 closed-loop clients (as the storm's: think time exponential, mean 1 s;
 * first operations spread over the first second; none started after 20 s) call a frontend through
 * one layer of 3 attempts (full jitter, base 10 ms, cap 1 s). The frontend (async, no work of its
 * own) calls 3 mid-tier services in parallel, joined by `all`, each through an sdk of 3 attempts;
 * mid-tier service i (async) calls backends i and i + 1 (of 3, shared) joined by `all`, each through
 * a client of 2 attempts. The backends are servers of 400 workers with exponential service of mean
 * 10 ms (about half busy at 20,000 calls/s each); backend b1 is down (an outage: 503 at once) for
 * the first 10 s. Hops take no time. `concurrency` sets the backends' workers (a smaller graph at
 * the same loads: clients and workers scaled alike).
 */
export function graphScenario(options = {}) {
  const o = { clients: 10_000, durationMs: 20_000, concurrency: 400, ...options };
  const retrying = (attempts) => ({ maxAttempts: attempts, backoff: { kind: 'full-jitter', baseMs: 10, capMs: 1000 } });
  const backend = (outage) => ({
    fleet: { kind: 'server', concurrency: o.concurrency, serviceMs: { dist: 'exponential', mean: 10 }, ...(outage ? { outages: [{ atMs: 0, durationMs: 10_000 }] } : {}) },
    endpoints: { get: {} },
  });
  const mid = (a, b) => ({
    fleet: { kind: 'server', serviceMs: 1 },
    endpoints: {
      get: {
        steps: [
          {
            kind: 'call',
            calls: [a, b].map((service) => ({ service, stack: [{ name: 'client', policy: retrying(2) }] })),
          },
        ],
      },
    },
  });
  return resolve({
    workload: {
      kind: 'closed',
      clients: o.clients,
      durationMs: o.durationMs,
      thinkMs: { dist: 'exponential', mean: 1000 },
      startMs: { dist: 'uniform', min: 0, max: 1000 },
      entry: { service: 'frontend' },
    },
    stack: [{ name: 'app', policy: retrying(3) }],
    services: {
      frontend: {
        fleet: { kind: 'server', serviceMs: 1 },
        endpoints: {
          page: { steps: [{ kind: 'call', calls: ['m1', 'm2', 'm3'].map((service) => ({ service, stack: [{ name: 'sdk', policy: retrying(3) }] })) }] },
        },
      },
      m1: mid('b1', 'b2'),
      m2: mid('b2', 'b3'),
      m3: mid('b3', 'b1'),
      b1: backend(true),
      b2: backend(false),
      b3: backend(false),
    },
  });
}

/**
 * A million closed-loop clients (memory): think time exponential with mean 10 s, first operations
 * spread over the first 10 s, two layers (3 attempts each, full jitter) and a server with 2,000
 * workers and exponential service of mean 10 ms; clients stop starting operations at `durationMs`.
 */
export function manyClientsScenario(clients = 1_000_000, durationMs = 10_000) {
  const policy = { maxAttempts: 3, backoff: { kind: 'full-jitter', baseMs: 10, capMs: 1000 } };
  return resolve({
    workload: {
      kind: 'closed',
      clients,
      durationMs,
      thinkMs: { dist: 'exponential', mean: 10_000 },
      startMs: { dist: 'uniform', min: 0, max: 10_000 },
    },
    stack: [
      { name: 'app', policy },
      { name: 'sdk', policy },
    ],
    leaf: { kind: 'server', concurrency: 2000, serviceMs: { dist: 'exponential', mean: 10 } },
  });
}

/**
 * An open loop of about `ops` operations (memory must not grow with it): Poisson arrivals at
 * 100,000/s over 1,000 clients, one layer of 3 attempts with a 50 ms per-attempt timeout, a server
 * with 16 workers and exponential service of mean 0.1 ms (utilisation 0.625).
 */
export function openLoopScenario(ops) {
  return resolve({
    workload: { kind: 'open', rate: 100_000, durationMs: ops / 100, clients: 1000 },
    stack: [{ name: 'app', policy: { maxAttempts: 3, perAttemptTimeoutMs: 50, backoff: { kind: 'full-jitter', baseMs: 1, capMs: 100 } } }],
    leaf: { kind: 'server', concurrency: 16, serviceMs: { dist: 'exponential', mean: 0.1 } },
    horizonMs: 1e12,
    maxEvents: 1e12,
  });
}
