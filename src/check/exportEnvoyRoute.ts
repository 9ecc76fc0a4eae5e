import { stringify } from 'yaml';
import type { PolicySpec } from '../policy/types.js';
import type { ExportedText } from './exportPolicy.js';
import { protoDuration } from './FieldReader.js';
import { ENVOY_CONDITIONS, HTTP_STATUS_TERMS, sayClasses } from './retryVocabulary.js';
import { ENVOY_DEFAULTS } from './importEnvoyRoute.js';

/**
 * A policy as an Envoy route action with its `retry_policy` (YAML; route_components.proto): the
 * classes in `retry_on` conditions (ENVOY_CONDITIONS: the widest that retry nothing more, so `5xx`
 * for all it covers), the rest as `retriable_status_codes`; a class neither can say (a per-try
 * timeout without the rest of gateway-error) is left out and the export warns; `num_retries` = maxAttempts - 1; the back-off's base and cap as
 * `retry_back_off`; retryAfter `replace` as `rate_limited_retry_back_off` on Retry-After. The
 * cluster's circuit breakers belong to the cluster, not the route: a hint says so.
 */
export function exportEnvoyRoute(policy: PolicySpec, name: string): ExportedText {
  const hints: string[] = [];
  const said = sayClasses(policy.retryOn, ENVOY_CONDITIONS);
  const conditions = said.terms;
  const codes = sayClasses(said.unsaid, HTTP_STATUS_TERMS).terms.map(Number);
  if (codes.length > 0) conditions.push('retriable-status-codes');
  const rp: Record<string, unknown> = {};
  if (conditions.length > 0) rp.retry_on = conditions.join(',');
  if (policy.maxAttempts !== 'unlimited') rp.num_retries = policy.maxAttempts - 1;
  if (policy.perAttemptTimeoutMs !== undefined) rp.per_try_timeout = protoDuration(policy.perAttemptTimeoutMs);
  if (codes.length > 0) rp.retriable_status_codes = codes;
  if (policy.backoff.baseMs > 0) {
    rp.retry_back_off = { base_interval: protoDuration(policy.backoff.baseMs), ...(Number.isFinite(policy.backoff.capMs) && policy.backoff.capMs >= policy.backoff.baseMs ? { max_interval: protoDuration(policy.backoff.capMs) } : {}) };
  }
  if (policy.retryAfter === 'replace') rp.rate_limited_retry_back_off = { reset_headers: [{ name: 'Retry-After', format: 'SECONDS' }] };
  const budget = policy.budget?.[0];
  if (budget !== undefined && ((budget.kind === 'envoy-max-retries' && budget.maxRetries !== ENVOY_DEFAULTS.maxRetries) || budget.kind === 'envoy-retry-budget')) {
    const threshold = budget.kind === 'envoy-max-retries' ? { max_retries: budget.maxRetries } : { retry_budget: { budget_percent: { value: budget.budgetPercent }, min_retry_concurrency: budget.minRetryConcurrency } };
    hints.push(`The retry limit belongs to the cluster ${name}: circuit_breakers: { thresholds: [${JSON.stringify({ priority: 'DEFAULT', ...threshold })}] }.`);
  }
  const doc = { name, route: { cluster: name, timeout: policy.totalTimeoutMs !== undefined ? protoDuration(policy.totalTimeoutMs) : '0s', retry_policy: rp } };
  return { text: stringify(doc), extension: 'yaml', hints };
}
