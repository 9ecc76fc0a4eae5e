import type { RateSchedule } from './scenario.js';

/**
 * An open-loop arrival rate as a function of time (per second), with its maximum for thinning.
 * Times before the first breakpoint (the warm-up included) take the initial rate.
 */
export interface RateFunction {
  ratePerSec(tMs: number): number;
  maxRatePerSec: number;
}

/** Turn a rate schedule into a rate function (steady, step, spike, or piecewise-linear ramp). */
export function rateFunction(s: RateSchedule): RateFunction {
  switch (s.kind) {
    case 'steady':
      return { ratePerSec: () => s.ratePerSec, maxRatePerSec: s.ratePerSec };
    case 'step':
      return {
        ratePerSec: (t) => (t < s.atMs ? s.ratePerSec : s.toRatePerSec),
        maxRatePerSec: Math.max(s.ratePerSec, s.toRatePerSec),
      };
    case 'spike': {
      const end = s.atMs + s.durationMs;
      return {
        ratePerSec: (t) => (t >= s.atMs && t < end ? s.spikeRatePerSec : s.ratePerSec),
        maxRatePerSec: Math.max(s.ratePerSec, s.spikeRatePerSec),
      };
    }
    case 'ramp': {
      const pts = s.points;
      const first = pts[0];
      const last = pts[pts.length - 1];
      if (first === undefined || last === undefined) throw new RangeError('a ramp needs at least one point');
      let max = 0;
      for (const p of pts) max = Math.max(max, p.ratePerSec);
      return {
        ratePerSec(t: number): number {
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
        },
        maxRatePerSec: max,
      };
    }
  }
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
