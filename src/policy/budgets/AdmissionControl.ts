import { AwsAdaptiveRateLimiter, type AwsAdaptiveSpec } from './AwsAdaptiveRateLimiter.js';
import { EnvoyAdmissionControl, type EnvoyAdmissionSpec } from './EnvoyAdmissionControl.js';
import { SreAdaptiveThrottle, type SreAdaptiveSpec } from './SreAdaptiveThrottle.js';

/**
 * Admission control of one layer instance, asked before every attempt, first tries included
 * (docs/concepts.md, "Concepts": "a refusal gives `throttled` without a call"). A pure state machine; time and
 * the uniform draw are passed in.
 */
export interface AdmissionControl {
  /**
   * Before an attempt at `nowMs`, with a uniform draw `u` in [0, 1): -1 refuses it (give-up
   * `throttled`, no call), otherwise a delay in ms >= 0 to wait before sending (0 = now). Asked once
   * per attempt: an admitted attempt is sent after the delay without asking again.
   */
  admit(nowMs: number, u: number): number;
  /**
   * An admitted attempt ended. accepted: the backend processed it (not refused for overload or
   * throttled; see `acceptedByBackend` in classify.ts).
   */
  onOutcome(nowMs: number, outcome: number, accepted: boolean): void;
  /** The value for the time series (rejection probability, send rate ...). */
  gauge(nowMs: number): number;
}

/** Every admission control, told apart by `kind`, with every field resolved. */
export type AdmissionSpec = SreAdaptiveSpec | EnvoyAdmissionSpec | AwsAdaptiveSpec;

export type AdmissionKind = AdmissionSpec['kind'];

/** The admission kinds, in a stable order (for messages and schemas). */
export const ADMISSION_KINDS: readonly [AdmissionKind, ...AdmissionKind[]] = ['sre-adaptive', 'envoy-admission', 'aws-adaptive'];

/** A fresh admission control (its own state) for one layer instance. */
export function makeAdmissionControl(spec: AdmissionSpec): AdmissionControl {
  switch (spec.kind) {
    case 'sre-adaptive':
      return new SreAdaptiveThrottle(spec);
    case 'envoy-admission':
      return new EnvoyAdmissionControl(spec);
    case 'aws-adaptive':
      return new AwsAdaptiveRateLimiter(spec);
  }
}
