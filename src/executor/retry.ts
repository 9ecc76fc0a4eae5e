import { isIdempotent } from '../policy/classify.js';
import { GIVE_UP_NAMES, GiveUp, Outcome } from '../policy/outcome.js';
import { EndedAttempt, Next, RetryLoop, RetryStep, type UniformDraw } from '../policy/retryLoop.js';
import type { Method, PolicySpec } from '../policy/types.js';
import { classifySettled, isResponseLike, outcomeCode, outcomeName, type Classification, type OutcomeName, type Settled } from './classify.js';
import { RetryAbortedError, RetryGiveUpError, type GiveUpReason } from './errors.js';
import { resolveRetryPolicy, RetryPolicyError, type ResolvedRetryPolicy, type RetryPolicyInput } from './resolveRetryPolicy.js';
import type { RetryState } from './RetryState.js';
import { realSleep, type Clock, type Sleep } from './time.js';

/** What `fn` is given for each attempt. */
export interface AttemptContext {
  /** 1 for the first try, 2 for the first retry... */
  attempt: number;
  /** Aborts when this attempt's time is up (reason: a `TimeoutError`) or the caller aborts (the caller's reason). Pass it on to the call. */
  signal: AbortSignal;
  /**
   * The time this attempt is given, in ms (+Infinity: no limit): in `propagate` mode
   * min(perAttemptTimeout, remaining deadline). Send it downstream (a header, a gRPC deadline) so
   * the layer below knows when nobody will be waiting any more.
   */
  remainingMs: number;
}

/** An attempt is sent. */
export interface AttemptInfo {
  attempt: number;
  /** A retry (attempt > 1) rather than original demand. */
  isRetry: boolean;
  /** When it was sent, on the executor's clock. */
  atMs: number;
  /** The timeout it was given (+Infinity: none). */
  timeoutMs: number;
}

/** An attempt ended. */
export interface AttemptEndInfo extends AttemptInfo {
  /** When it ended (for a timeout: exactly when its time ran out). */
  endMs: number;
  outcome: OutcomeName;
  /** The server's hint (Retry-After, pushback), when it gave one. */
  retryAfterMs?: number;
  /** How it settled; absent when it timed out. */
  settled?: Settled<unknown>;
}

/** The backoff the policy drew for a retry (README.md, "Concepts", "The retry decision", steps 6-7). */
export interface WaitInfo {
  /** 1 for the first retry (the number of attempts made so far). */
  retry: number;
  /** The upper end of the range the backoff was drawn from. */
  ceilingMs: number;
  /** The backoff drawn, before Retry-After and tick rounding. */
  backoffMs: number;
  /** The wait actually chosen: to the wake-up, after Retry-After and tick rounding. */
  waitMs: number;
  /** When the next attempt is due, on the executor's clock. */
  wakeAtMs: number;
}

/** A retry was scheduled. */
export interface RetryInfo extends WaitInfo {
  /** When the decision was made (the end of the failed attempt). */
  atMs: number;
  /** The outcome that is being retried. */
  outcome: OutcomeName;
  retryAfterMs?: number;
}

/** The call gave up. */
export interface GiveUpInfo {
  reason: GiveUpReason;
  /** Attempts made (calls to `fn`). */
  attempts: number;
  /** What the call returns upward (see RetryGiveUpError.outcome). */
  outcome: OutcomeName;
  /** When (the moment of the decision), and how long after the call started. */
  atMs: number;
  elapsedMs: number;
  /** For `wait-exceeds-deadline`: the wait that did not fit (it is never shortened to fit). */
  wait?: WaitInfo;
}

