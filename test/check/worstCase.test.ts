import { describe, expect, it } from 'vitest';
import { simulateStorm, stormScenario, worstCase, type CheckStack, type FailureClass } from '../../src/check/index.js';
import { parseScenario } from '../../src/experiment/index.js';
import { traceOperation } from '../../src/model/traceOperation.js';
import { retry, RetryGiveUpError } from '../../src/executor/index.js';
import { simulate } from '../../src/simulate.js';
import { FakeTime } from '../executor/fakeTime.js';
import { callsOf, recordLoopCalls } from '../helpers/loopCalls.js';
import { stackOf } from './helpers.js';

/** L layers of A attempts, full jitter from 1 ms (cap 8 ms), no budgets. */
function uniform(L: number, A: number, over: Record<string, unknown> = {}): CheckStack {
  return stackOf({
    layers: Array.from({ length: L }, (_, i) => ({ name: `l${i}`, policy: { maxAttempts: A, backoff: { kind: 'full-jitter', baseMs: 1, capMs: 8 }, ...over } })),
  });
}

function worst(stack: CheckStack, cls: FailureClass = '503') {
  return worstCase(stack.layers.map((l) => l.policy), cls, stack.method, stack.deadlineMs);
}

/** Leaf calls per operation simulated at 100% failure (the standard storm's scenario, one run). */
function simulatedAtFullFailure(stack: CheckStack, cls: FailureClass = '503', seed = 1): number {
  return simulate(stormScenario(stack, cls, 1, { ratePerSec: 20, durationMs: 5000, clients: 10 }), { seed }).amplification;
}

/** One operation through the model against a scripted leaf that always fails, every jitter draw fixed. */
function traced(stack: CheckStack, cls: '503' | 'timeout', draw: number) {
  const sc = stormScenario(stack, cls, 1) as Record<string, unknown>;
  sc.leaf = { kind: 'script', script: [cls === 'timeout' ? { status: 'hang' } : { status: 503, durationMs: 0 }] };
  return traceOperation(parseScenario(sc), { seed: 1, fixedDraw: draw });
}

