import { describe, expect, it } from 'vitest';
import type { AdmissionControl } from '../../src/policy/budgets/AdmissionControl.js';
import { BudgetChain } from '../../src/policy/budgets/BudgetChain.js';
import type { RetryBudget } from '../../src/policy/budgets/RetryBudget.js';
import { DEFAULT_RETRY_ON } from '../../src/policy/classify.js';
import { compilePolicy } from '../../src/policy/decision.js';
import { GIVE_UP_NAMES, Outcome } from '../../src/policy/outcome.js';
import { EndedAttempt, Next, RetryLoop, RetryStep, type UniformDraw } from '../../src/policy/retryLoop.js';
import type { PolicySpec } from '../../src/policy/types.js';

const policy = (over: Partial<PolicySpec> = {}): PolicySpec => ({
  maxAttempts: 3,
  deadlineMode: 'propagate',
  backoff: { kind: 'full-jitter', baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0 },
  tickMs: 0,
  retryOn: [...DEFAULT_RETRY_ON],
  idempotency: 'http',
  retryAfter: 'honor',
  ...over,
});

const loopOf = (over: Partial<PolicySpec> = {}): RetryLoop => new RetryLoop(compilePolicy(policy(over)));

/** A draw source that hands out `values` in turn and logs every call. */
function draws(...values: number[]): { draw: UniformDraw; taken: number[] } {
  const taken: number[] = [];
  return {
    taken,
    draw: {
      uniform: () => {
        const v = values[taken.length] ?? 0.5;
        taken.push(v);
        return v;
      },
    },
  };
}

/** A budget that logs what it is told and allows retries while `allow` says so. */
function loggingBudget(log: string[], allow: () => boolean, refusal: RetryBudget['refusal'] = 'budget-exhausted'): RetryBudget {
  return {
    refusal,
    onAttempt: (t, isRetry) => log.push(`${t} attempt ${isRetry ? 'retry' : 'first'}`),
    onOutcome: (t, o, wasRetry, retryable) => log.push(`${t} outcome ${o}${wasRetry ? ' retry' : ''}${retryable ? ' retryable' : ''}`),
    allowRetry: (t) => {
      log.push(`${t} asked`);
      return allow();
    },
    onRetryScheduled: (t) => log.push(`${t} charged`),
    gauge: () => 0,
  };
}

/** An admission control that answers `admits` in turn and logs every call. */
function loggingAdmission(log: string[], ...admits: number[]): AdmissionControl {
  let i = 0;
  return {
    admit: (t, u) => {
      log.push(`${t} admit u=${u}`);
      return admits[i++] ?? 0;
    },
    onOutcome: (t, o, accepted) => log.push(`${t} admission outcome ${o}${accepted ? ' accepted' : ''}`),
    gauge: () => 0,
  };
}

const reason = (s: RetryStep): string => GIVE_UP_NAMES[s.reason];

