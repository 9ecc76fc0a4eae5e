import { z } from 'zod';
import { fields as f } from '../policy/schema/fields.js';
import { doc } from '../policy/schema/schemaDocs.js';
import { DEFAULT_PARTICLES } from '../risk/riskOptions.js';

/**
 * The metrics of a running model that `retrystorm risk` can watch, each read at the points of the
 * check grid (`checkEveryMs`), all "larger is nearer the collapse" except `goodput` and `hitRatio`:
 * - `inFlight`: requests at the service now, queued or in service (a stack run: at its leaf);
 * - `queued`: requests waiting in the service's queues now;
 * - `utilization`: the service's busy workers over its workers now (0 to 1);
 * - `missRatio`: the cache's misses over its lookups in the last `windowMs` (1 minus the hit ratio);
 * - `hitRatio`: the cache's hits over its lookups in the last `windowMs`;
 * - `retryShare`: the retries among the requests that reached the service in the last `windowMs`;
 * - `goodput`: the operations that succeeded over the operations started (the demand) in the last
 *   `windowMs`, at the entry.
 */
export const RISK_METRICS = ['inFlight', 'queued', 'utilization', 'missRatio', 'hitRatio', 'retryShare', 'goodput'] as const;
/** A metric a risk estimate watches: see {@link RISK_METRICS}. */
export type RiskMetric = (typeof RISK_METRICS)[number];

/** The metrics that are read over a window of time (`windowMs`) rather than at an instant. */
export const WINDOWED_RISK_METRICS: ReadonlySet<RiskMetric> = new Set(['missRatio', 'hitRatio', 'retryShare', 'goodput']);
/** The metrics whose larger values are farther from the collapse: not an importance (levels rise toward the collapse). */
export const DECREASING_RISK_METRICS: ReadonlySet<RiskMetric> = new Set(['hitRatio', 'goodput']);

/** The estimators of `retrystorm risk`: adaptive multilevel splitting, fixed-level splitting, plain Monte Carlo. */
export const RISK_METHODS = ['adaptive', 'fixed', 'monte-carlo'] as const;

const probeFields = {
  metric: doc(f.oneOf(RISK_METRICS), 'inFlight, queued, utilization (a service, now); missRatio, hitRatio (a cache), retryShare (a service), goodput (the entry): over the last windowMs.'),
  service: doc(f.nonEmptyString().optional(), 'The service of inFlight, queued, utilization and retryShare in a graph (default: the entry service; a stack run has one).'),
  cache: doc(f.nonEmptyString().optional(), 'The cache of missRatio and hitRatio: a shared tier\'s name, or "<service>.<name>" of a call\'s own cache (its name among the service\'s caches, as in the results; required when the graph has more than one).'),
  windowMs: doc(f.number('> 0').optional(), 'For missRatio, hitRatio, retryShare and goodput: the window they are measured over, a multiple of checkEveryMs (default: checkEveryMs).'),
};

/** The fields each estimator reads: another estimator's field given is a mistake (it would be ignored). */
export const RISK_METHOD_FIELDS = {
  adaptive: ['particles', 'repetitions', 'killCount', 'importanceStep'],
  fixed: ['levels', 'particles', 'repetitions'],
  'monte-carlo': ['runs'],
} as const satisfies Record<(typeof RISK_METHODS)[number], readonly string[]>;

/** The estimator when the section names none. */
export const DEFAULT_RISK_METHOD: (typeof RISK_METHODS)[number] = 'adaptive';

/** One problem of a risk section across its fields: where (relative to the section) and the rule. */
export interface RiskSectionProblem {
  path: Array<string | number>;
  message: string;
  input: unknown;
  /** The other fields that decide it (relative to the section), so a problem is blamed on a patch of any of them. */
  related?: Array<Array<string | number>>;
}

