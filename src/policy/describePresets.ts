import { DEFAULT_RANDOMIZATION_FACTOR } from './backoff.js';
import type { AdmissionKind } from './budgets/AdmissionControl.js';
import { BROOKER_BREAKER_DEFAULTS } from './budgets/BrookerBreaker.js';
import { BROOKER_TOKEN_BUCKET_DEFAULTS } from './budgets/BrookerTokenBucket.js';
import { ENVOY_MAX_RETRIES_DEFAULTS } from './budgets/EnvoyMaxRetries.js';
import { ENVOY_RETRY_BUDGET_DEFAULTS } from './budgets/EnvoyRetryBudget.js';
import { FINAGLE_DEFAULTS } from './budgets/FinagleRetryBudget.js';
import { GRPC_THROTTLE_DEFAULTS } from './budgets/GrpcRetryThrottle.js';
import type { BudgetKind } from './budgets/RetryBudget.js';
import { CIRCUIT_BREAKER_DEFAULTS } from './budgets/RetryCircuitBreaker.js';
import { SERVER_WIDE_DEFAULTS } from './budgets/ServerWideBudget.js';
import { SRE_RATIO_DEFAULTS } from './budgets/SreRatioBudget.js';
import { TOKEN_BUCKET_DEFAULTS } from './budgets/TokenBucketQuota.js';
import { RETRY_ON_CLASSES } from './classify.js';
import { formatDuration } from './formatDuration.js';
import { PRESET_NAMES, PRESETS, type BudgetInput, type PolicyInput, type PresetName } from './presets.js';
import type { BackoffKind } from './types.js';

/**
 * The text of the presets' parameters, as `retrystorm presets` prints them: one short text per
 * backoff and budget kind (tables keyed by kind), a field the preset leaves out at its default.
 */

/** A preset's duration as `retrystorm presets` prints it: the one duration formatter, `no cap` for "none", `?` when unset. */
function ms(v: number | 'none' | undefined): string {
  if (v === undefined) return '?';
  if (v === 'none') return 'no cap';
  return formatDuration(v);
}

/** A backoff as a preset writes it, of one kind. */
type BackoffInputOf<K extends BackoffKind> = NonNullable<PolicyInput['backoff']> & { kind: K };

/** The short text of each backoff kind's formula, as `retrystorm presets` prints it. */
const BACKOFF_TEXT: { [K in BackoffKind]: (b: BackoffInputOf<K>) => string } = {
  none: () => 'no wait',
  constant: (b) => `constant ${ms(b.baseMs)}`,
  exponential: (b) => exponentialText(b),
  'full-jitter': (b) => exponentialText(b),
  'equal-jitter': (b) => exponentialText(b),
  'decorrelated-jitter': (b) => exponentialText(b),
  linear: (b) => `linear ${ms(b.baseMs)} x r (cap ${ms(b.capMs)})`,
  'aws-sdk-js': (b) => `min(${ms(b.capMs)}, U x ${ms(b.baseMs)} x 2^(r-1))${throttledText(b)}`,
  envoy: (b) => `U[0, min(${ms(b.baseMs)} x 2^(r-1), ${ms(b.capMs)})) whole ms`,
  'polly-decorrelated-v2': (b) => `decorrelated jitter V2, median ${ms(b.baseMs)}`,
  randomized: (b) =>
    `${ms(b.baseMs)} x ${b.multiplier}^(r-1) +/-${(b.randomizationFactor ?? DEFAULT_RANDOMIZATION_FACTOR) * 100}%, interval cap ${ms(b.capMs)}`,
  'node-retry': (b) => `round(${b.randomize === true ? 'U[1,2) x ' : ''}${ms(b.baseMs)} x ${b.multiplier}^(r-1)), ${ms(b.capMs)}`,
  'random-exponential': (b) => `U(${ms(b.minMs)}, ${ms(b.baseMs)} x ${b.multiplier}^(r-1)), ${ms(b.capMs)}`,
};

/** `full-jitter 100 ms..20 s x1.5 (500 ms throttled)`: the kinds described by their base, cap and multiplier. */
function exponentialText(b: NonNullable<PolicyInput['backoff']>): string {
  const x = b.multiplier !== undefined && b.multiplier !== 2 ? ` x${b.multiplier}` : '';
  return `${b.kind ?? 'backoff'} ${ms(b.baseMs)}..${ms(b.capMs)}${x}${throttledText(b)}`;
}

function throttledText(b: NonNullable<PolicyInput['backoff']>): string {
  return b.throttledBaseMs !== undefined ? ` (${ms(b.throttledBaseMs)} throttled)` : '';
}

function describeBackoff(b: NonNullable<PolicyInput['backoff']>): string {
  if (b.kind === undefined) return `the default backoff kind ${ms(b.baseMs)}..${ms(b.capMs)}`;
  return (BACKOFF_TEXT[b.kind] as (b: NonNullable<PolicyInput['backoff']>) => string)(b);
}

/** A budget as a preset writes it, of one kind. */
type BudgetInputOf<K extends BudgetKind> = Extract<BudgetInput, { kind: K }>;

