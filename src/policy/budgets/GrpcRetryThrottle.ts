import * as outcomeModule from '../outcome.js';
import type { RetryBudget } from './RetryBudget.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Outcome } = outcomeModule;

/** gRPC retry throttling (`retryThrottling` of the service config). */
export interface GrpcRetryThrottleSpec {
  kind: 'grpc-throttle';
  maxTokens: number;
  tokenRatio: number;
}

/** The example of gRPC proposal A6 (grpc/proposal:A6-client-retries.md): maxTokens 10, tokenRatio 0.1. */
export const GRPC_THROTTLE_DEFAULTS = { maxTokens: 10, tokenRatio: 0.1 } as const;

/**
 * gRPC retry throttling (grpc/proposal:A6-client-retries.md, "Throttling Retry Attempts and Hedged
 * RPCs"; grpc/grpc ServerRetryThrottleData, which keeps milli-tokens as integers): `token_count`
 * starts at maxTokens; a failure that counts (a retryable status, or a pushback saying do not retry:
 * `retryable` true) takes 1 token, a success adds tokenRatio, clamped to [0, maxTokens]. Retries (and
 * hedges) are allowed only while token_count > maxTokens / 2. The failure is recorded before the
 * retry is decided, as RecordFailure() does. Gauge: tokens.
 */
export class GrpcRetryThrottle implements RetryBudget {
  readonly refusal = 'budget-exhausted' as const;
  private readonly maxMilli: number;
  private readonly ratioMilli: number;
  private readonly thresholdMilli: number;
  private milli: number;

  constructor(spec: GrpcRetryThrottleSpec) {
    this.maxMilli = Math.round(spec.maxTokens * 1000);
    this.ratioMilli = Math.round(spec.tokenRatio * 1000);
    this.thresholdMilli = Math.floor(this.maxMilli / 2);
    this.milli = this.maxMilli;
  }

  onAttempt(): void {}

  onOutcome(_nowMs: number, outcome: number, _wasRetry: boolean, retryable: boolean): void {
    if (outcome === Outcome.SUCCESS) this.milli = Math.min(this.maxMilli, this.milli + this.ratioMilli);
    else if (retryable) this.milli = Math.max(0, this.milli - 1000);
  }

  allowRetry(): boolean {
    return this.milli > this.thresholdMilli;
  }

  onRetryScheduled(): void {}

  /** No tokens: a bucket added during a run starts empty. */
  drain(): void {
    this.milli = 0;
  }

  gauge(): number {
    return this.milli / 1000;
  }
}
