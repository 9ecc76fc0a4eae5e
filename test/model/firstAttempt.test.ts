import { afterEach, describe, expect, it, vi } from 'vitest';
import { Model } from '../../src/model/Model.js';
import { RetryLoop } from '../../src/policy/retryLoop.js';
import { alwaysFailing, burst, layer, scenario } from '../helpers/scenario.js';

/**
 * Before a call's first attempt the retry loop can only say "send" when the call has no deadline
 * and its layer no admission control (RetryLoop.beforeAttempt: no spent budget to end on, no
 * refusal or delay to draw), so the layers send it without asking, at the top and at every layer
 * below; with a deadline or an admission control the loop is asked, as before every retry.
 */
describe('the first attempt of a call', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const oneTryEach = [layer('app', { maxAttempts: 1 }), layer('sdk', { maxAttempts: 1 }), layer('proxy', { maxAttempts: 1 })];

  it('is sent without asking the loop where the call has no deadline and the layer no admission control', () => {
    const asked = vi.spyOn(RetryLoop.prototype, 'beforeAttempt');
    const r = new Model(scenario({ workload: burst(10), stack: oneTryEach }), { seed: 1 }).run();
    expect(r.leafCalls).toBe(10);
    expect(r.giveUps.success).toBe(10);
    expect(asked).toHaveBeenCalledTimes(0);
  });

  it('asks the loop at every layer when the operation has a deadline (a spent one ends the call without calling)', () => {
    const asked = vi.spyOn(RetryLoop.prototype, 'beforeAttempt');
    const live = new Model(scenario({ workload: burst(10, { deadlineMs: 1000 }), stack: oneTryEach }), { seed: 1 }).run();
    expect(live.leafCalls).toBe(10);
    expect(asked).toHaveBeenCalledTimes(30);
    asked.mockClear();
    const spent = new Model(scenario({ workload: burst(10, { deadlineMs: 0 }), stack: oneTryEach }), { seed: 1 }).run();
    expect(spent.leafCalls).toBe(0);
    expect(spent.giveUps.deadline).toBe(10);
    expect(asked).toHaveBeenCalledTimes(10);
  });

  it('asks the loop at a layer with admission control, and only there', () => {
    const asked = vi.spyOn(RetryLoop.prototype, 'beforeAttempt');
    const stack = [layer('app', { maxAttempts: 1 }), layer('sdk', { maxAttempts: 1, admission: { kind: 'sre-adaptive', k: 2, windowMs: 10_000 } })];
    const r = new Model(scenario({ workload: burst(10), stack }), { seed: 1 }).run();
    expect(r.attempts[0]?.first).toBe(10);
    expect(asked).toHaveBeenCalledTimes(10);
  });

  it('leaves the retries to the loop: each retry of a failing call is asked before it is sent', () => {
    const asked = vi.spyOn(RetryLoop.prototype, 'beforeAttempt');
    const r = new Model(scenario({ workload: burst(10), stack: [layer('client', { maxAttempts: 3 })], leaf: alwaysFailing() }), { seed: 1 }).run();
    expect(r.leafCalls).toBe(30);
    expect(r.attempts[0]?.retries).toBe(20);
    expect(asked).toHaveBeenCalledTimes(20);
  });
});
