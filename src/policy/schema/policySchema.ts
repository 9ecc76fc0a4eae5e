/**
 * The one validator of a retry policy: experiment files (src/experiment/scenarioSchema.ts) and
 * `retry()`/`retryingFetch` (src/executor/resolveRetryPolicy.ts) read every policy through
 * {@link policySchema}, so a field, its rule, its default and its message are written here once.
 */
import { z } from 'zod';
import { ADMISSION_KINDS } from '../budgets/AdmissionControl.js';
import { AWS_ADAPTIVE_DEFAULTS } from '../budgets/AwsAdaptiveRateLimiter.js';
import { BROOKER_BREAKER_DEFAULTS } from '../budgets/BrookerBreaker.js';
import { BROOKER_TOKEN_BUCKET_DEFAULTS } from '../budgets/BrookerTokenBucket.js';
import { ENVOY_ADMISSION_DEFAULTS } from '../budgets/EnvoyAdmissionControl.js';
import { ENVOY_MAX_RETRIES_DEFAULTS } from '../budgets/EnvoyMaxRetries.js';
import { ENVOY_RETRY_BUDGET_DEFAULTS } from '../budgets/EnvoyRetryBudget.js';
import { FINAGLE_DEFAULTS } from '../budgets/FinagleRetryBudget.js';
import { GRPC_THROTTLE_DEFAULTS } from '../budgets/GrpcRetryThrottle.js';
import { BUDGET_KINDS, type BudgetSpec } from '../budgets/RetryBudget.js';
import { CIRCUIT_BREAKER_DEFAULTS } from '../budgets/RetryCircuitBreaker.js';
import { SERVER_WIDE_DEFAULTS } from '../budgets/ServerWideBudget.js';
import { SRE_ADAPTIVE_DEFAULTS } from '../budgets/SreAdaptiveThrottle.js';
import { SRE_RATIO_DEFAULTS } from '../budgets/SreRatioBudget.js';
import { TOKEN_BUCKET_DEFAULTS } from '../budgets/TokenBucketQuota.js';
import { isPresetName, PRESET_NAMES, presetPolicy, type PresetName } from '../presets.js';
import { BACKOFF_KINDS } from '../backoff.js';
import { DEFAULT_RETRY_ON, expandRetryOn, RETRY_ON_CLASSES, RETRY_ON_NAMES } from '../classify.js';
import type { PolicySpec, RetryAfterMode } from '../types.js';
import { between } from './between.js';
import { describeValue } from './describeValue.js';
import { fields as f } from './fields.js';
import { nearestName } from './nearestName.js';
import { doc, titled } from './schemaDocs.js';
import { mergeJson } from './mergeJson.js';

// The lists of kinds and classes are the policy's own (src/policy), re-exported for the schema.
export { BACKOFF_KINDS, DEFAULT_RETRY_ON, RETRY_ON_CLASSES };

/** What a server's Retry-After (or gRPC pushback) hint does to the wait (src/policy/types.ts `RetryAfterMode`). */
export const RETRY_AFTER_MODES = ['ignore', 'honor', 'honor-plus-jitter', 'replace', 'clamp', 'pushback'] as const satisfies readonly RetryAfterMode[];
/** How a layer treats the operation's deadline (docs/concepts.md, "Deadline"). */
export const DEADLINE_MODES = ['propagate', 'fresh', 'none'] as const;
/** Which methods a layer may replay after an unknown or non-retryable outcome (docs/concepts.md, "Idempotency"). */
export const IDEMPOTENCY_RULES = ['http', 'always', 'never'] as const;
/** Default hedging `nonFatal` classes: the transient failures that send the next hedge at once. */
export const DEFAULT_HEDGE_NON_FATAL = ['timeout', '500', '503'] as const;

/** Budget kinds (src/policy/budgets/RetryBudget.ts). */
export const BUDGET_KIND_NAMES = BUDGET_KINDS;
/** Admission control kinds (src/policy/budgets/AdmissionControl.ts). */
export const ADMISSION_KIND_NAMES = ADMISSION_KINDS;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// Backoff ---------------------------------------------------------------------------------------

/** A cap in ms, or "none" (no cap: +Infinity once resolved). */
const capSchema = f
  .union([f.number('>= 0'), z.literal('none')], 'a number >= 0 or "none"')
  .transform((cap): number => (cap === 'none' ? Infinity : cap));

