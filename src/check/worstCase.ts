import { isIdempotent, isRetryable, RETRY_ON_CLASS_INFO, retryOnMask, WIDER_CLASSES } from '../policy/classify.js';
import { compilePolicy } from '../policy/decision.js';
import { ANSWER_OUTCOMES, Outcome, type AnswerStatus } from '../policy/outcome.js';
import { EndedAttempt, firstAttemptAsks, Next, RetryLoop, RetryStep, type UniformDraw } from '../policy/retryLoop.js';
import type { Method, PolicySpec, RetryOnClass } from '../policy/types.js';

/**
 * The failure classes `check` always reports on: how the leaf fails every attempt. `timeout` is a
 * leaf that never answers (each attempt ends at its timeout); the others are answered at once. A
 * stack whose policies name other {@link ANSWER_CLASSES} gets those too ({@link failureClassesOf}).
 */
export const FAILURE_CLASSES = ['503', '500', '429', 'timeout', '400', '404', 'conflict'] as const;

/**
 * Every class a leaf can fail with (the retryable classes but this model's local refusals), each
 * with the answer it stands for (policy/outcome.ts, `ANSWER_STATUSES`): the {@link FAILURE_CLASSES}
 * first, then 502, 504, connection-level failures and the gRPC statuses.
 */
const CLASS_ANSWERS = {
  '503': 503,
  '500': 500,
  '429': 429,
  timeout: 'timeout',
  '400': 400,
  '404': 404,
  conflict: 409,
  '502': 502,
  '504': 504,
  reset: 'reset',
  'connect-failure': 'connect-failure',
  'refused-stream': 'refused-stream',
  cancelled: 'cancelled',
  unavailable: 'unavailable',
  'resource-exhausted': 'resource-exhausted',
  'deadline-exceeded': 'deadline-exceeded',
  aborted: 'aborted',
  internal: 'internal',
  unknown: 'unknown',
} as const satisfies Partial<Record<RetryOnClass, AnswerStatus>>;

/** How the leaf fails: one of {@link ANSWER_CLASSES}. */
export type FailureClass = keyof typeof CLASS_ANSWERS;

/** Every class a leaf can fail with, in report order (written out: Object.keys puts numeric keys first). */
export const ANSWER_CLASSES: readonly FailureClass[] = [...FAILURE_CLASSES, ...WIDER_CLASSES];

/** The answer (status) a leaf failing with `cls` gives: what a fault or a script writes. */
export function classAnswer(cls: FailureClass): Exclude<AnswerStatus, 200> {
  return CLASS_ANSWERS[cls];
}

/** The classes `check` reports on for a stack: the {@link FAILURE_CLASSES} and any other answer class a policy retries or hedges on, in {@link ANSWER_CLASSES} order. */
export function failureClassesOf(policies: readonly PolicySpec[]): FailureClass[] {
  const named = new Set<string>(policies.flatMap((p) => [...p.retryOn, ...(p.hedging?.nonFatal ?? [])]));
  return ANSWER_CLASSES.filter((c) => (FAILURE_CLASSES as readonly string[]).includes(c) || named.has(c));
}

/** One line on what each failure class stands for. */
export const FAILURE_CLASS_LABELS: Record<FailureClass, string> = {
  ...(Object.fromEntries(ANSWER_CLASSES.map((c) => [c, RETRY_ON_CLASS_INFO[c].label])) as Record<FailureClass, string>),
  '503': '503 unavailable / overloaded',
  '500': '500 server error',
  '429': '429 throttled',
  timeout: 'no answer in time',
  '400': '400 bad request (permanent)',
  '404': '404 not found (permanent)',
  conflict: '409 write conflict',
};

/** The attempt outcome a failing leaf gives for a class (timeouts are made by the callers' timers). */
export function classOutcome(cls: FailureClass): number {
  return ANSWER_OUTCOMES[CLASS_ANSWERS[cls]];
}

/**
 * How many attempts a layer makes per call when everything below fails with `cls`, ignoring
 * time (+Infinity for `unlimited`): its attempt cap (or its hedging copies, for the classes its
 * hedging treats as non-fatal) when it retries the class for `method`, else 1.
 */
