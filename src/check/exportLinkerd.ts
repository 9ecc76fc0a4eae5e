import { stringify } from 'yaml';
import type { PolicySpec } from '../policy/types.js';
import type { ExportedText } from './exportPolicy.js';
import { LINKERD_HTTP_TERMS, sayClasses } from './retryVocabulary.js';
import { LINKERD_ANNOTATIONS } from './importLinkerd.js';
import { formatGoDuration } from './MeshReader.js';

/**
 * A policy as Linkerd 2.16+ retry annotations on the Service `name` (linkerd.io/2/reference/retries):
 * `retry.linkerd.io/http` (LINKERD_HTTP_TERMS: `5xx`, `gateway-error` and
 * status codes, the widest that retry nothing more), `/limit` = maxAttempts - 1, `/timeout` = the per-attempt timeout, and
 * `timeout.linkerd.io/request` = the total timeout. Annotation retries have no backoff and no budget.
 */
export function exportLinkerd(policy: PolicySpec, name: string): ExportedText {
  const annotations: Record<string, string> = {};
  const codes = sayClasses(policy.retryOn, LINKERD_HTTP_TERMS).terms;
  if (codes.length > 0) annotations[LINKERD_ANNOTATIONS.http] = codes.join(',');
  if (policy.maxAttempts !== 'unlimited') annotations[LINKERD_ANNOTATIONS.limit] = String(policy.maxAttempts - 1);
  if (policy.perAttemptTimeoutMs !== undefined) annotations[LINKERD_ANNOTATIONS.timeout] = formatGoDuration(policy.perAttemptTimeoutMs);
  if (policy.totalTimeoutMs !== undefined) annotations[LINKERD_ANNOTATIONS.requestTimeout] = formatGoDuration(policy.totalTimeoutMs);
  const doc = { apiVersion: 'v1', kind: 'Service', metadata: { name, annotations } };
  const hints = policy.retryOn.length > 0 && codes.length === 0 && policy.perAttemptTimeoutMs === undefined ? ['No retried class has a status code: Linkerd retries nothing.'] : [];
  return { text: stringify(doc), extension: 'yaml', hints };
}
