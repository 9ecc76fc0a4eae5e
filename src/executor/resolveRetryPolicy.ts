import { BACKOFF_KINDS } from '../policy/backoff.js';
import { type AdmissionSpec } from '../policy/budgets/AdmissionControl.js';
import { AWS_ADAPTIVE_DEFAULTS } from '../policy/budgets/AwsAdaptiveRateLimiter.js';
import { BROOKER_BREAKER_DEFAULTS } from '../policy/budgets/BrookerBreaker.js';
import { BROOKER_TOKEN_BUCKET_DEFAULTS } from '../policy/budgets/BrookerTokenBucket.js';
import { ENVOY_ADMISSION_DEFAULTS } from '../policy/budgets/EnvoyAdmissionControl.js';
import { ENVOY_MAX_RETRIES_DEFAULTS } from '../policy/budgets/EnvoyMaxRetries.js';
import { ENVOY_RETRY_BUDGET_DEFAULTS } from '../policy/budgets/EnvoyRetryBudget.js';
import { FINAGLE_DEFAULTS } from '../policy/budgets/FinagleRetryBudget.js';
import { GRPC_THROTTLE_DEFAULTS } from '../policy/budgets/GrpcRetryThrottle.js';
import { type BudgetSpec } from '../policy/budgets/RetryBudget.js';
import { CIRCUIT_BREAKER_DEFAULTS } from '../policy/budgets/RetryCircuitBreaker.js';
import { SERVER_WIDE_DEFAULTS } from '../policy/budgets/ServerWideBudget.js';
import { SRE_ADAPTIVE_DEFAULTS } from '../policy/budgets/SreAdaptiveThrottle.js';
import { SRE_RATIO_DEFAULTS } from '../policy/budgets/SreRatioBudget.js';
import { TOKEN_BUCKET_DEFAULTS } from '../policy/budgets/TokenBucketQuota.js';
import { DEFAULT_RETRY_ON, RETRY_ON_CLASSES } from '../policy/classify.js';
import { compilePolicy, type CompiledPolicy } from '../policy/decision.js';
import { isPresetName, PRESET_NAMES, presetPolicy, type PolicyInput, type PresetName } from '../policy/presets.js';
import type { BackoffSpec, HedgingSpec, PolicySpec, RetryOnClass, SeedingSpec } from '../policy/types.js';

/**
 * A policy as experiment files write it (src/experiment/policySchema.ts): every field optional,
 * `preset` names a real library's policy to start from (`retrystorm presets` lists them), and
 * `backoff.capMs` may be `"none"`. An already resolved {@link PolicySpec} is accepted as is.
 */
export type RetryPolicyInput = PolicyInput & { preset?: PresetName };

/** A policy with a problem in it: one message per problem, each naming the field (`policy.backoff.capMs ...`). */
export class RetryPolicyError extends TypeError {
  override readonly name = 'RetryPolicyError';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/**
 * A policy resolved once (presets applied, defaults filled, validated, compiled for the decision
 * functions). Resolve a policy once and pass the result to every call to skip the work.
 */
export class ResolvedRetryPolicy {
  /**
   * @param spec every field resolved, exactly what the simulator runs with this input
   * @param compiled the numbers the decision functions of src/policy use
   * @param stateKey the budgets and admission control as canonical text: a RetryState made for one
   *   policy is accepted by another with the same budgets and admission control
   */
  constructor(
    readonly spec: PolicySpec,
    readonly compiled: CompiledPolicy,
    readonly stateKey: string,
  ) {}
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : typeof v;
}

/**
 * Deep-merges `patch` over `base` as experiment-file overrides do (src/experiment/setPath.ts
 * `mergeValue`): objects merge key by key, an object of another `kind` replaces, arrays and
 * scalars replace. Keys whose value is `undefined` are left out (absent).
 */
function merge(base: unknown, patch: unknown): unknown {
  if (!isObject(base) || !isObject(patch)) return patch;
  if (typeof base.kind === 'string' && typeof patch.kind === 'string' && base.kind !== patch.kind) return patch;
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) out[k] = merge(out[k], v);
  return out;
}

