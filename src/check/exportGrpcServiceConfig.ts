import type { PolicySpec, RetryOnClass } from '../policy/types.js';
import type { ExportedText } from './exportPolicy.js';
import { protoDuration } from './FieldReader.js';
import { GRPC_STATUS_TERMS, sayClasses } from './retryVocabulary.js';

/** The gRPC statuses of a list of classes (GRPC_STATUS_TERMS, the importer's table too); other classes cannot be said. */
const statusesOf = (classes: readonly RetryOnClass[]): string[] => sayClasses(classes, GRPC_STATUS_TERMS).terms;

/**
 * A policy as a gRPC service config (JSON; grpc/proposal:A6-client-retries.md): one methodConfig
 * for the service `name` with its retryPolicy (maxAttempts, initialBackoff = the back-off base,
 * maxBackoff = its cap, backoffMultiplier, retryableStatusCodes, perAttemptRecvTimeout) and the
 * call `timeout`; a `grpc-throttle` budget as retryThrottling; hedging as a hedgingPolicy.
 */
export function exportGrpcServiceConfig(policy: PolicySpec, name: string): ExportedText {
  const config: Record<string, unknown> = { name: [{ service: name }] };
  if (policy.totalTimeoutMs !== undefined) config.timeout = protoDuration(policy.totalTimeoutMs);
  const codes = statusesOf(policy.retryOn);
  if (policy.hedging !== undefined) {
    config.hedgingPolicy = {
      maxAttempts: policy.hedging.maxAttempts,
      hedgingDelay: protoDuration(policy.hedging.hedgingDelayMs),
      nonFatalStatusCodes: statusesOf(policy.hedging.nonFatal),
    };
  } else if (policy.maxAttempts === 'unlimited' || policy.maxAttempts > 1) {
    const b = policy.backoff;
    const rp: Record<string, unknown> = {
      maxAttempts: policy.maxAttempts === 'unlimited' ? 5 : policy.maxAttempts,
      initialBackoff: protoDuration(Math.max(b.baseMs, 0.001)),
      maxBackoff: protoDuration(Number.isFinite(b.capMs) && b.capMs > 0 ? b.capMs : Math.max(b.baseMs, 0.001)),
      backoffMultiplier: b.multiplier,
      retryableStatusCodes: codes.length > 0 ? codes : ['UNAVAILABLE'],
    };
    if (policy.perAttemptTimeoutMs !== undefined) rp.perAttemptRecvTimeout = protoDuration(policy.perAttemptTimeoutMs);
    config.retryPolicy = rp;
  }
  const doc: Record<string, unknown> = { methodConfig: [config] };
  const throttle = policy.budget?.find((x) => x.kind === 'grpc-throttle');
  if (throttle !== undefined && throttle.kind === 'grpc-throttle') doc.retryThrottling = { maxTokens: throttle.maxTokens, tokenRatio: throttle.tokenRatio };
  return { text: JSON.stringify(doc, null, 2) + '\n', extension: 'json', hints: [] };
}