describe('the worst case of one operation equals the simulation at 100% failure', () => {
  for (const L of [1, 2, 3]) {
    for (const A of [2, 3, 4]) {
      it(`${L} layer(s) x ${A} attempts: ${A}^${L} = ${A ** L} leaf calls per operation`, () => {
        const stack = uniform(L, A);
        const w = worst(stack);
        expect(w.leafCalls).toBe(A ** L);
        expect(w.nominal).toBe(A ** L);
        expect(w.attemptsPerLayer).toEqual(Array.from({ length: L }, (_, k) => A ** (k + 1)));
        expect(simulatedAtFullFailure(stack)).toBe(A ** L);
      });
    }
  }

  it("the SRE book's 3 layers x 4 attempts: 64, in the closed form, the storm and --simulate", () => {
    const stack = uniform(3, 4);
    expect(worst(stack).leafCalls).toBe(64);
    const storm = simulateStorm(stack, { failureRate: 1, replications: 2, ratePerSec: 20, durationMs: 2000 });
    expect(storm.runs).toHaveLength(1);
    expect(storm.runs[0]!.amplification.mean).toBe(64);
    expect(storm.runs[0]!.amplification.ci95).toEqual([64, 64]);
    expect(storm.runs[0]!.closedForm.worstCase).toBe(64);
  });

  it('a layer that does not retry the class passes 1: 4 x 1 x 3 = 12', () => {
    const stack = stackOf({
      layers: [
        { name: 'app', policy: { maxAttempts: 4, backoff: { kind: 'constant', baseMs: 1 } } },
        { name: 'sdk', policy: { maxAttempts: 5, retryOn: ['429'] } },
        { name: 'proxy', policy: { maxAttempts: 3, backoff: { kind: 'none', baseMs: 0, capMs: 0 } } },
      ],
    });
    const w = worst(stack);
    expect(w.attemptsPerCall).toEqual([4, 1, 3]);
    expect(w.retryingLayers).toEqual([0, 2]);
    expect(w.leafCalls).toBe(12);
    expect(simulatedAtFullFailure(stack)).toBe(12);
    expect(worst(stack, '429').leafCalls).toBe(60);
    expect(simulatedAtFullFailure(stack, '429')).toBe(60);
  });

  it('POST under HTTP idempotency is not replayed after a 503, but a 429 is', () => {
    const stack = stackOf({ method: 'POST', layers: [{ policy: { maxAttempts: 3 } }, { policy: { maxAttempts: 3 } }] });
    expect(worst(stack, '503').leafCalls).toBe(1);
    expect(worst(stack, '429').leafCalls).toBe(9);
    expect(simulatedAtFullFailure(stack, '503')).toBe(1);
    expect(simulatedAtFullFailure(stack, '429')).toBe(9);
  });

  it('budgets do not change the worst case of one operation', () => {
    const plain = uniform(2, 3);
    const budgeted = uniform(2, 3, { budget: { kind: 'sre-ratio', ratio: 0.1 } });
    expect(worst(budgeted)).toEqual(worst(plain));
  });

  it('a deadline bounds the attempts that fit: exactly what the model does with the shortest draws', () => {
    const stack = stackOf({
      deadlineMs: 2000,
      layers: [
        { name: 'app', policy: { maxAttempts: 3 } },
        { name: 'sdk', policy: { maxAttempts: 3 } },
        { name: 'proxy', policy: { maxAttempts: 3, perAttemptTimeoutMs: 250 } },
      ],
    });
    const w = worst(stack, 'timeout');
    expect(w.nominal).toBe(27);
    expect(w.leafCalls).toBe(8);
    expect(w.attemptsPerLayer).toEqual([1, 3, 8]);
    expect(w.lifetimeMs).toBe(2000);
    const t = traced(stack, 'timeout', 0);
    expect(t.layers.map((l) => l.attempts)).toEqual([1, 3, 8]);
    expect(t.endMs).toBe(2000);
  });

  it('fresh timeouts, an ignored deadline and timer ticks: the walk follows the model call by call', () => {
    const stack = stackOf({
      deadlineMs: 5000,
      layers: [
        { name: 'a', policy: { maxAttempts: 4, perAttemptTimeoutMs: 1500, backoff: { kind: 'exponential', baseMs: 50, capMs: 400 } } },
        { name: 'b', policy: { maxAttempts: 3, perAttemptTimeoutMs: 400, deadlineMode: 'fresh', backoff: { kind: 'constant', baseMs: 30 } } },
        { name: 'c', policy: { maxAttempts: 5, perAttemptTimeoutMs: 100, deadlineMode: 'none', tickMs: 7, backoff: { kind: 'exponential', baseMs: 10, capMs: 40 } } },
      ],
    });
    for (const cls of ['timeout', '503'] as const) {
      const w = worst(stack, cls);
      const t = traced(stack, cls, 0.5);
      expect(w.attemptsPerLayer).toEqual(t.layers.map((l) => l.attempts));
      expect(w.lifetimeMs).toBe(t.endMs);
    }
    expect(worst(stack, 'timeout').leafCalls).toBe(60);
    expect(worst(stack, '503').lifetimeMs).toBe(1995);
  });

  it('the lifetime adds the timeouts and the longest waits', () => {
    const stack = stackOf({
      layers: [{ policy: { maxAttempts: 4, perAttemptTimeoutMs: 1000, backoff: { kind: 'full-jitter', baseMs: 100, capMs: 250 } } }],
    });
    // 4 timeouts of 1 s, and waits of at most 100, 200, 250 ms.
    expect(worst(stack, 'timeout').lifetimeMs).toBe(4550);
    expect(worst(stack, '503').lifetimeMs).toBe(550);
    expect(traced(stack, 'timeout', 1).endMs).toBe(4550);
  });

  it('a longest wait that does not fit still lets the call last to its deadline', () => {
    const stack = stackOf({ deadlineMs: 1000, layers: [{ policy: { maxAttempts: 3, backoff: { kind: 'full-jitter', baseMs: 2000, capMs: 2000 } } }] });
    expect(worst(stack, '503').lifetimeMs).toBe(1000);
    const fixed = stackOf({ deadlineMs: 1000, layers: [{ policy: { maxAttempts: 3, backoff: { kind: 'constant', baseMs: 2000 } } }] });
    expect(worst(fixed, '503').lifetimeMs).toBe(0);
  });

  it('no timeout and a leaf that never answers: an operation without end', () => {
    const stack = stackOf({ layers: [{ policy: { maxAttempts: 3 } }] });
    const w = worst(stack, 'timeout');
    expect(w.leafCalls).toBe(1);
    expect(w.lifetimeMs).toBe(Infinity);
  });

  it('unlimited attempts with waits that can be 0: unbounded, even before a deadline', () => {
    const stack = stackOf({ deadlineMs: 1000, layers: [{ policy: { maxAttempts: 'unlimited' } }] });
    const w = worst(stack, '503');
    expect(w.nominal).toBe(Infinity);
    expect(w.leafCalls).toBe(Infinity);
    expect(w.lifetimeMs).toBe(1000);
    const paced = stackOf({ deadlineMs: 1000, layers: [{ policy: { maxAttempts: 'unlimited', backoff: { kind: 'constant', baseMs: 100 } } }] });
    expect(worst(paced, '503').leafCalls).toBe(10);
    expect(traced(paced, '503', 0).layers[0]!.attempts).toBe(10);
  });

  it('a deep stack is walked without enumerating every call (16 layers x 3 attempts = 3^16)', () => {
    const w = worst(uniform(16, 3));
    expect(w.leafCalls).toBe(3 ** 16);
    expect(w.exact).toBe(true);
  });
});

