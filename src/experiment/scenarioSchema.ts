import { z } from 'zod';
import type {
  Dist,
  Layer,
  Leaf,
  PoolLeaf,
  ServerLeaf,
  RateSchedule,
  Scenario,
  ScriptEntry,
} from '../model/scenario.js';
import { fields as f } from '../policy/schema/fields.js';
import { between } from '../policy/schema/between.js';
import { entryFleet, entrySchema, firstEntry, graphIssues, graphSchemas, resolveGraph } from './graphSchema.js';
import { interventionsSchema } from './interventionSchema.js';
import { namedLayers, uniqueLayerNames } from './layerNames.js';
import { readScript } from './parseScript.js';
import { policySchema } from '../policy/schema/policySchema.js';
import type { PathSegment } from './Problem.js';
import { doc, titled } from '../policy/schema/schemaDocs.js';

export { BACKOFF_KINDS, DEFAULT_RETRY_ON, policySchema, RETRY_AFTER_MODES, RETRY_ON_CLASSES } from '../policy/schema/policySchema.js';

/** Request methods (RFC 9110): GET, HEAD, PUT and DELETE are idempotent, POST is not. */
export const METHODS = ['GET', 'HEAD', 'PUT', 'DELETE', 'POST'] as const;
/** Distribution names of `DistSpec` (src/engine/distributions.ts). */
export const DIST_KINDS = ['constant', 'uniform', 'exponential', 'normal', 'abs-normal', 'lognormal'] as const;

// Distributions -------------------------------------------------------------------------------

const distObject = f.choice('dist', DIST_KINDS, [
  f.object({ dist: z.literal('constant'), value: f.number('>= 0') }),
  f
    .object({ dist: z.literal('uniform'), min: f.number('>= 0'), max: f.number('>= 0') })
    .superRefine((d, ctx) => {
      if (d.max < d.min) between(ctx, ['max'], `must be >= min (got ${d.max} < ${d.min})`, d.max, [['min']]);
    }),
  f.object({ dist: z.literal('exponential'), mean: f.number('> 0') }),
  doc(
    f.object({ dist: z.literal('normal'), mean: f.number('>= 0'), sd: f.number('>= 0') }),
    'Normal(mean, sd) truncated at 0 (redrawn until >= 0).',
  ),
  doc(
    f.object({ dist: z.literal('abs-normal'), mean: f.number('>= 0'), sd: f.number('>= 0') }),
    '|Normal(mean, sd)|, as the network delay of the AWS 2015 contention study.',
  ),
  doc(
    f.object({ dist: z.literal('lognormal'), mean: f.number('> 0'), sd: f.number('>= 0') }),
    'Lognormal with the given mean and standard deviation of the value itself.',
  ),
]);

/** A distribution of a non-negative quantity; a plain number n means `{ "dist": "constant", "value": n }`. */
export const distSchema = doc(
  f.union(
    [f.number('>= 0').transform((value): Dist => ({ dist: 'constant', value })), distObject],
    'a number >= 0 or a distribution object',
  ),
  'A distribution (times in ms): a number for a constant, or { "dist": "exponential", "mean": 10 }, ...',
  'Dist',
);

// Workloads -----------------------------------------------------------------------------------

function somePositive(names: readonly string[]) {
  return (value: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    const rates = names.map((name) => value[name] as number);
    if (rates.every((r) => r === 0)) {
      between(ctx, [], `must have ${names.join(' or ')} > 0 (got ${rates.join(' and ')})`, value, names.map((n) => [n]));
    }
  };
}

