import type { FindingCode } from './findings.js';

/**
 * The fix of a finding in a configuration format's own terms: the lines to write in that format,
 * or a sentence saying the format cannot express the fix. A finding with no entry keeps the
 * generic fix, written in experiment-file terms.
 */
export type FormatFixes = Partial<Record<FindingCode, string>>;

/** Said of a fix a format cannot express, after what it lacks. */
const CANNOT = 'the format cannot express this fix';

/**
 * Linkerd ServiceProfile fixes (linkerd.io/2/reference/service-profiles: a route has only
 * `condition`, `responseClasses`, `isRetryable` and `timeout`; the profile one `retryBudget`): no
 * backoff, no attempt cap, no Retry-After.
 */
export const SERVICE_PROFILE_FIXES: FormatFixes = {
  RS002: `A ServiceProfile has no backoff field, so ${CANNOT}: Linkerd retries at once; bound the retries with "retryBudget: { retryRatio: 0.1, minRetriesPerSecond: 5, ttl: 10s }" and the route's "timeout".`,
  RS003: `A ServiceProfile has no backoff field, so ${CANNOT}: Linkerd retries at once; bound the retries with "retryBudget: { retryRatio: 0.1, minRetriesPerSecond: 5, ttl: 10s }" and the route's "timeout".`,
  RS005: `A ServiceProfile has no attempt limit, so ${CANNOT}: keep the route's "timeout" (e.g. "timeout: 2s") and "retryBudget.retryRatio" (e.g. "retryRatio: 0.1") small, or use the retry.linkerd.io annotations, whose "retry.linkerd.io/limit" caps the retries.`,
  RS010: 'Set "isRetryable: true" only on routes whose condition matches idempotent requests (e.g. "condition: { method: GET, pathRegex: ... }"), and remove it from the others.',
  RS011: `A ServiceProfile has no Retry-After field, so ${CANNOT}; Linkerd does not read Retry-After.`,
  RS014: 'Give the route a smaller "timeout" and the profile a smaller "retryBudget.retryRatio" (e.g. 0.1).',
  RS015: 'Remove "isRetryable: true" from the route.',
};

/** Linkerd retry annotation fixes (linkerd.io/2/reference/retries: http/grpc conditions, limit, timeout; no backoff, no budget). */
export const LINKERD_ANNOTATION_FIXES: FormatFixes = {
  RS001: `Remove "retry.linkerd.io/http" (or set "retry.linkerd.io/limit: '0'") on the routes whose callers retry already.`,
  RS002: `Linkerd's retry annotations have no backoff, so ${CANNOT}: Linkerd retries at once; keep "retry.linkerd.io/limit: '1'".`,
  RS003: `Linkerd's retry annotations have no backoff, so ${CANNOT}: Linkerd retries at once; keep "retry.linkerd.io/limit: '1'".`,
  RS006: 'Set "timeout.linkerd.io/request: 10s" (all attempts) and "retry.linkerd.io/timeout: 2s" (each attempt).',
  RS009: 'List only transient statuses: "retry.linkerd.io/http: 502-504".',
  RS010: 'Put "retry.linkerd.io/http" only on an HTTPRoute whose matches select idempotent requests (e.g. "matches: [{ method: GET }]").',
  RS011: `Linkerd's retry annotations have no Retry-After setting, so ${CANNOT}; Linkerd does not read Retry-After.`,
  RS012: `Linkerd's retry annotations have no retry budget, so ${CANNOT}: keep "retry.linkerd.io/limit: '1'".`,
  RS014: `Linkerd's retry annotations have no retry budget, so ${CANNOT}: keep "retry.linkerd.io/limit: '1'".`,
};

/** Istio VirtualService fixes (istio.io/latest/docs/reference/config/networking/virtual-service/#HTTPRetry). */
const ISTIO_FIXES: FormatFixes = {
  RS001: 'Turn Istio\'s retries off on the routes whose callers retry already: "retries: { attempts: 0 }".',
  RS006: 'Give the route a timeout and each attempt one: "timeout: 10s" and "retries: { perTryTimeout: 2s }".',
  RS009: 'Retry only transient failures: "retries: { retryOn: connect-failure,refused-stream,gateway-error }".',
  RS010: 'Retry only failures that never reached the server: "retries: { retryOn: connect-failure,refused-stream,reset-before-request }", or "retries: { attempts: 0 }" on routes that match POST.',
  RS011: `A VirtualService has no Retry-After setting, so ${CANNOT}; Envoy reads Retry-After only with rate_limited_retry_back_off, which Istio does not expose.`,
  RS012: 'Limit the retries in flight with a DestinationRule: "trafficPolicy: { connectionPool: { http: { maxRetries: 3 } } }".',
  RS014: 'Limit the retries in flight with a DestinationRule: "trafficPolicy: { connectionPool: { http: { maxRetries: 3 } } }".',
};