/** One operation through retry() on virtual time against a leaf that fails every attempt with `cls`, every draw `draw`. */
async function executed(stack: CheckStack, cls: '503' | 'timeout', draw: number): Promise<{ attempts: number; elapsedMs: number; reason: string }> {
  const time = new FakeTime();
  const leaf = (): Promise<string> => (cls === 'timeout' ? new Promise<string>(() => undefined) : Promise.resolve('503'));
  const call = retry(leaf, stack.layers[0]!.policy, {
    clock: time.clock,
    sleep: time.sleep,
    random: () => draw,
    method: stack.method,
    classify: () => ({ outcome: '503' }),
    ...(stack.deadlineMs !== undefined ? { deadlineMs: stack.deadlineMs } : {}),
  });
  try {
    await time.run(call);
  } catch (e) {
    if (e instanceof RetryGiveUpError) return { attempts: e.attempts, elapsedMs: e.elapsedMs, reason: e.reason };
    throw e;
  }
  throw new Error('the call succeeded against a leaf that always fails');
}

describe('check, the simulator and retry() make the same decisions against a leaf that always fails', () => {
  const CASES: Array<{ name: string; doc: object; executor: boolean; lastsToLimit?: Partial<Record<'503' | 'timeout', number>> }> = [
    {
      name: 'full jitter under a deadline, attempts cut by it',
      doc: { deadlineMs: 1500, layers: [{ policy: { maxAttempts: 6, perAttemptTimeoutMs: 200, backoff: { kind: 'full-jitter', baseMs: 100, capMs: 400 } } }] },
      executor: true,
      lastsToLimit: { '503': 1500 },
    },
    {
      name: 'decorrelated jitter rounded up to a 40 ms tick',
      doc: { deadlineMs: 3000, layers: [{ policy: { maxAttempts: 5, perAttemptTimeoutMs: 300, tickMs: 40, backoff: { kind: 'decorrelated-jitter', baseMs: 50, capMs: 1000 } } }] },
      executor: true,
      lastsToLimit: { timeout: 3000 },
    },
    {
      name: 'a total timeout over all attempts',
      doc: { layers: [{ policy: { maxAttempts: 5, perAttemptTimeoutMs: 300, totalTimeoutMs: 1000, backoff: { kind: 'equal-jitter', baseMs: 80, capMs: 500 } } }] },
      executor: true,
      lastsToLimit: { '503': 1000 },
    },
    {
      name: 'maxElapsedMs stops the retries whose wake-up is too late',
      doc: { layers: [{ policy: { maxAttempts: 'unlimited', perAttemptTimeoutMs: 250, maxElapsedMs: 2000, backoff: { kind: 'exponential', baseMs: 100, capMs: 800 } } }] },
      executor: true,
    },
    {
      name: 'hedging: a copy every hedging delay while no answer comes, one after another while they fail',
      doc: { deadlineMs: 1000, layers: [{ policy: { hedging: { maxAttempts: 3, hedgingDelayMs: 100, nonFatal: ['503'] } } }] },
      executor: false,
    },
    {
      name: 'hedging under a retrying layer',
      doc: {
        deadlineMs: 2000,
        layers: [
          { name: 'app', policy: { maxAttempts: 3, perAttemptTimeoutMs: 500, backoff: { kind: 'constant', baseMs: 100 } } },
          { name: 'proxy', policy: { hedging: { maxAttempts: 2, hedgingDelayMs: 150, nonFatal: ['timeout', '503'] } } },
        ],
      },
      executor: false,
    },
  ];

  for (const c of CASES) {
    for (const cls of ['503', 'timeout'] as const) {
      it(`${c.name} (${cls})`, async () => {
        const stack = stackOf(c.doc);
        const { value: w, calls: walkCalls } = await recordLoopCalls(() => worst(stack, cls));
        const { value: shortest, calls: simulatorCalls } = await recordLoopCalls(() => traced(stack, cls, 0));
        // Both go through the one RetryLoop: every layer's decisions are the loop's answers.
        stack.layers.forEach((l, k) => {
          const decisions = simulatorCalls.filter((a) => a.loop === k && ['afterAttempt', 'hedgeAnswered', 'hedgeDue'].includes(a.method));
          expect(decisions.length).toBeGreaterThan(0);
          if (l.policy.hedging === undefined) expect(callsOf(walkCalls, 'afterAttempt').some((a) => a.loop === k)).toBe(true);
          else expect(walkCalls.some((a) => a.loop === k && (a.method === 'hedgeAnswered' || a.method === 'hedgeDue'))).toBe(true);
        });
        if (stack.layers.length === 1 && stack.layers[0]!.policy.hedging === undefined) {
          // One layer: the walk with the shortest waits makes the simulator's calls, input for input, before it walks the longest.
          expect(walkCalls.slice(0, simulatorCalls.length)).toEqual(simulatorCalls);
        }
        const longest = traced(stack, cls, 1);
        expect(w.attemptsPerLayer).toEqual(shortest.layers.map((l) => l.attempts));
        expect(w.leafCalls).toBe(shortest.layers[shortest.layers.length - 1]!.attempts);
        if (c.lastsToLimit?.[cls] === undefined) {
          expect(w.lifetimeMs).toBe(longest.endMs);
        } else {
          // The longest wait does not fit but a shorter one does, and the call can then last to
          // its limit: no run of the model with one draw throughout lasts longer.
          expect(w.lifetimeMs).toBe(c.lastsToLimit[cls]);
          for (const draw of [0, 0.25, 0.5, 0.75, 0.999, 1]) expect(traced(stack, cls, draw).endMs).toBeLessThanOrEqual(w.lifetimeMs);
        }
        if (!c.executor) return;
        const fewest = await executed(stack, cls, 0);
        const longestRun = await executed(stack, cls, 1);
        expect([fewest.attempts, fewest.reason]).toEqual([shortest.layers[0]!.attempts, shortest.outcome]);
        expect([longestRun.elapsedMs, longestRun.reason]).toEqual([longest.endMs, longest.outcome]);
      });
    }
  }
});