export const backoffSchema = doc(
  f
    .object({
      kind: f.oneOf(BACKOFF_KINDS).default('full-jitter'),
      baseMs: titled(f.number('>= 0').default(100), 'Backoff base'),
      capMs: titled(doc(capSchema.default(20_000), 'Upper bound of the wait (or of the interval, for `randomized`); "none" = no cap.'), 'Backoff cap', 'ms'),
      multiplier: titled(f.number('>= 1').default(2), 'Backoff multiplier', 'x'),
      exponentOffset: titled(f.nonNegativeInt().default(0), 'Backoff exponent offset', 'exponent'),
      randomizationFactor: doc(
        f.number('between 0 and 1').optional(),
        '`randomized`: the wait is drawn from [i(1 - f), i(1 + f)] around the interval i (default 0.5; cenkalti/backoff, google-http-client, resilience4j).',
      ),
      randomize: doc(f.boolean().optional(), '`node-retry`: multiply by R ~ U[1, 2) (default false; npm retry, async-retry sets it).'),
      minMs: doc(f.number('>= 0').optional(), '`random-exponential`: the low end of the draw (default 0; tenacity `min`).'),
      throttledBaseMs: doc(
        f.number('>= 0').optional(),
        'Base used after a 429 (AWS SDK JS v3: 500 ms; the 2026 retry values: 1 s).',
      ),
    })
    .superRefine((b, ctx) => {
      if (b.capMs < b.baseMs) between(ctx, ['capMs'], `must be >= baseMs (got ${b.capMs} < ${b.baseMs})`, b.capMs, [['baseMs']]);
    }),
  'ceiling(r) = min(capMs, baseMs * multiplier^(r - 1 + exponentOffset)) for retry r (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015); library kinds follow their sources (aws-sdk-js, envoy, polly-decorrelated-v2, randomized, node-retry, random-exponential, linear).',
  'Backoff',
);

// Budgets and admission control -------------------------------------------------------------------