const rateSchedule = f.choice('kind', ['steady', 'step', 'spike', 'ramp'], [
  f.object({ kind: z.literal('steady'), ratePerSec: f.number('> 0') }),
  doc(
    f
      .object({ kind: z.literal('step'), ratePerSec: f.number('>= 0'), atMs: f.number('>= 0'), toRatePerSec: f.number('>= 0') })
      .superRefine(somePositive(['ratePerSec', 'toRatePerSec'])),
    '`ratePerSec` until `atMs`, then `toRatePerSec`.',
  ),
  doc(
    f
      .object({
        kind: z.literal('spike'),
        ratePerSec: f.number('>= 0'),
        atMs: f.number('>= 0'),
        durationMs: f.number('> 0'),
        spikeRatePerSec: f.number('>= 0'),
      })
      .superRefine(somePositive(['ratePerSec', 'spikeRatePerSec'])),
    '`ratePerSec`, except `spikeRatePerSec` during [atMs, atMs + durationMs).',
  ),
  doc(
    f
      .object({
        kind: z.literal('ramp'),
        points: f.array(f.object({ atMs: f.number('>= 0'), ratePerSec: f.number('>= 0') }), 'points', 2),
      })
      .superRefine((ramp, ctx) => {
        ramp.points.forEach((point, i) => {
          const previous = ramp.points[i - 1];
          if (previous !== undefined && point.atMs <= previous.atMs) {
            between(
              ctx,
              ['points', i, 'atMs'],
              `must be > points.${i - 1}.atMs (got ${point.atMs} <= ${previous.atMs})`,
              point.atMs,
              [['points', i - 1, 'atMs']],
            );
          }
        });
        if (ramp.points.every((p) => p.ratePerSec === 0)) {
          between(ctx, ['points'], 'must have a ratePerSec > 0 (got only 0)', ramp.points, []);
        }
      }),
    'Piecewise linear through the points (atMs strictly increasing); constant before the first and after the last.',
  ),
]);

/** An open-loop arrival rate: a number n means `{ "kind": "steady", "ratePerSec": n }`. */
export const rateSchema = doc(
  f.union(
    [f.number('> 0').transform((ratePerSec): RateSchedule => ({ kind: 'steady', ratePerSec })), rateSchedule],
    'a rate > 0 or a rate schedule object',
  ),
  'Arrivals per second: a number for a steady rate, or a schedule { "kind": "step" | "spike" | "ramp", ... } (t = 0 is the end of the warm-up).',
  'Rate',
);

const operationFields = {
  method: titled(f.oneOf(METHODS).default('GET'), 'Method'),
  deadlineMs: doc(f.number('>= 0').optional(), 'Total budget of an operation from its start; absent = no deadline.'),
  permanentErrorFraction: titled(
    doc(f.number('between 0 and 1').default(0), 'Fraction of operations that are bad input (the leaf answers 400).'),
    'Bad-input fraction',
    'fraction',
  ),
  entry: doc(entrySchema.optional(), 'In a service graph: the service and endpoint the operations arrive at (required there).'),
};

/** The three kinds of workload, each object with `extra` fields besides its own (a named workload's `stack`). */
function workloadKinds<E extends z.core.$ZodLooseShape>(extra: E) {
  return [
    f.object({
      kind: z.literal('burst'),
      clients: f.boundedInt(100_000_000),
      startMs: distSchema.prefault(0),
      ...operationFields,
      ...extra,
    }),
    f.object({
      kind: z.literal('closed'),
      clients: f.boundedInt(100_000_000),
      durationMs: f.number('> 0'),
      thinkMs: titled(distSchema.prefault(0), 'Think time'),
      startMs: distSchema.prefault(0),
      ...operationFields,
      ...extra,
    }),
    f.object({
      kind: z.literal('open'),
      rate: titled(rateSchema.clone(), 'Arrival rate', 'operations/s'),
      durationMs: f.number('> 0'),
      clients: f.boundedInt(100_000_000).default(1),
      ...operationFields,
      ...extra,
    }),
  ] as const;
}

const WORKLOAD_DOC = 'burst: N clients, one operation each; closed: N clients in a loop with think time; open: Poisson arrivals at a rate.';

/** What drives the simulation: open loop (Poisson arrivals), closed loop, or a burst of clients at once. */
export const workloadSchema = doc(f.choice('kind', ['burst', 'closed', 'open'], workloadKinds({})), WORKLOAD_DOC, 'Workload');

// Layers and policies --------------------------------------------------------------------------

const layerSchema = doc(
  f.object({
    name: doc(f.nonEmptyString().optional(), 'Default: layer<i> (i from 0).'),
    instances: titled(doc(f.boundedInt(1_000_000).default(1), 'Clients map to instances by client id modulo this count.'), 'Instances', 'instances'),
    hopMs: titled(doc(distSchema.optional(), 'Delay of the hop to the next layer down (and back); default: network.hopMs.'), 'Network hop'),
    policy: policySchema.prefault({}),
  }),
  'One retrying layer.',
  'Layer',
);

/** Layers from the caller down to the leaf (1 to 16); unnamed layers are called layer0, layer1, ... */
export const stackSchema = f.array(layerSchema, 'layers', 1, 16).superRefine(uniqueLayerNames).transform(namedLayers);