/** resilience4j Retry fixes (resilience4j.readme.io/docs/retry, Spring Boot `resilience4j.retry.instances.<name>.*`). */
const RESILIENCE4J_FIXES: FormatFixes = {
  RS001: 'Stop this instance retrying where a layer above retries: "maxAttempts: 1".',
  RS002: 'Draw each wait at random: "enableRandomizedWait: true" and "randomizedWaitFactor: 0.5".',
  RS003: 'Wait between attempts: "waitDuration: 100ms", "enableExponentialBackoff: true", "exponentialBackoffMultiplier: 2" and "enableRandomizedWait: true".',
  RS004: 'Cap the wait: "exponentialMaxWaitDuration: 20s".',
  RS006: 'Bound the call with a TimeLimiter: "resilience4j.timelimiter.instances.<name>.timeoutDuration: 2s".',
  RS009: 'Do not retry client errors: "ignoreExceptions: [org.springframework.web.client.HttpClientErrorException]".',
  RS010: 'Retry only failures that never reached the server: "retryExceptions: [java.net.ConnectException]"; resilience4j cannot tell methods apart, so use a separate instance for non-idempotent calls with "maxAttempts: 1".',
  RS011: `resilience4j's configuration has no Retry-After setting, so ${CANNOT}; only code can (an intervalBiFunction that reads the header).`,
  RS012: `resilience4j's Retry has no retry budget, so ${CANNOT}; the nearest is a circuit breaker on the instance ("resilience4j.circuitbreaker.instances.<name>.failureRateThreshold: 50"), which check does not model.`,
  RS014: `resilience4j's Retry has no retry budget, so ${CANNOT}; the nearest is a circuit breaker on the instance ("resilience4j.circuitbreaker.instances.<name>.failureRateThreshold: 50"), which check does not model.`,
};

/** Envoy route fixes (envoy.config.route.v3.RetryPolicy and the cluster's circuit_breakers). */
const ENVOY_ROUTE_FIXES: FormatFixes = {
  RS001: 'Turn the route\'s retries off where a layer above retries: "retry_policy: { num_retries: 0 }".',
  RS003: 'Wait between attempts: "retry_back_off: { base_interval: 0.1s, max_interval: 2s }" in the retry_policy.',
  RS004: 'Cap the wait: "retry_back_off: { base_interval: 0.1s, max_interval: 2s }".',
  RS006: 'Give the route a timeout and each attempt one: "timeout: 10s" on the route and "per_try_timeout: 2s" in its retry_policy.',
  RS009: 'Retry only transient failures: "retry_on: 5xx,reset", with no 400 or 404 in "retriable_status_codes".',
  RS010: 'Retry only failures that never reached the server: "retry_on: connect-failure,refused-stream,reset-before-request".',
  RS011: 'Honor the server\'s hint: "rate_limited_retry_back_off: { reset_headers: [{ name: Retry-After, format: SECONDS }], max_interval: 300s }" in the retry_policy (Envoy then waits as the header says whenever a response carries it).',
  RS012: 'Give the cluster a retry budget: "circuit_breakers: { thresholds: [{ retry_budget: { budget_percent: { value: 20 }, min_retry_concurrency: 3 } }] }".',
  RS014: 'Give the cluster a retry budget: "circuit_breakers: { thresholds: [{ retry_budget: { budget_percent: { value: 20 }, min_retry_concurrency: 3 } }] }".',
};

