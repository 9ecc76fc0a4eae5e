/**
 * The schemas of the leaf at the bottom of a stack (`leafSchema`): a `server`, a `pool` of backends
 * in clusters behind a load balancer, the `occ` resource, or a `script`, with the parts they are made
 * of: injected faults, capacity windows, outages and crashes, the fields of one server (shared by a
 * `server` leaf and a pool's backends), backend templates and overrides, and the expansion of a
 * pool's clusters into their backends. A service graph's fleets are these leaves too.
 */
import { z } from 'zod';
import type { PoolLeaf, ScriptEntry, ServerLeaf } from '../model/scenario.js';
import { ANSWER_STATUSES, FAULT_STATUSES } from '../policy/outcome.js';
import { between } from '../policy/schema/between.js';
import { fields as f } from '../policy/schema/fields.js';
import { doc, titled } from '../policy/schema/schemaDocs.js';
import { distSchema } from './distSchema.js';
import { MAX_SCRIPT_MS, readScript } from './parseScript.js';

const faultSchema = f
  .object({
    fromMs: f.number('>= 0').default(0),
    toMs: doc(f.number('>= 0').optional(), 'Default: forever.'),
    probability: titled(f.number('between 0 and 1'), 'Fault probability', 'fraction'),
    status: f.literals(FAULT_STATUSES).default(503),
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
        status: f.literals([...ANSWER_STATUSES, 'hang']),
        durationMs: f.range(0, MAX_SCRIPT_MS).default(0),
        retryAfterMs: f.range(0, MAX_SCRIPT_MS).optional(),
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
