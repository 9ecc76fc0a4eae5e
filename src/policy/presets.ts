import type { AdmissionSpec } from './budgets/AdmissionControl.js';
import { AWS_ADAPTIVE_DEFAULTS } from './budgets/AwsAdaptiveRateLimiter.js';
import { ENVOY_MAX_RETRIES_DEFAULTS } from './budgets/EnvoyMaxRetries.js';
import { FINAGLE_DEFAULTS } from './budgets/FinagleRetryBudget.js';
import { GRPC_THROTTLE_DEFAULTS } from './budgets/GrpcRetryThrottle.js';
import type { BudgetSpec } from './budgets/RetryBudget.js';
import { TOKEN_BUCKET_2026 } from './budgets/TokenBucketQuota.js';
import { RETRY_ON_CLASSES } from './classify.js';
import type { BackoffSpec, DeadlineMode, HedgingSpec, IdempotencyRule, RetryAfterMode, RetryOnClass, SeedingSpec } from './types.js';

/** One kind of a discriminated spec with every other field optional, as an experiment file may write it. */
type PartialOfKind<T extends { kind: string }> = T extends unknown ? { kind: T['kind'] } & Partial<Omit<T, 'kind'>> : never;

/** A budget as written in an experiment file: its kind, and any fields that differ from the defaults. */
export type BudgetInput = PartialOfKind<BudgetSpec>;
/** An admission control as written in an experiment file. */
export type AdmissionInput = PartialOfKind<AdmissionSpec>;

/**
 * A policy as written in an experiment file (every field optional; `capMs: "none"` for no cap).
 * A preset gives one of these; the file's fields deep-merge over it, then defaults fill the rest.
 */
export interface PolicyInput {
  maxAttempts?: number | 'unlimited';
  perAttemptTimeoutMs?: number;
  deadlineMode?: DeadlineMode;
  backoff?: Partial<Omit<BackoffSpec, 'capMs'>> & { capMs?: number | 'none' };
  tickMs?: number;
  retryOn?: RetryOnClass[];
  idempotency?: IdempotencyRule;
  retryAfter?: RetryAfterMode;
  totalTimeoutMs?: number;
  maxElapsedMs?: number;
  maxRetryAfterMs?: number;
  seeding?: SeedingSpec;
  budget?: BudgetInput | BudgetInput[];
  admission?: AdmissionInput;
  hedging?: Partial<HedgingSpec>;
}

/** A named policy of a real retry library or proxy, with where its values come from. */
export interface Preset {
  policy: PolicyInput;
  /** One line: what it is. */
  description: string;
  /** Which release (or date) of the library the values describe. */
  version: string;
  /** Where the values come from: `owner/repo:path` or a URL. */
  source: string;
  /** How the library's behaviour maps onto the model, and what it leaves out. */
  notes: string;
}

/**
 * The jitter of gRPC A6 as amended in August 2024 (grpc/proposal#452, A6-client-retries.md): the
 * wait is the interval x U(0.8, 1.2), a randomization factor of 0.2.
 */
export const GRPC_JITTER_2024 = 0.2;

/** Every retryable class: generic retry libraries retry whatever the wrapped call throws. */
const EVERY_FAILURE: RetryOnClass[] = [...RETRY_ON_CLASSES];
/** What the AWS SDKs retry: timeouts, 500/502/503/504 (TRANSIENT) and throttling errors. */
const AWS_RETRY_ON: RetryOnClass[] = ['timeout', '500', '503', '429'];
const GENERIC_NOTES =
  'A generic retry library retries every error the wrapped call throws, whatever the method, so retryOn lists every class and idempotency is "always"; narrow them to what your code throws. It does not read Retry-After.';

/** The AWS SDK JS v3 standard mode's quota: JS charges 10 for any TRANSIENT error (timeouts, 500, 502, 503, 504). */
const AWS_JS_QUOTA: BudgetInput = {
  kind: 'token-bucket',
  capacity: 500,
  retryCost: 5,
  timeoutCost: 10,
  serverErrorCost: 10,
  throttlingCost: 5,
  noRetryIncrement: 1,
};