/** Options of one call. */
export interface RetryOptions<T> {
  /**
   * The operation's total budget in ms from the call's start (absent: none; 0: already spent,
   * `deadline` without a call). How attempts use it follows the policy's `deadlineMode`.
   */
  deadlineMs?: number;
  /** The caller's signal: when it aborts, the call stops at once with a {@link RetryAbortedError}. */
  signal?: AbortSignal;
  /**
   * The request method (default GET, as in experiment files), for the policy's idempotency rule:
   * by HTTP semantics GET, HEAD, PUT and DELETE are idempotent and POST is not. Other methods
   * count as POST (PATCH, CONNECT...) or as GET (OPTIONS, TRACE), case-insensitively.
   */
  method?: Method | string;
  /** Whether the operation may be replayed after an unknown outcome or a server error; overrides the policy's `idempotency` rule for this call. */
  idempotent?: boolean;
  /**
   * The shared budget state (see `createRetryState`); required when the policy has budgets or an
   * admission control, and must hold the same ones.
   */
  state?: RetryState;
  /** Maps how an attempt settled to an outcome (default: `classifySettled`). */
  classify?: (settled: Settled<T>, attempt: number) => Classification;
  /**
   * Called with each returned value the call will not hand back: a failed attempt's value once the
   * next attempt is sent, or a value that arrived after its attempt timed out or the caller aborted
   * (default: cancels the body of a Response, so its connection is released).
   */
  dispose?: (value: T) => void;
  /** The monotonic clock (default `performance`). Timer ticks are aligned to its origin. */
  clock?: Clock;
  /** The timer for waits and attempt timeouts (default `realSleep`). */
  sleep?: Sleep;
  /**
   * Uniform draws in [0, 1) (default `Math.random`): one before each attempt when the policy has an
   * admission control, and one for each retry whose backoff is random, as the simulator draws them.
   */
  random?: () => number;
  /** Every attempt sent: first tries (`isRetry` false, original demand) and retries. */
  onAttempt?: (info: AttemptInfo) => void;
  /** Every attempt's end, with its outcome. */
  onAttemptEnd?: (info: AttemptEndInfo) => void;
  /** A retry scheduled, with the wait chosen and its ceiling. */
  onRetry?: (info: RetryInfo) => void;
  /** The call gave up (not called on success), with the reason. */
  onGiveUp?: (info: GiveUpInfo) => void;
}

/** The function a call retries: one attempt. */
export type Attempt<T> = (ctx: AttemptContext) => T | PromiseLike<T>;

const METHODS: readonly string[] = ['GET', 'HEAD', 'PUT', 'DELETE', 'POST'];

/** A request method as the policies know it: the five of experiment files; other safe methods as GET, the rest as POST. */
export function policyMethod(method: string | undefined): Method {
  if (method === undefined) return 'GET';
  const m = method.toUpperCase();
  if (METHODS.includes(m)) return m as Method;
  return m === 'OPTIONS' || m === 'TRACE' ? 'GET' : 'POST';
}

/** Cancel the body of a Response-like value nobody will read. */
function disposeDefault(value: unknown): void {
  if (!isResponseLike(value)) return;
  const body = (value as { body?: { cancel?: () => Promise<void> } | null; bodyUsed?: boolean }).body;
  if (body && typeof body.cancel === 'function' && (value as { bodyUsed?: boolean }).bodyUsed !== true) {
    body.cancel().catch(() => undefined);
  }
}

type AttemptEnd<T> =
  | { kind: 'settled'; settled: Settled<T>; atMs: number }
  | { kind: 'timeout'; atMs: number }
  | { kind: 'aborted'; atMs: number };

/** Thrown inside the loop when the caller's signal aborts. */
const ABORTED = Symbol('aborted');