/** One of a service graph's several workloads (`workloads.<name>`): a workload with its own `entry` and client-side `stack`. */
const namedWorkloadSchema = doc(
  f.choice('kind', ['burst', 'closed', 'open'], workloadKinds({ stack: doc(stackSchema.clone(), "The workload's own client-side layers, from the caller down.") })),
  `${WORKLOAD_DOC} Each has its own entry and stack.`,
  'NamedWorkload',
);

// Leaves ----------------------------------------------------------------------------------------

const faultSchema = f
  .object({
    fromMs: f.number('>= 0').default(0),
    toMs: doc(f.number('>= 0').optional(), 'Default: forever.'),
    probability: titled(f.number('between 0 and 1'), 'Fault probability', 'fraction'),
    status: f.literals([400, 404, 429, 500, 503, 'timeout']).default(503),
    retryAfterMs: f.number('>= 0').optional(),
    latencyMs: distSchema.optional(),
  })
  .superRefine((fault, ctx) => {
    if (fault.toMs !== undefined && fault.toMs <= fault.fromMs) {
      between(ctx, ['toMs'], `must be > fromMs (got ${fault.toMs} <= ${fault.fromMs})`, fault.toMs, [['fromMs']]);
    }
  })
  .transform((fault) => ({ ...fault, toMs: fault.toMs ?? Infinity }));

const capacitySchema = doc(
  f
    .array(f.object({ atMs: f.number('>= 0'), durationMs: f.number('> 0'), concurrency: f.nonNegativeInt() }), 'windows')
    .default(() => []),
  'Concurrency becomes `concurrency` during [atMs, atMs + durationMs) (0 = outage).',
);
const outagesSchema = doc(
  f.array(f.object({ atMs: f.number('>= 0'), durationMs: f.number('> 0') }), 'outages'),
  'Windows in which the backend is down: it refuses requests at once (503) and loses the work it held.',
);
const crashSchema = doc(
  f.object({ queueAbove: f.positiveInt(), restartMs: f.number('> 0') }),
  'The backend crashes when its queue grows beyond queueAbove: it loses its work and is down for restartMs.',
);

/** The fields of one server, shared by the `server` leaf and the backends of a `pool`. */
const serverFields = {
  concurrency: titled(f.intOrUnlimited(1).default(1), 'Workers', 'workers'),
  queueLimit: titled(f.intOrUnlimited(0).default('unlimited'), 'Queue limit', 'requests'),
  discipline: titled(f.oneOf(['fifo', 'lifo']).default('fifo'), 'Queue discipline'),
  serviceMs: titled(distSchema.clone(), 'Service time'),
  shedStatus: doc(
    f.literals([503, 'overloaded']).default(503),
    'What a full queue answers: 503, or "overloaded" (Google SRE book ch. 21: "overloaded; don\'t retry", never retried).',
  ),
  shedRetryAfterMs: doc(f.number('>= 0').optional(), 'Retry-After attached to the answer when the queue is full.'),
  pushbackMs: doc(
    f.number('finite').optional(),
    'gRPC pushback (grpc-retry-pushback-ms) attached to the answer when the queue is full: n >= 0 = retry after n ms, negative = do not retry.',
  ),
  degradation: f
    .choice('kind', ['linear', 'threshold'], [
      f.object({ kind: z.literal('linear'), perInFlightMs: f.number('>= 0') }),
      f.object({ kind: z.literal('threshold'), inFlightAbove: f.nonNegativeInt(), factor: f.number('>= 1') }),
    ])
    .optional(),
  dropExpired: f.boolean().default(false),
  capacity: capacitySchema,
  faults: doc(f.array(faultSchema, 'faults').default(() => []), 'Injected faults over [fromMs, toMs).'),
  outages: outagesSchema.optional(),
  crash: crashSchema.optional(),
  shedUtilization: doc(
    f.object({ above: f.number('between 0 and 1'), windowMs: f.number('> 0').default(1000) }).optional(),
    'CPU-like load shedding: refuse new requests while the busy fraction (EWMA over windowMs) is above `above`.',
  ),
  adaptiveConcurrency: doc(
    f
      .choice('kind', ['aimd', 'gradient'], [
        f.object({
          kind: z.literal('aimd'),
          initialLimit: f.number('>= 1').default(20),
          minLimit: f.number('>= 1').default(1),
          maxLimit: f.number('>= 1').default(1000),
          backoffRatio: f.number('between 0 and 1').default(0.9),
          timeoutMs: f.number('> 0'),
        }),
        f.object({
          kind: z.literal('gradient'),
          initialLimit: f.number('>= 1').default(20),
          minLimit: f.number('>= 1').default(1),
          maxLimit: f.number('>= 1').default(1000),
          sampleMs: f.number('> 0').default(100),
          minRttWindowMs: f.number('> 0').default(60_000),
          smoothing: f.number('between 0 and 1').default(0.2),
        }),
      ])
      .optional(),
    'An adaptive concurrency limit (Netflix concurrency-limits AIMD; Envoy adaptive_concurrency gradient): requests beyond it are refused.',
  ),
  codel: doc(
    f.object({ targetMs: f.number('> 0').default(5), intervalMs: f.number('> 0').default(100) }).optional(),
    'Controlled delay for the queue (Nichols & Jacobson 2012; Maurer, "Fail at Scale", 2015): fail requests that waited too long.',
  ),
};

