import type { GiveUpName } from '../policy/outcome.js';
import type { OutcomeName, Settled } from './classify.js';

/**
 * Why a call ended without success: the simulator's give-up reasons (docs/concepts.md, "Concepts", "The
 * retry decision"), plus `aborted` when the caller's AbortSignal fired.
 */
export type GiveUpReason = Exclude<GiveUpName, 'success'> | 'aborted';

/**
 * A call that gave up (`deadline`, `not-retryable`, `attempt-limit`, `retry-after-too-long`,
 * `wait-exceeds-deadline`, `budget-exhausted`, `circuit-open`, `throttled`). `outcome` is what the call returns upward, as a
 * layer of the simulator does: the last attempt's outcome, or a local outcome (`throttled`) when no
 * call was made, or `deadline-exceeded` when the deadline was spent before the first attempt. A
 * retrying caller above classifies this error by that outcome (see `classifyError`), so nested
 * `retry` calls behave as nested layers.
 */
export class RetryGiveUpError<T = unknown> extends Error {
  override readonly name = 'RetryGiveUpError';

  constructor(
    readonly reason: Exclude<GiveUpReason, 'aborted'>,
    readonly attempts: number,
    readonly outcome: OutcomeName,
    /** How the last attempt settled (its returned value or thrown error); undefined when no attempt was made. */
    readonly last: Settled<T> | undefined,
    readonly elapsedMs: number,
  ) {
    super(
      `gave up (${reason}) after ${attempts} attempt${attempts === 1 ? '' : 's'}, returning ${outcome}`,
      last?.kind === 'error' ? { cause: last.error } : undefined,
    );
  }
}

/**
 * The caller's AbortSignal fired: the call stopped at once (an attempt in flight had its signal
 * aborted with the caller's reason; a wait was cut short). Its `name` is `AbortError`, as fetch's;
 * `cause` is the signal's reason.
 */
export class RetryAbortedError extends Error {
  override readonly name = 'AbortError';
  readonly reason = 'aborted' as const;

  constructor(
    readonly attempts: number,
    /** The last outcome before the abort (`deadline-exceeded` when no attempt had ended). */
    readonly lastOutcome: OutcomeName,
    cause: unknown,
  ) {
    super(`aborted by the caller after ${attempts} attempt${attempts === 1 ? '' : 's'}`, { cause });
  }
}