/** A probe as the cross-field rules read it (the importance or the collapse). */
interface ProbeFields {
  metric: RiskMetric;
  service?: string | undefined;
  cache?: string | undefined;
  windowMs?: number | undefined;
}

const WINDOWED_TEXT = [...WINDOWED_RISK_METRICS].join(', ');
/** The metrics of a cache (the only ones that take `cache`). */
const CACHE_METRICS: ReadonlySet<RiskMetric> = new Set(['missRatio', 'hitRatio']);
/** The metrics of a service (the only ones that take `service`). */
const SERVICE_METRICS: ReadonlySet<RiskMetric> = new Set(['inFlight', 'queued', 'utilization', 'retryShare']);

/** The relative slack within which a window counts as a whole multiple of the check grid (rounding of decimal times, e.g. 1000 over 0.1). */
export const WINDOW_MULTIPLE_TOLERANCE = 1e-9;

/** Whether `windowMs` is k >= 1 whole steps of `checkEveryMs`, up to {@link WINDOW_MULTIPLE_TOLERANCE}. */
function isWholeMultiple(windowMs: number, checkEveryMs: number): boolean {
  const k = windowMs / checkEveryMs;
  return k >= 1 - WINDOW_MULTIPLE_TOLERANCE && Math.abs(k - Math.round(k)) <= WINDOW_MULTIPLE_TOLERANCE * Math.max(1, k);
}

/** The rules of one probe against the check grid. */
function probeProblems(where: 'importance' | 'collapse', probe: ProbeFields, checkEveryMs: number): RiskSectionProblem[] {
  const out: RiskSectionProblem[] = [];
  const windowed = WINDOWED_RISK_METRICS.has(probe.metric);
  if (probe.windowMs !== undefined && !windowed) {
    out.push({ path: [where, 'windowMs'], message: `is only for the metrics read over a window (${WINDOWED_TEXT}); ${probe.metric} is read at an instant`, input: probe.windowMs });
  } else if (probe.windowMs !== undefined && checkEveryMs > 0 && !isWholeMultiple(probe.windowMs, checkEveryMs)) {
    out.push({ path: [where, 'windowMs'], message: `must be a multiple of checkEveryMs (got ${probe.windowMs}, checkEveryMs ${checkEveryMs})`, input: probe.windowMs });
  }
  if (windowed && checkEveryMs === 0) {
    out.push({ path: ['checkEveryMs'], message: `must be > 0 when ${where}.metric is ${probe.metric} (read over a window; 0, after every event, is for instant metrics only)`, input: checkEveryMs });
  }
  if (probe.cache !== undefined && !CACHE_METRICS.has(probe.metric)) {
    out.push({ path: [where, 'cache'], message: `is only for ${[...CACHE_METRICS].join(' and ')} (got metric ${probe.metric})`, input: probe.cache });
  }
  if (probe.service !== undefined && !SERVICE_METRICS.has(probe.metric)) {
    out.push({ path: [where, 'service'], message: `is only for ${[...SERVICE_METRICS].join(', ')} (got metric ${probe.metric})`, input: probe.service });
  }
  return out;
}

/** The levels: strictly ascending. */
function levelProblems(levels: readonly number[]): RiskSectionProblem[] {
  for (let i = 1; i < levels.length; i++) {
    const [a, b] = [levels[i - 1] as number, levels[i] as number];
    if (!(b > a)) return [{ path: ['levels', i], message: `must be greater than levels.${i - 1} (levels ascend toward the collapse; got ${b} after ${a})`, input: b }];
  }
  return [];
}

/** A risk section as the cross-field rules read it (each field's own rule already passed). */
interface RiskSectionInput {
  importance: ProbeFields;
  collapse: ProbeFields & { above?: number | undefined; below?: number | undefined; forMs: number };
  checkEveryMs: number;
  method?: (typeof RISK_METHODS)[number] | undefined;
  levels?: number[] | undefined;
  particles?: number | undefined;
  killCount?: number | undefined;
  runs?: number | undefined;
  absorbBelow?: number | undefined;
  excursions?: { countOverMs: number } | undefined;
}

