import type { Uniform } from '../../engine/random.js';
import { TimeWeightedSeries } from '../../metrics/index.js';
import { makeAdmissionControl, type AdmissionControl } from '../../policy/budgets/AdmissionControl.js';
import { makeBudgetChain, type BudgetChain } from '../../policy/budgets/BudgetChain.js';
import { acceptedByBackend } from '../../policy/classify.js';
import { Outcome } from '../../policy/outcome.js';
import type { Scenario } from '../scenario.js';
import { streamIf } from '../streams.js';

/**
 * The retry budgets and admission controls of every layer, one set per layer instance (a budget
 * shared by 10,000 clients behaves unlike 10,000 budgets; README "Budgets and breakers"), and the
 * series of the first budget's gauge per layer (the mean over its instances). The layers ask and
 * tell them at the steps of the retry decision; `inst` is the frame's instance of layer k.
 */
export class LayerGuards {
  /** Per layer: it has budgets / an admission control / either (told of every attempt's outcome). */
  readonly hasBudget: boolean[];
  readonly hasAdmission: boolean[];
  readonly guarded: boolean[];
  private readonly chains: BudgetChain[][];
  private readonly admissions: Array<Array<AdmissionControl | null>>;
  private readonly instances: number[];
  private readonly uAdmission: Uniform;
  /** Per layer with budgets: the first budget's gauge of each instance, their sum, and its series. */
  private readonly budgetGauge: Float64Array[];
  private readonly budgetGaugeSum: Float64Array;
  private readonly gBudget: Array<TimeWeightedSeries | null>;

  constructor(sc: Scenario, seed: number) {
    const L = sc.stack.length;
    this.instances = sc.stack.map((l) => l.instances);
    this.chains = sc.stack.map((l) => Array.from({ length: l.instances }, () => makeBudgetChain(l.policy.budget)));
    this.hasBudget = sc.stack.map((l) => (l.policy.budget?.length ?? 0) > 0);
    this.admissions = sc.stack.map((l) =>
      Array.from({ length: l.instances }, () => (l.policy.admission ? makeAdmissionControl(l.policy.admission) : null)),
    );
    this.hasAdmission = sc.stack.map((l) => l.policy.admission !== undefined);
    this.guarded = sc.stack.map((_, k) => (this.hasBudget[k] as boolean) || (this.hasAdmission[k] as boolean));
    this.uAdmission = streamIf(this.hasAdmission.some((a) => a), seed, 'admission');
    this.budgetGauge = sc.stack.map((l, k) => {
      const g = new Float64Array(l.instances);
      if (this.hasBudget[k]) for (let i = 0; i < l.instances; i++) g[i] = this.chains[k]?.[i]?.budgets[0]?.gauge(-sc.warmupMs) ?? 0;
      return g;
    });
    this.budgetGaugeSum = new Float64Array(L);
    this.budgetGauge.forEach((g, k) => (this.budgetGaugeSum[k] = g.reduce((a, b) => a + b, 0)));
    const binMs = sc.metrics.timeSeriesBinMs;
    this.gBudget = sc.stack.map((l, k) =>
      this.hasBudget[k] ? new TimeWeightedSeries(binMs, 1_000_000, -sc.warmupMs, (this.budgetGaugeSum[k] as number) / l.instances) : null,
    );
  }

  private chain(k: number, inst: number): BudgetChain {
    return (this.chains[k] as BudgetChain[])[inst] as BudgetChain;
  }

  private admission(k: number, inst: number): AdmissionControl {
    return (this.admissions[k] as AdmissionControl[])[inst] as AdmissionControl;
  }

  /** Follow the first budget's gauge of the instance into the layer's time series. */
  private noteBudget(k: number, inst: number, t: number): void {
    const v = this.chain(k, inst).budgets[0]?.gauge(t) ?? 0;
    const g = this.budgetGauge[k] as Float64Array;
    const sum = (this.budgetGaugeSum[k] as number) + v - (g[inst] as number);
    g[inst] = v;
    this.budgetGaugeSum[k] = sum;
    (this.gBudget[k] as TimeWeightedSeries).set(t, sum / (this.instances[k] as number));
  }

  /** The admission control's answer for an attempt at t: < 0 refused, > 0 a delay (ms), 0 go now. */
  admit(k: number, inst: number, t: number): number {
    return this.admission(k, inst).admit(t, this.uAdmission());
  }

  /** An attempt is sent (the budgets count it; `isRetry`: not the first). */
  attemptSent(k: number, inst: number, t: number, isRetry: boolean): void {
    this.chain(k, inst).onAttempt(t, isRetry);
  }

  /** An attempt ended with `outcome` (`retryable`: as the budgets see it); the budgets and the admission control learn it. */
  attemptEnded(k: number, inst: number, t: number, outcome: number, wasRetry: boolean, retryable: boolean): void {
    if (this.hasBudget[k]) {
      this.chain(k, inst).onOutcome(t, outcome, wasRetry, retryable);
      this.noteBudget(k, inst, t);
    }
    if (this.hasAdmission[k]) this.admission(k, inst).onOutcome(t, outcome, acceptedByBackend(outcome));
  }

  /** Whether a budget refuses a retry after `outcome`: the give-up reason, or CONTINUE. */
  refuse(k: number, inst: number, t: number, outcome: number): number {
    return this.chain(k, inst).refuse(t, outcome);
  }

  /** A retry (or hedge) was scheduled: the budgets charge it. */
  retryScheduled(k: number, inst: number, t: number, outcome: number): void {
    this.chain(k, inst).onRetryScheduled(t, outcome);
    this.noteBudget(k, inst, t);
  }

  /** A withdrawn attempt ends for the budgets too (concurrency-based budgets count it as active). */
  attemptWithdrawn(k: number, inst: number, t: number, wasRetry: boolean): void {
    this.chain(k, inst).onOutcome(t, Outcome.TIMEOUT, wasRetry, false);
  }

  /** Close the budget series at the end of the run. */
  finish(endMs: number): void {
    for (const g of this.gBudget) g?.finish(endMs);
  }

  /** The budget series of the layers that have budgets (their first budget's gauge). */
  series(sc: Scenario, bins: number): Array<{ layer: string; kind: string; values: number[] }> {
    return sc.stack.flatMap((l, k) => {
      const g = this.gBudget[k];
      const kind = l.policy.budget?.[0]?.kind;
      return g && kind ? [{ layer: l.name, kind, values: g.binMeans(bins) }] : [];
    });
  }
}

