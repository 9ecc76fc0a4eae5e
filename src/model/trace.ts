/**
 * One line of an operation's timeline, as `retrystorm trace` prints it. Times in ms from the start;
 * `op` numbers the operations of a run from 0 (every event of a call chain carries its operation's).
 */
export type TraceEvent =
  /** A call reaches a layer; `deadlineAtMs` is the deadline it works to (+Infinity: none). */
  | { tMs: number; op: number; layer: number; event: 'call'; deadlineAtMs: number }
  /** An attempt starts with the given timeout (+Infinity: it waits forever). */
  | { tMs: number; op: number; layer: number; event: 'attempt'; attempt: number; timeoutMs: number }
  /** An attempt ended with this outcome (and the server's Retry-After hint, if any). */
  | { tMs: number; op: number; layer: number; event: 'outcome'; attempt: number; outcome: string; retryAfterMs?: number }
  /**
   * The backoff before retry `retry`: its ceiling, the sample drawn, the actual wait after
   * Retry-After and tick rounding, and whether it fits in the deadline.
   */
  | {
      tMs: number;
      op: number;
      layer: number;
      event: 'wait';
      retry: number;
      ceilingMs: number;
      backoffMs: number;
      waitMs: number;
      wakeAtMs: number;
      fits: boolean;
    }
  /** The layer's call ends with this reason after `attempts` attempts, returning `outcome` upward. */
  | { tMs: number; op: number; layer: number; event: 'give-up'; reason: string; attempts: number; outcome: string };
