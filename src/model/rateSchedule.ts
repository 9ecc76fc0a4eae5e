import type { RateSchedule } from './scenario.js';

/**
 * An open-loop arrival rate as a function of time (per second), with its maximum for thinning.
 * Times before the first breakpoint (the warm-up included) take the initial rate.
 */
export interface RateFunction {
  ratePerSec(tMs: number): number;
  maxRatePerSec: number;
}

/** A schedule's kind as a code, for the switch of {@link ScheduledRate.ratePerSec}. */
const STEADY = 0;
const STEP = 1;
const SPIKE = 2;
const RAMP = 3;

/**
 * The rate of a schedule (steady, step, spike, or piecewise-linear ramp) in plain fields: its kind
 * as a code and its numbers, read by one switch (no closure, so a copy of a run's state can copy it).
 */
export class ScheduledRate implements RateFunction {
  readonly maxRatePerSec: number;
  private readonly kind: number;
  /** The rate before `atMs` (step), outside the spike (spike), the only one (steady). */
  private readonly baseRatePerSec: number;
  /** The rate from `atMs` (step), during the spike (spike). */
  private readonly otherRatePerSec: number;
  /** Where a step or a spike begins. */
  private readonly atMs: number;
  /** Where a spike ends. */
  private readonly endMs: number;
  /** A ramp's points (empty otherwise). */
  private readonly points: ReadonlyArray<{ atMs: number; ratePerSec: number }>;

  constructor(s: RateSchedule) {
    this.points = [];
    this.atMs = 0;
    this.endMs = 0;
    this.otherRatePerSec = 0;
    switch (s.kind) {
      case 'steady':
        this.kind = STEADY;
        this.baseRatePerSec = s.ratePerSec;
        this.maxRatePerSec = s.ratePerSec;
        break;
      case 'step':
        this.kind = STEP;
        this.baseRatePerSec = s.ratePerSec;
        this.otherRatePerSec = s.toRatePerSec;
        this.atMs = s.atMs;
        this.maxRatePerSec = Math.max(s.ratePerSec, s.toRatePerSec);
        break;
      case 'spike':
        this.kind = SPIKE;
        this.baseRatePerSec = s.ratePerSec;
        this.otherRatePerSec = s.spikeRatePerSec;
        this.atMs = s.atMs;
        this.endMs = s.atMs + s.durationMs;
        this.maxRatePerSec = Math.max(s.ratePerSec, s.spikeRatePerSec);
        break;
      case 'ramp': {
        if (s.points.length === 0) throw new RangeError('a ramp needs at least one point');
        this.kind = RAMP;
        this.baseRatePerSec = 0;
        this.points = s.points;
        let max = 0;
        for (const p of s.points) max = Math.max(max, p.ratePerSec);
        this.maxRatePerSec = max;
        break;
      }
    }
  }

  /** The rate at `tMs`, per second. */
  ratePerSec(tMs: number): number {
    switch (this.kind) {
      case STEADY:
        return this.baseRatePerSec;
      case STEP:
        return tMs < this.atMs ? this.baseRatePerSec : this.otherRatePerSec;
      case SPIKE:
        return tMs >= this.atMs && tMs < this.endMs ? this.otherRatePerSec : this.baseRatePerSec;
      default:
        return rampRate(this.points, tMs);
    }
  }
}

/** A piecewise-linear ramp's rate at `t` (its first rate before the first point, its last after the last). */
function rampRate(pts: ReadonlyArray<{ atMs: number; ratePerSec: number }>, t: number): number {
  const first = pts[0] as { atMs: number; ratePerSec: number };
  const last = pts[pts.length - 1] as { atMs: number; ratePerSec: number };
  if (t <= first.atMs) return first.ratePerSec;
  if (t >= last.atMs) return last.ratePerSec;
  for (let i = 1; i < pts.length; i++) {
    const b = pts[i] as { atMs: number; ratePerSec: number };
    if (t < b.atMs) {
      const a = pts[i - 1] as { atMs: number; ratePerSec: number };
      return a.ratePerSec + ((b.ratePerSec - a.ratePerSec) * (t - a.atMs)) / (b.atMs - a.atMs);
    }
  }
  return last.ratePerSec;
}

/** Turn a rate schedule into a rate function (steady, step, spike, or piecewise-linear ramp): a {@link ScheduledRate}. */
export function rateFunction(s: RateSchedule): RateFunction {
  return new ScheduledRate(s);
}

/** Start and end of the windows where the rate departs from its base (for shading charts). */
export function triggerWindows(s: RateSchedule): Array<{ fromMs: number; toMs: number; label: string }> {
  switch (s.kind) {
    case 'spike':
      return [{ fromMs: s.atMs, toMs: s.atMs + s.durationMs, label: `spike to ${s.spikeRatePerSec}/s` }];
    case 'ramp': {
      const first = s.points[0];
      const last = s.points[s.points.length - 1];
      return first && last && last.atMs > first.atMs ? [{ fromMs: first.atMs, toMs: last.atMs, label: 'ramp' }] : [];
    }
    default:
      return [];
  }
}
