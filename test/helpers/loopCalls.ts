import { vi } from 'vitest';
import { BudgetChain } from '../../src/policy/budgets/BudgetChain.js';
import { GIVE_UP_NAMES, OUTCOME_NAMES } from '../../src/policy/outcome.js';
import { Next, RetryLoop, RetryStep } from '../../src/policy/retryLoop.js';

/** The methods of RetryLoop a driver calls. */
const METHODS = [
  'deadlineAtMs',
  'beforeAttempt',
  'startAttempt',
  'startAttemptUntilMs',
  'afterAttempt',
  'withdrawAttempt',
  'hedgeAnswered',
  'hedgeDue',
  'nextHedgeAtMs',
] as const;
type Method = (typeof METHODS)[number];

const NEXT_NAMES = Object.fromEntries(Object.entries(Next).map(([name, code]) => [code, name])) as Record<number, string>;

/**
 * One call of a {@link RetryLoop} method, as the decision it was: which loop (`loop`: 0 for the
 * first policy seen in the run, 1 for the next other one...), the method, its arguments (numbers
 * and flags; a budget chain as its number of budgets, 0 for none; an admission control as
 * `admission`, or null; draws left out) and its answer (the returned value, and for the decision
 * methods what the step said: next, reason and outcome of an END, wake-up and backoff state of a
 * RETRY, the planned wait).
 */
export interface LoopCall {
  loop: number;
  method: Method;
  args: unknown[];
  result: unknown;
}

function describeArg(a: unknown): unknown {
  if (a === null) return null;
  if (a instanceof BudgetChain) return a.budgets.length;
  if (a instanceof RetryStep || typeof a === 'function') return undefined;
  if (typeof a === 'object') return 'admission';
  return a;
}

function describeStep(next: number, s: RetryStep): Record<string, unknown> {
  const d: Record<string, unknown> = { next: NEXT_NAMES[next] };
  if (next === Next.END) Object.assign(d, { reason: GIVE_UP_NAMES[s.reason], outcome: OUTCOME_NAMES[s.outcome] });
  if (next === Next.RETRY || next === Next.SEND_LATER) d.wakeAtMs = s.wakeAtMs;
  if (next === Next.RETRY) Object.assign(d, { backoffBase: s.backoffBase, nextPrevSleepMs: s.nextPrevSleepMs });
  if (s.planned) Object.assign(d, { ceilingMs: s.ceilingMs, backoffMs: s.backoffMs, waitMs: s.waitMs });
  if (next === Next.HEDGE || next === Next.WAIT) d.cancelHedgeTimer = s.cancelHedgeTimer;
  return d;
}

/**
 * Runs `run` with every call of a RetryLoop method recorded (the methods still do their work),
 * so that a test can see that a driver goes through the loop, and compare two drivers' decisions
 * input by input. Loops are told apart by their policy: the loops of one layer (the executor makes
 * one per call) count as one.
 */
export async function recordLoopCalls<T>(run: () => T | Promise<T>): Promise<{ value: T; calls: LoopCall[] }> {
  const calls: LoopCall[] = [];
  const loopIds = new Map<string, number>();
  const idOf = (loop: RetryLoop): number => {
    const key = JSON.stringify(loop.policy.spec);
    if (!loopIds.has(key)) loopIds.set(key, loopIds.size);
    return loopIds.get(key) as number;
  };
  const spies = METHODS.map((method) => {
    const original = RetryLoop.prototype[method] as (...a: unknown[]) => unknown;
    return vi.spyOn(RetryLoop.prototype, method).mockImplementation(function (this: RetryLoop, ...args: unknown[]) {
      const r = original.apply(this, args);
      const step = args[args.length - 1];
      const result = step instanceof RetryStep ? describeStep(r as number, step) : r;
      calls.push({ loop: idOf(this), method, args: args.map(describeArg).filter((a) => a !== undefined), result });
      return r;
    } as never);
  });
  try {
    const value = await run();
    return { value, calls };
  } finally {
    for (const s of spies) s.mockRestore();
  }
}

/** The calls of one method. */
export function callsOf(calls: LoopCall[], method: Method): LoopCall[] {
  return calls.filter((c) => c.method === method);
}
