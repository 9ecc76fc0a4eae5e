/** A named interval of simulated time to measure on its own (`{ name: 'outage', fromMs: 60000, toMs: 90000 }`). */
export interface MetricWindowSpec {
  name: string;
  fromMs: number;
  toMs: number;
  /** Also measure {@link MetricWindowResult.recoveryMs} (it keeps two counts per second of the window). */
  recoveryTime?: boolean;
}

/** How long the tail of a window is that decides whether the system recovered in it. */
export const RECOVERY_TAIL_MS = 30_000;
/** The share of the demand offered in that tail that must succeed in it. */
export const RECOVERY_SHARE = 0.9;

/** The bins of the recovery time: 1 s of goodput and demand each, counted from the window's start. */
export const RECOVERY_BIN_MS = 1000;
/** How long goodput must keep up with demand, from a bin on, for the system to count as back then. */
export const RECOVERY_SPAN_MS = 10_000;
/** The most recovery bins a window keeps (a longer window is searched over its first million seconds). */
export const RECOVERY_MAX_BINS = 1_000_000;

/**
 * The measures of a window that are metrics of every run (`windows.<name>.<measure>` in summary.json),
 * those a tuning goal may read. `recoveryMs` is a metric too, but only of the runs that got back.
 */
export const WINDOW_METRICS = ['amplification', 'successRate', 'goodputPerSec', 'recovered'] as const;

/** A service graph's calls on one edge in a window (`windows.<name>.edges.<caller>-><callee>.*`). */
export interface WindowEdgeResult {
  /** The calling service, or the workload for an entry edge. */
  caller: string;
  callee: string;
  /** Calls arriving at the callee from the caller in the window. */
  calls: number;
  /** Of them, those sent while any layer on the path from the entry was past its first attempt. */
  retries: number;
  /** Calls per operation offered in the window (0 without any). */
  amplification: number;
}

/** What one window measured. */
export interface MetricWindowResult {
  name: string;
  fromMs: number;
  toMs: number;
  /** Operations that started in the window. */
  offered: number;
  /** Of those, the ones that succeeded (whenever they ended). */
  succeeded: number;
  /** Requests the leaf received in the window (a service graph: calls arriving at its leaf services). */
  leafCalls: number;
  /** Leaf calls in the window per operation offered in it (0 without any). */
  amplification: number;
  /** succeeded / offered (0 without any). */
  successRate: number;
  /** Operations that succeeded in the window, per second of it. */
  goodputPerSec: number;
  /**
   * Whether goodput over the window's last 30 s (the whole window if shorter) reached 90% of the
   * demand offered in that time: successes ending in it >= 0.9 x operations starting in it.
   */
  recovered: boolean;
  /**
   * How long after the window's start the system was back: the start of the first 1 s bin (bins
   * counted from the window's start) from which the successes ending in the next 10 s reach 90% of
   * the operations starting in those 10 s, the 10 s inside the window; null when no bin does. With
   * the window starting at an operator's intervention it is the time that intervention took to
   * bring the system back; a bin offered nothing counts as kept up with, as in `recovered`. Only for
   * a window with `recoveryTime`.
   */
  recoveryMs?: number | null;
  /** Service graphs only: the calls on each edge in the window, in the order of the run's `edges`. */
  edges?: WindowEdgeResult[];
}

/**
 * The recovery time of {@link MetricWindowResult.recoveryMs} from per-bin counts: the start (bin
 * index x `binMs`) of the first bin b with b + span bins inside `bins` (the whole bins of the
 * window) such that the successes in bins b..b+span-1 reach `share` of the operations offered in
 * them; null when none does. A sliding sum, so linear in the bins.
 */
export function recoveryFromBins(
  offered: ArrayLike<number>,
  succeeded: ArrayLike<number>,
  bins: number,
  spanBins = RECOVERY_SPAN_MS / RECOVERY_BIN_MS,
  share = RECOVERY_SHARE,
  binMs = RECOVERY_BIN_MS,
): number | null {
  if (bins < spanBins) return null;
  let off = 0;
  let ok = 0;
  for (let i = 0; i < spanBins; i++) {
    off += offered[i] as number;
    ok += succeeded[i] as number;
  }
  for (let b = 0; ; b++) {
    if (ok >= share * off) return b * binMs;
    if (b + spanBins >= bins) return null;
    off += (offered[b + spanBins] as number) - (offered[b] as number);
    ok += (succeeded[b + spanBins] as number) - (succeeded[b] as number);
  }
}