type Rule =
  | { kind: 'number'; op: '>= 0' | '> 0' | '>= 1' | 'between 0 and 1' }
  | { kind: 'range'; min: number; max: number }
  | { kind: 'int'; min: 0 | 1 | 2 }
  | { kind: 'oneOf'; values: readonly string[] }
  | { kind: 'boolean' };

const GE0: Rule = { kind: 'number', op: '>= 0' };
const GT0: Rule = { kind: 'number', op: '> 0' };
const GE1: Rule = { kind: 'number', op: '>= 1' };
const UNIT: Rule = { kind: 'number', op: 'between 0 and 1' };
const INT0: Rule = { kind: 'int', min: 0 };

/** Why `v` breaks `rule`, or undefined when it does not. */
function breaks(v: unknown, rule: Rule): string | undefined {
  switch (rule.kind) {
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `must be true or false (got ${show(v)})`;
    case 'oneOf':
      return typeof v === 'string' && rule.values.includes(v) ? undefined : `must be one of ${rule.values.join(', ')} (got ${show(v)})`;
    case 'int': {
      const what = rule.min === 1 ? 'a positive integer' : rule.min === 0 ? 'an integer >= 0' : `an integer >= ${rule.min}`;
      return typeof v === 'number' && Number.isSafeInteger(v) && v >= rule.min ? undefined : `must be ${what} (got ${show(v)})`;
    }
    case 'range':
      if (typeof v !== 'number' || !Number.isFinite(v)) return `must be a finite number between ${rule.min} and ${rule.max} (got ${show(v)})`;
      return v >= rule.min && v <= rule.max ? undefined : `must be between ${rule.min} and ${rule.max} (got ${show(v)})`;
    case 'number': {
      if (typeof v !== 'number' || !Number.isFinite(v)) return `must be a finite number ${rule.op} (got ${show(v)})`;
      const ok = rule.op === '>= 0' ? v >= 0 : rule.op === '> 0' ? v > 0 : rule.op === '>= 1' ? v >= 1 : v >= 0 && v <= 1;
      return ok ? undefined : `must be ${rule.op} (got ${show(v)})`;
    }
  }
}

/** Fields of each budget and admission kind: the rule and the default (undefined: optional, no default). */
type FieldTable = Record<string, readonly [Rule, unknown]>;

const BUDGET_FIELDS: Record<BudgetSpec['kind'], FieldTable> = {
  'sre-ratio': { ratio: [UNIT, SRE_RATIO_DEFAULTS.ratio], windowMs: [GT0, SRE_RATIO_DEFAULTS.windowMs] },
  'token-bucket': {
    capacity: [GE0, TOKEN_BUCKET_DEFAULTS.capacity],
    retryCost: [GE0, TOKEN_BUCKET_DEFAULTS.retryCost],
    timeoutCost: [GE0, TOKEN_BUCKET_DEFAULTS.timeoutCost],
    serverErrorCost: [GE0, undefined],
    throttlingCost: [GE0, undefined],
    noRetryIncrement: [GE0, TOKEN_BUCKET_DEFAULTS.noRetryIncrement],
  },
  'brooker-token-bucket': {
    capacity: [GT0, BROOKER_TOKEN_BUCKET_DEFAULTS.capacity],
    creditPerCall: [GE0, BROOKER_TOKEN_BUCKET_DEFAULTS.creditPerCall],
    retryCost: [GE0, BROOKER_TOKEN_BUCKET_DEFAULTS.retryCost],
    minToRetry: [GE0, BROOKER_TOKEN_BUCKET_DEFAULTS.minToRetry],
    creditOn: [{ kind: 'oneOf', values: ['call-start', 'success'] }, BROOKER_TOKEN_BUCKET_DEFAULTS.creditOn],
  },
  'grpc-throttle': { maxTokens: [GT0, GRPC_THROTTLE_DEFAULTS.maxTokens], tokenRatio: [GT0, GRPC_THROTTLE_DEFAULTS.tokenRatio] },
  finagle: {
    ttlMs: [{ kind: 'range', min: 1000, max: 60_000 }, FINAGLE_DEFAULTS.ttlMs],
    minRetriesPerSec: [INT0, FINAGLE_DEFAULTS.minRetriesPerSec],
    percentCanRetry: [{ kind: 'range', min: 0, max: 1000 }, FINAGLE_DEFAULTS.percentCanRetry],
  },
  'envoy-retry-budget': {
    budgetPercent: [{ kind: 'range', min: 0, max: 100 }, ENVOY_RETRY_BUDGET_DEFAULTS.budgetPercent],
    minRetryConcurrency: [INT0, ENVOY_RETRY_BUDGET_DEFAULTS.minRetryConcurrency],
  },
  'envoy-max-retries': { maxRetries: [INT0, ENVOY_MAX_RETRIES_DEFAULTS.maxRetries] },
  'circuit-breaker': {
    threshold: [UNIT, CIRCUIT_BREAKER_DEFAULTS.threshold],
    windowMs: [GT0, CIRCUIT_BREAKER_DEFAULTS.windowMs],
    minRequests: [INT0, CIRCUIT_BREAKER_DEFAULTS.minRequests],
  },
  'brooker-breaker': { threshold: [UNIT, BROOKER_BREAKER_DEFAULTS.threshold] },
  'server-wide': { retriesPerMinute: [INT0, SERVER_WIDE_DEFAULTS.retriesPerMinute] },
};

