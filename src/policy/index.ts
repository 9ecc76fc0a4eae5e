/**
 * Pure retry decisions: backoff and jitter, timer ticks, classification, the retry decision,
 * budgets, breakers and admission controls, and presets of real retry libraries.
 */
export * from './backoff.js';
export * from './compiledBackoff.js';
export * from './budgets/index.js';
export * from './classify.js';
export * from './decision.js';
export * from './outcome.js';
export * from './presets.js';
export * from './retryLoop.js';
export * from './retrySteps.js';
export * from './timer.js';
export type * from './types.js';
export * from './describePresets.js';