const serverLeaf = f.object({
  kind: z.literal('server'),
  ...serverFields,
}).superRefine((server, ctx) => {
  if (server.pushbackMs !== undefined && server.shedRetryAfterMs !== undefined) {
    between(
      ctx,
      ['pushbackMs'],
      'cannot be combined with shedRetryAfterMs (a shed answer carries one hint: Retry-After or gRPC pushback)',
      server.pushbackMs,
      [['shedRetryAfterMs']],
    );
  }
});

/** A server template for a pool's backends (the fields of a `server` leaf without `kind`). */
const backendTemplate = f.object({ ...serverFields });

/** Per-backend departures from the template: a few fields that differ between backends. */
const backendOverride = f.object({
  backend: f.nonNegativeInt(),
  concurrency: f.intOrUnlimited(1).optional(),
  serviceMs: distSchema.optional(),
  capacity: capacitySchema.optional(),
  faults: f.array(faultSchema, 'faults').optional(),
  outages: outagesSchema.optional(),
  crash: crashSchema.optional(),
});

const clusterSchema = f.object({
  name: f.nonEmptyString(),
  backends: f.positiveInt(),
  server: backendTemplate.optional(),
  overrides: f.array(backendOverride, 'overrides').default(() => []),
});

type Template = z.output<typeof backendTemplate>;
type Override = z.output<typeof backendOverride>;

function expandBackends(count: number, template: Template, overrides: Override[]): ServerLeaf[] {
  return Array.from({ length: count }, (_, b) => {
    const server: ServerLeaf = { kind: 'server', ...template } as ServerLeaf;
    for (const o of overrides) {
      if (o.backend !== b) continue;
      const { backend: _b, ...fields } = o;
      for (const [k, v] of Object.entries(fields)) if (v !== undefined) (server as unknown as Record<string, unknown>)[k] = v;
    }
    return server;
  });
}

