import { makeAdmissionControl, type AdmissionControl } from '../policy/budgets/AdmissionControl.js';
import { makeBudgetChain, type BudgetChain } from '../policy/budgets/BudgetChain.js';
import type { PolicySpec } from '../policy/types.js';
import { resolveRetryPolicy, type ResolvedRetryPolicy, type RetryPolicyInput } from './resolveRetryPolicy.js';

/**
 * The shared state of a policy's retry budgets, breakers, throttles and admission control: what
 * the simulator keeps per layer *instance* (docs/concepts.md, "Concepts", "Budgets and breakers"). Nothing
 * is global: the caller decides the scope by sharing one object, one per process (as a server-wide
 * budget), per client or per downstream service (as the AWS SDK's quota per client, gRPC's
 * throttling per server, Envoy's per cluster). Every call given the same object reads and
 * charges the same budgets; calls given different objects never affect each other.
 * The budgets are pure state machines driven with the times of the clock the calls use
 * (`performance.now()` by default); share one object only between calls using the same clock.
 */
export class RetryState {
  /** The policy's budgets, asked in order at step 5 of the retry decision (empty: none). */
  readonly budgets: BudgetChain;
  /** The policy's admission control, asked before every attempt (null: none). */
  readonly admission: AdmissionControl | null;

  /** @param stateKey which budgets and admission control this state holds (see ResolvedRetryPolicy.stateKey) */
  constructor(
    spec: PolicySpec,
    readonly stateKey: string,
  ) {
    this.budgets = makeBudgetChain(spec.budget);
    this.admission = spec.admission ? makeAdmissionControl(spec.admission) : null;
  }

  /**
   * The gauge of each budget in policy order, then the admission control's (tokens left, retry
   * ratio, 1 = breaker open, rejection probability...), at `nowMs` on the calls' clock.
   */
  gauges(nowMs: number = performance.now()): number[] {
    const values = this.budgets.budgets.map((b) => b.gauge(nowMs));
    if (this.admission) values.push(this.admission.gauge(nowMs));
    return values;
  }
}

/**
 * A fresh budget state for `policy` (its budgets, breakers, throttles and admission control, each
 * in its initial state), to pass as `options.state` to every call that should share it.
 */
export function createRetryState(policy: RetryPolicyInput | PolicySpec | ResolvedRetryPolicy): RetryState {
  const p = resolveRetryPolicy(policy);
  return new RetryState(p.spec, p.stateKey);
}