const ADMISSION_FIELDS: Record<AdmissionSpec['kind'], FieldTable> = {
  'sre-adaptive': { k: [GE1, SRE_ADAPTIVE_DEFAULTS.k], windowMs: [GT0, SRE_ADAPTIVE_DEFAULTS.windowMs] },
  'envoy-admission': {
    windowMs: [GT0, ENVOY_ADMISSION_DEFAULTS.windowMs],
    aggression: [GE1, ENVOY_ADMISSION_DEFAULTS.aggression],
    successRateThreshold: [UNIT, ENVOY_ADMISSION_DEFAULTS.successRateThreshold],
    maxRejectionProbability: [UNIT, ENVOY_ADMISSION_DEFAULTS.maxRejectionProbability],
    rpsThreshold: [GE0, ENVOY_ADMISSION_DEFAULTS.rpsThreshold],
  },
  'aws-adaptive': {
    beta: [UNIT, AWS_ADAPTIVE_DEFAULTS.beta],
    scaleConstant: [GT0, AWS_ADAPTIVE_DEFAULTS.scaleConstant],
    smooth: [UNIT, AWS_ADAPTIVE_DEFAULTS.smooth],
    minFillRate: [GT0, AWS_ADAPTIVE_DEFAULTS.minFillRate],
    minCapacity: [GT0, AWS_ADAPTIVE_DEFAULTS.minCapacity],
    bucketMs: [GT0, AWS_ADAPTIVE_DEFAULTS.bucketMs],
  },
};

const POLICY_FIELDS = [
  'preset',
  'maxAttempts',
  'perAttemptTimeoutMs',
  'deadlineMode',
  'backoff',
  'tickMs',
  'retryOn',
  'idempotency',
  'retryAfter',
  'totalTimeoutMs',
  'maxElapsedMs',
  'maxRetryAfterMs',
  'seeding',
  'budget',
  'admission',
  'hedging',
];
const BACKOFF_FIELDS = ['kind', 'baseMs', 'capMs', 'multiplier', 'exponentOffset', 'randomizationFactor', 'randomize', 'minMs', 'throttledBaseMs'];
const RETRY_AFTER_MODES = ['ignore', 'honor', 'honor-plus-jitter', 'replace', 'clamp', 'pushback'];
/** The retryable classes in the order experiment files document them (for messages). */
const CLASS_ORDER = ['timeout', '500', '503', '429', '400', '404', 'conflict', 'throttled', 'circuit-open', 'budget-exhausted'];
const DEFAULT_HEDGE_NON_FATAL: RetryOnClass[] = ['timeout', '500', '503'];

/** Collects problems while reading one object. */
class Reader {
  readonly problems: string[] = [];