/**
 * Runs `fn` under `policy` in real time, driving the retry loop of src/policy/retryLoop.ts
 * (`RetryLoop`: the decision order of README.md, "Concepts", "The retry decision"), so it makes
 * the decisions the simulator makes on the same script (test/executor/equivalence.test.ts):
 *
 * before each attempt: a spent deadline (remaining <= 0) gives `deadline` without a call; the
 * admission control (if any) may refuse (`throttled`) or delay it. The attempt is given
 * min(perAttemptTimeout, remaining deadline) in `propagate` mode, as an AbortSignal and as a number
 * (`remainingMs`); when its time is up the attempt ends as a `timeout` at that moment whatever
 * `fn` does later (a timeout is not a cancellation: the signal tells `fn`, but the work may go on).
 * After it: the budgets are told, then 1. deadline passed -> `deadline`; 2. success -> the value;
 * 3. not retryable (400/404, a non-idempotent method after a timeout or 5xx, a pushback saying no)
 * -> `not-retryable`; 4. attempt cap -> `attempt-limit`; 5. a budget or breaker refuses ->
 * `budget-exhausted` / `circuit-open`; 6. the backoff is drawn (`random`), never shorter than the
 * server's Retry-After (per `retryAfter`); 7. the wake-up is rounded up to the timer tick; 8. a wait
 * that does not fit in the deadline gives `wait-exceeds-deadline` at once (never shortened); else
 * the budgets are charged and the call waits (abortably), then attempts again.
 *
 * Times are read from a monotonic clock (`performance.now()`), never the wall clock. Timer ticks
 * (`tickMs`) are aligned to the clock's origin (`performance.timeOrigin`, the process start, for
 * the default clock), as the simulator aligns them to simulated t = 0. An attempt that times out
 * ends at the moment its time was up (startMs + timeoutMs), even when the timer fires a little
 * late, so the wake-up that follows stays where the policy puts it; an attempt starts when its
 * wait has actually ended (never before its wake-up), and its timeout counts from then.
 *
 * Resolves with the value of the successful attempt (undefined if the classifier called a thrown
 * error a success); rejects with a {@link RetryGiveUpError} (the reason, the outcome returned
 * upward, the last value or error) or, when the caller's signal aborts, a {@link RetryAbortedError}.
 * Budgets and admission control live in `options.state`, never in hidden globals. Throws a
 * RetryPolicyError for a bad policy and a TypeError for bad options.
 */
