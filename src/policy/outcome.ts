/**
 * Outcomes of one attempt, as small integers so the simulation's hot path never allocates.
 * Statuses follow HTTP (RFC 9110); `CONFLICT` is the optimistic-concurrency write conflict of the
 * AWS 2015 contention study; the `LOCAL_*` outcomes are refusals made without any call (docs/concepts.md,
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
   * A service graph's bulkhead was full (docs/experiments.md, "Service graphs"): the calling backend already had
   * its cap of calls in flight to the callee, so the attempt was refused without a call
   * (resilience4j 2.4.0 `SemaphoreBulkhead.tryAcquirePermission` failing with a zero
   * `maxWaitDuration`: BulkheadFullException). Occurs only in graphs with bulkheads.
   */
  LOCAL_BULKHEAD_FULL: 13,
  /** HTTP 502 Bad Gateway: a proxy got no valid answer from its upstream (the request may have run). */
  S502: 14,
  /** HTTP 504 Gateway Timeout: a proxy's upstream did not answer in time (the request may have run). */
  S504: 15,
  /** The connection or stream was reset after the request was sent (Envoy `reset`): an unknown outcome. */
  RESET: 16,
  /** The connection could not be made (Envoy `connect-failure`): the request never reached the server. */
  CONNECT_FAILURE: 17,
  /** HTTP/2 REFUSED_STREAM (Envoy `refused-stream`): the server refused the stream before processing it. */
  REFUSED_STREAM: 18,
  /** gRPC CANCELLED (code 1): the call was cancelled, usually by the caller; the work may have run. */
  CANCELLED: 19,
  /** gRPC UNAVAILABLE (code 14): a transient failure, gRPC's 503; the work may have run. */
  UNAVAILABLE: 20,
  /** gRPC RESOURCE_EXHAUSTED (code 8): a quota or rate limit refused the call, gRPC's 429. */
  RESOURCE_EXHAUSTED: 21,
  /** gRPC ABORTED (code 10): a concurrency conflict (a transaction abort), gRPC's write conflict. */
  ABORTED: 22,
  /** gRPC INTERNAL (code 13): an internal error, gRPC's 500. */
  INTERNAL: 23,
  /** gRPC UNKNOWN (code 2): an error with no better status; the work may have run. */
  UNKNOWN: 24,
} as const;
export type OutcomeCode = (typeof Outcome)[keyof typeof Outcome];

/**
 * The name of each outcome code, indexed by code: the one list of outcome names, in the words
 * `retrystorm trace` prints and `retry()`'s classifiers answer. `200` is a success; `timeout` an
 * unknown outcome (the work may have happened); `400`/`404` permanent client errors; `429` a refusal
 * before any processing; `500`/`503` server errors; `conflict` an optimistic-concurrency write
 * conflict; `overloaded` the SRE book's "overloaded; don't retry"; `deadline-exceeded` a layer below
 * that gave up on its deadline; `throttled`, `circuit-open` and `budget-exhausted` refusals a layer
 * below made without any call; `bulkhead-full` a service graph's bulkhead refusing a call;
 * `502`/`504`, `reset`, `connect-failure`, `refused-stream` and the gRPC statuses (`cancelled`,
 * `unavailable`, `resource-exhausted`, `aborted`, `internal`, `unknown`) as docs/concepts.md, "Outcomes", lists them.
 */
export const OUTCOME_NAMES = [
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
  '502',
  '504',
  'reset',
  'connect-failure',
  'refused-stream',
  'cancelled',
  'unavailable',
  'resource-exhausted',
  'aborted',
  'internal',
  'unknown',
] as const satisfies { readonly [C in OutcomeCode]: string };

/** An outcome's name (one of {@link OUTCOME_NAMES}). */
export type OutcomeName = (typeof OUTCOME_NAMES)[number];

/**
 * The failures a leaf, an injected fault or a `trace --script` entry can answer, as written (HTTP
 * statuses as numbers), in a stable order: the one list of them ({@link ANSWER_OUTCOMES} gives each its outcome).
 */
export const FAULT_STATUSES = [
  400,
  404,
  409,
  429,
  500,
  502,
  503,
  504,
  'timeout',
  'reset',
  'connect-failure',
  'refused-stream',
  'cancelled',
  'unavailable',
  'resource-exhausted',
  'deadline-exceeded',
  'aborted',
  'internal',
  'unknown',
] as const satisfies ReadonlyArray<number | OutcomeName>;

/** Every answer: success (200) and the {@link FAULT_STATUSES}. */
export const ANSWER_STATUSES = [200, ...FAULT_STATUSES] as const;

/** A status a server, a fault or a script can answer (one of {@link ANSWER_STATUSES}). */
export type AnswerStatus = (typeof ANSWER_STATUSES)[number];

/**
 * The outcome of each answer a leaf, an injected fault or a `trace --script` entry can give ({@link ANSWER_STATUSES}):
 * HTTP statuses (RFC 9110), `timeout` (no answer before the caller's timer), the connection-level
 * failures an Envoy proxy tells apart (`reset`, `connect-failure`, `refused-stream`) and the gRPC
 * statuses retry policies name (grpc/grpc:doc/statuscodes.md, lowercase with `-`). 409 is the write
 * conflict; `deadline-exceeded` is a lower layer's DEADLINE_EXCEEDED.
 */
export const ANSWER_OUTCOMES = {
  200: Outcome.SUCCESS,
  400: Outcome.S400,
  404: Outcome.S404,
  409: Outcome.CONFLICT,
  429: Outcome.S429,
  500: Outcome.S500,
  502: Outcome.S502,
  503: Outcome.S503,
  504: Outcome.S504,
  timeout: Outcome.TIMEOUT,
  reset: Outcome.RESET,
  'connect-failure': Outcome.CONNECT_FAILURE,
  'refused-stream': Outcome.REFUSED_STREAM,
  cancelled: Outcome.CANCELLED,
  unavailable: Outcome.UNAVAILABLE,
  'resource-exhausted': Outcome.RESOURCE_EXHAUSTED,
  'deadline-exceeded': Outcome.DEADLINE_EXCEEDED,
  aborted: Outcome.ABORTED,
  internal: Outcome.INTERNAL,
  unknown: Outcome.UNKNOWN,
} as const satisfies Record<AnswerStatus, OutcomeCode>;

/**
 * Why an operation (or one layer's call) ended. Exactly these; the order in which the retry
 * decision (docs/concepts.md, "Concepts") reaches them is RetryLoop's (retryLoop.ts), the codes only
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
