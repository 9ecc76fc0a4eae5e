import type { BudgetSpec } from '../policy/budgets/RetryBudget.js';
import type { Method, PolicySpec } from '../policy/types.js';
import { attemptsFor, type FailureClass } from './worstCase.js';

/** One layer in the closed form. */
export interface ExpectedLayer {
  layer: string;
  /** Failure probability of one call to the next hop (what the layer sees below). */
  failureBelow: number;
  /** Attempts per call to this layer (the layer's load multiple on the next hop). */
  attemptsPerCall: number;
  /** Failure probability of one call to this layer (what the layer above sees). */
  failureOut: number;
  /**
   * What the layer's budgets do at this failure rate, in steady state (empty without budgets, or
   * when they are not asked): how they cap the multiple, or why there is no closed form.
   */
  budgetNotes: string[];
}

/** The expected load multiple of a stack at one leaf failure rate. */
export interface ExpectedMultiple {
  failureClass: FailureClass;
  /** Probability that a leaf call fails (independently, with `failureClass`). */
  failureRate: number;
  /** Expected leaf calls per operation. */
  multiple: number;
  /** Probability that an operation fails after every retry. */
  operationFailure: number;
  layers: ExpectedLayer[];
}

/**
 * 1 + q + ... + q^(A-1) = (1 - q^A) / (1 - q): the expected attempts of a loop of at most A
 * attempts that stops at the first success, each attempt failing independently with
 * probability q (A for q = 1; 1 / (1 - q) without a cap).
 */
export function geometricAttempts(q: number, attempts: number): number {
  if (attempts <= 1) return 1;
  if (q >= 1) return attempts;
  if (q <= 0) return 1;
  if (!Number.isFinite(attempts)) return 1 / (1 - q);
  return (1 - Math.pow(q, attempts)) / (1 - q);
}

/** The cost of a retry after a failure of `cls` in the AWS SDK retry quota. */
function quotaCost(b: Extract<BudgetSpec, { kind: 'token-bucket' }>, cls: FailureClass): number {
  if (cls === 'timeout') return b.timeoutCost;
  if (cls === '500' || cls === '503') return b.serverErrorCost;
  if (cls === '429') return b.throttlingCost;
  return b.retryCost;
}

function pct(x: number): string {
  return `${Number((x * 100).toPrecision(3))}%`;
}

/**
 * The steady-state cap a budget puts on a layer's attempts per call when each attempt fails with
 * probability q (+Infinity: no cap at this rate), and a sentence saying why. These are the
 * long-run rates of the budgets' own rules, per layer instance, over many calls:
 * - SRE ratio budget: retries < ratio x first tries, so at most 1 + ratio (1.1x);
 * - AWS SDK retry quota: a failed retry costs `cost` tokens for good (a successful one is refunded),
 *   a first-try success refunds `noRetryIncrement`: failed retries per call <= (1 - q) x refund /
 *   cost, so at most 1 + (1 - q) x refund / (q x cost); after the first capacity / cost retries
 *   at 100% failure, none;
 * - gRPC retry throttling: each attempt changes the tokens by tokenRatio x (1 - q) - q on
 *   average; when that is negative the tokens fall below maxTokens / 2 and retries stop (1x);
 * - Finagle: retries <= percentCanRetry x requests, plus a reserve of minRetriesPerSec;
 * - Brooker's token bucket: creditPerCall per call, retryCost per retry;
 * - breakers: open (no retries) while the failure rate is above the threshold;
 * - Envoy's retry budget: retries in flight <= budgetPercent% of requests in flight, so retries
 *   <= pct / (100 - pct) of first tries when they last as long (at least minRetryConcurrency);
 * - Envoy max_retries and server-wide budgets bound retries in flight or per minute: no multiple
 *   without a request rate.
 */