export function attemptsFor(policy: PolicySpec, cls: FailureClass, method: Method): number {
  const outcome = classOutcome(cls);
  if (policy.hedging !== undefined) {
    const nonFatal = retryOnMask(policy.hedging.nonFatal);
    return cls === 'timeout' || isRetryable(outcome, true, nonFatal) ? policy.hedging.maxAttempts : 1;
  }
  const retries = isRetryable(outcome, isIdempotent(method, policy.idempotency), retryOnMask(policy.retryOn));
  if (!retries) return 1;
  return policy.maxAttempts === 'unlimited' ? Infinity : policy.maxAttempts;
}

/** The worst case of one operation when the leaf fails every attempt with one class. */
export interface WorstCase {
  failureClass: FailureClass;
  /** Leaf calls per operation at most (+Infinity: unbounded), with the shortest waits the backoffs allow. */
  leafCalls: number;
  /** The product of the attempts of the layers that retry the class (A^L), ignoring time. */
  nominal: number;
  /** Each layer's attempts per call, ignoring time (1 where the layer does not retry the class). */
  attemptsPerCall: number[];
  /** Attempts each layer makes in all per operation, at worst (its first tries included). */
  attemptsPerLayer: number[];
  /** The layers that retry this class. */
  retryingLayers: number[];
  /**
   * How long the operation can last at worst (ms; +Infinity: without end): the attempts'
   * timeouts plus the longest waits, bounded by the deadlines. Network hops are not counted.
   */
  lifetimeMs: number;
  /** False when the stack was too large to walk and `leafCalls` is the nominal bound instead. */
  exact: boolean;
}

/** One layer call's result in the walk: relative duration, what it returns upward, and what it caused. */
interface CallResult {
  durationMs: number;
  outcome: number;
  leafCalls: number;
  attempts: number[];
}

/** More attempts than this in one call of one layer count as unbounded. */
const MAX_ATTEMPTS_PER_CALL = 10_000;
/** More layer calls than this in one walk: give up walking and use the nominal bound. */
const MAX_STEPS = 2_000_000;

class TooLarge extends Error {}

/** Every backoff drawn at the bottom of its range. */
const SHORTEST: UniformDraw = { uniform: () => 0 };
/** Every backoff drawn at the top of its range. */
const LONGEST: UniformDraw = { uniform: () => 1 };

/**
 * One operation walked through the stack deterministically, with the leaf failing every attempt
 * and every backoff drawn at one end of its range: the shortest waits (draw 0, the most attempts
 * fit before the deadlines) or the longest (draw 1). Each layer's decisions are those of its
 * retry loop (src/policy/retryLoop.ts: deadlines, per-attempt timeouts, deadline modes, total
 * timeouts, maxElapsed, ticks, hedging) and, since a timeout is not a cancellation, the walk keeps
 * counting the calls a layer below goes on making after its caller stopped waiting. Budgets are
 * not asked: they do not change the worst case of one operation. Network hops are taken as 0.
 */
class Walker {
  private steps = 0;
  private readonly memo = new Map<string, CallResult>();
  private readonly step = new RetryStep();
  private readonly stepShort = new RetryStep();
  private readonly loops: RetryLoop[];
  private readonly idempotent: boolean[];
  /** memoizable[k]: no layer at or below k rounds to a tick, so a call's result depends only on its time to the deadline. */
  private readonly memoizable: boolean[];
  private readonly draw: UniformDraw;

  constructor(
    policies: readonly PolicySpec[],
    method: Method,
    private readonly cls: FailureClass,
    private readonly longest: boolean,
  ) {
    this.loops = policies.map((p) => new RetryLoop(compilePolicy(p)));
    this.idempotent = policies.map((p) => isIdempotent(method, p.idempotency));
    this.memoizable = policies.map((_, k) => policies.slice(k).every((p) => p.tickMs === 0));
    this.draw = longest ? LONGEST : SHORTEST;
  }

  get layers(): number {
    return this.loops.length;
  }

  run(deadlineMs: number | undefined): CallResult {
    return this.call(0, 0, deadlineMs === undefined ? Infinity : deadlineMs);
  }

  private zero(): number[] {
    return new Array<number>(this.layers).fill(0);
  }