  unknownKeys(o: Json, path: string, known: readonly string[], what: string): void {
    for (const k of Object.keys(o)) {
      if (!known.includes(k) && o[k] !== undefined) this.problems.push(`${path}.${k} is not a ${what} field (known: ${known.join(', ')})`);
    }
  }

  field<T>(o: Json, path: string, key: string, rule: Rule, def: T): T {
    const v = o[key];
    if (v === undefined) return def;
    const why = breaks(v, rule);
    if (why !== undefined) {
      this.problems.push(`${path}.${key} ${why}`);
      return def;
    }
    return v as T;
  }

  classes(o: Json, path: string, key: string, def: RetryOnClass[]): RetryOnClass[] {
    const v = o[key];
    if (v === undefined) return [...def];
    if (!Array.isArray(v)) {
      this.problems.push(`${path}.${key} must be a list of outcome classes (got ${show(v)})`);
      return [...def];
    }
    v.forEach((c, i) => {
      if (typeof c !== 'string' || !(RETRY_ON_CLASSES as readonly string[]).includes(c)) {
        this.problems.push(`${path}.${key}.${i} must be one of ${CLASS_ORDER.join(', ')} (got ${show(c)})`);
      }
    });
    return [...(v as RetryOnClass[])];
  }

  kinded<T>(v: unknown, path: string, table: Record<string, FieldTable>, what: string): T | undefined {
    if (!isObject(v)) {
      this.problems.push(`${path} must be ${what} object with a "kind" (got ${show(v)})`);
      return undefined;
    }
    const kinds = Object.keys(table);
    if (typeof v.kind !== 'string' || !kinds.includes(v.kind)) {
      this.problems.push(`${path}.kind ${v.kind === undefined ? 'is required' : `must be one of ${kinds.join(', ')} (got ${show(v.kind)})`}`);
      return undefined;
    }
    const fields = table[v.kind] as FieldTable;
    this.unknownKeys(v, path, ['kind', ...Object.keys(fields)], `${v.kind}`);
    const out: Json = { kind: v.kind };
    for (const [key, [rule, def]] of Object.entries(fields)) {
      const value = this.field(v, path, key, rule, def);
      if (value !== undefined) out[key] = value;
    }
    return out as T;
  }
}

function readBackoff(r: Reader, input: unknown, path: string): BackoffSpec {
  const b: Json = input === undefined ? {} : isObject(input) ? input : {};
  if (input !== undefined && !isObject(input)) r.problems.push(`${path} must be an object (got ${show(input)})`);
  r.unknownKeys(b, path, BACKOFF_FIELDS, 'backoff');
  const out: BackoffSpec = {
    kind: r.field(b, path, 'kind', { kind: 'oneOf', values: BACKOFF_KINDS }, 'full-jitter'),
    baseMs: r.field(b, path, 'baseMs', GE0, 100),
    capMs: 20_000,
    multiplier: r.field(b, path, 'multiplier', GE1, 2),
    exponentOffset: r.field(b, path, 'exponentOffset', INT0, 0),
  };
  const cap = b.capMs;
  if (cap === 'none') out.capMs = Infinity;
  else if (cap !== undefined) {
    // A resolved PolicySpec carries +Infinity for "no cap".
    if (typeof cap === 'number' && cap >= 0) out.capMs = cap;
    else r.problems.push(`${path}.capMs must be a number >= 0 or "none" (got ${show(cap)})`);
  }
  const f = r.field<number | undefined>(b, path, 'randomizationFactor', UNIT, undefined);
  if (f !== undefined) out.randomizationFactor = f;
  const randomize = r.field<boolean | undefined>(b, path, 'randomize', { kind: 'boolean' }, undefined);
  if (randomize !== undefined) out.randomize = randomize;
  const minMs = r.field<number | undefined>(b, path, 'minMs', GE0, undefined);
  if (minMs !== undefined) out.minMs = minMs;
  const throttled = r.field<number | undefined>(b, path, 'throttledBaseMs', GE0, undefined);
  if (throttled !== undefined) out.throttledBaseMs = throttled;
  if (out.capMs < out.baseMs) r.problems.push(`${path}.capMs must be >= baseMs (got ${out.capMs} < ${out.baseMs})`);
  return out;
}