const poolLeaf = f
  .object({
    kind: z.literal('pool'),
    backends: doc(f.positiveInt().optional(), 'Number of backends of a single cluster (or give `clusters`).'),
    server: doc(backendTemplate.optional(), 'The server every backend is (its fields as in a `server` leaf); with clusters, the default for each.'),
    overrides: doc(f.array(backendOverride, 'overrides').default(() => []), 'Per-backend changes: { backend: index, ... }.'),
    clusters: doc(f.array(clusterSchema, 'clusters', 1).optional(), 'Clusters in priority order (failover spills down the list).'),
    loadBalancer: f.oneOf(['round-robin', 'random', 'least-outstanding', 'p2c']).default('round-robin'),
    outlierDetection: doc(
      f
        .object({
          consecutiveFailures: f.positiveInt().default(5),
          failurePercentThreshold: f.number('between 0 and 1').transform((x) => x * 100).optional(),
          minRequests: f.positiveInt().default(5),
          intervalMs: f.number('> 0').default(10_000),
          baseEjectionMs: f.number('> 0').default(30_000),
          maxEjectionMs: f.number('> 0').default(300_000),
          maxEjectionPercent: f.number('> 0').default(10),
        })
        .optional(),
      'Envoy outlier detection: consecutive_5xx 5, base_ejection_time 30 s (x ejections, max 300 s), max_ejection_percent 10.',
    ),
    healthCheck: doc(f.object({ intervalMs: f.number('> 0').default(5000) }).optional(), 'Active health checks: a down backend is marked unhealthy at the next check.'),
    overprovisioningFactor: doc(f.number('>= 1').default(1.4), "Envoy's priority failover: a cluster takes min(100%, healthy share x factor)."),
    panicThresholdPercent: doc(f.number('>= 0').default(50), "Envoy's panic threshold: below it a cluster balances over all its backends."),
  })
  .superRefine((pool, ctx) => {
    if (pool.clusters === undefined && (pool.backends === undefined || pool.server === undefined)) {
      between(ctx, [pool.backends === undefined ? 'backends' : 'server'], 'is required (or give `clusters`)', undefined, []);
    }
    if (pool.clusters !== undefined && pool.backends !== undefined) {
      between(ctx, ['clusters'], 'cannot be combined with backends (give the backends of each cluster)', undefined, [['backends']]);
    }
    (pool.clusters ?? []).forEach((c, i) => {
      if (c.server === undefined && pool.server === undefined) between(ctx, ['clusters', i, 'server'], 'is required', undefined, []);
    });
  })
  .transform((pool): PoolLeaf => {
    const clusters =
      pool.clusters !== undefined
        ? pool.clusters.map((c) => ({ name: c.name, backends: expandBackends(c.backends, (c.server ?? pool.server) as Template, c.overrides) }))
        : [{ name: 'main', backends: expandBackends(pool.backends as number, pool.server as Template, pool.overrides) }];
    const out: PoolLeaf = {
      kind: 'pool',
      clusters,
      loadBalancer: pool.loadBalancer,
      overprovisioningFactor: pool.overprovisioningFactor,
      panicThresholdPercent: pool.panicThresholdPercent,
    };
    if (pool.outlierDetection) {
      const { failurePercentThreshold, ...rest } = pool.outlierDetection;
      out.outlierDetection = { ...rest, ...(failurePercentThreshold !== undefined ? { failurePercentThreshold } : {}) };
    }
    if (pool.healthCheck) out.healthCheck = pool.healthCheck;
    return out;
  });

const scriptItem = f.union(
  [
    f.string().transform((text, ctx) => {
      const result = readScript(text);
      if (result.ok) return result.entries;
      for (const problem of result.problems) {
        const message =
          text.trim() === ''
            ? 'must not be empty (expected entries like "503:250")'
            : `has an invalid entry ${JSON.stringify(problem.entry)}: ${problem.reason}`;
        ctx.addIssue({ code: 'custom', message, input: text });
      }
      return z.NEVER;
    }),
    f
      .object({
        status: f.literals([200, 400, 404, 429, 500, 503, 'timeout', 'hang']),
        durationMs: f.number('>= 0').default(0),
        retryAfterMs: f.number('>= 0').optional(),
      })
      .transform((entry): ScriptEntry[] => [entry]),
  ],
  'a script string like "503:250" or an entry object',
);

const scriptLeaf = f.object({
  kind: z.literal('script'),
  script: doc(
    f.array(scriptItem, 'entries', 1).transform((items) => items.flat()),
    'Answers of attempts 1, 2, ... (the last repeats): "503:250", "503:100:ra=2000", "hang", "503:250*7", or objects.',
  ),
});

/** The server at the bottom of the stack: a queueing server, an OCC resource, or a script (for `trace`). */
export const leafSchema = doc(
  f.choice('kind', ['server', 'pool', 'occ', 'script'], [serverLeaf, poolLeaf, f.object({ kind: z.literal('occ') }), scriptLeaf]),
  'server: workers and a queue; pool: backends in clusters behind a load balancer; occ: the optimistic-concurrency resource of the AWS 2015 study; script: scripted answers.',
  'Leaf',
);

// Scenario --------------------------------------------------------------------------------------

/** One named metric window: `{ "name": "after", "fromMs": 90000, "toMs": 240000 }`. */
const metricWindowSchema = f
  .object({
    name: doc(f.matching(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'a name of letters, digits, "_" and "-"'), 'Name of the window in the results (`windows.<name>.goodputPerSec`).'),
    fromMs: doc(f.number('>= 0'), 'Start of the window (after the warm-up).'),
    toMs: doc(f.number('> 0'), 'End of the window (excluded).'),
  })
  .superRefine((w, ctx) => {
    if (w.toMs <= w.fromMs) between(ctx, ['toMs'], `must be > fromMs (got ${w.toMs} <= ${w.fromMs})`, w.toMs, [['fromMs']]);
  });

