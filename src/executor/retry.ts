import { isIdempotent } from '../policy/classify.js';
import { GIVE_UP_NAMES, GiveUp, Outcome } from '../policy/outcome.js';
import { EndedAttempt, firstAttemptAsks, Next, RetryLoop, RetryStep, type NextCode, type UniformDraw } from '../policy/retryLoop.js';
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

/** The backoff the policy drew for a retry (docs/concepts.md, "Concepts", "The retry decision", steps 6-7). */
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
 * (`RetryLoop`: the decision order of docs/concepts.md, "Concepts", "The retry decision"), so it makes
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
  return new RetryCall(fn, resolveRetryPolicy(policy), options).run();
}

/** The two numbers of an ended attempt that its retry decision reads. */
interface EndedOutcome {
  outcome: number;
  /** The server's hint in ms; NaN when it gave none. */
  retryAfterMs: number;
}

/** One call of {@link retry}: its options resolved, and the state carried from one attempt to the next. */
class RetryCall<T> {
  private readonly loop: RetryLoop;
  private readonly step = new RetryStep();
  private readonly ended = new EndedAttempt();
  private readonly signal: AbortSignal | undefined;
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly random: UniformDraw;
  private readonly classify: (settled: Settled<T>, attempt: number) => Classification;
  private readonly dispose: (value: T) => void;
  private readonly idempotent: boolean;
  private readonly budgets: RetryState['budgets'] | null;
  private readonly admission: RetryState['admission'] | null;
  private readonly t0: number;
  private readonly deadlineAt: number;
  private attempts = 0;
  private backoffBase = 0;
  private prevSleep: number;
  private lastOutcome: number = Outcome.DEADLINE_EXCEEDED;
  private last: Settled<T> | undefined;
  private t: number;

  /** Checks the policy and the options (in this order) and starts the call's clock. */
  constructor(
    private readonly fn: Attempt<T>,
    rp: ResolvedRetryPolicy,
    private readonly options: RetryOptions<T>,
  ) {
    const p = rp.compiled;
    if (p.spec.hedging !== undefined) {
      throw new RetryPolicyError(['policy.hedging is not supported by retry(): hedged requests can be simulated, not executed (use maxAttempts instead)']);
    }
    const state = checkState(rp, options.state);
    const { deadlineMs } = options;
    if (deadlineMs !== undefined && !(typeof deadlineMs === 'number' && deadlineMs >= 0)) {
      throw new TypeError(`options.deadlineMs must be a number >= 0 (got ${String(deadlineMs)})`);
    }
    this.signal = options.signal;
    this.clock = options.clock ?? performance;
    this.sleep = options.sleep ?? realSleep;
    this.random = { uniform: options.random ?? Math.random };
    this.classify = options.classify ?? (classifySettled as (s: Settled<T>, attempt: number) => Classification);
    this.dispose = options.dispose ?? disposeDefault;
    this.idempotent = options.idempotent ?? isIdempotent(policyMethod(options.method), p.spec.idempotency);
    this.budgets = state?.budgets ?? null;
    this.admission = state?.admission ?? null;
    this.loop = new RetryLoop(p);
    this.prevSleep = p.compiledBackoff.initialPrevSleepMs;
    this.t0 = this.clock.now();
    this.t = this.t0;
    this.deadlineAt = this.loop.deadlineAtMs(deadlineMs !== undefined ? this.t0 + deadlineMs : Infinity, this.t0);
  }

  /** Attempts until the retry decision ends the call: the value of a success, or a give-up thrown. */
  async run(): Promise<T> {
    if (this.signal?.aborted) this.abortedNow();
    for (;;) {
      await this.admit();
      const info = this.send();
      const end = await runAttempt(this.fn, info.attempt, info.atMs, info.timeoutMs, this.clock, this.sleep, this.signal, this.dispose);
      const ended = this.attemptEnded(info, end);
      const next = this.decide(info.attempt, ended);
      const wait: WaitInfo | undefined = this.step.planned
        ? { retry: info.attempt, ceilingMs: this.step.ceilingMs, backoffMs: this.step.backoffMs, waitMs: this.step.waitMs, wakeAtMs: this.step.wakeAtMs }
        : undefined;
      if (next === Next.END) {
        if (this.step.reason === GiveUp.SUCCESS) return this.last?.kind === 'value' ? this.last.value : (undefined as T);
        throw this.giveUp(this.step.reason, this.step.outcome, this.t, wait);
      }
      await this.waitToRetry(wait as WaitInfo, ended);
    }
  }

  /** Before an attempt: the deadline and the admission control (a give-up thrown, or a wait); not asked where it can only say send (`firstAttemptAsks`). */
  private async admit(): Promise<void> {
    const { loop, step } = this;
    if (this.attempts === 0 && !firstAttemptAsks(this.deadlineAt, this.admission !== null)) return;
    const before = loop.beforeAttempt(this.attempts, this.lastOutcome, this.t, this.deadlineAt, this.admission, this.random, step);
    if (before === Next.END) throw this.giveUp(step.reason, step.outcome, this.t);
    if (before === Next.SEND_LATER) this.t = await this.waitUntil(step.wakeAtMs);
  }

