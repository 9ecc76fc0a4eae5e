import * as outcomeModule from '../outcome.js';
import type { AdmissionControl } from './AdmissionControl.js';
import { SlidingWindow } from './SlidingWindow.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Outcome } = outcomeModule;

/** Envoy's admission_control HTTP filter. */
export interface EnvoyAdmissionSpec {
  kind: 'envoy-admission';
  /** The sampling window. */
  windowMs: number;
  /** >= 1; higher rejects more at a given success rate. */
  aggression: number;
  /** Success rate (0-1) below which requests start being rejected. */
  successRateThreshold: number;
  /** The rejection probability never goes above this (0-1). */
  maxRejectionProbability: number;
  /** No rejection while the window's average rate (answered requests per second) is below this. */
  rpsThreshold: number;
}

/**
 * Defaults of envoyproxy/envoy:source/extensions/filters/http/admission_control/admission_control.cc
 * (defaultAggression 1, defaultSuccessRateThreshold 95%, defaultRpsThreshold 0,
 * defaultMaxRejectionProbability 80%) and api/envoy/extensions/filters/http/admission_control/v3/
 * admission_control.proto (sampling_window 30 s).
 */
export const ENVOY_ADMISSION_DEFAULTS = {
  windowMs: 30_000,
  aggression: 1,
  successRateThreshold: 0.95,
  maxRejectionProbability: 0.8,
  rpsThreshold: 0,
} as const;

const SLICE_MS = 1000;
const REQUESTS = 0;
const SUCCESSES = 1;

/**
 * Envoy's admission control (admission_control.cc `shouldRejectRequest`; thread_local_controller.cc
 * keeps 1 s samples over the window): P = ((rq - succ / threshold) / (rq + 1))^(1 / aggression),
 * at most maxRejectionProbability, rejected when u < P; nothing is rejected while rq / window
 * seconds < rpsThreshold or P <= 0. Rejected requests are not recorded ("this taints the
 * measurements"); answered ones are, a success being any answer but a 5xx or no answer (the default
 * success criteria: HTTP status < 500), so 400, 404, 429 and conflicts count as successes and
 * timeouts, 500, 503 and local refusals from below as failures. Window slices are aligned to whole
 * seconds (the source starts a sample at the first request of each second). Gauge: the current P.
 */
export class EnvoyAdmissionControl implements AdmissionControl {
  private readonly window: SlidingWindow;
  private readonly windowSec: number;

  constructor(private readonly spec: EnvoyAdmissionSpec) {
    const slices = Math.max(1, Math.round(spec.windowMs / SLICE_MS));
    this.window = new SlidingWindow(spec.windowMs, slices, 2);
    this.windowSec = spec.windowMs / 1000;
  }

  /** The current rejection probability. */
  rejectProbability(nowMs: number): number {
    const rq = this.window.total(nowMs, REQUESTS);
    if (rq / this.windowSec < this.spec.rpsThreshold) return 0;
    let p = (rq - this.window.total(nowMs, SUCCESSES) / this.spec.successRateThreshold) / (rq + 1);
    if (!(p > 0)) return 0;
    if (this.spec.aggression !== 1) p = Math.pow(p, 1 / this.spec.aggression);
    return Math.min(p, this.spec.maxRejectionProbability);
  }

  admit(nowMs: number, u: number): number {
    return u < this.rejectProbability(nowMs) ? -1 : 0;
  }

  onOutcome(nowMs: number, outcome: number): void {
    this.window.add(nowMs, REQUESTS, 1);
    if (envoySuccess(outcome)) this.window.add(nowMs, SUCCESSES, 1);
  }

  gauge(nowMs: number): number {
    return this.rejectProbability(nowMs);
  }
}

/** Envoy's default success criterion: an answer below 500. */
function envoySuccess(outcome: number): boolean {
  switch (outcome) {
    case Outcome.SUCCESS:
    case Outcome.S400:
    case Outcome.S404:
    case Outcome.S429:
    case Outcome.CONFLICT:
      return true;
    default:
      return false;
  }
}