describe('RetryLoop: before an attempt', () => {
  it('a spent deadline ends the call without calling, returning the last outcome', () => {
    const step = new RetryStep();
    expect(loopOf().beforeAttempt(0, Outcome.DEADLINE_EXCEEDED, 1000, 1000, null, draws().draw, step)).toBe(Next.END);
    expect([reason(step), step.outcome]).toEqual(['deadline', Outcome.DEADLINE_EXCEEDED]);
    expect(loopOf().beforeAttempt(2, Outcome.S503, 999, 1000, null, draws().draw, step)).toBe(Next.SEND);
  });

  it('the admission control takes one draw per attempt: refuse, delay, or send now', () => {
    const log: string[] = [];
    const adm = loggingAdmission(log, -1, -1, 300, 600, 0);
    const d = draws(0.1, 0.2, 0.3, 0.4, 0.5);
    const step = new RetryStep();
    const loop = loopOf();
    // A refused first try returns the local `throttled` outcome; a refused retry the last outcome.
    expect(loop.beforeAttempt(0, Outcome.DEADLINE_EXCEEDED, 0, 1000, adm, d.draw, step)).toBe(Next.END);
    expect([reason(step), step.outcome]).toEqual(['throttled', Outcome.LOCAL_THROTTLED]);
    expect(loop.beforeAttempt(1, Outcome.S429, 10, 1000, adm, d.draw, step)).toBe(Next.END);
    expect([reason(step), step.outcome]).toEqual(['throttled', Outcome.S429]);
    expect(loop.beforeAttempt(1, Outcome.S429, 20, 1000, adm, d.draw, step)).toBe(Next.SEND_LATER);
    expect(step.wakeAtMs).toBe(320);
    // A delay that reaches the deadline ends the call in `deadline`.
    expect(loop.beforeAttempt(1, Outcome.S429, 400, 1000, adm, d.draw, step)).toBe(Next.END);
    expect([reason(step), step.outcome]).toEqual(['deadline', Outcome.S429]);
    expect(loop.beforeAttempt(1, Outcome.S429, 500, 1000, adm, d.draw, step)).toBe(Next.SEND);
    expect(log).toEqual(['0 admit u=0.1', '10 admit u=0.2', '20 admit u=0.3', '400 admit u=0.4', '500 admit u=0.5']);
  });

  it('an attempt is given min(perAttemptTimeout, remaining) and counted by the budgets', () => {
    const log: string[] = [];
    const chain = new BudgetChain([loggingBudget(log, () => true)]);
    const loop = loopOf({ perAttemptTimeoutMs: 300 });
    expect(loop.startAttempt(1, 0, 1000, chain)).toBe(300);
    expect(loop.startAttempt(2, 800, 1000, chain)).toBe(200);
    expect(loopOf({ perAttemptTimeoutMs: 300, deadlineMode: 'fresh' }).startAttempt(3, 900, 1000, null)).toBe(300);
    expect(log).toEqual(['0 attempt first', '800 attempt retry']);
  });
});

