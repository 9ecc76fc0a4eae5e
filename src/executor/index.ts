/**
 * The real-time driver of the simulator's retry policies (docs/architecture.md, "Layout": executor -> policy):
 * `retry` runs an async function under a policy written as in experiment files, with real clocks,
 * timers and AbortSignals, making the decisions `retrystorm trace` shows.
 */
export {
  classifyError,
  classifySettled,
  classifyStatus,
  isResponseLike,
  outcomeCode,
  outcomeName,
  type Classification,
  type OutcomeName,
  type Settled,
} from './classify.js';
export { RetryAbortedError, RetryGiveUpError, type GiveUpReason } from './errors.js';
export {
  resolvePolicySpec,
  resolveRetryPolicy,
  ResolvedRetryPolicy,
  RetryPolicyError,
  type RetryPolicyInput,
} from './resolveRetryPolicy.js';
export {
  policyMethod,
  retry,
  type Attempt,
  type AttemptContext,
  type AttemptEndInfo,
  type AttemptInfo,
  type GiveUpInfo,
  type RetryInfo,
  type RetryOptions,
  type WaitInfo,
} from './retry.js';
export { GRPC_PUSHBACK_HEADER, parsePushbackMs, parseRetryAfterMs } from './retryAfter.js';
export {
  classifyResponse,
  pushbackHint,
  retryingFetch,
  type ClassifyResponseOptions,
  type ResponseHint,
  type RetryingFetchOptions,
} from './retryingFetch.js';
export { createRetryState, RetryState } from './RetryState.js';
export { realSleep, type Clock, type Sleep } from './time.js';