/** The estimator's fields: required ones present, other estimators' fields absent, killCount below particles. */
function methodProblems(risk: RiskSectionInput): RiskSectionProblem[] {
  const method = risk.method ?? DEFAULT_RISK_METHOD;
  const out: RiskSectionProblem[] = [];
  if (method === 'fixed' && risk.levels === undefined) out.push({ path: ['levels'], message: 'is required by method fixed (the importance levels, ascending)', input: undefined, related: [['method']] });
  if (method === 'monte-carlo' && risk.runs === undefined) out.push({ path: ['runs'], message: 'is required by method monte-carlo (how many plain runs)', input: undefined, related: [['method']] });
  const own: readonly string[] = RISK_METHOD_FIELDS[method];
  for (const field of new Set(Object.values(RISK_METHOD_FIELDS).flat())) {
    const value = (risk as unknown as Record<string, unknown>)[field];
    if (value === undefined || own.includes(field)) continue;
    const users = RISK_METHODS.filter((m) => (RISK_METHOD_FIELDS[m] as readonly string[]).includes(field));
    out.push({ path: [field], message: `is only read by method ${users.join(' or ')} (this section's method is ${method})`, input: value, related: [['method']] });
  }
  const particles = risk.particles ?? DEFAULT_PARTICLES;
  if (method === 'adaptive' && risk.killCount !== undefined && risk.killCount >= particles) {
    out.push({ path: ['killCount'], message: `must be less than particles (got ${risk.killCount}, particles ${particles}: a particle must survive each iteration)`, input: risk.killCount, related: [['particles']] });
  }
  return out;
}

/**
 * The rules of a risk section across its fields, each with its path in the section and the rule:
 * exactly one of collapse.above and collapse.below; a windowMs only for the windowed metrics and a
 * multiple of checkEveryMs; checkEveryMs 0 only with instant metrics; a cache only for the cache
 * metrics and a service only for a service's; the importance not a metric that falls toward the
 * collapse; levels ascending and required by fixed; runs required by monte-carlo; each estimator's
 * fields only with that estimator; killCount below particles; excursions only with absorbBelow.
 */
export function riskSectionProblems(risk: RiskSectionInput): RiskSectionProblem[] {
  const out: RiskSectionProblem[] = [];
  const { collapse } = risk;
  if ((collapse.above === undefined) === (collapse.below === undefined)) {
    const got = collapse.above === undefined ? 'neither' : 'both';
    out.push({ path: ['collapse', 'above'], message: `or collapse.below is required, exactly one of them (got ${got}: the collapse is the metric above or below a threshold)`, input: collapse.above });
  }
  if (DECREASING_RISK_METRICS.has(risk.importance.metric)) {
    const instead = risk.importance.metric === 'hitRatio' ? 'use missRatio' : 'use a metric that grows toward the collapse';
    out.push({ path: ['importance', 'metric'], message: `cannot be ${risk.importance.metric}: it falls toward the collapse and levels must rise toward it (${instead})`, input: risk.importance.metric });
  }
  out.push(...probeProblems('importance', risk.importance, risk.checkEveryMs), ...probeProblems('collapse', collapse, risk.checkEveryMs));
  if (risk.levels !== undefined) out.push(...levelProblems(risk.levels));
  out.push(...methodProblems(risk));
  if (risk.excursions !== undefined && risk.absorbBelow === undefined) {
    out.push({ path: ['excursions'], message: 'needs absorbBelow (an excursion starts when the importance rises to absorbBelow and ends when it falls below it)', input: risk.excursions, related: [['absorbBelow']] });
  }
  // Both probes may break the same checkEveryMs rule: say it once.
  return out.filter((p, i) => out.findIndex((q) => q.path.join('.') === p.path.join('.')) === i);
}

