/**
 * Retry budgets, throttles, breakers and admission controls: pure state machines, one object per
 * layer instance, time always passed in.
 */
export * from './AdmissionControl.js';
export * from './AwsAdaptiveRateLimiter.js';
export * from './BrookerBreaker.js';
export * from './BrookerTokenBucket.js';
export * from './BudgetChain.js';
export * from './EnvoyAdmissionControl.js';
export * from './EnvoyMaxRetries.js';
export * from './EnvoyRetryBudget.js';
export * from './FinagleRetryBudget.js';
export * from './GrpcRetryThrottle.js';
export * from './isDependencyFailure.js';
export * from './RetryBudget.js';
export * from './RetryCircuitBreaker.js';
export * from './ServerWideBudget.js';
export * from './SlidingWindow.js';
export * from './SreAdaptiveThrottle.js';
export * from './SreRatioBudget.js';
export * from './TokenBucketQuota.js';
export * from './WindowedAdder.js';
