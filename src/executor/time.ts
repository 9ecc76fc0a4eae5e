/**
 * Time for the executor: a monotonic clock and an abortable timer, both injectable so that tests
 * (and simulations of the executor) run on virtual time.
 */

/** A monotonic clock in ms (`performance` itself is one). Never the wall clock: it can jump. */
export interface Clock {
  now(): number;
}

/**
 * Waits `ms` (>= 0). When `signal` aborts the wait must end (resolve or reject, either is fine) and
 * release its timer. The executor uses it for backoff waits, admission delays and attempt timeouts.
 */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** The longest delay setTimeout takes (2^31 - 1 ms, about 24.8 days); longer waits are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The real timer: `setTimeout`, re-armed while `performance.now()` has not reached the target
 * (Node's timers count whole milliseconds of the event loop's clock and can fire up to 1 ms early
 * by `performance.now()`); a wait of 0 yields once to the event loop (`setImmediate`) rather than
 * taking a 1 ms timer. Rejects with an AbortError when `signal` aborts.
 */
export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(new DOMException('the wait was aborted', 'AbortError'));
      return;
    }
    const target = performance.now() + ms;
    let timer: NodeJS.Timeout | undefined;
    let immediate: NodeJS.Immediate | undefined;
    const onAbort = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      if (immediate !== undefined) clearImmediate(immediate);
      reject(new DOMException('the wait was aborted', 'AbortError'));
    };
    const done = (): void => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const tick = (): void => {
      const left = target - performance.now();
      if (left <= 0) done();
      else timer = setTimeout(tick, Math.min(MAX_TIMER_MS, Math.ceil(left)));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (ms <= 0) immediate = setImmediate(done);
    else timer = setTimeout(tick, Math.min(MAX_TIMER_MS, Math.ceil(ms)));
  });