export async function retry<T>(
  fn: Attempt<T>,
  policy: RetryPolicyInput | PolicySpec | ResolvedRetryPolicy,
  options: RetryOptions<T> = {},
): Promise<T> {
  const rp = resolveRetryPolicy(policy);
  const p = rp.compiled;
  if (p.spec.hedging !== undefined) {
    throw new RetryPolicyError(['policy.hedging is not supported by retry(): hedged requests can be simulated, not executed (use maxAttempts instead)']);
  }
  const state = checkState(rp, options.state);
  const { deadlineMs, signal } = options;
  if (deadlineMs !== undefined && !(typeof deadlineMs === 'number' && deadlineMs >= 0)) {
    throw new TypeError(`options.deadlineMs must be a number >= 0 (got ${String(deadlineMs)})`);
  }
  const clock = options.clock ?? performance;
  const sleep = options.sleep ?? realSleep;
  const random: UniformDraw = { uniform: options.random ?? Math.random };
  const classify = options.classify ?? (classifySettled as (s: Settled<T>, attempt: number) => Classification);
  const dispose = options.dispose ?? disposeDefault;
  const idem = options.idempotent ?? isIdempotent(policyMethod(options.method), p.spec.idempotency);
  const budgets = state?.budgets ?? null;
  const admission = state?.admission ?? null;
  const loop = new RetryLoop(p);
  const step = new RetryStep();
  const ended = new EndedAttempt();

  const t0 = clock.now();
  const deadlineAt = loop.deadlineAtMs(deadlineMs !== undefined ? t0 + deadlineMs : Infinity, t0);
  let attempts = 0;
  let backoffBase = 0;
  let prevSleep = p.compiledBackoff.initialPrevSleepMs;
  let lastOutcome: number = Outcome.DEADLINE_EXCEEDED;
  let last: Settled<T> | undefined;
  let t = t0;

  const aborted = (): RetryAbortedError => new RetryAbortedError(attempts, outcomeName(lastOutcome), signal?.reason);
  const giveUp = (code: number, outcome: number, atMs: number, wait?: WaitInfo): RetryGiveUpError<T> => {
    const reason = GIVE_UP_NAMES[code] as Exclude<GiveUpReason, 'aborted'>;
    const name = outcomeName(outcome);
    options.onGiveUp?.({ reason, attempts, outcome: name, atMs, elapsedMs: atMs - t0, ...(wait ? { wait } : {}) });
    return new RetryGiveUpError<T>(reason, attempts, name, last, atMs - t0);
  };
  const abortedNow = (): never => {
    if (last?.kind === 'value') dispose(last.value);
    const atMs = clock.now();
    options.onGiveUp?.({ reason: 'aborted', attempts, outcome: outcomeName(lastOutcome), atMs, elapsedMs: atMs - t0 });
    throw aborted();
  };
  /** Wait until `target` on the clock (abortably); returns when the wait ended (never before `target`). */
  const waitUntil = async (target: number): Promise<number> => {
    try {
      await abortableSleep(sleep, Math.max(0, target - clock.now()), signal);
    } catch (e) {
      if (e === ABORTED) abortedNow();
      throw e;
    }
    return Math.max(clock.now(), target);
  };

  if (signal?.aborted) abortedNow();
  for (;;) {
    // Before an attempt: the deadline and the admission control.
    const before = loop.beforeAttempt(attempts, lastOutcome, t, deadlineAt, admission, random, step);
    if (before === Next.END) throw giveUp(step.reason, step.outcome, t);
    if (before === Next.SEND_LATER) t = await waitUntil(step.wakeAtMs);
    // Send it.
    if (signal?.aborted) abortedNow();
    const n = ++attempts;
    if (last?.kind === 'value') dispose(last.value);
    last = undefined;
    const timeout = loop.startAttempt(n, t, deadlineAt, budgets);
    const info: AttemptInfo = { attempt: n, isRetry: n > 1, atMs: t, timeoutMs: timeout };
    options.onAttempt?.(info);
    const end = await runAttempt(fn, n, t, timeout, clock, sleep, signal, dispose);
    if (end.kind === 'aborted') {
      // The withdrawn attempt ends for the budgets too (as the simulator's cancellation does).
      loop.withdrawAttempt(n, end.atMs, budgets);
      abortedNow();
    }
    // The attempt ended.
    t = end.atMs;
    let outcome: number = Outcome.TIMEOUT;
    let ra = NaN;
    if (end.kind === 'settled') {
      last = end.settled;
      try {
        const c = classify(end.settled, n);
        outcome = outcomeCode(c.outcome);
        if (typeof c.retryAfterMs === 'number') ra = c.retryAfterMs;
      } catch (e) {
        // A classifier that throws ends the call with its error; the attempt still ends for the budgets.
        loop.withdrawAttempt(n, t, budgets);
        throw e;
      }
    }
    lastOutcome = outcome;
    options.onAttemptEnd?.({
      ...info,
      endMs: t,
      outcome: outcomeName(outcome),
      ...(ra === ra ? { retryAfterMs: ra } : {}),
      ...(end.kind === 'settled' ? { settled: end.settled } : {}),
    });
    // The retry decision: the budgets are told, then steps 1-9.
    ended.attemptsMade = n;
    ended.outcome = outcome;
    ended.retryAfterMs = ra;
    ended.idempotent = idem;
    ended.nowMs = t;
    ended.deadlineAtMs = deadlineAt;
    ended.callStartMs = t0;
    ended.backoffBase = backoffBase;
    ended.prevSleepMs = prevSleep;
    ended.chain = budgets;
    ended.admission = admission;
    const next = loop.afterAttempt(ended, random, step);
    const wait: WaitInfo | undefined = step.planned
      ? { retry: n, ceilingMs: step.ceilingMs, backoffMs: step.backoffMs, waitMs: step.waitMs, wakeAtMs: step.wakeAtMs }
      : undefined;
    if (next === Next.END) {
      if (step.reason === GiveUp.SUCCESS) return last?.kind === 'value' ? last.value : (undefined as T);
      throw giveUp(step.reason, step.outcome, t, wait);
    }
    backoffBase = step.backoffBase;
    prevSleep = step.nextPrevSleepMs;
    options.onRetry?.({ ...(wait as WaitInfo), atMs: t, outcome: outcomeName(outcome), ...(ra === ra ? { retryAfterMs: ra } : {}) });
    if (signal?.aborted) abortedNow();
    t = await waitUntil(step.wakeAtMs);
  }
}

