import { MAX_SERIES_BINS, TimeWeightedSeries } from '../../../metrics/index.js';
import type { BackendStats, ServerSeries, ServerTotals } from '../Leaf.js';
import { CASCADE_BIN_MS } from '../../../metrics/cascadeTimeline.js';
import { FarmBins } from './FarmBins.js';
import type { LoadBalancer } from './LoadBalancer.js';

/**
 * What a server farm measures, per backend and in all (t >= 0 only for the counters): answers by
 * kind, lost and wasted work, the largest queue, and the time-weighted series of busy workers and
 * queue length (per backend for pools of 2 to 64 backends).
 */
export class FarmStats {
  readonly served: Float64Array;
  readonly shed: Float64Array;
  readonly dropped: Float64Array;
  readonly refused: Float64Array;
  readonly faulted: Float64Array;
  readonly rejected: Float64Array;
  readonly lost: Float64Array;
  readonly crashes: Float64Array;
  readonly wasted: Float64Array;
  readonly maxQueue: Float64Array;
  cancelled = 0;
  /**
   * The counters per bin of the series' width ({@link FarmBins}; null unless kept, and then nothing
   * is binned), and per bin of the cascade timeline's 1 s when the series' width is another (else
   * null: `bins` serves both).
   */
  readonly bins: FarmBins | null;
  readonly timelineBins: FarmBins | null;
  private readonly gBusy: TimeWeightedSeries[];
  private readonly gQueue: TimeWeightedSeries[];
  private readonly gBusyTotal: TimeWeightedSeries;
  private readonly gQueueTotal: TimeWeightedSeries;
  private busyTotal = 0;
  private queueTotal = 0;

  constructor(
    private readonly n: number,
    binMs: number,
    startMs: number,
    binCounts = false,
    workers = 0,
  ) {
    this.served = new Float64Array(n);
    this.shed = new Float64Array(n);
    this.dropped = new Float64Array(n);
    this.refused = new Float64Array(n);
    this.faulted = new Float64Array(n);
    this.rejected = new Float64Array(n);
    this.lost = new Float64Array(n);
    this.crashes = new Float64Array(n);
    this.wasted = new Float64Array(n);
    this.maxQueue = new Float64Array(n);
    const perBackend = n > 1 && n <= 64;
    const series = () => new TimeWeightedSeries(binMs, MAX_SERIES_BINS, startMs, 0);
    this.gBusy = perBackend ? Array.from({ length: n }, series) : [];
    this.gQueue = perBackend ? Array.from({ length: n }, series) : [];
    this.gBusyTotal = series();
    this.gQueueTotal = series();
    this.bins = binCounts ? new FarmBins(binMs, startMs, workers, false) : null;
    this.timelineBins = binCounts && binMs !== CASCADE_BIN_MS ? new FarmBins(CASCADE_BIN_MS, startMs, workers, true) : null;
  }

  /** n more of `kind` ({@link FarmBin}) at t in the bins kept (none: nothing). */
  bin(kind: number, t: number, n = 1): void {
    const a = this.bins;
    if (a === null) return;
    a.add(kind, t, n);
    this.timelineBins?.add(kind, t, n);
  }

  /** The farm's workers available (over all backends, the capacity schedule applied) are now `workers`. */
  workersChanged(workers: number, t: number): void {
    this.bins?.workers.set(t, workers);
    this.timelineBins?.workers.set(t, workers);
  }

  /** Backend b's queue is now `q` long (changed by `delta`). */
  queueChanged(b: number, q: number, delta: number, t: number): void {
    this.gQueue[b]?.set(t, q);
    this.queueTotal += delta;
    this.gQueueTotal.set(t, this.queueTotal);
    if (t >= 0 && q > this.maxQueue[b]!) this.maxQueue[b] = q;
  }

  /** Backend b has `busy` workers busy now (changed by `delta`). */
  busyChanged(b: number, busy: number, delta: number, t: number): void {
    this.gBusy[b]?.set(t, busy);
    this.busyTotal += delta;
    this.gBusyTotal.set(t, this.busyTotal);
    this.timelineBins?.busy?.set(t, this.busyTotal);
  }

  finish(endMs: number): void {
    for (const g of this.gBusy) g.finish(endMs);
    for (const g of this.gQueue) g.finish(endMs);
    this.gBusyTotal.finish(endMs);
    this.gQueueTotal.finish(endMs);
    this.bins?.finish(endMs);
    this.timelineBins?.finish(endMs);
  }

  /** Totals over all backends, as the single-server results report them. */
  totals(baseConcurrency: Float64Array): ServerTotals {
    const sum = (a: Float64Array) => a.reduce((x, y) => x + y, 0);
    const concurrency = baseConcurrency.reduce((x, y) => x + y, 0);
    return {
      concurrency,
      meanBusy: this.gBusyTotal.mean(),
      wastedWorkMs: sum(this.wasted),
      maxQueue: this.n === 1 ? this.maxQueue[0]! : this.gQueueTotal.max,
      served: sum(this.served),
      shed: sum(this.shed),
      dropped: sum(this.dropped),
      faulted: sum(this.faulted),
      refused: sum(this.refused),
      rejected: sum(this.rejected),
      lost: sum(this.lost),
      cancelled: this.cancelled,
      inServiceAtEnd: this.busyTotal,
    };
  }

  /** Per-backend counters. */
  backendStats(baseConcurrency: Float64Array, lb: LoadBalancer, clusterNames: string[]): BackendStats[] {
    return Array.from({ length: this.n }, (_, b) => {
      const c = lb.clusterOf[b]!;
      const cap = baseConcurrency[b]!;
      const meanBusy = this.n === 1 ? this.gBusyTotal.mean() : (this.gBusy[b]?.mean() ?? NaN);
      return {
        cluster: clusterNames[c] as string,
        index: b - lb.clusterStart[c]!,
        utilization: Number.isFinite(cap) && Number.isFinite(meanBusy) ? meanBusy / cap : null,
        meanBusy,
        maxQueue: this.maxQueue[b]!,
        served: this.served[b]!,
        shed: this.shed[b]!,
        dropped: this.dropped[b]!,
        refused: this.refused[b]!,
        faulted: this.faulted[b]!,
        rejected: this.rejected[b]!,
        lost: this.lost[b]!,
        crashes: this.crashes[b]!,
        ejections: lb.ejections[b]!,
        wastedWorkMs: this.wasted[b]!,
      };
    });
  }

  /** Mean busy workers (over all backends) per bin of the series' width. */
  busyMeans(bins: number): number[] {
    return this.gBusyTotal.binMeans(bins);
  }

  /** The series over `bins` bins, the load balancer's health series included. */
  series(bins: number, lb: LoadBalancer): ServerSeries {
    return {
      queue: this.gQueueTotal.binMeans(bins),
      busy: this.gBusyTotal.binMeans(bins),
      healthyBackends: lb.gHealthy.binMeans(bins),
      downBackends: lb.gDown.binMeans(bins),
      ejectedBackends: lb.gEjected.binMeans(bins),
      backendBusy: this.gBusy.map((g) => g.binMeans(bins)),
      backendQueue: this.gQueue.map((g) => g.binMeans(bins)),
    };
  }
}
