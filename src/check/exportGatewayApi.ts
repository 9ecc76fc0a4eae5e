import { stringify } from 'yaml';
import type { PolicySpec } from '../policy/types.js';
import type { ExportedText } from './exportPolicy.js';
import { HTTP_STATUS_TERMS, sayClasses } from './retryVocabulary.js';
import { formatGoDuration } from './MeshReader.js';

/**
 * A policy as a Gateway API HTTPRoute rule to the backend `name` (YAML; gateway-api v1.3.0,
 * GEP-1731): `retry.attempts` = maxAttempts - 1, `retry.codes` (the status classes as their codes,
 * HTTP_STATUS_TERMS; other classes cannot be said and the export warns), `retry.backoff` = the back-off base, `timeouts.request` / `backendRequest`; a
 * `finagle` budget as an XBackendTrafficPolicy `retryConstraint` (GEP-3388) on the backend.
 */
export function exportGatewayApi(policy: PolicySpec, name: string): ExportedText {
  const rule: Record<string, unknown> = { name, backendRefs: [{ name, port: 80 }] };
  const timeouts: Record<string, string> = {};
  if (policy.totalTimeoutMs !== undefined) timeouts.request = formatGoDuration(policy.totalTimeoutMs);
  if (policy.perAttemptTimeoutMs !== undefined) timeouts.backendRequest = formatGoDuration(policy.perAttemptTimeoutMs);
  if (Object.keys(timeouts).length > 0) rule.timeouts = timeouts;
  if (policy.maxAttempts === 'unlimited' || policy.maxAttempts > 1) {
    const codes = sayClasses(policy.retryOn, HTTP_STATUS_TERMS).terms.map(Number);
    rule.retry = {
      attempts: policy.maxAttempts === 'unlimited' ? 2 ** 31 - 1 : policy.maxAttempts - 1,
      codes,
      ...(policy.backoff.baseMs > 0 ? { backoff: formatGoDuration(policy.backoff.baseMs) } : {}),
    };
  }
  const docs: unknown[] = [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name }, spec: { parentRefs: [{ name: 'gateway' }], rules: [rule] } }];
  const budget = policy.budget?.find((b) => b.kind === 'finagle');
  if (budget !== undefined && budget.kind === 'finagle') {
    docs.push({
      apiVersion: 'gateway.networking.x-k8s.io/v1alpha1',
      kind: 'XBackendTrafficPolicy',
      metadata: { name: `${name}-retry-budget` },
      spec: {
        targetRefs: [{ group: '', kind: 'Service', name }],
        retryConstraint: {
          budget: { percent: Math.round(budget.percentCanRetry * 100), interval: formatGoDuration(budget.ttlMs) },
          minRetryRate: { count: Math.round(budget.minRetriesPerSec), interval: '1s' },
        },
      },
    });
  }
  return { text: docs.map((d) => stringify(d)).join('---\n'), extension: 'yaml', hints: [] };
}
