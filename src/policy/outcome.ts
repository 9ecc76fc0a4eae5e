/**
 * Outcomes of one attempt, as small integers so the simulation's hot path never allocates.
 * Statuses follow HTTP (RFC 9110); `CONFLICT` is the optimistic-concurrency write conflict of the
 * AWS 2015 contention study; the `LOCAL_*` outcomes are refusals made without any call (README.md,
 * "Concepts", "What the layer above sees"): a layer above does not retry them unless its policy lists them.
 */
export const Outcome = {
  SUCCESS: 0,
  TIMEOUT: 1,
  S400: 2,
  S404: 3,
  S429: 4,
  S500: 5,
  S503: 6,
  CONFLICT: 7,
  /** "Overloaded; don't retry" (Google SRE book ch. 21): never retried. */
  OVERLOADED: 8,
  /** A lower layer gave up on its deadline before answering (gRPC DEADLINE_EXCEEDED); retried like a timeout. */
  DEADLINE_EXCEEDED: 9,
  LOCAL_THROTTLED: 10,
  LOCAL_CIRCUIT_OPEN: 11,
  LOCAL_BUDGET_EXHAUSTED: 12,
  /**
   * A service graph's bulkhead was full (README, "Service graphs"): the calling backend already had
   * its cap of calls in flight to the callee, so the attempt was refused without a call
   * (resilience4j 2.4.0 `SemaphoreBulkhead.tryAcquirePermission` failing with a zero
   * `maxWaitDuration`: BulkheadFullException). Occurs only in graphs with bulkheads.
   */
  LOCAL_BULKHEAD_FULL: 13,
} as const;
export type OutcomeCode = (typeof Outcome)[keyof typeof Outcome];

/** Printable name of each outcome code, indexed by code. */
export const OUTCOME_NAMES: readonly string[] = [
  '200',
  'timeout',
  '400',
  '404',
  '429',
  '500',
  '503',
  'conflict',
  'overloaded',
  'deadline-exceeded',
  'throttled',
  'circuit-open',
  'budget-exhausted',
  'bulkhead-full',
];

/**
 * Why an operation (or one layer's call) ended. Exactly these; the order in which the retry
 * decision (README.md, "Concepts") reaches them is RetryLoop's (retryLoop.ts), the codes only
 * number them.
 */
export const GiveUp = {
  SUCCESS: 0,
  DEADLINE: 1,
  NOT_RETRYABLE: 2,
  ATTEMPT_LIMIT: 3,
  WAIT_EXCEEDS_DEADLINE: 4,
  BUDGET_EXHAUSTED: 5,
  CIRCUIT_OPEN: 6,
  THROTTLED: 7,
  /** The server asked for a wait longer than the policy's `maxRetryAfterMs` (a wait is never shortened). */
  RETRY_AFTER_TOO_LONG: 8,
} as const;
export type GiveUpCode = (typeof GiveUp)[keyof typeof GiveUp];

/** Printable name of each give-up code, indexed by code. */
export const GIVE_UP_NAMES = [
  'success',
  'deadline',
  'not-retryable',
  'attempt-limit',
  'wait-exceeds-deadline',
  'budget-exhausted',
  'circuit-open',
  'throttled',
  'retry-after-too-long',
] as const;
export type GiveUpName = (typeof GIVE_UP_NAMES)[number];