const metricsSchema = f.object({
  windows: doc(
    f
      .array(metricWindowSchema, 'windows')
      .superRefine((ws, ctx) => {
        const seen = new Map<string, number>();
        ws.forEach((w, i) => {
          const first = seen.get(w.name);
          if (first !== undefined) between(ctx, [i, 'name'], `must be unique (window ${first} is also called ${JSON.stringify(w.name)})`, w.name, [[first, 'name']]);
          else seen.set(w.name, i);
        });
      })
      .optional(),
    'Named intervals measured on their own: amplification, success rate, goodput and whether the system recovered (goodput over the last 30 s >= 90% of the demand offered then).',
  ),
  timeSeriesBinMs: doc(f.positiveAtLeast(0.001).default(1000), 'Bins of the time series (at least 1 µs; at most a million bins are kept).'),
  clusteringBinMs: doc(
    f.array(f.number('> 0'), 'bin widths', 1).default(() => [1, 10]),
    'Bin widths of the clustering statistics of leaf arrivals, one result entry per width.',
  ),
});

const graph = graphSchemas({ dist: distSchema, leaf: leafSchema, methods: METHODS });

/**
 * Stand-ins for `workload` and `stack` in a scenario that gives `workloads` instead (each with its
 * own stack): the scenario's fields keep their rules for the usual form, and the resolved scenario
 * takes the first named workload's.
 */
const STAND_IN_WORKLOAD = { kind: 'burst', clients: 1 };
const STAND_IN_STACK = [{}];

/** A scenario as written, with the stand-ins when it names `workloads`; `workloads` beside `workload` or `stack` is reported. */
function withNamedWorkloads(input: unknown, ctx: z.RefinementCtx): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input) || !Object.hasOwn(input, 'workloads')) return input;
  const o = input as Record<string, unknown>;
  const given = (['workload', 'stack'] as const).filter((k) => Object.hasOwn(o, k));
  if (given.length > 0) {
    between(ctx, ['workloads'], `cannot be combined with ${given.join(' and ')} (each named workload has its own entry and stack)`, o.workloads, given.map((k) => [k]));
    return input;
  }
  return { ...o, workload: STAND_IN_WORKLOAD, stack: STAND_IN_STACK };
}

type ParsedNamedWorkload = z.output<typeof namedWorkloadSchema>;

/** The entry, stack, deadline and path of each workload of a parsed scenario: its named workloads, or its one workload. */
function workloadsOf(scenario: { workload: z.output<typeof workloadSchema>; stack: Layer[]; workloads?: Record<string, ParsedNamedWorkload> | undefined }) {
  if (scenario.workloads === undefined) return [{ at: ['workload'] as PathSegment[], entry: scenario.workload.entry, stack: scenario.stack, deadlineMs: scenario.workload.deadlineMs, stackAt: ['stack'] as PathSegment[] }];
  return Object.entries(scenario.workloads).map(([name, w]) => ({
    at: ['workloads', name] as PathSegment[],
    entry: w.entry,
    stack: w.stack,
    deadlineMs: w.deadlineMs,
    stackAt: ['workloads', name, 'stack'] as PathSegment[],
  }));
}

/**
 * One complete simulation as written in an experiment file, resolved to a `Scenario` with every
 * default filled in (README.md, "The model"). Checks between fields (capMs >= baseMs, ramp points in
 * order, fault windows, a hanging script needs a timeout) carry the paths of the fields involved.
 * A service graph may have several `workloads` instead of `workload` and `stack`.
 */