const budgetOptions = [
  doc(
    f.object({
      kind: z.literal('sre-ratio'),
      ratio: f.number('between 0 and 1').default(SRE_RATIO_DEFAULTS.ratio),
      windowMs: f.number('> 0').default(SRE_RATIO_DEFAULTS.windowMs),
    }),
    'Google SRE book ch. 21: retry only while retries / first tries over the window stay under `ratio` (10% gives at most 1.1x).',
  ),
  doc(
    f.object({
      kind: z.literal('token-bucket'),
      capacity: f.number('>= 0').default(TOKEN_BUCKET_DEFAULTS.capacity),
      retryCost: f.number('>= 0').default(TOKEN_BUCKET_DEFAULTS.retryCost),
      timeoutCost: f.number('>= 0').default(TOKEN_BUCKET_DEFAULTS.timeoutCost),
      serverErrorCost: doc(f.number('>= 0').optional(), 'Cost of a retry after a 500/503 (default: retryCost; AWS SDK JS v3: 10).'),
      throttlingCost: doc(f.number('>= 0').optional(), 'Cost of a retry after a 429 (default: retryCost; 2026 values: 5).'),
      noRetryIncrement: f.number('>= 0').default(TOKEN_BUCKET_DEFAULTS.noRetryIncrement),
    }),
    'AWS SDK standard retry quota: 500 tokens, a retry costs 5 (10 after a timeout), a first-try success refunds 1, a success after retries refunds the retry cost.',
  ),
  doc(
    f.object({
      kind: z.literal('brooker-token-bucket'),
      capacity: f.number('> 0').default(BROOKER_TOKEN_BUCKET_DEFAULTS.capacity),
      creditPerCall: f.number('>= 0').default(BROOKER_TOKEN_BUCKET_DEFAULTS.creditPerCall),
      retryCost: f.number('>= 0').default(BROOKER_TOKEN_BUCKET_DEFAULTS.retryCost),
      minToRetry: f.number('>= 0').default(BROOKER_TOKEN_BUCKET_DEFAULTS.minToRetry),
      creditOn: doc(
        f.oneOf(['call-start', 'success']).default(BROOKER_TOKEN_BUCKET_DEFAULTS.creditOn),
        'call-start: credit every first try (the published code); success: credit every success (the post).',
      ),
    }),
    'Marc Brooker (2022): each call start adds 0.1 token (cap 5), a retry costs 1 and needs more than 1 token.',
  ),
  doc(
    f.object({
      kind: z.literal('grpc-throttle'),
      maxTokens: f.number('> 0').default(GRPC_THROTTLE_DEFAULTS.maxTokens),
      tokenRatio: f.number('> 0').default(GRPC_THROTTLE_DEFAULTS.tokenRatio),
    }),
    'gRPC A6 retryThrottling: a counted failure costs 1 token, a success adds tokenRatio; retries only while tokens > maxTokens / 2.',
  ),
  doc(
    f.object({
      kind: z.literal('finagle'),
      ttlMs: f.range(1000, 60_000).default(FINAGLE_DEFAULTS.ttlMs),
      minRetriesPerSec: f.nonNegativeInt().default(FINAGLE_DEFAULTS.minRetriesPerSec),
      percentCanRetry: f.range(0, 1000).default(FINAGLE_DEFAULTS.percentCanRetry),
    }),
    'Finagle RetryBudget(): deposits expire after ttl; retries up to percentCanRetry of requests plus minRetriesPerSec x ttl.',
  ),
  doc(
    f.object({
      kind: z.literal('envoy-retry-budget'),
      budgetPercent: f.range(0, 100).default(ENVOY_RETRY_BUDGET_DEFAULTS.budgetPercent),
      minRetryConcurrency: f.nonNegativeInt().default(ENVOY_RETRY_BUDGET_DEFAULTS.minRetryConcurrency),
    }),
    'Envoy retry_budget: concurrent retries <= budgetPercent% of active requests, never below minRetryConcurrency.',
  ),
  doc(
    f.object({
      kind: z.literal('envoy-max-retries'),
      maxRetries: f.nonNegativeInt().default(ENVOY_MAX_RETRIES_DEFAULTS.maxRetries),
    }),
    'Envoy max_retries circuit breaker: at most maxRetries retries in flight.',
  ),
  doc(
    f.object({
      kind: z.literal('circuit-breaker'),
      threshold: f.number('between 0 and 1').default(CIRCUIT_BREAKER_DEFAULTS.threshold),
      windowMs: f.number('> 0').default(CIRCUIT_BREAKER_DEFAULTS.windowMs),
      minRequests: f.nonNegativeInt().default(CIRCUIT_BREAKER_DEFAULTS.minRequests),
    }),
    'Retry circuit breaker: no retries (circuit-open) while the failure rate over the window is above threshold.',
  ),
  doc(
    f.object({
      kind: z.literal('brooker-breaker'),
      threshold: f.number('between 0 and 1').default(BROOKER_BREAKER_DEFAULTS.threshold),
    }),
    "Marc Brooker's retry breaker (2022): failures / calls cumulative and undecayed.",
  ),
  doc(
    f.object({
      kind: z.literal('server-wide'),
      retriesPerMinute: f.nonNegativeInt().default(SERVER_WIDE_DEFAULTS.retriesPerMinute),
    }),
    'Google SRE book ch. 22: at most retriesPerMinute retries per sliding minute per instance.',
  ),
] as const;

const budgetItem = f.choice('kind', BUDGET_KIND_NAMES, budgetOptions);

/** Fills the defaults that depend on other fields (the token bucket's costs default to retryCost). */
function resolveBudget(b: z.output<typeof budgetItem>): BudgetSpec {
  if (b.kind !== 'token-bucket') return b;
  return { ...b, serverErrorCost: b.serverErrorCost ?? b.retryCost, throttlingCost: b.throttlingCost ?? b.retryCost };
}

/** One budget or a list of them; always a list once resolved (each instance holds its own state of each). */
export const budgetSchema = doc(
  f
    .union([budgetItem, f.array(budgetItem, 'budgets')], 'a budget object or a list of budget objects')
    .transform((b): BudgetSpec[] => (Array.isArray(b) ? b : [b]).map(resolveBudget)),
  'Retry budgets and breakers asked before every retry (step 5), each layer instance holding its own state: a { "kind": ... } object or a list of them ([] = none).',
  'Budget',
);