  private call(k: number, t0: number, incomingDeadline: number): CallResult {
    const key = this.memoizable[k] ? `${k}|${incomingDeadline - t0}` : undefined;
    if (key !== undefined) {
      const hit = this.memo.get(key);
      if (hit !== undefined) return hit;
    }
    if (++this.steps > MAX_STEPS) throw new TooLarge();
    const loop = this.loops[k] as RetryLoop;
    const result = loop.policy.spec.hedging !== undefined ? this.hedgedCall(k, loop, t0, incomingDeadline) : this.retryingCall(k, loop, t0, incomingDeadline);
    if (key !== undefined) this.memo.set(key, result);
    return result;
  }

  /** One attempt of layer k starting at t with the given end: when it ends, with what, and what it caused below. */
  private attempt(k: number, t: number, attemptEnd: number, acc: CallResult): { endMs: number; outcome: number } {
    if (k === this.layers - 1) {
      acc.leafCalls++;
      if (this.cls === 'timeout') return { endMs: attemptEnd, outcome: Outcome.TIMEOUT };
      return { endMs: t, outcome: classOutcome(this.cls) };
    }
    const child = this.call(k + 1, t, attemptEnd);
    acc.leafCalls += child.leafCalls;
    for (let i = 0; i < this.layers; i++) acc.attempts[i] = (acc.attempts[i] as number) + (child.attempts[i] as number);
    const childEnd = t + child.durationMs;
    // The caller's timer was armed first: an answer at the very end of the attempt comes too late.
    if (childEnd < attemptEnd) return { endMs: childEnd, outcome: child.outcome };
    return { endMs: attemptEnd, outcome: Outcome.TIMEOUT };
  }

  private retryingCall(k: number, loop: RetryLoop, t0: number, incomingDeadline: number): CallResult {
    const p = loop.policy;
    const deadline = loop.deadlineAtMs(incomingDeadline, t0);
    const acc: CallResult = { durationMs: 0, outcome: Outcome.DEADLINE_EXCEEDED, leafCalls: 0, attempts: this.zero() };
    const done = (endMs: number, outcome: number): CallResult => {
      acc.durationMs = endMs - t0;
      acc.outcome = outcome;
      return acc;
    };
    const step = this.step;
    const idempotent = this.idempotent[k] as boolean;
    let t = t0;
    let attempts = 0;
    let backoffBase = 0;
    let prevSleep = p.compiledBackoff.initialPrevSleepMs;
    let last: number = Outcome.DEADLINE_EXCEEDED;
    for (;;) {
      const asks = attempts > 0 || firstAttemptAsks(deadline, false);
      if (asks && loop.beforeAttempt(attempts, last, t, deadline, null, this.draw, step) === Next.END) return done(t, step.outcome);
      attempts++;
      acc.attempts[k] = (acc.attempts[k] as number) + 1;
      if (attempts > MAX_ATTEMPTS_PER_CALL) {
        acc.leafCalls = Infinity;
        acc.attempts[k] = Infinity;
        // Endless attempts still end at the layer's deadline (a total timeout, or the one it is given).
        return done(this.longest ? (Number.isFinite(deadline) ? Math.max(t, deadline) : Infinity) : t, last);
      }
      const attemptEnd = t + loop.startAttempt(attempts, t, deadline, null);
      const a = this.attempt(k, t, attemptEnd, acc);
      if (a.endMs === Infinity) return done(Infinity, a.outcome);
      last = a.outcome;
      const ended = Object.assign(new EndedAttempt(), { attemptsMade: attempts, outcome: a.outcome, idempotent, nowMs: a.endMs, deadlineAtMs: deadline, callStartMs: t0, backoffBase, prevSleepMs: prevSleep });
      const next = loop.afterAttempt(ended, this.draw, step);
      if (next === Next.RETRY) {
        t = step.wakeAtMs;
        backoffBase = step.backoffBase;
        prevSleep = step.nextPrevSleepMs;
        continue;
      }
      if (!this.longest || !step.planned || !p.randomBackoff) return done(a.endMs, step.outcome);
      // The longest wait does not fit; a shorter draw may, and then the call lasts to its limit.
      const short = this.stepShort;
      const shortNext = loop.afterAttempt(ended, SHORTEST, short);
      if (shortNext !== Next.RETRY) return done(a.endMs, short.outcome);
      const elapsedLimit = t0 + p.maxElapsedMs;
      if (elapsedLimit < deadline) {
        t = Math.max(short.wakeAtMs, elapsedLimit);
        backoffBase = short.backoffBase;
        prevSleep = short.nextPrevSleepMs;
        continue;
      }
      return done(deadline, Outcome.TIMEOUT);
    }
  }