/** What a risk estimate places its levels on: a metric of the running model, larger nearer the collapse. */
export const riskImportanceSchema = doc(
  f.object(probeFields),
  'The importance: the metric the levels are placed on (inFlight, queued, utilization, missRatio or retryShare; larger is nearer the collapse).',
  'RiskImportance',
);

/** The collapse: a metric past a threshold at every check for a duration. */
export const riskCollapseSchema = doc(
  f.object({
    ...probeFields,
    above: doc(f.number('finite').optional(), 'The collapse holds while the metric is > above.'),
    below: doc(f.number('finite').optional(), 'The collapse holds while the metric is < below.'),
    forMs: doc(f.number('>= 0'), 'For this long without a break (0: at one check), at every check of the grid.'),
  }),
  'The rare event: the metric past the threshold (above or below) at every check for forMs, e.g. goodput below 0.5 for 10,000 ms.',
  'RiskCollapse',
);

/** The `risk` section of an experiment file: what `retrystorm risk` estimates, and how. */
export const riskSchema = doc(
  f.object({
    importance: riskImportanceSchema,
    collapse: riskCollapseSchema,
    checkEveryMs: doc(
      f.number('>= 0'),
      'The check grid: the importance and the collapse are read at every multiple of it (0: after every event, for instant metrics only).',
    ),
    absorbBelow: doc(
      f.number('finite').optional(),
      'A trajectory whose importance has reached this value and then falls below it is over (absorbed: it cannot matter any more), e.g. 1 for an empty system.',
    ),
    excursions: doc(
      f.object({ countOverMs: doc(f.number('> 0'), 'Simulated time (from 0) of the plain run that counts the excursions: every time the importance rises to absorbBelow.') }).optional(),
      'Estimate per excursion (needs absorbBelow): each trajectory is one excursion of the importance from absorbBelow, splitting estimates p = P(an excursion collapses), a plain run counts the excursions per unit of time r, and P(collapse within the horizon) = 1 - exp(-r x horizonMs x p) (for horizons far longer than an excursion; docs/risk.md, "Per excursion").',
    ),
    method: doc(f.oneOf(RISK_METHODS).optional(), 'adaptive (adaptive multilevel splitting; default), fixed (fixed-level splitting at levels) or monte-carlo.'),
    levels: doc(f.array(f.number('finite'), 'levels', 1).optional(), 'The importance levels of fixed-level splitting, ascending (required by fixed).'),
    particles: doc(f.integer('an integer >= 2', 2).optional(), 'Particles of adaptive splitting, or trajectories per level of fixed-level splitting.'),
    repetitions: doc(f.integer('an integer >= 2', 2).optional(), 'Independent repetitions; the 95% interval is over them.'),
    killCount: doc(f.positiveInt().optional(), 'Particles adaptive splitting discards at least per iteration.'),
    importanceStep: doc(f.number('> 0').optional(), 'The grid the importance is rounded down to in adaptive splitting (1 for counts).'),
    runs: doc(f.positiveInt().optional(), 'Runs of monte-carlo (required by monte-carlo).'),
  }).superRefine((risk, ctx) => {
    for (const p of riskSectionProblems(risk)) {
      const related = p.related === undefined ? {} : { params: { related: p.related, depth: p.path.length } };
      ctx.addIssue({ code: 'custom', path: p.path, message: p.message, input: p.input, ...related });
    }
  }),
  'What `retrystorm risk` estimates: P(collapse within the horizon), the horizon being the scenario\'s horizonMs; `run` ignores it.',
  'RiskSection',
);

/** The `risk` section after validation. */
export type RiskSection = z.output<typeof riskSchema>;
/** What the levels are placed on. */
export type RiskImportance = z.output<typeof riskImportanceSchema>;
/** The collapse condition. */
export type RiskCollapse = z.output<typeof riskCollapseSchema>;
