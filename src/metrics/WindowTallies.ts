import type { MetricWindowSpec } from './MetricWindows.js';

/** What one tally counted in one metric window. */
export interface WindowTally {
  /** Events in the window (a graph edge's calls). */
  count: number;
  /** Of them, those marked as retries (sent while a layer on the path from the entry was retrying). */
  retries: number;
}

/**
 * Counts of one stream of events (a service graph's calls on one edge) in each named metric window
 * (`metrics.windows`; an event at t counts in a window when fromMs <= t < toMs, as
 * {@link MetricWindows} counts leaf calls), with those marked as retries kept apart. Made only
 * when the scenario has windows, so a run without them pays nothing per event.
 */
export class WindowTallies {
  private readonly from: Float64Array;
  private readonly to: Float64Array;
  /** Per window: the count, then the retries. */
  private readonly counts: Float64Array;

  constructor(specs: readonly MetricWindowSpec[]) {
    this.from = Float64Array.from(specs, (w) => w.fromMs);
    this.to = Float64Array.from(specs, (w) => w.toMs);
    this.counts = new Float64Array(2 * specs.length);
  }

  /** An event at t; `retry` 1 when it is a retry, else 0. */
  add(t: number, retry: number): void {
    const c = this.counts;
    for (let w = 0; w < this.from.length; w++) {
      if (t < (this.from[w] as number) || t >= (this.to[w] as number)) continue;
      c[2 * w] = (c[2 * w] as number) + 1;
      c[2 * w + 1] = (c[2 * w + 1] as number) + retry;
    }
  }

  /** What window w (in the order of the specs) counted. */
  tally(w: number): WindowTally {
    return { count: this.counts[2 * w] as number, retries: this.counts[2 * w + 1] as number };
  }
}