function readSeeding(r: Reader, v: unknown, path: string): SeedingSpec | undefined {
  if (!isObject(v) || (v.kind !== 'independent' && v.kind !== 'shared' && v.kind !== 'time-seeded')) {
    r.problems.push(`${path} must be { "kind": "independent" | "shared" | "time-seeded" } (got ${show(isObject(v) ? v.kind : v)})`);
    return undefined;
  }
  if (v.kind !== 'time-seeded') {
    r.unknownKeys(v, path, ['kind'], 'seeding');
    return { kind: v.kind };
  }
  r.unknownKeys(v, path, ['kind', 'resolutionMs'], 'seeding');
  if (v.resolutionMs === undefined) {
    r.problems.push(`${path}.resolutionMs is required`);
    return undefined;
  }
  return { kind: 'time-seeded', resolutionMs: r.field(v, path, 'resolutionMs', GT0, 1) };
}

function readHedging(r: Reader, v: unknown, path: string): HedgingSpec | undefined {
  if (!isObject(v)) {
    r.problems.push(`${path} must be an object (got ${show(v)})`);
    return undefined;
  }
  r.unknownKeys(v, path, ['maxAttempts', 'hedgingDelayMs', 'nonFatal'], 'hedging');
  for (const key of ['maxAttempts', 'hedgingDelayMs']) if (v[key] === undefined) r.problems.push(`${path}.${key} is required`);
  return {
    maxAttempts: r.field(v, path, 'maxAttempts', { kind: 'int', min: 2 }, 2),
    hedgingDelayMs: r.field(v, path, 'hedgingDelayMs', GT0, 1),
    nonFatal: r.classes(v, path, 'nonFatal', DEFAULT_HEDGE_NON_FATAL),
  };
}

/**
 * Resolves a policy written as in experiment files into the {@link PolicySpec} the simulator runs:
 * a known `preset` is the base and the other fields deep-merge over it (objects merge, arrays and
 * scalars replace, an object of another `kind` replaces); a policy with `hedging` and no
 * `maxAttempts` gets 1; then the defaults fill the rest (3 attempts, full jitter 100 ms .. 20 s,
 * deadline mode `propagate`, tick 0, retry on timeout/500/503/429/conflict, idempotency `http`,
 * Retry-After `honor`; each budget and admission control its source's defaults). The same result
 * as the experiment files' policy schema (src/experiment/policySchema.ts) for every valid input;
 * a resolved PolicySpec (capMs +Infinity included) resolves to itself. Throws a
 * {@link RetryPolicyError} listing every problem, each naming its field (`policy.backoff.capMs
 * must be >= baseMs (got 10 < 50)`).
 */
