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
import { formatDuration } from './formatDuration.js';
import type { BudgetInput, PolicyInput } from './presets.js';
import type { BackoffKind } from './types.js';

/**
 * The one text of each backoff and budget kind, as `retrystorm presets`, `check` and `export`'s
 * warnings print them (tables keyed by kind): a resolved policy's, or a preset's, whose fields left
 * out are shown at their kind's default (`?` where the kind has none).
 */

/** A duration as the descriptions print it: the one duration formatter; `no cap` for "none" or Infinity; `?` when unset. */
export function formatDurationOrCap(v: number | 'none' | undefined): string {
  if (v === undefined) return '?';
  if (v === 'none' || v === Infinity) return 'no cap';
  return formatDuration(v);
}

const ms = formatDurationOrCap;

/** A share as a percentage to 3 significant digits (`10%`, `12.5%`). */
function pct(share: number): string {
  return `${Number((share * 100).toPrecision(3))}%`;
}

/** A backoff to describe: a resolved `BackoffSpec`, or a preset's (any field left out). */
export type BackoffText = NonNullable<PolicyInput['backoff']>;

/** A backoff to describe, of one kind. */
type BackoffInputOf<K extends BackoffKind> = BackoffText & { kind: K };

/** The short text of each backoff kind's formula. */
const BACKOFF_TEXT: { [K in BackoffKind]: (b: BackoffInputOf<K>) => string } = {
  none: () => 'no wait',
  constant: (b) => `constant ${ms(b.baseMs)}`,
  exponential: (b) => exponentialText(b),
  'full-jitter': (b) => exponentialText(b),
  'equal-jitter': (b) => exponentialText(b),
  'decorrelated-jitter': (b) => exponentialText(b),
  linear: (b) => `linear ${ms(b.baseMs)} x r (cap ${ms(b.capMs)})`,
  'aws-sdk-js': (b) => `aws-sdk-js min(${ms(b.capMs)}, U x ${ms(b.baseMs)} x 2^(r-1))${throttledText(b)}`,
  envoy: (b) => `envoy U[0, min(${ms(b.baseMs)} x 2^(r-1), ${ms(b.capMs)})) whole ms`,
  'polly-decorrelated-v2': (b) => `decorrelated jitter V2, median ${ms(b.baseMs)}`,
  randomized: (b) =>
    `randomized ${ms(b.baseMs)} x ${b.multiplier}^(r-1) +/-${pct(b.randomizationFactor ?? DEFAULT_RANDOMIZATION_FACTOR)}, interval cap ${ms(b.capMs)}`,
  'node-retry': (b) => `node-retry round(${b.randomize === true ? 'U[1,2) x ' : ''}${ms(b.baseMs)} x ${b.multiplier}^(r-1)), ${ms(b.capMs)}`,
  'random-exponential': (b) => `random-exponential U(${ms(b.minMs)}, ${ms(b.baseMs)} x ${b.multiplier}^(r-1)), ${ms(b.capMs)}`,
};

/** `full-jitter 100 ms..20 s x1.5 (500 ms throttled)`: the kinds described by their base, cap and multiplier. */
function exponentialText(b: BackoffText): string {
  const x = b.multiplier !== undefined && b.multiplier !== 2 ? ` x${b.multiplier}` : '';
  return `${b.kind ?? 'backoff'} ${ms(b.baseMs)}..${ms(b.capMs)}${x}${throttledText(b)}`;
}

function throttledText(b: BackoffText): string {
  return b.throttledBaseMs !== undefined ? ` (${ms(b.throttledBaseMs)} throttled)` : '';
}

/** A backoff's text: `full-jitter 100 ms..20 s`, `constant 500 ms`; a preset's without a kind as the default kind's range. */
export function describeBackoff(b: BackoffText): string {
  if (b.kind === undefined) return `the default backoff kind ${ms(b.baseMs)}..${ms(b.capMs)}`;
  return (BACKOFF_TEXT[b.kind] as (b: BackoffText) => string)(b);
}

/** A budget as a preset writes it, of one kind. */
type BudgetInputOf<K extends BudgetKind> = Extract<BudgetInput, { kind: K }>;