  /**
   * A hedging layer (gRPC A6): a leaf that never answers gets a copy every hedgingDelayMs while
   * the loop sends hedges; copies that fail at once are followed by the next copy while the loop
   * says so (a non-fatal class), and a fatal class ends the call after one copy. Copies wait up to
   * the deadline.
   */
  private hedgedCall(k: number, loop: RetryLoop, t0: number, incomingDeadline: number): CallResult {
    const deadline = loop.deadlineAtMs(incomingDeadline, t0);
    const acc: CallResult = { durationMs: 0, outcome: Outcome.DEADLINE_EXCEEDED, leafCalls: 0, attempts: this.zero() };
    const step = this.step;
    if (firstAttemptAsks(deadline, false) && loop.beforeAttempt(0, Outcome.DEADLINE_EXCEEDED, t0, deadline, null, this.draw, step) === Next.END) return acc;
    const hang = this.cls === 'timeout';
    let attempts = 0;
    let start = t0;
    let end = t0;
    let outcome: number;
    for (;;) {
      attempts++;
      acc.attempts[k] = (acc.attempts[k] as number) + 1;
      const a = this.attempt(k, start, loop.startAttemptUntilMs(attempts, start, deadline, null), acc);
      end = Math.max(end, a.endMs);
      outcome = a.outcome;
      if (hang) {
        // No answer: the next copy when the hedging delay runs out, if the loop sends one.
        const dueAt = loop.nextHedgeAtMs(attempts, start);
        if (dueAt === Infinity || loop.hedgeDue(attempts, Outcome.DEADLINE_EXCEEDED, dueAt, deadline, null, null, this.draw, step) !== Next.HEDGE) break;
        start = dueAt;
      } else if (loop.hedgeAnswered(attempts, 0, a.outcome, start, deadline, null, null, this.draw, step) !== Next.HEDGE) {
        break;
      }
    }
    acc.durationMs = (hang ? deadline : end) - t0;
    acc.outcome = outcome;
    return acc;
  }
}

/**
 * The worst case of one operation through `policies` (top to bottom) when the leaf fails every
 * attempt with `cls`: leaf calls (the shortest waits, so the most attempts fit before the
 * deadlines), each layer's attempts, and the lifetime (the longest waits, bounded by the
 * deadlines). Without deadlines or timeouts in the way the leaf calls are the nominal product of
 * the attempts of the layers that retry the class (3 x 3 x 3 = 27). Budgets do not change the
 * worst case of one operation (they bound the fleet, see expectedMultiple).
 */
export function worstCase(policies: readonly PolicySpec[], cls: FailureClass, method: Method, deadlineMs?: number): WorstCase {
  const attemptsPerCall = policies.map((p) => attemptsFor(p, cls, method));
  const nominal = attemptsPerCall.reduce((a, b) => a * b, 1);
  const retryingLayers = attemptsPerCall.flatMap((a, i) => (a > 1 ? [i] : []));
  try {
    const calls = new Walker(policies, method, cls, false).run(deadlineMs);
    const life = new Walker(policies, method, cls, true).run(deadlineMs);
    return {
      failureClass: cls,
      leafCalls: calls.leafCalls,
      nominal,
      attemptsPerCall,
      attemptsPerLayer: calls.attempts,
      retryingLayers,
      lifetimeMs: life.durationMs,
      exact: true,
    };
  } catch (e) {
    if (!(e instanceof TooLarge)) throw e;
    let product = 1;
    const attemptsPerLayer = attemptsPerCall.map((a) => (product *= a));
    return { failureClass: cls, leafCalls: nominal, nominal, attemptsPerCall, attemptsPerLayer, retryingLayers, lifetimeMs: NaN, exact: false };
  }
}
