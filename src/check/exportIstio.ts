import { stringify } from 'yaml';
import type { PolicySpec } from '../policy/types.js';
import type { ExportedText } from './exportPolicy.js';
import { ENVOY_CONDITIONS, HTTP_STATUS_TERMS, sayClasses } from './retryVocabulary.js';
import { formatGoDuration } from './MeshReader.js';

/**
 * A policy as an Istio VirtualService with one http route to the host `name` (YAML;
 * istio/api:networking/v1alpha3/virtual_service.proto): `retries.attempts` = maxAttempts - 1,
 * `perTryTimeout`, `retryOn` (Envoy's conditions, ENVOY_CONDITIONS, the widest that retry nothing
 * more, then status codes; what neither can say is left out and the export warns), `backoff` = the back-off base, the route `timeout`; an
 * `envoy-max-retries` budget as a DestinationRule's `connectionPool.http.maxRetries`.
 */
export function exportIstio(policy: PolicySpec, name: string): ExportedText {
  const said = sayClasses(policy.retryOn, ENVOY_CONDITIONS);
  const parts = [...said.terms, ...sayClasses(said.unsaid, HTTP_STATUS_TERMS).terms];
  const retries: Record<string, unknown> = { attempts: policy.maxAttempts === 'unlimited' ? 2 ** 31 - 1 : policy.maxAttempts - 1 };
  if (policy.perAttemptTimeoutMs !== undefined) retries.perTryTimeout = formatGoDuration(policy.perAttemptTimeoutMs);
  if (parts.length > 0) retries.retryOn = parts.join(',');
  if (policy.backoff.baseMs > 0) retries.backoff = formatGoDuration(policy.backoff.baseMs);
  const http: Record<string, unknown> = { name, route: [{ destination: { host: name } }] };
  if (policy.totalTimeoutMs !== undefined) http.timeout = formatGoDuration(policy.totalTimeoutMs);
  http.retries = retries;
  const docs: unknown[] = [{ apiVersion: 'networking.istio.io/v1', kind: 'VirtualService', metadata: { name }, spec: { hosts: [name], http: [http] } }];
  const budget = policy.budget?.find((b) => b.kind === 'envoy-max-retries');
  if (budget !== undefined && budget.kind === 'envoy-max-retries') {
    docs.push({ apiVersion: 'networking.istio.io/v1', kind: 'DestinationRule', metadata: { name }, spec: { host: name, trafficPolicy: { connectionPool: { http: { maxRetries: budget.maxRetries } } } } });
  }
  return { text: docs.map((d) => stringify(d)).join('---\n'), extension: 'yaml', hints: [] };
}