  /** Sends the next attempt: the previous value disposed of, the budgets told, `onAttempt` called. */
  private send(): AttemptInfo {
    if (this.signal?.aborted) this.abortedNow();
    const n = ++this.attempts;
    if (this.last?.kind === 'value') this.dispose(this.last.value);
    this.last = undefined;
    const timeout = this.loop.startAttempt(n, this.t, this.deadlineAt, this.budgets);
    const info: AttemptInfo = { attempt: n, isRetry: n > 1, atMs: this.t, timeoutMs: timeout };
    this.options.onAttempt?.(info);
    return info;
  }

  /** The attempt ended: its outcome classified (a timeout unless it settled) and `onAttemptEnd` called. */
  private attemptEnded(info: AttemptInfo, end: AttemptEnd<T>): EndedOutcome {
    if (end.kind === 'aborted') {
      // The withdrawn attempt ends for the budgets too (as the simulator's cancellation does).
      this.loop.withdrawAttempt(info.attempt, end.atMs, this.budgets);
      this.abortedNow();
    }
    this.t = end.atMs;
    let outcome: number = Outcome.TIMEOUT;
    let ra = NaN;
    if (end.kind === 'settled') {
      this.last = end.settled;
      try {
        const c = this.classify(end.settled, info.attempt);
        outcome = outcomeCode(c.outcome);
        if (typeof c.retryAfterMs === 'number') ra = c.retryAfterMs;
      } catch (e) {
        // A classifier that throws ends the call with its error; the attempt still ends for the budgets.
        this.loop.withdrawAttempt(info.attempt, this.t, this.budgets);
        throw e;
      }
    }
    this.lastOutcome = outcome;
    this.options.onAttemptEnd?.({
      ...info,
      endMs: this.t,
      outcome: outcomeName(outcome),
      ...(ra === ra ? { retryAfterMs: ra } : {}),
      ...(end.kind === 'settled' ? { settled: end.settled } : {}),
    });
    return { outcome, retryAfterMs: ra };
  }

  /** The retry decision after attempt `n`: the budgets are told, then steps 1-9 (the answer in `step`). */
  private decide(n: number, { outcome, retryAfterMs }: EndedOutcome): NextCode {
    const ended = this.ended;
    ended.attemptsMade = n;
    ended.outcome = outcome;
    ended.retryAfterMs = retryAfterMs;
    ended.idempotent = this.idempotent;
    ended.nowMs = this.t;
    ended.deadlineAtMs = this.deadlineAt;
    ended.callStartMs = this.t0;
    ended.backoffBase = this.backoffBase;
    ended.prevSleepMs = this.prevSleep;
    ended.chain = this.budgets;
    ended.admission = this.admission;
    return this.loop.afterAttempt(ended, this.random, this.step);
  }

  /** A retry is scheduled: the backoff state carried, `onRetry` called, then the wait to its wake-up. */
  private async waitToRetry(wait: WaitInfo, { outcome, retryAfterMs: ra }: EndedOutcome): Promise<void> {
    this.backoffBase = this.step.backoffBase;
    this.prevSleep = this.step.nextPrevSleepMs;
    this.options.onRetry?.({ ...wait, atMs: this.t, outcome: outcomeName(outcome), ...(ra === ra ? { retryAfterMs: ra } : {}) });
    if (this.signal?.aborted) this.abortedNow();
    this.t = await this.waitUntil(this.step.wakeAtMs);
  }

  /** The error of a give-up, after `onGiveUp` is told. */
  private giveUp(code: number, outcome: number, atMs: number, wait?: WaitInfo): RetryGiveUpError<T> {
    const reason = GIVE_UP_NAMES[code] as Exclude<GiveUpReason, 'aborted'>;
    const name = outcomeName(outcome);
    this.options.onGiveUp?.({ reason, attempts: this.attempts, outcome: name, atMs, elapsedMs: atMs - this.t0, ...(wait ? { wait } : {}) });
    return new RetryGiveUpError<T>(reason, this.attempts, name, this.last, atMs - this.t0);
  }

  /** The caller aborted: the unread value disposed of, `onGiveUp` told, a {@link RetryAbortedError} thrown. */
  private abortedNow(): never {
    if (this.last?.kind === 'value') this.dispose(this.last.value);
    const atMs = this.clock.now();
    this.options.onGiveUp?.({ reason: 'aborted', attempts: this.attempts, outcome: outcomeName(this.lastOutcome), atMs, elapsedMs: atMs - this.t0 });
    throw new RetryAbortedError(this.attempts, outcomeName(this.lastOutcome), this.signal?.reason);
  }

  /** Waits until `target` on the clock (abortably); returns when the wait ended (never before `target`). */
  private async waitUntil(target: number): Promise<number> {
    try {
      await abortableSleep(this.sleep, Math.max(0, target - this.clock.now()), this.signal);
    } catch (e) {
      if (e === ABORTED) this.abortedNow();
      throw e;
    }
    return Math.max(this.clock.now(), target);
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
