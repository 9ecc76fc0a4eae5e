import type { AdmissionControl } from './AdmissionControl.js';
import { SlidingWindow } from './SlidingWindow.js';

/** Client-side adaptive throttling (Google SRE book ch. 21). */
export interface SreAdaptiveSpec {
  kind: 'sre-adaptive';
  /** Multiplier of accepts: the backend sees about k x accepts (2 preferred; 1.1 rejects less locally). */
  k: number;
  windowMs: number;
}

/** Defaults: K = 2, a 2-minute window (Google SRE book ch. 21, "Client-Side Throttling"). */
export const SRE_ADAPTIVE_DEFAULTS = { k: 2, windowMs: 120_000 } as const;

const SLICES = 120;
const REQUESTS = 0;
const ACCEPTS = 1;

/**
 * The SRE book's client-side adaptive throttling (ch. 21, "Handling Overload"): over the window,
 * `requests` counts every attempt the client wanted to send (locally rejected ones included) and
 * `accepts` those the backend accepted; an attempt is rejected locally with probability
 * P = max(0, (requests - K * accepts) / (requests + 1)), i.e. when u < P. P is computed before the
 * attempt is counted. Sliding window of 120 slices. Gauge: the current P.
 */
export class SreAdaptiveThrottle implements AdmissionControl {
  private readonly window: SlidingWindow;

  constructor(private readonly spec: SreAdaptiveSpec) {
    this.window = new SlidingWindow(spec.windowMs, SLICES, 2);
  }

  /** The current rejection probability. */
  rejectProbability(nowMs: number): number {
    const requests = this.window.total(nowMs, REQUESTS);
    return Math.max(0, (requests - this.spec.k * this.window.total(nowMs, ACCEPTS)) / (requests + 1));
  }

  admit(nowMs: number, u: number): number {
    const p = this.rejectProbability(nowMs);
    this.window.add(nowMs, REQUESTS, 1);
    return u < p ? -1 : 0;
  }

  onOutcome(nowMs: number, _outcome: number, accepted: boolean): void {
    if (accepted) this.window.add(nowMs, ACCEPTS, 1);
  }

  gauge(nowMs: number): number {
    return this.rejectProbability(nowMs);
  }
}