/** Gateway API HTTPRoute fixes (GEP-1731 `retry`, `timeouts`; XBackendTrafficPolicy `retryConstraint`). */
const GATEWAY_API_FIXES: FormatFixes = {
  RS001: 'Turn the rule\'s retries off where a layer above retries: "retry: { attempts: 0 }".',
  RS002: `A Gateway API retry sets only the minimum wait ("retry: { backoff: 100ms }"), so ${CANNOT}: the jitter is the implementation's.`,
  RS003: 'Wait between attempts: "retry: { backoff: 100ms }".',
  RS004: `A Gateway API retry has no maximum wait, so ${CANNOT}: Envoy-based implementations cap it at 10 x "retry.backoff".`,
  RS006: 'Give the rule a timeout and each attempt one: "timeouts: { request: 10s, backendRequest: 2s }".',
  RS009: 'Retry only transient failures: "retry: { codes: [502, 503, 504] }".',
  RS010: 'Put "retry" only on rules whose matches select idempotent requests (e.g. "matches: [{ method: GET }]").',
  RS011: `A Gateway API retry has no Retry-After setting, so ${CANNOT}.`,
  RS012: 'Add an XBackendTrafficPolicy for the backend: "retryConstraint: { budget: { percent: 20, interval: 10s }, minRetryRate: { count: 3, interval: 1s } }".',
  RS014: 'Add an XBackendTrafficPolicy for the backend: "retryConstraint: { budget: { percent: 20, interval: 10s }, minRetryRate: { count: 3, interval: 1s } }".',
};

/** Envoy Gateway BackendTrafficPolicy fixes (gateway.envoyproxy.io/v1alpha1 `retry`, `timeout`, `circuitBreaker`). */
const ENVOY_GATEWAY_FIXES: FormatFixes = {
  RS001: 'Turn the policy\'s retries off where a layer above retries: "retry: { numRetries: 0 }".',
  RS003: 'Wait between attempts: "retry: { perRetry: { backOff: { baseInterval: 100ms, maxInterval: 2s } } }".',
  RS004: 'Cap the wait: "retry: { perRetry: { backOff: { baseInterval: 100ms, maxInterval: 2s } } }".',
  RS006: 'Give the route a timeout and each attempt one: "timeout: { http: { requestTimeout: 10s } }" and "retry: { perRetry: { timeout: 2s } }".',
  RS009: 'Retry only transient failures: "retry: { retryOn: { httpStatusCodes: [502, 503, 504] } }".',
  RS010: 'Retry only failures that never reached the server: "retry: { retryOn: { triggers: [connect-failure, refused-stream] } }".',
  RS011: `A BackendTrafficPolicy has no Retry-After setting, so ${CANNOT}.`,
  RS012: 'Limit the retries in flight: "circuitBreaker: { maxParallelRetries: 3 }".',
  RS014: 'Limit the retries in flight: "circuitBreaker: { maxParallelRetries: 3 }".',
};

/** ingress-nginx fixes (the nginx.ingress.kubernetes.io/proxy-next-upstream* annotations). */
const INGRESS_NGINX_FIXES: FormatFixes = {
  RS001: 'Stop nginx trying the next server where a layer above retries: "nginx.ingress.kubernetes.io/proxy-next-upstream: off".',
  RS002: `nginx tries the next server at once, so ${CANNOT}: keep "nginx.ingress.kubernetes.io/proxy-next-upstream-tries: '2'".`,
  RS003: `nginx tries the next server at once, so ${CANNOT}: keep "nginx.ingress.kubernetes.io/proxy-next-upstream-tries: '2'".`,
  RS005: 'Cap the tries: "nginx.ingress.kubernetes.io/proxy-next-upstream-tries: \'3\'" (0 is unlimited).',
  RS006: 'Bound the tries in time: "nginx.ingress.kubernetes.io/proxy-next-upstream-timeout: \'10\'" (seconds) and "nginx.ingress.kubernetes.io/proxy-read-timeout: \'2\'".',
  RS009: 'List only transient failures: "nginx.ingress.kubernetes.io/proxy-next-upstream: error timeout http_502 http_503 http_504".',
  RS010: 'Remove "non_idempotent" from "nginx.ingress.kubernetes.io/proxy-next-upstream".',
  RS011: `nginx has no Retry-After setting for its next-upstream tries, so ${CANNOT}.`,
  RS012: `nginx has no retry budget, so ${CANNOT}: keep "nginx.ingress.kubernetes.io/proxy-next-upstream-tries: '2'".`,
  RS014: `nginx has no retry budget, so ${CANNOT}: keep "nginx.ingress.kubernetes.io/proxy-next-upstream-tries: '2'".`,
};