/** The text of each budget kind in words, a field the preset leaves out shown at its default. */
const BUDGET_TEXT: { [K in BudgetKind]: (b: BudgetInputOf<K>) => string } = {
  'sre-ratio': (b) => `retry ratio ${pct(b.ratio ?? SRE_RATIO_DEFAULTS.ratio)} over ${ms(b.windowMs ?? SRE_RATIO_DEFAULTS.windowMs)}`,
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
    `RetryBudget ttl ${ms(b.ttlMs ?? FINAGLE_DEFAULTS.ttlMs)}, ${b.minRetriesPerSec ?? FINAGLE_DEFAULTS.minRetriesPerSec} retries/s reserve, ${pct(b.percentCanRetry ?? FINAGLE_DEFAULTS.percentCanRetry)} of requests`,
  'envoy-retry-budget': (b) =>
    `retry_budget ${b.budgetPercent ?? ENVOY_RETRY_BUDGET_DEFAULTS.budgetPercent}% of active requests, at least ${
      b.minRetryConcurrency ?? ENVOY_RETRY_BUDGET_DEFAULTS.minRetryConcurrency
    }`,
  'envoy-max-retries': (b) => `max_retries ${b.maxRetries ?? ENVOY_MAX_RETRIES_DEFAULTS.maxRetries} concurrent`,
  'circuit-breaker': (b) =>
    `retry breaker above ${pct(b.threshold ?? CIRCUIT_BREAKER_DEFAULTS.threshold)} failures over ${ms(b.windowMs ?? CIRCUIT_BREAKER_DEFAULTS.windowMs)}`,
  'brooker-breaker': (b) => `retry breaker above ${pct(b.threshold ?? BROOKER_BREAKER_DEFAULTS.threshold)} failures`,
  'server-wide': (b) => `${b.retriesPerMinute ?? SERVER_WIDE_DEFAULTS.retriesPerMinute} retries per minute per process`,
};

/** A budget's text ({@link BUDGET_TEXT}): a resolved one, or a preset's at its kind's defaults. */
export function describeBudget(b: BudgetInput): string {
  return (BUDGET_TEXT[b.kind] as (b: BudgetInput) => string)(b);
}

/**
 * The label of each budget kind where a column has little room (`check`'s layers table, `export`'s
 * warnings): its kind and its main parameter.
 */
const BUDGET_LABEL: { [K in BudgetKind]: (b: BudgetInputOf<K>) => string } = {
  'sre-ratio': (b) => `sre-ratio ${pct(b.ratio ?? SRE_RATIO_DEFAULTS.ratio)}`,
  'token-bucket': (b) => `token-bucket ${b.capacity ?? TOKEN_BUCKET_DEFAULTS.capacity}`,
  'brooker-token-bucket': () => 'brooker-token-bucket',
  'grpc-throttle': (b) => `grpc-throttle ${b.maxTokens ?? GRPC_THROTTLE_DEFAULTS.maxTokens}/${b.tokenRatio ?? GRPC_THROTTLE_DEFAULTS.tokenRatio}`,
  finagle: (b) => `finagle ${pct(b.percentCanRetry ?? FINAGLE_DEFAULTS.percentCanRetry)}`,
  'envoy-retry-budget': (b) => `envoy-retry-budget ${b.budgetPercent ?? ENVOY_RETRY_BUDGET_DEFAULTS.budgetPercent}%`,
  'envoy-max-retries': (b) => `envoy max_retries ${b.maxRetries ?? ENVOY_MAX_RETRIES_DEFAULTS.maxRetries}`,
  'circuit-breaker': (b) => `circuit-breaker ${pct(b.threshold ?? CIRCUIT_BREAKER_DEFAULTS.threshold)}`,
  'brooker-breaker': (b) => `brooker-breaker ${pct(b.threshold ?? BROOKER_BREAKER_DEFAULTS.threshold)}`,
  'server-wide': (b) => `server-wide ${b.retriesPerMinute ?? SERVER_WIDE_DEFAULTS.retriesPerMinute}/min`,
};

/** A budget's label ({@link BUDGET_LABEL}): `sre-ratio 10%`, `token-bucket 500`. */
export function budgetLabel(b: BudgetInput): string {
  return (BUDGET_LABEL[b.kind] as (b: BudgetInput) => string)(b);
}

/** What each notation of the backoff texts ({@link describeBackoff}) means, and how to find it in a text. */
const BACKOFF_NOTATIONS: ReadonlyArray<[RegExp, string]> = [
  [/\.\./, 'a..b: from the base a, doubling at each retry (N-fold where xN follows) up to the cap b'],
  [/U[[(]/, 'U[a, b): a draw uniform from a up to b'],
  [/\bU x/, 'U: a draw uniform from 0 up to 1'],
  [/\br\b/, "r: the retry's number (1 for the first)"],
  [/\+\/-/, '+/-p: each wait drawn up to p away from its value'],
];

/** A legend of the notations that the backoff texts shown use ('' when they use none). */
export function backoffLegend(texts: readonly string[]): string {
  const used = BACKOFF_NOTATIONS.filter(([re]) => texts.some((t) => re.test(t))).map(([, meaning]) => meaning);
  return used.length > 0 ? `backoff: ${used.join('; ')}.` : '';
}

/** The short text of each admission control. */
export const ADMISSION_TEXT: Record<AdmissionKind, string> = {
  'sre-adaptive': 'client-side adaptive throttling',
  'envoy-admission': 'admission control',
  'aws-adaptive': 'CUBIC client-side rate limiter',
};

