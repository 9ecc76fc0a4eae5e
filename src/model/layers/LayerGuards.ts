import type { Uniform } from '../../engine/random.js';
import { MAX_SERIES_BINS, TimeWeightedSeries } from '../../metrics/index.js';
import { makeAdmissionControl, type AdmissionControl } from '../../policy/budgets/AdmissionControl.js';
import { BudgetChain, makeBudgetChain } from '../../policy/budgets/BudgetChain.js';
import type { UniformDraw } from '../../policy/retryLoop.js';
import type { Scenario } from '../scenario.js';
import { streamIf } from '../streams.js';

/**
 * The budgets of one layer instance as the decisions of its retry loop see them: the same budgets
 * as the instance's plain chain, and after each outcome told and each retry charged the layer's
 * series follows the first budget's gauge ({@link LayerGuards.noteBudget}). The attempts counted
 * and withdrawn go to the plain chain (the series is not told of them).
 */
class GaugedChain extends BudgetChain {
  constructor(
    plain: BudgetChain,
    private readonly guards: LayerGuards,
    private readonly k: number,
    private readonly inst: number,
  ) {
    super(plain.budgets);
  }

  override onOutcome(nowMs: number, outcome: number, wasRetry: boolean, retryable: boolean): void {
    super.onOutcome(nowMs, outcome, wasRetry, retryable);
    this.guards.noteBudget(this.k, this.inst, nowMs);
  }

  override onRetryScheduled(nowMs: number, outcome: number): void {
    super.onRetryScheduled(nowMs, outcome);
    this.guards.noteBudget(this.k, this.inst, nowMs);
  }
}

/**
 * The retry budgets and admission controls of every layer, one set per layer instance (a budget
 * shared by 10,000 clients behaves unlike 10,000 budgets; README "Budgets and breakers"), and the
 * series of the first budget's gauge per layer (the mean over its instances). The layers hand them
 * to their `RetryLoop` (src/policy/retryLoop.ts), which asks and tells them at the steps of the
 * retry decision; `inst` is the frame's instance of layer k.
 */
export class LayerGuards implements UniformDraw {
  /** Per layer: it has budgets / an admission control / either. */
  readonly hasBudget: boolean[];
  readonly hasAdmission: boolean[];
  readonly guarded: boolean[];
  private readonly chains: BudgetChain[][];
  private readonly gauged: BudgetChain[][];
  private readonly admissions: Array<Array<AdmissionControl | null>>;
  private readonly instances: number[];
  /** The admission controls' uniform draws (one stream for every layer; {@link uniform} hands them to the retry loops). */
  private readonly uAdmission: Uniform;
  /** Per layer with budgets: the first budget's gauge of each instance, their sum, and its series. */
  private readonly budgetGauge: Float64Array[];
  private readonly budgetGaugeSum: Float64Array;
  private readonly gBudget: Array<TimeWeightedSeries | null>;

  constructor(sc: Scenario, seed: number) {
    const L = sc.stack.length;
    this.instances = sc.stack.map((l) => l.instances);
    this.chains = sc.stack.map((l) => Array.from({ length: l.instances }, () => makeBudgetChain(l.policy.budget)));
    this.gauged = this.chains.map((cs, k) => cs.map((c, inst) => new GaugedChain(c, this, k, inst)));
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
      this.hasBudget[k] ? new TimeWeightedSeries(binMs, MAX_SERIES_BINS, -sc.warmupMs, (this.budgetGaugeSum[k] as number) / l.instances) : null,
    );
  }

  /** The admission controls' next uniform draw (the guards are the retry loops' {@link UniformDraw} for admission). */
  uniform(): number {
    return this.uAdmission();
  }

  /** The budgets of layer k's instance `inst` for counting and withdrawing attempts (null: the layer has none). */
  chain(k: number, inst: number): BudgetChain | null {
    return this.hasBudget[k] ? ((this.chains[k] as BudgetChain[])[inst] as BudgetChain) : null;
  }

  /** The same budgets for the retry decisions, followed by the layer's budget series (null: the layer has none). */
  decisionChain(k: number, inst: number): BudgetChain | null {
    return this.hasBudget[k] ? ((this.gauged[k] as BudgetChain[])[inst] as BudgetChain) : null;
  }

  /** The admission control of layer k's instance `inst` (null: the layer has none). */
  admission(k: number, inst: number): AdmissionControl | null {
    return this.hasAdmission[k] ? ((this.admissions[k] as AdmissionControl[])[inst] as AdmissionControl) : null;
  }

  /** Follow the first budget's gauge of the instance into the layer's time series. */
  noteBudget(k: number, inst: number, t: number): void {
    const v = (this.chains[k] as BudgetChain[])[inst]?.budgets[0]?.gauge(t) ?? 0;
    const g = this.budgetGauge[k] as Float64Array;
    const sum = (this.budgetGaugeSum[k] as number) + v - (g[inst] as number);
    g[inst] = v;
    this.budgetGaugeSum[k] = sum;
    (this.gBudget[k] as TimeWeightedSeries).set(t, sum / (this.instances[k] as number));
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