/** Polly v8 fixes (RetryStrategyOptions and the standard resilience pipeline's sections in appsettings). */
const POLLY_FIXES: FormatFixes = {
  RS001: 'Stop this pipeline retrying where a layer above retries: "MaxRetryAttempts": 0.',
  RS002: 'Draw each wait at random: "UseJitter": true.',
  RS003: 'Wait between attempts: "Delay": "00:00:00.100", "BackoffType": "Exponential", "UseJitter": true.',
  RS004: 'Cap the wait: "MaxDelay": "00:00:20".',
  RS006: 'Bound the call: "TotalRequestTimeout": { "Timeout": "00:00:10" } and "AttemptTimeout": { "Timeout": "00:00:02" }.',
  RS011: 'Honor the server\'s hint: "ShouldRetryAfterHeader": true.',
  RS012: `Polly's retry strategy has no retry budget, so ${CANNOT}; the nearest is a circuit breaker in the pipeline ("CircuitBreaker": { "FailureRatio": 0.5 }), which check does not model.`,
  RS014: `Polly's retry strategy has no retry budget, so ${CANNOT}; the nearest is a circuit breaker in the pipeline ("CircuitBreaker": { "FailureRatio": 0.5 }), which check does not model.`,
};

/** gRPC service config fixes (gRFC A6 `retryPolicy`, `retryThrottling`, the method `timeout`). */
const GRPC_FIXES: FormatFixes = {
  RS001: 'Stop retrying where a layer above retries: "retryPolicy": { "maxAttempts": 1, ... } or no retryPolicy.',
  RS006: 'Give the method a deadline over all attempts: "timeout": "10s" in its methodConfig.',
  RS009: 'Retry only transient statuses: "retryableStatusCodes": ["UNAVAILABLE"].',
  RS010: 'Give a "retryPolicy" only to the methodConfig entries of idempotent methods: any retryable status, UNAVAILABLE included, can come after the server began the work, so a method that is not idempotent needs an idempotency key the server deduplicates, or no "retryPolicy".',
  RS011: `gRPC reads its own pushback (grpc-retry-pushback-ms), not Retry-After, so ${CANNOT}.`,
  RS012: 'Throttle retries across calls: "retryThrottling": { "maxTokens": 10, "tokenRatio": 0.1 }.',
  RS014: 'Throttle retries across calls: "retryThrottling": { "maxTokens": 10, "tokenRatio": 0.1 }.',
};

/** AWS SDK fixes (the shared config file, or its AWS_* environment variables). */
const AWS_FIXES: FormatFixes = {
  RS001: 'Stop the SDK retrying where a layer above retries: "max_attempts = 1" (AWS_MAX_ATTEMPTS=1).',
  RS006: `The shared config file has no timeout setting, so ${CANNOT}: set the client's timeouts in code (requestHandler timeouts in the JS SDK, connect_timeout and read_timeout in botocore's Config).`,
  RS010: `The AWS SDKs retry every operation and the config file cannot select them, so ${CANNOT}: use idempotency tokens (ClientToken), which the SDKs fill in for the operations that take one.`,
  RS011: `The shared config file has no Retry-After setting, so ${CANNOT}.`,
  RS012: 'Use a retry mode with a retry quota: "retry_mode = standard" (AWS_RETRY_MODE=standard).',
  RS014: 'Use a retry mode with a retry quota: "retry_mode = standard" (AWS_RETRY_MODE=standard).',
};

/** Fixes by import format; formats not listed keep the generic fixes. Linkerd's depend on the resource and are set by its importer. */
export const FORMAT_FIXES: Readonly<Record<string, FormatFixes>> = {
  istio: ISTIO_FIXES,
  resilience4j: RESILIENCE4J_FIXES,
  'envoy-route': ENVOY_ROUTE_FIXES,
  'gateway-api': GATEWAY_API_FIXES,
  'envoy-gateway': ENVOY_GATEWAY_FIXES,
  'ingress-nginx': INGRESS_NGINX_FIXES,
  polly: POLLY_FIXES,
  'grpc-service-config': GRPC_FIXES,
  'aws-config': AWS_FIXES,
  'aws-env': AWS_FIXES,
};

/** The layer with its format's fixes ({@link FORMAT_FIXES}), unless its importer gave its own. */
export function withFormatFixes<T extends { fixes?: FormatFixes }>(format: string, layer: T): T {
  const fixes = FORMAT_FIXES[format];
  return layer.fixes !== undefined || fixes === undefined ? layer : { ...layer, fixes };
}