/** Admission control asked before every attempt, first tries included; a refusal gives `throttled`. */
export const admissionSchema = doc(
  f.choice('kind', ADMISSION_KIND_NAMES, [
    doc(
      f.object({
        kind: z.literal('sre-adaptive'),
        k: f.number('>= 1').default(SRE_ADAPTIVE_DEFAULTS.k),
        windowMs: f.number('> 0').default(SRE_ADAPTIVE_DEFAULTS.windowMs),
      }),
      'Google SRE book ch. 21 client-side throttling: reject with probability max(0, (requests - k * accepts) / (requests + 1)).',
    ),
    doc(
      f.object({
        kind: z.literal('envoy-admission'),
        windowMs: f.number('> 0').default(ENVOY_ADMISSION_DEFAULTS.windowMs),
        aggression: f.number('>= 1').default(ENVOY_ADMISSION_DEFAULTS.aggression),
        successRateThreshold: f.number('between 0 and 1').default(ENVOY_ADMISSION_DEFAULTS.successRateThreshold),
        maxRejectionProbability: f.number('between 0 and 1').default(ENVOY_ADMISSION_DEFAULTS.maxRejectionProbability),
        rpsThreshold: f.number('>= 0').default(ENVOY_ADMISSION_DEFAULTS.rpsThreshold),
      }),
      'Envoy admission_control: P = ((rq - succ / threshold) / (rq + 1))^(1 / aggression), at most maxRejectionProbability.',
    ),
    doc(
      f.object({
        kind: z.literal('aws-adaptive'),
        beta: f.number('between 0 and 1').default(AWS_ADAPTIVE_DEFAULTS.beta),
        scaleConstant: f.number('> 0').default(AWS_ADAPTIVE_DEFAULTS.scaleConstant),
        smooth: f.number('between 0 and 1').default(AWS_ADAPTIVE_DEFAULTS.smooth),
        minFillRate: f.number('> 0').default(AWS_ADAPTIVE_DEFAULTS.minFillRate),
        minCapacity: f.number('> 0').default(AWS_ADAPTIVE_DEFAULTS.minCapacity),
        bucketMs: f.number('> 0').default(AWS_ADAPTIVE_DEFAULTS.bucketMs),
      }),
      'AWS SDK adaptive mode: a CUBIC-paced sending token bucket that turns on at the first throttle.',
    ),
  ]),
  'Admission control before every attempt (first tries included); a refusal gives `throttled` without a call.',
  'Admission',
);

const seedingSchema = doc(
  f.choice('kind', ['independent', 'shared', 'time-seeded'], [
    f.object({ kind: z.literal('independent') }),
    f.object({ kind: z.literal('shared') }),
    f.object({ kind: z.literal('time-seeded'), resolutionMs: f.number('> 0') }),
  ]),
  'How the jitter streams of the layer\'s clients are seeded: independent (default), shared (identical sequences), time-seeded (seed = floor(start / resolutionMs)).',
  'Seeding',
);

const hedgingSchema = doc(
  f.object({
    maxAttempts: doc(f.integer('an integer >= 2', 2), 'Copies in total, the original included (gRPC clamps it to 5).'),
    hedgingDelayMs: f.number('> 0'),
    nonFatal: doc(
      f.array(f.oneOf(RETRY_ON_NAMES), 'outcome classes').transform(expandRetryOn).default(() => [...DEFAULT_HEDGE_NON_FATAL]),
      'Failures that send the next hedge at once instead of ending the call (gRPC A6 nonFatalStatusCodes).',
    ),
  }),
  'gRPC A6 hedgingPolicy: send another copy every hedgingDelayMs while no answer has come; the first success wins. Exclusive with retries (maxAttempts 1).',
  'Hedging',
);

// Presets ---------------------------------------------------------------------------------------

function presetError(issue: z.core.$ZodRawIssue): string {
  const input = issue.input;
  if (input === undefined) return 'is required';
  if (typeof input !== 'string') return `must be a preset name (got ${describeValue(input)})`;
  const near = nearestName(input, PRESET_NAMES);
  const hint = near === undefined ? `known presets: ${PRESET_NAMES.join(', ')}` : `did you mean ${JSON.stringify(near)}?`;
  return `must be a known preset (got ${describeValue(input)}; ${hint})`;
}

const presetSchema = doc(
  z.enum(PRESET_NAMES as [PresetName, ...PresetName[]], { error: presetError }),
  'A named policy of a real library (`retrystorm presets` lists them): its fields are the base, this policy\'s fields deep-merge over it, then defaults fill the rest.',
);

/** The merge's answer to a `__proto__`-like key in a policy: stop merging (see applyPreset). */
function refuseKey(key: string): never {
  throw new Error(`${key} is not allowed as a key`);
}

/**
 * Before validation: a known preset's policy becomes the base and the file's fields deep-merge over
 * it (objects merge, arrays and scalars replace, an object of another `kind` replaces); then a policy
 * with hedging and no maxAttempts gets maxAttempts 1 (hedging replaces retries).
 */