describe('RetryLoop: after an attempt, in the order of the retry decision', () => {
  const after = (
    loop: RetryLoop,
    attempts: number,
    outcome: number,
    t: number,
    deadline: number,
    opts: { ra?: number; idempotent?: boolean; chain?: BudgetChain | null; draw?: UniformDraw; base?: number; prev?: number } = {},
  ): { next: number; step: RetryStep } => {
    const step = new RetryStep();
    const ended = Object.assign(new EndedAttempt(), {
      attemptsMade: attempts,
      outcome,
      retryAfterMs: opts.ra ?? NaN,
      idempotent: opts.idempotent ?? true,
      nowMs: t,
      deadlineAtMs: deadline,
      callStartMs: 0,
      backoffBase: opts.base ?? 0,
      prevSleepMs: opts.prev ?? 0,
      chain: opts.chain ?? null,
      admission: null,
    });
    const next = loop.afterAttempt(ended, opts.draw ?? draws().draw, step);
    return { next, step };
  };

  it('1 before 2: a success that arrives at the deadline ends in `deadline`', () => {
    const { next, step } = after(loopOf(), 1, Outcome.SUCCESS, 1000, 1000);
    expect([next, reason(step), step.outcome]).toEqual([Next.END, 'deadline', Outcome.SUCCESS]);
    expect(reason(after(loopOf(), 1, Outcome.SUCCESS, 999, 1000).step)).toBe('success');
  });

  it('3 before 4: a 400 on the last attempt is `not-retryable`; a POST is not replayed after a 503', () => {
    expect(reason(after(loopOf(), 3, Outcome.S400, 10, Infinity).step)).toBe('not-retryable');
    expect(reason(after(loopOf(), 1, Outcome.S503, 10, Infinity, { idempotent: false }).step)).toBe('not-retryable');
    expect(reason(after(loopOf(), 3, Outcome.S503, 10, Infinity).step)).toBe('attempt-limit');
  });

  it('4 before 5: the attempt cap ends the call before any budget is asked', () => {
    const log: string[] = [];
    const chain = new BudgetChain([loggingBudget(log, () => false)]);
    expect(reason(after(loopOf(), 3, Outcome.S503, 10, Infinity, { chain }).step)).toBe('attempt-limit');
    expect(log).toEqual(['10 outcome 6 retry retryable']);
  });

  it('5 before 6: a refusing budget ends the call without a backoff draw', () => {
    const log: string[] = [];
    const d = draws();
    const chain = new BudgetChain([loggingBudget(log, () => false, 'circuit-open')]);
    const { next, step } = after(loopOf(), 1, Outcome.S503, 10, Infinity, { chain, draw: d.draw });
    expect([next, reason(step), step.planned]).toEqual([Next.END, 'circuit-open', false]);
    expect(d.taken).toEqual([]);
    expect(log).toEqual(['10 outcome 6 retryable', '10 asked']);
  });

  it('6-9: one draw for a random backoff, the wake-up rounded up to the tick, the budgets charged after the wait fits', () => {
    const log: string[] = [];
    const d = draws(0.37);
    const chain = new BudgetChain([loggingBudget(log, () => true)]);
    // Retry 2 of full jitter 100 ms: ceiling 200, sample 74, wake-up 10 + 74 = 84 rounded up to 90.
    const { next, step } = after(loopOf({ tickMs: 15 }), 2, Outcome.S503, 10, Infinity, { chain, draw: d.draw });
    expect(next).toBe(Next.RETRY);
    expect([step.ceilingMs, step.backoffMs, step.delayMs, step.wakeAtMs, step.waitMs, step.planned]).toEqual([200, 74, 74, 90, 80, true]);
    expect(d.taken).toEqual([0.37]);
    expect(log).toEqual(['10 outcome 6 retry retryable', '10 asked', '10 charged']);
  });

  it('a fixed backoff takes no draw', () => {
    const d = draws();
    const { step } = after(loopOf({ backoff: { kind: 'constant', baseMs: 50, capMs: 50, multiplier: 2, exponentOffset: 0 } }), 1, Outcome.S503, 0, Infinity, {
      draw: d.draw,
    });
    expect([step.next, step.wakeAtMs]).toEqual([Next.RETRY, 50]);
    expect(d.taken).toEqual([]);
  });

  it('8: a wait that does not fit is planned and reported, never shortened, and not charged', () => {
    const log: string[] = [];
    const chain = new BudgetChain([loggingBudget(log, () => true)]);
    // honor: max(hint 2000, sample 50) = 2000 from t = 100; the deadline is at 1000.
    const { next, step } = after(loopOf(), 1, Outcome.S503, 100, 1000, { chain, ra: 2000 });
    expect([next, reason(step), step.outcome, step.planned, step.waitMs, step.wakeAtMs]).toEqual([
      Next.END,
      'wait-exceeds-deadline',
      Outcome.S503,
      true,
      2000,
      2100,
    ]);
    expect(log).toEqual(['100 outcome 6 retryable', '100 asked']);
  });

  it('a gRPC pushback waits exactly the hint and restarts the backoff; a negative one stops retrying', () => {
    const loop = loopOf({ retryAfter: 'pushback', maxAttempts: 5 });
    const first = after(loop, 3, Outcome.S503, 10, Infinity, { ra: 400, base: 1 });
    expect([first.next, first.step.wakeAtMs, first.step.backoffBase]).toEqual([Next.RETRY, 410, 3]);
    const plain = after(loop, 3, Outcome.S503, 10, Infinity, { base: 1 });
    expect(plain.step.backoffBase).toBe(1);
    expect(reason(after(loop, 1, Outcome.S503, 10, Infinity, { ra: -1 }).step)).toBe('not-retryable');
  });

  it('a withdrawn attempt ends for the budgets as a timeout that is not retried', () => {
    const log: string[] = [];
    loopOf().withdrawAttempt(2, 70, new BudgetChain([loggingBudget(log, () => true)]));
    expect(log).toEqual([`70 outcome ${Outcome.TIMEOUT} retry`]);
  });
});