export function budgetCap(b: BudgetSpec, q: number, cls: FailureClass, unconstrained: number): { cap: number; note: string } {
  switch (b.kind) {
    case 'sre-ratio':
      return { cap: 1 + b.ratio, note: `sre-ratio: retries stay under ${pct(b.ratio)} of first tries, at most ${perCall(1 + b.ratio)}` };
    case 'token-bucket': {
      const cost = quotaCost(b, cls);
      const burst = cost > 0 ? Math.floor(b.capacity / cost) : Infinity;
      if (cost === 0) return { cap: Infinity, note: 'token-bucket: retries cost nothing here, no cap' };
      const cap = q <= 0 ? Infinity : 1 + ((1 - q) * b.noRetryIncrement) / (q * cost);
      return {
        cap,
        note: `token-bucket: a failed retry costs ${cost} tokens for good, a first-try success refunds ${b.noRetryIncrement}: in the long run at most ${perCall(cap)}, after a first burst of ${burst} retries per instance (${b.capacity} / ${cost})`,
      };
    }
    case 'grpc-throttle': {
      const drift = b.tokenRatio * (1 - q) - q;
      const threshold = b.tokenRatio / (1 + b.tokenRatio);
      return drift < 0
        ? { cap: 1, note: `grpc-throttle: failures (${pct(q)}) outrun successes x ${b.tokenRatio} (above ${pct(threshold)}): tokens fall below ${b.maxTokens / 2} and retries stop after about ${Math.ceil(b.maxTokens / 2)} failures per instance` }
        : { cap: Infinity, note: `grpc-throttle: below ${pct(threshold)} failures the tokens stay up, no cap` };
    }
    case 'finagle':
      return {
        cap: 1 + b.percentCanRetry,
        note: `finagle: retries <= ${pct(b.percentCanRetry)} of requests (${perCall(1 + b.percentCanRetry)}), plus a reserve of ${b.minRetriesPerSec} retries/s per instance`,
      };
    case 'brooker-token-bucket': {
      const credit = b.creditOn === 'call-start' ? b.creditPerCall : b.creditPerCall * Math.min(1, unconstrained * (1 - q));
      const cap = b.retryCost > 0 ? 1 + credit / b.retryCost : Infinity;
      return { cap, note: `brooker-token-bucket: ${b.creditPerCall} token per ${b.creditOn === 'call-start' ? 'call' : 'success'}, ${b.retryCost} per retry: at most ${perCall(cap)}` };
    }
    case 'circuit-breaker':
      if (cls === '400' || cls === '404') return { cap: Infinity, note: 'circuit-breaker: client errors do not open it' };
      return q > b.threshold
        ? { cap: 1, note: `circuit-breaker: ${pct(q)} failures is above its ${pct(b.threshold)} threshold: open, no retries` }
        : { cap: Infinity, note: `circuit-breaker: ${pct(q)} failures is under its ${pct(b.threshold)} threshold: closed` };
    case 'brooker-breaker': {
      if (cls === '400' || cls === '404') return { cap: Infinity, note: 'brooker-breaker: client errors do not open it' };
      const cap = q > 0 ? Math.max(1, b.threshold / q) : Infinity;
      return { cap, note: `brooker-breaker: failures per call stay under ${b.threshold}: at most ${perCall(cap)}` };
    }
    case 'envoy-retry-budget': {
      const cap = b.budgetPercent >= 100 ? Infinity : 1 + b.budgetPercent / (100 - b.budgetPercent);
      return {
        cap,
        note: `envoy-retry-budget: retries in flight <= ${b.budgetPercent}% of requests in flight: about ${perCall(cap)} under load (at least ${b.minRetryConcurrency} retries at once whatever the load)`,
      };
    }
    case 'envoy-max-retries':
      return { cap: Infinity, note: `envoy-max-retries: at most ${b.maxRetries} retries in flight per instance; the multiple depends on the request rate` };
    case 'server-wide':
      return { cap: Infinity, note: `server-wide: at most ${b.retriesPerMinute} retries per minute per instance; the multiple depends on the request rate` };
  }
}

function perCall(x: number): string {
  return `${fmtCap(x)} attempt${x === 1 ? '' : 's'} per call`;
}

/** A number of attempts per call, `unlimited` when nothing caps it (a retry loop with no attempt cap). */
function fmtCap(x: number): string {
  return Number.isFinite(x) ? String(Number(x.toPrecision(3))) : 'unlimited';
}

/**
 * The expected leaf calls per operation when each leaf call fails independently with probability
 * `p` (with class `cls`) and succeeds otherwise, in closed form. One layer with A attempts makes
 * 1 + p + ... + p^(A-1) = (1 - p^A) / (1 - p) calls; layers compose from the bottom up: the layer
 * above sees the failure probability of a call to the layer below, q_out = 1 - E x (1 - q)
 * (= q^A without budgets: a call fails only when every attempt did), and the total is the product
 * of every layer's attempts per call (Wald's identity). A layer that does not retry the class
 * passes q through with 1 attempt. With `withBudgets`, each layer's attempts per call are capped
 * by the steady-state rate of its budgets (see budgetCap). Time is ignored: deadlines and
 * timeouts only lower these numbers.
 */
export function expectedMultiple(
  layers: ReadonlyArray<{ name: string; policy: PolicySpec }>,
  cls: FailureClass,
  p: number,
  method: Method,
  withBudgets: boolean,
): ExpectedMultiple {
  const out: ExpectedLayer[] = [];
  let q = p;
  let multiple = 1;
  for (let k = layers.length - 1; k >= 0; k--) {
    const layer = layers[k] as { name: string; policy: PolicySpec };
    const attempts = attemptsFor(layer.policy, cls, method);
    const unconstrained = geometricAttempts(q, attempts);
    let e = unconstrained;
    const notes: string[] = [];
    if (withBudgets && attempts > 1) {
      for (const b of layer.policy.budget ?? []) {
        const { cap, note } = budgetCap(b, q, cls, unconstrained);
        const effect = !Number.isFinite(cap) ? '' : cap < unconstrained ? `; here it caps ${perCall(unconstrained)} at ${fmtCap(cap)}` : '; it does not limit at this rate';
        notes.push(note + effect);
        e = Math.min(e, cap);
      }
      if (layer.policy.admission !== undefined) {
        notes.push(`${layer.policy.admission.kind}: admission control sheds attempts, first tries included, as failures rise; no closed form`);
      }
    }
    const failureOut = attempts > 1 && q < 1 ? Math.min(1, Math.max(0, 1 - e * (1 - q))) : q;
    out.unshift({ layer: layer.name, failureBelow: q, attemptsPerCall: e, failureOut, budgetNotes: notes });
    multiple *= e;
    q = failureOut;
  }
  return { failureClass: cls, failureRate: p, multiple, operationFailure: q, layers: out };
}
