import type { RetryOptions } from '../../src/executor/index.js';

/** One decision of a call, in the shape of the simulator's trace timeline (src/model/trace.ts) without op and layer. */
export type Decision =
  | { tMs: number; event: 'attempt'; attempt: number; timeoutMs: number }
  | { tMs: number; event: 'outcome'; attempt: number; outcome: string; retryAfterMs?: number }
  | { tMs: number; event: 'wait'; retry: number; ceilingMs: number; backoffMs: number; waitMs: number; wakeAtMs: number; fits: boolean }
  | { tMs: number; event: 'give-up'; reason: string; attempts: number; outcome: string };

/**
 * Hooks that record a call's decisions as a timeline; `succeeded()` adds the final line of a
 * success. Several calls can record into one `log`, each line tagged with `tag` (e.g. its layer).
 */
export function recorder<T>(
  log: Array<Decision & Record<string, unknown>> = [],
  tag: Record<string, unknown> = {},
): {
  log: Decision[];
  hooks: Pick<RetryOptions<T>, 'onAttempt' | 'onAttemptEnd' | 'onRetry' | 'onGiveUp'>;
  succeeded: () => void;
} {
  const push = (d: Decision): void => {
    log.push({ ...d, ...tag });
  };
  let lastEnd = 0;
  let attempts = 0;
  return {
    log,
    hooks: {
      onAttempt: (i) => {
        attempts = i.attempt;
        push({ tMs: i.atMs, event: 'attempt', attempt: i.attempt, timeoutMs: i.timeoutMs });
      },
      onAttemptEnd: (i) => {
        lastEnd = i.endMs;
        push({
          tMs: i.endMs,
          event: 'outcome',
          attempt: i.attempt,
          outcome: i.outcome,
          ...(i.retryAfterMs !== undefined ? { retryAfterMs: i.retryAfterMs } : {}),
        });
      },
      onRetry: (i) =>
        push({
          tMs: i.atMs,
          event: 'wait',
          retry: i.retry,
          ceilingMs: i.ceilingMs,
          backoffMs: i.backoffMs,
          waitMs: i.waitMs,
          wakeAtMs: i.wakeAtMs,
          fits: true,
        }),
      onGiveUp: (i) => {
        if (i.wait) push({ tMs: i.atMs, event: 'wait', ...i.wait, fits: false });
        push({ tMs: i.atMs, event: 'give-up', reason: i.reason, attempts: i.attempts, outcome: i.outcome });
      },
    },
    succeeded: () => push({ tMs: lastEnd, event: 'give-up', reason: 'success', attempts, outcome: '200' }),
  };
}