/** The short text of each budget kind, a field the preset leaves out shown at its default. */
const BUDGET_TEXT: { [K in BudgetKind]: (b: BudgetInputOf<K>) => string } = {
  'sre-ratio': (b) => `retry ratio ${(b.ratio ?? SRE_RATIO_DEFAULTS.ratio) * 100}% over ${ms(b.windowMs ?? SRE_RATIO_DEFAULTS.windowMs)}`,
  'token-bucket': (b) => {
    const retryCost = b.retryCost ?? TOKEN_BUCKET_DEFAULTS.retryCost;
    return `retry quota ${b.capacity ?? TOKEN_BUCKET_DEFAULTS.capacity} tokens, a retry costs ${retryCost} (timeout ${
      b.timeoutCost ?? TOKEN_BUCKET_DEFAULTS.timeoutCost
    }, 5xx ${b.serverErrorCost ?? retryCost}, 429 ${b.throttlingCost ?? retryCost}), a first-try success refunds ${
      b.noRetryIncrement ?? TOKEN_BUCKET_DEFAULTS.noRetryIncrement
    }`;
  },
  'brooker-token-bucket': (b) =>
    `token bucket of ${b.capacity ?? BROOKER_TOKEN_BUCKET_DEFAULTS.capacity}, ${b.creditPerCall ?? BROOKER_TOKEN_BUCKET_DEFAULTS.creditPerCall} per call, a retry costs ${
      b.retryCost ?? BROOKER_TOKEN_BUCKET_DEFAULTS.retryCost
    }`,
  'grpc-throttle': (b) => `retry throttling maxTokens ${b.maxTokens ?? GRPC_THROTTLE_DEFAULTS.maxTokens}, tokenRatio ${b.tokenRatio ?? GRPC_THROTTLE_DEFAULTS.tokenRatio}`,
  finagle: (b) =>
    `RetryBudget ttl ${ms(b.ttlMs ?? FINAGLE_DEFAULTS.ttlMs)}, ${b.minRetriesPerSec ?? FINAGLE_DEFAULTS.minRetriesPerSec} retries/s reserve, ${
      (b.percentCanRetry ?? FINAGLE_DEFAULTS.percentCanRetry) * 100
    }% of requests`,
  'envoy-retry-budget': (b) =>
    `retry_budget ${b.budgetPercent ?? ENVOY_RETRY_BUDGET_DEFAULTS.budgetPercent}% of active requests, at least ${
      b.minRetryConcurrency ?? ENVOY_RETRY_BUDGET_DEFAULTS.minRetryConcurrency
    }`,
  'envoy-max-retries': (b) => `max_retries ${b.maxRetries ?? ENVOY_MAX_RETRIES_DEFAULTS.maxRetries} concurrent`,
  'circuit-breaker': (b) =>
    `retry breaker above ${(b.threshold ?? CIRCUIT_BREAKER_DEFAULTS.threshold) * 100}% failures over ${ms(b.windowMs ?? CIRCUIT_BREAKER_DEFAULTS.windowMs)}`,
  'brooker-breaker': (b) => `retry breaker above ${(b.threshold ?? BROOKER_BREAKER_DEFAULTS.threshold) * 100}% failures`,
  'server-wide': (b) => `${b.retriesPerMinute ?? SERVER_WIDE_DEFAULTS.retriesPerMinute} retries per minute per process`,
};

function describeBudget(b: BudgetInput): string {
  return (BUDGET_TEXT[b.kind] as (b: BudgetInput) => string)(b);
}

/** The short text of each admission control. */
const ADMISSION_TEXT: Record<AdmissionKind, string> = {
  'sre-adaptive': 'client-side adaptive throttling',
  'envoy-admission': 'admission control',
  'aws-adaptive': 'CUBIC client-side rate limiter',
};

/** A short text of a preset's parameters, e.g. `4 attempts; full-jitter 100 ms..1 s; retry on 503; ...`. */
export function describePresetPolicy(policy: PolicyInput): string {
  const parts: string[] = [];
  const attempts = policy.maxAttempts;
  if (attempts !== undefined) parts.push(attempts === 'unlimited' ? 'unlimited attempts' : `${attempts} attempts`);
  if (policy.backoff !== undefined) parts.push(describeBackoff(policy.backoff));
  if (policy.retryOn !== undefined) {
    parts.push(policy.retryOn.length === RETRY_ON_CLASSES.length ? 'retry on every failure' : `retry on ${policy.retryOn.join(', ')}`);
  }
  if (policy.retryAfter !== undefined && policy.retryAfter !== 'ignore') parts.push(`Retry-After: ${policy.retryAfter}`);
  if (policy.totalTimeoutMs !== undefined) parts.push(`total timeout ${ms(policy.totalTimeoutMs)}`);
  if (policy.maxElapsedMs !== undefined) parts.push(`max elapsed ${ms(policy.maxElapsedMs)}`);
  const budgets = policy.budget === undefined ? [] : Array.isArray(policy.budget) ? policy.budget : [policy.budget];
  for (const b of budgets) parts.push(describeBudget(b));
  if (policy.admission !== undefined) parts.push(ADMISSION_TEXT[policy.admission.kind]);
  return parts.join('; ');
}

/** One row of `retrystorm presets`. */
export interface PresetRow {
  name: PresetName;
  parameters: string;
  /** The library version the preset describes. */
  version: string;
  source: string;
}

/** The presets as rows for `retrystorm presets`: name, a short text of the parameters, the version described, the source. */
export function describePresets(): PresetRow[] {
  return PRESET_NAMES.map((name) => ({
    name,
    parameters: describePresetPolicy(PRESETS[name].policy),
    version: PRESETS[name].version,
    source: PRESETS[name].source,
  }));
}