export function resolvePolicySpec(input: RetryPolicyInput | PolicySpec, path = 'policy'): PolicySpec {
  const r = new Reader();
  if (!isObject(input)) throw new RetryPolicyError([`${path} must be an object (got ${show(input)})`]);
  let o: Json = input;
  const preset = o.preset;
  if (preset !== undefined) {
    if (typeof preset === 'string' && isPresetName(preset)) {
      const { preset: _preset, ...rest } = o;
      o = merge(presetPolicy(preset), rest) as Json;
    } else {
      r.problems.push(`${path}.preset must be a known preset (got ${show(preset)}; known presets: ${PRESET_NAMES.join(', ')})`);
    }
  }
  if (o.hedging !== undefined && o.maxAttempts === undefined) o = { ...o, maxAttempts: 1 };
  r.unknownKeys(o, path, POLICY_FIELDS, 'policy');

  let maxAttempts: number | 'unlimited' = 3;
  if (o.maxAttempts !== undefined) {
    if (o.maxAttempts === 'unlimited' || (typeof o.maxAttempts === 'number' && Number.isSafeInteger(o.maxAttempts) && o.maxAttempts >= 1)) {
      maxAttempts = o.maxAttempts;
    } else {
      r.problems.push(`${path}.maxAttempts must be a positive integer or "unlimited" (got ${show(o.maxAttempts)})`);
    }
  }
  const spec: PolicySpec = {
    maxAttempts,
    deadlineMode: r.field(o, path, 'deadlineMode', { kind: 'oneOf', values: ['propagate', 'fresh', 'none'] }, 'propagate'),
    backoff: readBackoff(r, o.backoff, `${path}.backoff`),
    tickMs: r.field(o, path, 'tickMs', GE0, 0),
    retryOn: r.classes(o, path, 'retryOn', [...DEFAULT_RETRY_ON]),
    idempotency: r.field(o, path, 'idempotency', { kind: 'oneOf', values: ['http', 'always', 'never'] }, 'http'),
    retryAfter: r.field(o, path, 'retryAfter', { kind: 'oneOf', values: RETRY_AFTER_MODES }, 'honor'),
  };
  const perAttempt = r.field<number | undefined>(o, path, 'perAttemptTimeoutMs', GT0, undefined);
  if (perAttempt !== undefined) spec.perAttemptTimeoutMs = perAttempt;
  const total = r.field<number | undefined>(o, path, 'totalTimeoutMs', GT0, undefined);
  if (total !== undefined) spec.totalTimeoutMs = total;
  const elapsed = r.field<number | undefined>(o, path, 'maxElapsedMs', GT0, undefined);
  if (elapsed !== undefined) spec.maxElapsedMs = elapsed;
  const maxRetryAfter = r.field<number | undefined>(o, path, 'maxRetryAfterMs', GT0, undefined);
  if (maxRetryAfter !== undefined) spec.maxRetryAfterMs = maxRetryAfter;
  if (o.seeding !== undefined) {
    const s = readSeeding(r, o.seeding, `${path}.seeding`);
    if (s) spec.seeding = s;
  }
  if (o.budget !== undefined) {
    const list = Array.isArray(o.budget) ? o.budget : [o.budget];
    const budgets: BudgetSpec[] = [];
    list.forEach((b, i) => {
      const spec = r.kinded<BudgetSpec>(b, Array.isArray(o.budget) ? `${path}.budget.${i}` : `${path}.budget`, BUDGET_FIELDS, 'a budget');
      if (!spec) return;
      budgets.push(
        spec.kind === 'token-bucket'
          ? { ...spec, serverErrorCost: spec.serverErrorCost ?? spec.retryCost, throttlingCost: spec.throttlingCost ?? spec.retryCost }
          : spec,
      );
    });
    spec.budget = budgets;
  }
  if (o.admission !== undefined) {
    const a = r.kinded<AdmissionSpec>(o.admission, `${path}.admission`, ADMISSION_FIELDS, 'an admission');
    if (a) spec.admission = a;
  }
  if (o.hedging !== undefined) {
    const h = readHedging(r, o.hedging, `${path}.hedging`);
    if (h) spec.hedging = h;
    if (maxAttempts !== 1) {
      r.problems.push(
        `${path}.hedging cannot be combined with maxAttempts above 1 (got maxAttempts ${JSON.stringify(maxAttempts)}; a call has a retry policy or a hedging policy, not both: gRPC A6)`,
      );
    }
  }
  if (r.problems.length > 0) throw new RetryPolicyError(r.problems);
  return spec;
}

/** The budgets and admission control of a policy as canonical text (what a RetryState is made of). */
function stateKeyOf(spec: PolicySpec): string {
  const sorted = (v: unknown): unknown =>
    isObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : Array.isArray(v) ? v.map(sorted) : v;
  return JSON.stringify(sorted({ budget: spec.budget ?? [], admission: spec.admission ?? null }));
}

/**
 * Resolves (see {@link resolvePolicySpec}) and compiles a policy once; a policy already resolved is
 * returned as is.
 */
export function resolveRetryPolicy(input: RetryPolicyInput | PolicySpec | ResolvedRetryPolicy): ResolvedRetryPolicy {
  if (input instanceof ResolvedRetryPolicy) return input;
  const spec = resolvePolicySpec(input);
  return new ResolvedRetryPolicy(spec, compilePolicy(spec), stateKeyOf(spec));
}