export const scenarioSchema = doc(
  z.preprocess(
    withNamedWorkloads,
    f
      .object({
        workload: workloadSchema,
        stack: stackSchema,
        workloads: doc(
          f.record(namedWorkloadSchema).optional(),
          'A service graph\'s several workloads by name, instead of `workload` and `stack`: each enters at its own `entry` through its own `stack`.',
        ),
        leaf: leafSchema.optional(),
        services: graph.services.optional(),
        bulkheads: graph.bulkheads.optional(),
        network: f.object({ hopMs: titled(distSchema.prefault(0), 'Network hop') }).prefault({}),
        cancellation: doc(f.boolean().default(false), 'Propagate cancellation downstream when a caller stops waiting.'),
        warmupMs: titled(doc(f.number('>= 0').default(0), 'The system runs this long before t = 0; nothing is measured meanwhile.'), 'Warm-up'),
        horizonMs: doc(f.number('> 0').default(3_600_000), 'Safety bound on simulated time (after the warm-up).'),
        maxEvents: doc(f.positiveInt().default(200_000_000), 'Safety bound on the number of events.'),
        maxInFlight: doc(
          f.positiveInt().default(10_000_000),
          'Safety bound on the operations in flight at once in an open loop: one far above capacity with an unlimited queue piles them up, each holding memory until it ends, and stops here (closed loops and bursts hold at most one per client).',
        ),
        metrics: metricsSchema.prefault({}),
        interventions: interventionsSchema,
      })
      .superRefine((scenario, ctx) => {
        const workloads = workloadsOf(scenario);
        if (scenario.workloads !== undefined && workloads.length === 0) between(ctx, ['workloads'], 'must have at least 1 workload (got 0)', scenario.workloads, []);
        if (scenario.services === undefined) {
          if (scenario.leaf === undefined) between(ctx, ['leaf'], 'is required', undefined, []);
          if (scenario.workloads !== undefined) between(ctx, ['workloads'], 'needs services (several workloads enter a service graph)', scenario.workloads, [['services']]);
          else if (scenario.workload.entry !== undefined) between(ctx, ['workload', 'entry'], 'needs services (a stack + leaf scenario calls its leaf)', scenario.workload.entry, [['services']]);
          if (scenario.bulkheads !== undefined) between(ctx, ['bulkheads'], 'needs services (bulkheads are between services)', scenario.bulkheads, [['services']]);
        } else {
          if (scenario.leaf !== undefined) between(ctx, ['services'], 'cannot be combined with leaf (in a service graph the services are the leaves)', scenario.services, [['leaf']]);
          for (const w of workloads) {
            if (w.entry === undefined) between(ctx, [...w.at, 'entry'], 'is required with services (the service and endpoint operations arrive at)', undefined, [['services']]);
          }
          graphIssues(
            {
              services: scenario.services,
              bulkheads: scenario.bulkheads,
              entry: scenario.workloads === undefined ? scenario.workload.entry : undefined,
              workloads: scenario.workloads === undefined ? undefined : Object.fromEntries(Object.entries(scenario.workloads).map(([name, w]) => [name, { entry: w.entry }])),
            },
            ctx,
          );
        }
        for (const w of workloads) {
          const leaf = scenario.leaf ?? entryFleet(scenario.services, w.entry);
          if (leaf?.kind !== 'script' || !leaf.script.some((e) => e.status === 'hang')) continue;
          const hasTimeout = w.stack.some((layer) => layer.policy.perAttemptTimeoutMs !== undefined);
          if (!hasTimeout && w.deadlineMs === undefined) {
            const where: PathSegment[] = scenario.leaf !== undefined ? ['leaf', 'script'] : ['services', firstEntry(w.entry)?.service ?? '', 'fleet', 'script'];
            between(
              ctx,
              where,
              `contains "hang" but no layer sets policy.perAttemptTimeoutMs and the workload has no deadlineMs (the operation would never end)`,
              leaf.script,
              [w.stackAt, w.at],
            );
          }
        }
      })
      // The interventions as written are resolved against the whole scenario afterwards (resolveScenario.ts).
      .transform(({ workload: { entry, ...workload }, stack, workloads, leaf, services, bulkheads, interventions: _interventions, ...rest }): Scenario => {
        if (services === undefined) return { ...rest, workload, stack, leaf: leaf as Leaf };
        if (workloads === undefined) {
          const graph = resolveGraph({ services, bulkheads, entry }, rest.cancellation);
          return { ...rest, workload, stack, leaf: entryFleet(services, entry) as Leaf, graph };
        }
        const graph = resolveGraph({ services, bulkheads, workloads }, rest.cancellation);
        const first = Object.values(workloads)[0] as ParsedNamedWorkload;
        const { entry: firstEntryWritten, stack: firstStack, ...firstWorkload } = first;
        return { ...rest, workload: firstWorkload, stack: firstStack, leaf: entryFleet(services, firstEntryWritten) as Leaf, graph };
      }),
  ),
  'One complete simulation; variants and sweeps override parts of it by dotted path.',
  'Scenario',
);