describe('RetryLoop: hedging (gRPC A6)', () => {
  const hedged = (over: Partial<PolicySpec> = {}): RetryLoop =>
    loopOf({ maxAttempts: 1, hedging: { maxAttempts: 3, hedgingDelayMs: 100, nonFatal: ['503'] }, ...over });

  it('a copy waits up to the deadline, and the next one is due a hedging delay later while copies are left', () => {
    const loop = hedged({ perAttemptTimeoutMs: 50 });
    expect(loop.startAttempt(1, 0, 1000, null)).toBe(1000);
    expect([loop.nextHedgeAtMs(1, 0), loop.nextHedgeAtMs(2, 100), loop.nextHedgeAtMs(3, 200)]).toEqual([100, 200, Infinity]);
  });

  it('a non-fatal answer sends the next copy at once; when none is left the call waits for the copies in flight, then ends at the limit', () => {
    const loop = hedged();
    const step = new RetryStep();
    const d = draws();
    expect(loop.hedgeAnswered(1, 0, Outcome.S503, 10, Infinity, null, null, d.draw, step)).toBe(Next.HEDGE);
    expect(step.cancelHedgeTimer).toBe(true);
    expect(loop.hedgeAnswered(3, 1, Outcome.S503, 20, Infinity, null, null, d.draw, step)).toBe(Next.WAIT);
    expect(step.cancelHedgeTimer).toBe(false);
    expect(loop.hedgeAnswered(3, 0, Outcome.S503, 30, Infinity, null, null, d.draw, step)).toBe(Next.END);
    expect(reason(step)).toBe('attempt-limit');
  });

  it('deadline, success and a fatal answer end the call in that order', () => {
    const loop = hedged();
    const step = new RetryStep();
    loop.hedgeAnswered(1, 2, Outcome.SUCCESS, 1000, 1000, null, null, draws().draw, step);
    expect(reason(step)).toBe('deadline');
    loop.hedgeAnswered(1, 2, Outcome.SUCCESS, 10, 1000, null, null, draws().draw, step);
    expect(reason(step)).toBe('success');
    loop.hedgeAnswered(1, 2, Outcome.S500, 10, 1000, null, null, draws().draw, step);
    expect([reason(step), step.outcome]).toEqual(['not-retryable', Outcome.S500]);
  });

  it('a hedge is asked of the budgets and the admission control, a delay counting as a refusal, and charged when sent', () => {
    const log: string[] = [];
    let allow = false;
    const chain = new BudgetChain([loggingBudget(log, () => allow)]);
    const adm = loggingAdmission(log, 5, 0);
    const loop = hedged();
    const step = new RetryStep();
    const d = draws(0.25, 0.75);
    expect(loop.hedgeAnswered(1, 0, Outcome.S503, 10, Infinity, chain, adm, d.draw, step)).toBe(Next.END);
    expect(reason(step)).toBe('budget-exhausted');
    allow = true;
    expect(loop.hedgeDue(1, Outcome.DEADLINE_EXCEEDED, 100, Infinity, chain, adm, d.draw, step)).toBe(Next.WAIT);
    expect(loop.hedgeDue(1, Outcome.DEADLINE_EXCEEDED, 200, Infinity, chain, adm, d.draw, step)).toBe(Next.HEDGE);
    // No copy is left, or the deadline has passed: nothing is asked.
    expect(loop.hedgeDue(3, Outcome.DEADLINE_EXCEEDED, 300, Infinity, chain, adm, d.draw, step)).toBe(Next.WAIT);
    expect(loop.hedgeDue(1, Outcome.DEADLINE_EXCEEDED, 300, 300, chain, adm, d.draw, step)).toBe(Next.WAIT);
    expect(log).toEqual([
      '10 outcome 6 retryable',
      `10 admission outcome 6`,
      '10 asked',
      '100 asked',
      '100 admit u=0.25',
      '200 asked',
      '200 admit u=0.75',
      '200 charged',
    ]);
  });
});