function applyPreset(input: unknown): unknown {
  if (!isObject(input)) return input;
  let policy: JsonObject = input;
  const name = input.preset;
  if (typeof name === 'string' && isPresetName(name)) {
    try {
      policy = mergeJson(presetPolicy(name), input, refuseKey) as JsonObject;
    } catch {
      // A `__proto__`-like key: validate the policy as written, which names that key as unknown.
      policy = input;
    }
  }
  if (policy.hedging !== undefined && policy.maxAttempts === undefined) policy = { ...policy, maxAttempts: 1 };
  return policy;
}

// Policy ----------------------------------------------------------------------------------------

const policyFields = f.object({
  preset: presetSchema.optional(),
  maxAttempts: titled(doc(f.intOrUnlimited(1).default(3), 'Attempts, not retries: 3 = first call + at most 2 retries.'), 'Attempts', 'attempts'),
  perAttemptTimeoutMs: titled(f.number('> 0').optional(), 'Per-attempt timeout'),
  deadlineMode: f.oneOf(DEADLINE_MODES).default('propagate'),
  backoff: backoffSchema.prefault({}),
  tickMs: titled(doc(f.number('>= 0').default(0), 'Wake-ups are rounded up to multiples of this; 0 = no rounding.'), 'Timer tick'),
  retryOn: f.array(f.oneOf(RETRY_ON_NAMES), 'outcome classes').transform(expandRetryOn).default(() => [...DEFAULT_RETRY_ON]),
  idempotency: f.oneOf(IDEMPOTENCY_RULES).default('http'),
  retryAfter: titled(doc(
    f.oneOf(RETRY_AFTER_MODES).default('honor'),
    'ignore; honor = max(hint, backoff); honor-plus-jitter = hint + backoff; replace = the hint; clamp = the hint within [backoff, backoff + 5 s] (botocore); pushback = gRPC pushback (wait exactly the hint and restart the backoff; a negative hint stops retrying).',
  ), 'Retry-After handling'),
  totalTimeoutMs: doc(
    f.number('> 0').optional(),
    'A timeout over all attempts of one call to this layer (Envoy route timeout): the layer works to min(incoming deadline, arrival + totalTimeoutMs).',
  ),
  maxElapsedMs: doc(
    f.number('> 0').optional(),
    'No retry whose wake-up falls later than arrival + maxElapsedMs (cenkalti/backoff, google-http-client MaxElapsedTime); attempts are not cut short.',
  ),
  maxRetryAfterMs: doc(
    f.number('> 0').optional(),
    'The longest server-required wait (Retry-After, gRPC pushback) the layer accepts (default 300,000 = 5 minutes, the bound of Envoy\'s rate-limited retry back-off): a longer hint ends the call with retry-after-too-long instead of waiting, since a wait is never shortened. Applies in the modes where the hint is a floor of the wait (honor, honor-plus-jitter, replace, pushback).',
  ),
  seeding: titled(seedingSchema.optional(), 'Seeding mode'),
  budget: budgetSchema.optional(),
  admission: admissionSchema.optional(),
  hedging: hedgingSchema.optional(),
  retryHostPredicate: doc(
    f.oneOf(['previous-hosts']).optional(),
    "Envoy's previous_hosts retry host predicate: a retry to a pool avoids the backends this call already tried.",
  ),
});

/** The fields of a policy, as experiment files and `retry()` write them. */
export const POLICY_FIELD_NAMES = Object.keys(policyFields.shape) as Array<keyof typeof policyFields.shape>;

const policyObject = doc(
  policyFields
    .superRefine((p, ctx) => {
      if (p.hedging !== undefined && p.maxAttempts !== 1) {
        between(
          ctx,
          ['hedging'],
          `cannot be combined with maxAttempts above 1 (got maxAttempts ${JSON.stringify(p.maxAttempts)}; a call has a retry policy or a hedging policy, not both: gRPC A6)`,
          p.hedging,
          [['maxAttempts']],
        );
      }
    })
    .transform(({ preset: _preset, ...policy }): PolicySpec => policy),
  'The retry policy of a layer (docs/concepts.md, "Concepts", "The retry decision"); `preset` starts from a real library\'s policy.',
  'Policy',
);

/** One layer's retry policy; every field has a default (3 attempts, full jitter 100 ms .. 20 s), or a preset's. */
export const policySchema = z.preprocess(applyPreset, policyObject);
