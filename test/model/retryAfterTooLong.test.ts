import { describe, expect, it } from 'vitest';
import { validateExperiment } from '../../src/experiment/index.js';
import { MAX_RETRY_AFTER_DEFAULT_MS } from '../../src/policy/retrySteps.js';
import { backoff, burst, eventLog, layer, scenario, scripted, server, simulate, simulateTraced } from '../helpers/scenario.js';

/** A server whose every answer is a 503 asking for `retryAfterMs`, after a 10 ms service time. */
const shedding = (retryAfterMs: number) => server({ faults: [{ fromMs: 0, toMs: Infinity, probability: 1, status: 503, retryAfterMs }] });

describe('a Retry-After longer than maxRetryAfterMs ends the call (a wait is never shortened)', () => {
  it('the default limit is 5 minutes: a longer hint gives up at the answer, a hint of exactly 5 minutes is waited out', () => {
    expect(MAX_RETRY_AFTER_DEFAULT_MS).toBe(300_000);
    const over = simulateTraced(
      scenario({ stack: [layer('client', { maxAttempts: 3, backoff: backoff('constant', 100) })], leaf: scripted({ status: 503, durationMs: 40, retryAfterMs: 300_001 }) }),
    );
    expect(eventLog(over.timeline)).toEqual([
      [0, 'L0 call deadline=Infinity'],
      [0, 'L0 attempt 1 timeout=Infinity'],
      [40, 'L0 outcome 503 ra=300001'],
      [40, 'L0 give-up retry-after-too-long after 1'],
    ]);
    expect(over.results.giveUps['retry-after-too-long']).toBe(1);
    const at = simulateTraced(
      scenario({
        stack: [layer('client', { maxAttempts: 3, backoff: backoff('constant', 100) })],
        leaf: scripted({ status: 503, durationMs: 40, retryAfterMs: 300_000 }, { status: 200, durationMs: 10 }),
      }),
    );
    expect(eventLog(at.timeline)).toEqual([
      [0, 'L0 call deadline=Infinity'],
      [0, 'L0 attempt 1 timeout=Infinity'],
      [40, 'L0 outcome 503 ra=300000'],
      [40, 'L0 wait 300000'],
      [300_040, 'L0 attempt 2 timeout=Infinity'],
      [300_050, 'L0 outcome 200'],
      [300_050, 'L0 give-up success after 2'],
    ]);
  });

  it('each layer judges the hint it is given against its own limit: the proxy gives up, the app above waits it out', () => {
    const sc = scenario({
      workload: burst(1, { deadlineMs: 10_000 }),
      stack: [
        layer('app', { maxAttempts: 2, maxRetryAfterMs: 5000, backoff: backoff('constant', 10) }),
        layer('proxy', { maxAttempts: 3, maxRetryAfterMs: 1000, backoff: backoff('constant', 10) }),
      ],
      leaf: scripted({ status: 503, durationMs: 20, retryAfterMs: 2000 }),
    });
    const { results, timeline } = simulateTraced(sc);
    expect(eventLog(timeline)).toEqual([
      [0, 'L0 call deadline=10000'],
      [0, 'L0 attempt 1 timeout=10000'],
      [0, 'L1 call deadline=10000'],
      [0, 'L1 attempt 1 timeout=10000'],
      [20, 'L1 outcome 503 ra=2000'],
      [20, 'L1 give-up retry-after-too-long after 1'],
      [20, 'L0 outcome 503 ra=2000'],
      [20, 'L0 wait 2000'],
      [2020, 'L0 attempt 2 timeout=7980'],
      [2020, 'L1 call deadline=10000'],
      [2020, 'L1 attempt 1 timeout=7980'],
      [2040, 'L1 outcome 503 ra=2000'],
      [2040, 'L1 give-up retry-after-too-long after 1'],
      [2040, 'L0 outcome 503 ra=2000'],
      [2040, 'L0 give-up attempt-limit after 2'],
    ]);
    expect(results.attempts.map((l) => [l.layer, l.giveUps['retry-after-too-long']])).toEqual([
      ['app', 0],
      ['proxy', 2],
    ]);
  });

  it('a server shedding with a 10-minute Retry-After: every operation gives up after its first answer, retried by nobody', () => {
    // A burst against a server, no deadline and no timeouts: the model decides retries as the
    // answer leaves the server (folded), and must decide the same as when it arrives.
    const sc = scenario({
      workload: burst(50, { startMs: { dist: 'uniform', min: 0, max: 1000 } }),
      stack: [layer('client', { maxAttempts: 5, backoff: backoff('full-jitter', 100, 1000) })],
      leaf: shedding(600_000),
      network: { hopMs: { dist: 'exponential', mean: 5 } },
    });
    const untraced = simulate(sc, 7);
    const traced = simulateTraced(sc, 7);
    expect(untraced.giveUps['retry-after-too-long']).toBe(50);
    expect(untraced.operations.failed).toBe(50);
    expect(untraced.attempts[0]?.retries).toBe(0);
    expect(untraced.leafCalls).toBe(50);
    expect(traced.results.giveUps).toEqual(untraced.giveUps);
    expect(traced.results.operationMs).toEqual(untraced.operationMs);
    expect(traced.results.completionTimeMs).toBe(untraced.completionTimeMs);
    // Each ends when its answer arrives: one hop there, 10 ms of service, one hop back.
    const ends = traced.timeline.filter((e) => e.event === 'give-up');
    expect(ends.map((e) => (e.event === 'give-up' ? e.reason : ''))).toEqual(new Array(50).fill('retry-after-too-long'));
  });

  it('ignore and clamp do not make the hint a floor of the wait: the limit does not apply', () => {
    for (const retryAfter of ['ignore', 'clamp'] as const) {
      const r = simulate(
        scenario({
          stack: [layer('client', { maxAttempts: 2, retryAfter, maxRetryAfterMs: 1000, backoff: backoff('constant', 100) })],
          leaf: scripted({ status: 503, durationMs: 0, retryAfterMs: 60_000 }),
        }),
      );
      expect([retryAfter, r.giveUps['attempt-limit'], r.giveUps['retry-after-too-long']]).toEqual([retryAfter, 1, 0]);
    }
  });
});

describe('maxRetryAfterMs in an experiment file', () => {
  const file = (policy: Record<string, unknown>) => ({
    name: 'exp',
    scenario: { workload: { kind: 'burst', clients: 10 }, stack: [{ name: 'app' }, { name: 'sdk', policy }], leaf: { kind: 'server', serviceMs: 10 } },
  });

  it('is a number of ms > 0, named by its dotted path when it is not', () => {
    expect(validateExperiment(file({ maxRetryAfterMs: 60_000 }))).toEqual([]);
    expect(validateExperiment(file({ maxRetryAfterMs: 0 }))).toEqual(['scenario.stack.1.policy.maxRetryAfterMs must be > 0 (got 0)']);
    expect(validateExperiment(file({ maxRetryAfterMs: '5 minutes' }))).toEqual([
      'scenario.stack.1.policy.maxRetryAfterMs must be a number > 0 (got "5 minutes")',
    ]);
  });
});
