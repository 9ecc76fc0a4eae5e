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
  RS012: 'Add a circuit breaker to the instance: "resilience4j.circuitbreaker.instances.<name>.failureRateThreshold: 50".',
  RS014: 'Add a circuit breaker to the instance: "resilience4j.circuitbreaker.instances.<name>.failureRateThreshold: 50".',
};

/** Fixes by import format; formats not listed keep the generic fixes. Linkerd's depend on the resource and are set by its importer. */
export const FORMAT_FIXES: Readonly<Record<string, FormatFixes>> = {
  istio: ISTIO_FIXES,
  resilience4j: RESILIENCE4J_FIXES,
};
