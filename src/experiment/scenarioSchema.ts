import { z } from 'zod';
import type { Layer, Leaf, RateSchedule, Scenario } from '../model/scenario.js';
import { fields as f } from '../policy/schema/fields.js';
import { between } from '../policy/schema/between.js';
import { distSchema } from './distSchema.js';
import { entryFleet, entrySchema, firstEntry, graphIssues, graphSchemas, resolveGraph } from './graphSchema.js';
import { interventionsSchema } from './interventionSchema.js';
import { leafSchema } from './leafSchema.js';
import { namedLayers, uniqueLayerNames } from './layerNames.js';
import { policySchema } from '../policy/schema/policySchema.js';
import type { PathSegment } from './Problem.js';
import { doc, titled } from '../policy/schema/schemaDocs.js';

export { BACKOFF_KINDS, DEFAULT_RETRY_ON, policySchema, RETRY_AFTER_MODES, RETRY_ON_CLASSES } from '../policy/schema/policySchema.js';

/** Request methods (RFC 9110): GET, HEAD, PUT and DELETE are idempotent, POST is not. */
export const METHODS = ['GET', 'HEAD', 'PUT', 'DELETE', 'POST'] as const;

// Workloads -----------------------------------------------------------------------------------

function somePositive(names: readonly string[]) {
  return (value: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    const rates = names.map((name) => value[name] as number);
    if (rates.every((r) => r === 0)) {
      between(ctx, [], `must have ${names.join(' or ')} > 0 (got ${rates.join(' and ')})`, value, names.map((n) => [n]));
    }
  };
}

/**
 * The highest arrival rate a workload may have, per second: 10^9 operations a second is far beyond
 * what a run can simulate (the default event cap, 2 x 10^8 events, is a fifth of a second of it; the
 * engine handles about 10^7 events a second), so a larger rate is a mistake, and its estimates of work
 * and output would overflow.
 */
export const MAX_RATE_PER_SEC = 1e9;
/** A rate field: a finite number satisfying `rule`, at most {@link MAX_RATE_PER_SEC}. */
const rate = (rule: '> 0' | '>= 0') => f.numberAtMost(rule, MAX_RATE_PER_SEC);

const rateSchedule = f.choice('kind', ['steady', 'step', 'spike', 'ramp'], [
  f.object({ kind: z.literal('steady'), ratePerSec: rate('> 0') }),
  doc(
    f
      .object({ kind: z.literal('step'), ratePerSec: rate('>= 0'), atMs: f.number('>= 0'), toRatePerSec: rate('>= 0') })
      .superRefine(somePositive(['ratePerSec', 'toRatePerSec'])),
    '`ratePerSec` until `atMs`, then `toRatePerSec`.',
  ),
  doc(
    f
      .object({
        kind: z.literal('spike'),
        ratePerSec: rate('>= 0'),
        atMs: f.number('>= 0'),
        durationMs: f.number('> 0'),
        spikeRatePerSec: rate('>= 0'),
      })
      .superRefine(somePositive(['ratePerSec', 'spikeRatePerSec'])),
    '`ratePerSec`, except `spikeRatePerSec` during [atMs, atMs + durationMs).',
  ),
  doc(
    f
      .object({
        kind: z.literal('ramp'),
        points: f.array(f.object({ atMs: f.number('>= 0'), ratePerSec: rate('>= 0') }), 'points', 2),
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
    [rate('> 0').transform((ratePerSec): RateSchedule => ({ kind: 'steady', ratePerSec })), rateSchedule],
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

// Scenario --------------------------------------------------------------------------------------

/** One named metric window: `{ "name": "after", "fromMs": 90000, "toMs": 240000 }`. */
const metricWindowSchema = f
  .object({
    name: doc(f.matching(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'a name of letters, digits, "_" and "-"'), 'Name of the window in the results (`windows.<name>.goodputPerSec`).'),
    fromMs: doc(f.number('>= 0'), 'Start of the window (after the warm-up).'),
    toMs: doc(f.number('> 0'), 'End of the window (excluded).'),
    recoveryTime: doc(
      f.boolean().optional(),
      'Also measure `recoveryMs`: how long after the window\'s start the first 1 s bin came from which 10 s of goodput reach 90% of their demand.',
    ),
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
    'Named intervals measured on their own: amplification, success rate, goodput and whether the system recovered (goodput over the last 30 s >= 90% of the demand offered then); with `recoveryTime`, also when.',
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
 * default filled in (docs/concepts.md, "The model"). Checks between fields (capMs >= baseMs, ramp points in
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
        caches: graph.caches.optional(),
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
          if (scenario.caches !== undefined) between(ctx, ['caches'], "needs services (shared caches are looked up by services' calls)", scenario.caches, [['services']]);
        } else {
          if (scenario.leaf !== undefined) between(ctx, ['services'], 'cannot be combined with leaf (in a service graph the services are the leaves)', scenario.services, [['leaf']]);
          for (const w of workloads) {
            if (w.entry === undefined) between(ctx, [...w.at, 'entry'], 'is required with services (the service and endpoint operations arrive at)', undefined, [['services']]);
          }
          graphIssues(
            {
              services: scenario.services,
              bulkheads: scenario.bulkheads,
              caches: scenario.caches,
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
              `contains "hang" (or "timeout" without a duration) but no layer sets policy.perAttemptTimeoutMs and the workload has no deadlineMs (the operation would never end)`,
              leaf.script,
              [w.stackAt, w.at],
            );
          }
        }
      })
      // The interventions as written are resolved against the whole scenario afterwards (resolveScenario.ts).
      .transform(({ workload: { entry, ...workload }, stack, workloads, leaf, services, bulkheads, caches, interventions: _interventions, ...rest }): Scenario => {
        if (services === undefined) return { ...rest, workload, stack, leaf: leaf as Leaf };
        if (workloads === undefined) {
          const graph = resolveGraph({ services, bulkheads, caches, entry }, rest.cancellation);
          return { ...rest, workload, stack, leaf: entryFleet(services, entry) as Leaf, graph };
        }
        const graph = resolveGraph({ services, bulkheads, caches, workloads }, rest.cancellation);
        const first = Object.values(workloads)[0] as ParsedNamedWorkload;
        const { entry: firstEntryWritten, stack: firstStack, ...firstWorkload } = first;
        return { ...rest, workload: firstWorkload, stack: firstStack, leaf: entryFleet(services, firstEntryWritten) as Leaf, graph };
      }),
  ),
  'One complete simulation; variants and sweeps override parts of it by dotted path.',
  'Scenario',
);