/**
 * Counters of named metric windows (`metrics.windows`), so that "during the outage" and "after it"
 * are measured as such: operations offered and leaf calls by the time they happen, successes both
 * by their operation's start (success rate) and by their end (goodput, recovery).
 */
export class MetricWindows {
  private readonly from: Float64Array;
  private readonly to: Float64Array;
  private readonly tailFrom: Float64Array;
  private readonly counts: Float64Array;
  /** Per window, operations offered and successes ended in each 1 s bin from its start (whole bins only). */
  private readonly binOffered: Float64Array[];
  private readonly binSucceeded: Float64Array[];
  /** Whether any window measures its recovery time. */
  private readonly timed: boolean;
  private static readonly FIELDS = 6;

  constructor(private readonly specs: readonly MetricWindowSpec[]) {
    const n = specs.length;
    this.from = Float64Array.from(specs, (w) => w.fromMs);
    this.to = Float64Array.from(specs, (w) => w.toMs);
    this.tailFrom = Float64Array.from(specs, (w) => Math.max(w.fromMs, w.toMs - RECOVERY_TAIL_MS));
    this.counts = new Float64Array(n * MetricWindows.FIELDS);
    const bins = specs.map((w) => (w.recoveryTime === true ? Math.min(RECOVERY_MAX_BINS, Math.floor((w.toMs - w.fromMs) / RECOVERY_BIN_MS)) : 0));
    this.timed = specs.some((w) => w.recoveryTime === true);
    this.binOffered = bins.map((b) => new Float64Array(b));
    this.binSucceeded = bins.map((b) => new Float64Array(b));
  }

  /** Counts `t` in the recovery bin of each window it falls in (beyond the whole bins: nowhere). */
  private addBin(arrays: Float64Array[], t: number): void {
    for (let w = 0; w < this.from.length; w++) {
      const from = this.from[w] as number;
      if (t < from) continue;
      const a = arrays[w] as Float64Array;
      const b = Math.floor((t - from) / RECOVERY_BIN_MS);
      if (b < a.length) a[b] = (a[b] as number) + 1;
    }
  }

  private add(field: number, t: number, tail: number): void {
    for (let w = 0; w < this.from.length; w++) {
      if (t < (this.from[w] as number) || t >= (this.to[w] as number)) continue;
      const base = w * MetricWindows.FIELDS;
      const c = this.counts;
      c[base + field] = (c[base + field] as number) + 1;
      if (tail >= 0 && t >= (this.tailFrom[w] as number)) c[base + tail] = (c[base + tail] as number) + 1;
    }
  }

  /** An operation starts at `t`. */
  offered(t: number): void {
    this.add(0, t, 4);
    if (this.timed) this.addBin(this.binOffered, t);
  }

  /** The leaf receives a request at `t`. */
  leafCall(t: number): void {
    this.add(1, t, -1);
  }

  /** An operation that started at `startMs` succeeds at `t`. */
  succeeded(startMs: number, t: number): void {
    this.add(2, startMs, -1);
    this.add(3, t, 5);
    if (this.timed) this.addBin(this.binSucceeded, t);
  }

  /** What each window measured, in the order given. */
  results(): MetricWindowResult[] {
    return this.specs.map((w, i) => {
      const c = (k: number) => this.counts[i * MetricWindows.FIELDS + k] as number;
      const offered = c(0);
      const sec = (w.toMs - w.fromMs) / 1000;
      return {
        name: w.name,
        fromMs: w.fromMs,
        toMs: w.toMs,
        offered,
        succeeded: c(2),
        leafCalls: c(1),
        amplification: offered > 0 ? c(1) / offered : 0,
        successRate: offered > 0 ? c(2) / offered : 0,
        goodputPerSec: sec > 0 ? c(3) / sec : 0,
        recovered: c(5) >= RECOVERY_SHARE * c(4),
        ...(w.recoveryTime === true
          ? { recoveryMs: recoveryFromBins(this.binOffered[i] as Float64Array, this.binSucceeded[i] as Float64Array, (this.binOffered[i] as Float64Array).length) }
          : {}),
      };
    });
  }
}