/**
 * The quota of @smithy/util-retry before 4.3.0: a success set the quota to
 * Math.max(500, tokens + refund), so the first-try success that follows any run of retries fills
 * it again (a refund of 500 here).
 */
const AWS_JS_QUOTA_BEFORE_4_3: BudgetInput = { ...AWS_JS_QUOTA, noRetryIncrement: 500 };

/**
 * botocore's connect and read timeouts: DEFAULT_TIMEOUT = 60 s (boto/botocore:botocore/endpoint.py,
 * config.py). The read timeout bounds each socket read, not the whole answer; 60 s per attempt
 * approximates it.
 */
const BOTOCORE_TIMEOUT_MS = 60_000;
const BOTOCORE_TIMEOUT_NOTE =
  'connect_timeout and read_timeout default to 60 s (botocore/endpoint.py DEFAULT_TIMEOUT, config.py), taken as a 60 s bound per attempt; the read timeout bounds each socket read, so an answer that keeps trickling can last longer.';
const BOTOCORE_429_NOTE =
  'Standard mode retries a 429 only when its error code is a throttling code (Throttling, ThrottlingException, TooManyRequestsException, ... in retries/standard.py); the model\'s 429 always carries one, so a bare 429 without a code, which botocore does not retry, is not modelled.';

const PRESET_TABLE = {
  'aws-sdk-js-standard': {
    policy: {
      maxAttempts: 3,
      backoff: { kind: 'aws-sdk-js', baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0, throttledBaseMs: 500 },
      retryAfter: 'clamp',
      retryOn: AWS_RETRY_ON,
      idempotency: 'always',
      budget: AWS_JS_QUOTA,
    },
    description: 'AWS SDK for JavaScript v3, standard retry mode, @smithy/util-retry 4.3.0 (April 2026) and later: the current code',
    version: '@smithy/util-retry 4.3.0 (2026-04-06) and later',
    source: 'smithy-lang/smithy-typescript:packages/core/src/submodules/retry/util-retry/StandardRetryStrategy.ts',
    notes:
      'From @smithy/util-retry 4.3.0 (commit cffd868, 2026-04-06): wait t = floor(u * min(2^retries * 100 ms, 20 s)) (500 ms base after a throttling error), a Retry-After clamped to [t, t + 5 s] (max(t, min(hint, t + 5 s))), and a success refills the retry quota to at most 500 tokens: a retry costs 5 after a throttling error and 10 after a TRANSIENT one (timeouts, 5xx), a first-try success refunds 1. The aws-sdk-js kind applies the 20 s cap after the jitter (floor(min(20 s, u * 2^retries * 100 ms)), the older code); the two agree until 2^retries * base passes 20 s, which 3 attempts never reach. Releases before 4.3.0: aws-sdk-js-standard-pre-4.3.',
  },
  'aws-sdk-js-standard-pre-4.3': {
    policy: {
      maxAttempts: 3,
      backoff: { kind: 'aws-sdk-js', baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0, throttledBaseMs: 500 },
      retryAfter: 'honor',
      retryOn: AWS_RETRY_ON,
      idempotency: 'always',
      budget: AWS_JS_QUOTA_BEFORE_4_3,
    },
    description: 'AWS SDK for JavaScript v3, standard retry mode, @smithy/util-retry before 4.3.0',
    version: '@smithy/util-retry releases before 4.3.0',
    source: 'smithy-lang/smithy-typescript:packages/util-retry/src/StandardRetryStrategy.ts',
    notes:
      'Before @smithy/util-retry 4.3.0 (April 2026): wait floor(min(20 s, u * 2^retries * 100 ms)) (500 ms base after a throttling error), a Retry-After as an unbounded floor (max(hint, wait)); retry quota of 500 tokens, a retry costing 5 after a throttling error and 10 after a TRANSIENT one, but recordSuccess set the quota to Math.max(500, tokens + refund): any success fills it again. Here a first-try success refunds 500 (the quota is full again); a successful retry refunds only its cost, and the quota never grows past 500, where the SDK\'s grew by each refund (so after a long healthy spell it allowed more retries than 500 tokens). Current releases: aws-sdk-js-standard.',
  },
  'botocore-standard': {
    policy: {
      maxAttempts: 3,
      perAttemptTimeoutMs: BOTOCORE_TIMEOUT_MS,
      backoff: { kind: 'full-jitter', baseMs: 1000, capMs: 20_000, multiplier: 2, exponentOffset: 0 },
      retryAfter: 'ignore',
      retryOn: AWS_RETRY_ON,
      idempotency: 'always',
      budget: { kind: 'token-bucket', capacity: 500, retryCost: 5, timeoutCost: 10, serverErrorCost: 5, throttlingCost: 5, noRetryIncrement: 1 },
    },
    description: 'botocore (boto3, AWS CLI) standard retry mode (retry_mode = standard)',
    version: 'botocore standard retry mode 2.0, as of 2026',
    source: 'boto/botocore:botocore/retries/standard.py',
    notes: `Wait rand * min(2^(attempt - 1) s, 20 s): the cap before the jitter, which is full jitter with a 1 s base. Retry quota of 500 tokens (quota.py): 5 per retry, 10 after a connect or read timeout, a first-try success refunds 1. Mode 2.0 does not read x-amz-retry-after. ${BOTOCORE_429_NOTE} ${BOTOCORE_TIMEOUT_NOTE} Without retry_mode botocore runs legacy mode (botocore-legacy).`,
  },
  'botocore-legacy': {
    policy: {
      maxAttempts: 5,
      perAttemptTimeoutMs: BOTOCORE_TIMEOUT_MS,
      backoff: { kind: 'full-jitter', baseMs: 1000, capMs: 'none', multiplier: 2, exponentOffset: 0 },
      retryAfter: 'ignore',
      retryOn: AWS_RETRY_ON,
      idempotency: 'always',
    },
    description: 'botocore (boto3, AWS CLI) legacy retry mode: the default when no retry_mode is set',
    version: 'botocore legacy retry mode, the default as of 2026',
    source: 'boto/botocore:botocore/data/_retry.json',
    notes: `The default mode unless AWS_NEW_RETRIES_2026 is set (configprovider.py): max_attempts 5, a delay of rand * 2^(attempt - 1) s with no cap (_retry.json "base": "rand", "growth_factor": 2), no retry quota; retries throttling errors and 429, 500, 502, 503, 504 and 509 (509 has no class here) and connection errors. ${BOTOCORE_TIMEOUT_NOTE}`,
  },
  'aws-sdk-adaptive': {
    policy: {
      maxAttempts: 3,
      backoff: { kind: 'aws-sdk-js', baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0, throttledBaseMs: 500 },
      retryAfter: 'clamp',
      retryOn: AWS_RETRY_ON,
      idempotency: 'always',
      budget: AWS_JS_QUOTA,
      admission: { kind: 'aws-adaptive', ...AWS_ADAPTIVE_DEFAULTS },
    },
    description: 'AWS SDK adaptive retry mode: standard (current @smithy/util-retry) plus a CUBIC client-side rate limiter',
    version: '@smithy/util-retry 4.3.0 and later (adaptive mode)',
    source: 'smithy-lang/smithy-typescript:packages/util-retry/src/DefaultRateLimiter.ts',
    notes:
      'The standard mode of aws-sdk-js-standard (Retry-After clamped to [wait, wait + 5 s], as from 4.3.0) plus a sending token bucket that turns on at the first throttling answer; from then on every attempt takes a token (waiting when none is left) and the rate follows CUBIC (decrease to 0.7 x the measured rate, cubic recovery), at most 2 x the measured rate and at least 0.5/s. botocore adaptive.py is the same limiter.',
  },
  'aws-sdk-js-standard-2026': {
    policy: {
      maxAttempts: 3,
      backoff: { kind: 'aws-sdk-js', baseMs: 50, capMs: 20_000, multiplier: 2, exponentOffset: 0, throttledBaseMs: 1000 },
      retryAfter: 'clamp',
      retryOn: AWS_RETRY_ON,
      idempotency: 'always',
      budget: { kind: 'token-bucket', ...TOKEN_BUCKET_2026 },
    },
    description: 'AWS SDK for JavaScript v3, standard mode with the opt-in 2026 retry values',
    version: '@smithy/util-retry with SMITHY_NEW_RETRIES_2026, as of 2026',
    source: 'smithy-lang/smithy-typescript:packages/util-retry/src/retries-2026-config.ts',
    notes:
      'SMITHY_NEW_RETRIES_2026=true (from @smithy/util-retry 4.3.0): base 50 ms (1 s after a throttling error), a retry costs 14 tokens (5 after a throttling error), Retry-After clamped to [wait, wait + 5 s]. DynamoDB gets 4 attempts and a 25 ms base (not part of this preset).',
  },
  'botocore-standard-2026': {
    policy: {
      maxAttempts: 3,
      perAttemptTimeoutMs: BOTOCORE_TIMEOUT_MS,
      backoff: { kind: 'full-jitter', baseMs: 50, capMs: 20_000, multiplier: 2, exponentOffset: 0, throttledBaseMs: 1000 },
      retryAfter: 'clamp',
      retryOn: AWS_RETRY_ON,
      idempotency: 'always',
      budget: { kind: 'token-bucket', ...TOKEN_BUCKET_2026 },
    },
    description: 'botocore standard retry mode 2.1 (the opt-in 2026 values)',
    version: 'botocore STANDARD_RETRY_MODE_VERSION 2.1, as of 2026',
    source: 'boto/botocore:botocore/retries/standard.py',
    notes: `STANDARD_RETRY_MODE_VERSION 2.1: rand * min(base * 2^(attempt - 1), 20 s) with base 50 ms (1 s after a throttling error), x-amz-retry-after clamped to [t, t + 5 s], a retry costs 14 tokens (5 after a throttling error). DynamoDB gets 4 attempts and a 25 ms base (not part of this preset). ${BOTOCORE_429_NOTE} ${BOTOCORE_TIMEOUT_NOTE}`,
  },
  grpc: {
    policy: {
      maxAttempts: 4,
      backoff: { kind: 'randomized', baseMs: 100, capMs: 1000, multiplier: 2, exponentOffset: 0, randomizationFactor: GRPC_JITTER_2024 },
      retryAfter: 'pushback',
      retryOn: ['503'],
      idempotency: 'always',
      budget: { kind: 'grpc-throttle', ...GRPC_THROTTLE_DEFAULTS },
    },
    description: 'gRPC retry policy, A6 as amended in August 2024 (grpc-go, grpc-java): the A6 example with retry throttling',
    version: 'gRPC A6 as amended in August 2024 (grpc/proposal#452): grpc-go from #7869, grpc-java from #11858',
    source: 'grpc/proposal:A6-client-retries.md',
    notes:
      'maxAttempts 4, initialBackoff 0.1 s, maxBackoff 1 s, backoffMultiplier 2, retryableStatusCodes [UNAVAILABLE] (503 here); since the August 2024 amendment (grpc/proposal#452) the n-th retry waits min(0.1 s * 2^(n - 1), 1 s) * U(0.8, 1.2), the first retry included, so a wait can reach 1.2 s: the randomized kind with factor 0.2. grpc-go (#7869) and grpc-java (#11858, #12639) implement it; grpc-js still draws random(0, ...): grpc-js. retryThrottling maxTokens 10, tokenRatio 0.1. Server pushback (grpc-retry-pushback-ms) waits exactly that long and restarts the backoff; a negative value stops retrying. gRPC has no notion of idempotency: the service owner picks codes that are safe. The call deadline spans all attempts (use the operation deadline).',
  },
  'grpc-js': {
    policy: {
      maxAttempts: 4,
      backoff: { kind: 'full-jitter', baseMs: 100, capMs: 1000, multiplier: 2, exponentOffset: 0 },
      retryAfter: 'pushback',
      retryOn: ['503'],
      idempotency: 'always',
      budget: { kind: 'grpc-throttle', ...GRPC_THROTTLE_DEFAULTS },
    },
    description: 'gRPC retry policy as grpc-js (grpc-node) implements it: A6 before the 2024 amendment',
    version: 'grpc-js (grpc-node) as of 2026, the original A6 delay',
    source: 'grpc/grpc-node:packages/grpc-js/src/retrying-call.ts',
    notes:
      'The A6 example (4 attempts, 0.1 s to 1 s, x2, [UNAVAILABLE], retryThrottling 10 / 0.1) with the original A6 delay, which grpc-js still draws (grpc-node#2959): the n-th retry waits random(0, min(0.1 s * 2^(n - 1), 1 s)), full jitter. Pushback as in grpc. grpc-go and grpc-java follow the 2024 amendment: grpc.',
  },
  envoy: {
    policy: {
      maxAttempts: 2,
      backoff: { kind: 'envoy', baseMs: 25, capMs: 250, multiplier: 2, exponentOffset: 0 },
      retryAfter: 'ignore',
      retryOn: ['timeout', '500', '503'],
      idempotency: 'always',
      totalTimeoutMs: 15_000,
      budget: { kind: 'envoy-max-retries', ...ENVOY_MAX_RETRIES_DEFAULTS },
    },
    description: 'Envoy route retry policy with retry_on 5xx and the cluster defaults (the back-off of Envoy since 2020)',
    version: 'Envoy since 2020 (JitteredExponentialBackOffStrategy)',
    source: 'envoyproxy/envoy:docs/root/configuration/http/http_filters/router_filter.rst',
    notes:
      'num_retries 1; back-off an integer uniform on [0, min(25 ms * 2^(N - 1), 250 ms)) ms for retry N (JitteredExponentialBackOffStrategy, source/common/common/backoff_strategy.cc: random % next_interval_, the interval doubling from base_interval until it reaches max_interval = 10 x base). The [0, (2^N - 1) x 25 ms) of router_filter.rst is the 2018-2020 code. The route timeout (15 s) covers all retries (totalTimeoutMs), no per-try timeout; retry_on 5xx also retries resets and read timeouts; Envoy retries any method. Every cluster has the max_retries 3 circuit breaker; a retry_budget replaces it. Retry-After and rate-limit reset headers are read only with rate_limited_retry_back_off, which this preset does not set.',
  },
  finagle: {
    policy: {
      maxAttempts: 21,
      backoff: { kind: 'none', baseMs: 0, capMs: 0 },
      retryAfter: 'ignore',
      retryOn: ['503', '429'],
      idempotency: 'always',
      budget: { kind: 'finagle', ...FINAGLE_DEFAULTS },
    },
    description: 'Finagle client requeues with the default RetryBudget',
    version: 'Finagle as of 2026',
    source: 'twitter/finagle:finagle-core/src/main/scala/com/twitter/finagle/service/Retries.scala',
    notes:
      'Retries.Budget.default: RetryBudget() (ttl 10 s, 10 retries/s reserve, 20% of requests) and a backoff of zero; RequeueFilter allows ceil(0.2 x balance) requeues per request, 20 with the reserve alone (maxAttempts 21). Finagle requeues only failures that surely never reached the server (RetryableWriteException); 503 and 429, refusals before processing, are the closest outcomes here. Application-level retries need a RetryPolicy.',
  },
  'polly-v8': {
    policy: {
      maxAttempts: 4,
      backoff: { kind: 'constant', baseMs: 2000, capMs: 'none' },
      retryAfter: 'ignore',
      retryOn: EVERY_FAILURE,
      idempotency: 'always',
    },
    description: 'Polly v8 retry strategy defaults',
    version: 'Polly v8',
    source: 'App-vNext/Polly:src/Polly.Core/Retry/RetryConstants.cs',
    notes: `DefaultRetryCount 3 (4 attempts), DefaultBaseDelay 2 s, DelayBackoffType.Constant, no jitter, no MaxDelay. Polly's default ShouldHandle retries every exception. ${GENERIC_NOTES}`,
  },
  'polly-v8-exponential-jitter': {
    policy: {
      maxAttempts: 4,
      backoff: { kind: 'polly-decorrelated-v2', baseMs: 2000, capMs: 'none', multiplier: 2, exponentOffset: 0 },
      retryAfter: 'ignore',
      retryOn: EVERY_FAILURE,
      idempotency: 'always',
    },
    description: 'Polly v8 with BackoffType Exponential and UseJitter: DecorrelatedJitterBackoffV2',
    version: 'Polly v8',
    source: 'App-vNext/Polly:src/Polly.Core/Retry/RetryHelper.cs',
    notes: `t = n + U, next = 2^t * tanh(sqrt(4t)), delay = (next - prev) * 2 s / 1.4 (prev carried between retries, from 0); median delays near 2, 4, 8 s. ${GENERIC_NOTES}`,
  },
  'dotnet-http-resilience': {
    policy: {
      maxAttempts: 4,
      backoff: { kind: 'polly-decorrelated-v2', baseMs: 2000, capMs: 'none', multiplier: 2, exponentOffset: 0 },
      retryAfter: 'replace',
      retryOn: ['timeout', '500', '503', '429'],
      idempotency: 'always',
    },
    description: 'Microsoft.Extensions.Http.Resilience HttpRetryStrategyOptions',
    version: 'Microsoft.Extensions.Http.Resilience (dotnet/extensions) as of 2026',
    source: 'dotnet/extensions:src/Libraries/Microsoft.Extensions.Http.Resilience/Polly/HttpRetryStrategyOptions.cs',
    notes:
      'BackoffType Exponential with UseJitter (Polly DecorrelatedJitterBackoffV2, 3 retries, 2 s), ShouldRetryAfterHeader true: a Retry-After replaces the computed delay. Handles transient outcomes (5xx, 408, 429, HttpRequestException, timeouts) for every method unless DisableForUnsafeHttpMethods is called. The standard resilience handler adds an attempt timeout (10 s) and a total timeout (30 s) in front: set perAttemptTimeoutMs and totalTimeoutMs to include them.',
  },
  resilience4j: {
    policy: {
      maxAttempts: 3,
      backoff: { kind: 'constant', baseMs: 500, capMs: 'none' },
      retryAfter: 'ignore',
      retryOn: EVERY_FAILURE,
      idempotency: 'always',
    },
    description: 'resilience4j Retry defaults',
    version: 'resilience4j as of 2026',
    source: 'resilience4j/resilience4j:resilience4j-retry/src/main/java/io/github/resilience4j/retry/RetryConfig.java',
    notes: `RetryConfig: maxAttempts 3, waitDuration 500 ms fixed (IntervalFunction.ofDefaults). Its randomized variant (ofRandomized: U[x/2, 3x/2)) is backoff.kind "randomized" with multiplier 1; ofExponentialBackoff grows by 1.5. ${GENERIC_NOTES}`,
  },
  'cenkalti-backoff': {
    policy: {
      maxAttempts: 'unlimited',
      backoff: { kind: 'randomized', baseMs: 500, capMs: 60_000, multiplier: 1.5, exponentOffset: 0, randomizationFactor: 0.5 },
      retryAfter: 'ignore',
      retryOn: EVERY_FAILURE,
      idempotency: 'always',
      maxElapsedMs: 900_000,
    },
    description: 'cenkalti/backoff (Go) ExponentialBackOff defaults with Retry',
    version: 'cenkalti/backoff as of 2026 (v5)',
    source: 'cenkalti/backoff:exponential.go',
    notes: `InitialInterval 500 ms, RandomizationFactor 0.5, Multiplier 1.5, MaxInterval 60 s (caps the interval before randomizing), MaxElapsedTime 15 min: Retry stops when the next wait would end past 15 min from the start (maxElapsedMs; the attempt in flight is not cut short). v5's RetryAfter(d) waits d and resets the backoff, which is retryAfter "pushback" when your code returns it. ${GENERIC_NOTES}`,
  },
  'google-http-client': {
    policy: {
      maxAttempts: 11,
      backoff: { kind: 'randomized', baseMs: 500, capMs: 60_000, multiplier: 1.5, exponentOffset: 0, randomizationFactor: 0.5 },
      retryAfter: 'ignore',
      retryOn: ['500', '503'],
      idempotency: 'always',
      maxElapsedMs: 900_000,
    },
    description: 'google-http-client ExponentialBackOff with HttpBackOffUnsuccessfulResponseHandler',
    version: 'google-http-java-client as of 2026',
    source: 'googleapis/google-http-java-client:google-http-client/src/main/java/com/google/api/client/util/ExponentialBackOff.java',
    notes:
      'Same defaults as cenkalti/backoff (500 ms, 0.5, 1.5, 60 s, 15 min); HttpRequest allows 10 retries (DEFAULT_NUMBER_OF_RETRIES) and the unsuccessful-response handler backs off on 5xx by default. Max elapsed time is maxElapsedMs, checked on the wake-up time; the library checks only the time already elapsed when it computes the wait, so its last wait may end up to one interval (<= 90 s) after 15 min. Intervals are whole milliseconds there (truncated as they grow).',
  },
  'npm-retry': {
    policy: {
      maxAttempts: 11,
      backoff: { kind: 'node-retry', baseMs: 1000, capMs: 'none', multiplier: 2, exponentOffset: 0, randomize: false },
      retryAfter: 'ignore',
      retryOn: EVERY_FAILURE,
      idempotency: 'always',
    },
    description: 'npm retry (node-retry) defaults',
    version: 'npm retry (node-retry) as of 2026',
    source: 'tim-kos/node-retry:lib/retry.js',
    notes: `retries 10, factor 2, minTimeout 1 s, maxTimeout Infinity, randomize false: the i-th retry waits round(1 s * 2^(i - 1)). ${GENERIC_NOTES}`,
  },
  'p-retry': {
    policy: {
      maxAttempts: 11,
      backoff: { kind: 'node-retry', baseMs: 1000, capMs: 'none', multiplier: 2, exponentOffset: 0, randomize: false },
      retryAfter: 'ignore',
      retryOn: EVERY_FAILURE,
      idempotency: 'always',
    },
    description: 'p-retry defaults',
    version: 'p-retry as of 2026',
    source: 'sindresorhus/p-retry:index.js',
    notes: `retries 10 over node-retry's defaults (factor 2, 1 s, no cap, no randomization); AbortError and non-network TypeErrors stop it. ${GENERIC_NOTES}`,
  },
  'async-retry': {
    policy: {
      maxAttempts: 11,
      backoff: { kind: 'node-retry', baseMs: 1000, capMs: 'none', multiplier: 2, exponentOffset: 0, randomize: true },
      retryAfter: 'ignore',
      retryOn: EVERY_FAILURE,
      idempotency: 'always',
    },
    description: 'async-retry defaults',
    version: 'async-retry as of 2026',
    source: 'vercel/async-retry:lib/index.js',
    notes: `node-retry's defaults (10 retries, factor 2, 1 s, no cap) with randomize defaulting to true: round(R * 1 s * 2^(i - 1)), R ~ U[1, 2). bail() stops it. ${GENERIC_NOTES}`,
  },
  'tenacity-random-exponential': {
    policy: {
      maxAttempts: 'unlimited',
      backoff: { kind: 'random-exponential', baseMs: 1000, capMs: 'none', multiplier: 2, exponentOffset: 0, minMs: 0 },
      retryAfter: 'ignore',
      retryOn: EVERY_FAILURE,
      idempotency: 'always',
    },
    description: 'tenacity @retry(wait=wait_random_exponential()) with the default stop (never)',
    version: 'tenacity as of 2026',
    source: 'jd/tenacity:tenacity/wait.py',
    notes: `wait_random_exponential(multiplier=1, max=MAX_WAIT, exp_base=2, min=0): U(0, 1 s * 2^(n - 1)), never stopping (stop_never). Pass stop_after_attempt(n) as maxAttempts. ${GENERIC_NOTES}`,
  },
} satisfies Record<string, Preset>;

/** Names of the presets. */
export type PresetName = keyof typeof PRESET_TABLE;

/** The preset names, in table order. */
export const PRESET_NAMES = Object.keys(PRESET_TABLE) as PresetName[];

/** The presets by name (read-only; use {@link presetPolicy} for a copy to merge into). */
export const PRESETS: Readonly<Record<PresetName, Preset>> = PRESET_TABLE as unknown as Record<PresetName, Preset>;

/** Whether `name` is a preset. */
export function isPresetName(name: string): name is PresetName {
  return Object.prototype.hasOwnProperty.call(PRESET_TABLE, name);
}

/** A deep copy of a preset's policy (plain JSON, safe to merge into). */
export function presetPolicy(name: PresetName): PolicyInput {
  return JSON.parse(JSON.stringify(PRESETS[name].policy)) as PolicyInput;
}
