/** A named interval of simulated time to measure on its own (`{ name: 'outage', fromMs: 60000, toMs: 90000 }`). */
export interface MetricWindowSpec {
  name: string;
  fromMs: number;
  toMs: number;
}

/** How long the tail of a window is that decides whether the system recovered in it. */
export const RECOVERY_TAIL_MS = 30_000;
/** The share of the demand offered in that tail that must succeed in it. */
export const RECOVERY_SHARE = 0.9;

/** The measures of a window that are metrics of a run (`windows.<name>.<measure>` in summary.json). */
export const WINDOW_METRICS = ['amplification', 'successRate', 'goodputPerSec', 'recovered'] as const;

/** What one window measured. */
export interface MetricWindowResult {
  name: string;
  fromMs: number;
  toMs: number;
  /** Operations that started in the window. */
  offered: number;
  /** Of those, the ones that succeeded (whenever they ended). */
  succeeded: number;
  /** Requests the leaf received in the window. */
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
  private static readonly FIELDS = 6;

  constructor(private readonly specs: readonly MetricWindowSpec[]) {
    const n = specs.length;
    this.from = Float64Array.from(specs, (w) => w.fromMs);
    this.to = Float64Array.from(specs, (w) => w.toMs);
    this.tailFrom = Float64Array.from(specs, (w) => Math.max(w.fromMs, w.toMs - RECOVERY_TAIL_MS));
    this.counts = new Float64Array(n * MetricWindows.FIELDS);
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
  }

  /** The leaf receives a request at `t`. */
  leafCall(t: number): void {
    this.add(1, t, -1);
  }

  /** An operation that started at `startMs` succeeds at `t`. */
  succeeded(startMs: number, t: number): void {
    this.add(2, startMs, -1);
    this.add(3, t, 5);
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
      };
    });
  }
}
