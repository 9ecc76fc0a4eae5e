/** Pure retry decisions: backoff and jitter, timer ticks, classification, the retry decision. */
export * from './backoff.js';
export * from './classify.js';
export * from './decision.js';
export * from './outcome.js';
export * from './timer.js';
export type * from './types.js';