/** The state to use: required (and matching) when the policy has budgets or an admission control. */
function checkState(rp: ResolvedRetryPolicy, state: RetryState | undefined): RetryState | undefined {
  const needs = (rp.spec.budget?.length ?? 0) > 0 || rp.spec.admission !== undefined;
  if (state === undefined) {
    if (!needs) return undefined;
    const what = [...(rp.spec.budget ?? []).map((b) => b.kind), ...(rp.spec.admission ? [rp.spec.admission.kind] : [])].join(', ');
    throw new TypeError(
      `options.state is required: the policy has budgets or admission control (${what}) whose state the calls must share; create it once with createRetryState(policy) and pass it to every call it should cover (one per process, per client or per downstream service)`,
    );
  }
  if (state.stateKey !== rp.stateKey) {
    throw new TypeError(`options.state holds other budgets than the policy's (state ${state.stateKey}, policy ${rp.stateKey}); create it with createRetryState(policy)`);
  }
  return needs ? state : undefined;
}

/** Sleep `ms`, rejecting with ABORTED as soon as `signal` aborts (whatever the injected sleep does). */
function abortableSleep(sleep: Sleep, ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = new AbortController();
    const onAbort = (): void => {
      timer.abort();
      reject(ABORTED);
    };
    if (signal?.aborted) {
      reject(ABORTED);
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    sleep(ms, timer.signal).then(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      (e: unknown) => {
        signal?.removeEventListener('abort', onAbort);
        if (timer.signal.aborted) reject(ABORTED);
        else reject(e);
      },
    );
  });
}

/**
 * One attempt: call `fn` with a signal that aborts at the attempt's timeout or when the caller
 * aborts, and settle with whichever comes first. The timeout is armed before `fn` is called, so
 * an answer due at the very moment the time runs out loses, as in the simulator (its timeout
 * event is queued first).
 */
function runAttempt<T>(
  fn: Attempt<T>,
  n: number,
  startMs: number,
  timeoutMs: number,
  clock: Clock,
  sleep: Sleep,
  signal: AbortSignal | undefined,
  dispose: (value: T) => void,
): Promise<AttemptEnd<T>> {
  return new Promise<AttemptEnd<T>>((resolve) => {
    const attempt = new AbortController();
    const timer = new AbortController();
    let done = false;
    const finish = (end: AttemptEnd<T>): boolean => {
      if (done) return false;
      done = true;
      timer.abort();
      signal?.removeEventListener('abort', onAbort);
      resolve(end);
      return true;
    };
    const onAbort = (): void => {
      if (finish({ kind: 'aborted', atMs: clock.now() })) attempt.abort(signal?.reason);
    };
    if (timeoutMs < Infinity) {
      sleep(Math.max(0, timeoutMs), timer.signal).then(
        () => {
          // The attempt ends when its time was up, even if the timer fired a little late.
          if (finish({ kind: 'timeout', atMs: startMs + timeoutMs })) {
            attempt.abort(new DOMException(`attempt ${n} timed out after ${timeoutMs} ms`, 'TimeoutError'));
          }
        },
        () => undefined,
      );
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    let result: PromiseLike<T> | T;
    try {
      result = fn({ attempt: n, signal: attempt.signal, remainingMs: timeoutMs });
    } catch (error) {
      finish({ kind: 'settled', settled: { kind: 'error', error }, atMs: clock.now() });
      return;
    }
    Promise.resolve(result).then(
      (value) => {
        if (!finish({ kind: 'settled', settled: { kind: 'value', value }, atMs: clock.now() })) dispose(value);
      },
      (error: unknown) => {
        finish({ kind: 'settled', settled: { kind: 'error', error }, atMs: clock.now() });
      },
    );
  });
}
