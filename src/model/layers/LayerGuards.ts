import type { Uniform } from '../../engine/random.js';
import { MAX_SERIES_BINS, TimeWeightedSeries } from '../../metrics/index.js';
import { makeAdmissionControl, type AdmissionControl } from '../../policy/budgets/AdmissionControl.js';
import { BudgetChain, makeBudgetChain } from '../../policy/budgets/BudgetChain.js';
import { makeEmptyRetryBudget, type RetryBudget } from '../../policy/budgets/RetryBudget.js';
import type { PolicySpec } from '../../policy/types.js';
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
 * shared by 10,000 clients behaves unlike 10,000 budgets; docs/concepts.md, "Budgets and breakers"), and the
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
  /** Per layer: its policy now (timed interventions swap it, {@link swap}), and the kind of budget its series follows. */
  private readonly policies: PolicySpec[];
  private readonly budgetKind: Array<string | undefined>;
  private readonly admissions: Array<Array<AdmissionControl | null>>;
  private readonly instances: number[];
  /** The admission controls' uniform draws (one stream for every layer; {@link uniform} hands them to the retry loops). */
  private readonly uAdmission: Uniform;
  /** Per layer with budgets: the first budget's gauge of each instance, their sum, and its series. */
  private readonly budgetGauge: Float64Array[];
  private readonly budgetGaugeSum: Float64Array;
  private readonly gBudget: Array<TimeWeightedSeries | null>;

  /**
   * `later`: per layer, the policies timed interventions give it during the run (none: the layer
   * keeps its own); a layer that will have budgets or an admission control is guarded from the
   * start, so that every frame knows its instance, and its budget series exists from the start.
   */
  constructor(sc: Scenario, seed: number, later: ReadonlyArray<readonly PolicySpec[]> = []) {
    const L = sc.stack.length;
    this.instances = sc.stack.map((l) => l.instances);
    this.policies = sc.stack.map((l) => l.policy);
    this.chains = sc.stack.map((l) => Array.from({ length: l.instances }, () => makeBudgetChain(l.policy.budget)));
    this.gauged = this.chains.map((cs, k) => cs.map((c, inst) => new GaugedChain(c, this, k, inst)));
    this.hasBudget = sc.stack.map((l) => (l.policy.budget?.length ?? 0) > 0);
    this.admissions = sc.stack.map((l) =>
      Array.from({ length: l.instances }, () => (l.policy.admission ? makeAdmissionControl(l.policy.admission) : null)),
    );
    this.hasAdmission = sc.stack.map((l) => l.policy.admission !== undefined);
    const ever = (k: number, has: (p: PolicySpec) => boolean): boolean => (later[k] ?? []).some(has);
    const budgetEver = sc.stack.map((_, k) => (this.hasBudget[k] as boolean) || ever(k, (p) => (p.budget?.length ?? 0) > 0));
    const admissionEver = sc.stack.map((_, k) => (this.hasAdmission[k] as boolean) || ever(k, (p) => p.admission !== undefined));
    this.guarded = sc.stack.map((_, k) => (budgetEver[k] as boolean) || (admissionEver[k] as boolean));
    this.budgetKind = sc.stack.map((l, k) => l.policy.budget?.[0]?.kind ?? (later[k] ?? []).find((p) => p.budget?.[0] !== undefined)?.budget?.[0]?.kind);
    this.uAdmission = streamIf(admissionEver.some((a) => a), seed, 'admission');
    this.budgetGauge = sc.stack.map((l, k) => {
      const g = new Float64Array(l.instances);
      if (this.hasBudget[k]) for (let i = 0; i < l.instances; i++) g[i] = this.chains[k]?.[i]?.budgets[0]?.gauge(-sc.warmupMs) ?? 0;
      return g;
    });
    this.budgetGaugeSum = new Float64Array(L);
    this.budgetGauge.forEach((g, k) => (this.budgetGaugeSum[k] = g.reduce((a, b) => a + b, 0)));
    const binMs = sc.metrics.timeSeriesBinMs;
    this.gBudget = sc.stack.map((l, k) =>
      budgetEver[k] ? new TimeWeightedSeries(binMs, MAX_SERIES_BINS, -sc.warmupMs, (this.budgetGaugeSum[k] as number) / l.instances) : null,
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

  /**
   * Layer k takes `policy` at t (a timed intervention): a budget whose spec is new or changed (by
   * its position in the list) is a fresh one that starts empty ({@link makeEmptyRetryBudget}), one
   * whose spec is unchanged keeps its state; an admission control whose spec changed is a fresh
   * one. Every instance at once; the budget series follows the new gauges from t. Returns whether
   * some budget is new (a retry waiting since before t is then asked to the new budgets).
   */
  swap(k: number, policy: PolicySpec, t: number): boolean {
    const old = this.policies[k] as PolicySpec;
    this.policies[k] = policy;
    const oldBudgets = old.budget ?? [];
    const newBudgets = policy.budget ?? [];
    const same = newBudgets.map((spec, i) => oldBudgets[i] !== undefined && JSON.stringify(oldBudgets[i]) === JSON.stringify(spec));
    const changed = newBudgets.length !== oldBudgets.length || same.some((s) => !s);
    const n = this.instances[k] as number;
    if (changed) {
      const chains = this.chains[k] as BudgetChain[];
      const gauged = this.gauged[k] as BudgetChain[];
      for (let inst = 0; inst < n; inst++) {
        const kept = (chains[inst] as BudgetChain).budgets;
        const budgets: RetryBudget[] = newBudgets.map((spec, i) => (same[i] ? (kept[i] as RetryBudget) : makeEmptyRetryBudget(spec)));
        const plain = new BudgetChain(budgets);
        chains[inst] = plain;
        gauged[inst] = new GaugedChain(plain, this, k, inst);
      }
      this.hasBudget[k] = newBudgets.length > 0;
      if (newBudgets[0] !== undefined) this.budgetKind[k] = newBudgets[0].kind;
      if (this.gBudget[k]) for (let inst = 0; inst < n; inst++) this.noteBudget(k, inst, t);
    }
    if (JSON.stringify(old.admission) !== JSON.stringify(policy.admission)) {
      const spec = policy.admission;
      this.admissions[k] = Array.from({ length: n }, () => (spec ? makeAdmissionControl(spec) : null));
      this.hasAdmission[k] = spec !== undefined;
    }
    return changed && newBudgets.some((_, i) => !same[i]);
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
      const kind = this.budgetKind[k];
      return g && kind ? [{ layer: l.name, kind, values: g.binMeans(bins) }] : [];
    });
  }
}

