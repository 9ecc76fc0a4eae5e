import type { RiskSection } from '../experiment/riskSchema.js';
import type { Model } from '../model/Model.js';
import type { StopReason } from '../risk/SplittableSystem.js';
import { Probe } from './probes.js';

/** The most points of the example trajectory a {@link RiskMonitor} keeps (it thins them past this). */
export const EXAMPLE_POINTS = 500;

/** One trajectory as the check grid saw it, plain JSON: see `CellRisk.example`. */
export interface ExampleTrajectory {
  tMs: number[];
  importance: number[];
  collapseMetric: number[];
  /** When the collapse condition began to hold without a break (NaN while it does not). */
  collapseAtMs: number;
}

/** The number of check intervals in a window of `windowMs` on a grid of `checkEveryMs` (at least 1). */
export function windowChecks(windowMs: number | undefined, checkEveryMs: number): number {
  if (checkEveryMs <= 0) return 1;
  return Math.max(1, Math.round((windowMs ?? checkEveryMs) / checkEveryMs));
}

/**
 * What a risk estimate watches in one running model, read at each point of the check grid: the
 * importance and collapse probes, the time since which the collapse condition has held without a
 * break, whether the importance has reached `absorbBelow` (after which falling below it ends the
 * trajectory), the next check's time, and the trajectory's points as the grid saw them (thinned to
 * at most {@link EXAMPLE_POINTS}, every `stride`-th check kept). Its state is plain fields, copied
 * with the model it refers to (a snapshot is the pair).
 */
export class RiskMonitor {
  readonly importanceProbe: Probe;
  readonly collapseProbe: Probe;
  /** The readings of the last check. */
  importance = 0;
  collapseMetric = 0;
  /** The time of the first check of the current unbroken run of checks at which the collapse condition held (NaN: it does not hold). */
  heldSinceMs = NaN;
  /** Whether the importance has reached `absorbBelow` at some check. */
  reachedAbsorb = false;
  /** The time of the last check, and of the next (grid of checkEveryMs > 0). */
  lastCheckMs = -Infinity;
  nextCheckMs: number;
  /** Whether the run is over (its horizon reached, or its events run out). */
  over = false;
  /** The trajectory's points (checks at t >= 0), every `stride`-th check: the first `points` of each (typed arrays, cheap to copy). */
  private readonly tMs = new Float64Array(EXAMPLE_POINTS);
  private readonly importances = new Float64Array(EXAMPLE_POINTS);
  private readonly collapseMetrics = new Float64Array(EXAMPLE_POINTS);
  private points = 0;
  private stride = 1;
  private checks = 0;

  /** The check grid (0: after every event). */
  get checkEveryMs(): number {
    return this.risk.checkEveryMs;
  }

  /** A monitor of `model` (begun, at its start time `t0Ms`) for `risk`. */
  constructor(
    model: Model,
    private readonly risk: RiskSection,
    t0Ms: number,
  ) {
    const dt = risk.checkEveryMs;
    this.importanceProbe = Probe.on(model, risk.importance, windowChecks(risk.importance.windowMs, dt));
    this.collapseProbe = Probe.on(model, risk.collapse, windowChecks(risk.collapse.windowMs, dt));
    // + 0: a start at -0 (no warm-up) checks at 0.
    this.nextCheckMs = (dt > 0 ? Math.ceil(t0Ms / dt) * dt : t0Ms) + 0;
  }

  /** Whether the collapse condition holds for this reading (past its threshold). */
  private past(x: number): boolean {
    const c = this.risk.collapse;
    return (c.above === undefined || x > c.above) && (c.below === undefined || x < c.below);
  }

  /** Reads the probes at a check at `tMs` (the run over after it if `over`) and updates the state. */
  check(tMs: number, over: boolean): void {
    this.over = over;
    this.lastCheckMs = tMs;
    this.importance = this.importanceProbe.read();
    this.collapseMetric = this.collapseProbe.read();
    if (this.past(this.collapseMetric)) {
      if (Number.isNaN(this.heldSinceMs)) this.heldSinceMs = tMs;
    } else this.heldSinceMs = NaN;
    const absorb = this.risk.absorbBelow;
    if (absorb !== undefined && this.importance >= absorb) this.reachedAbsorb = true;
    if (tMs >= 0) this.record(tMs);
  }

  /** Keeps this check's point of the example trajectory, thinning the points past {@link EXAMPLE_POINTS}. */
  private record(tMs: number): void {
    if (this.checks++ % this.stride !== 0) return;
    const n = this.points++;
    this.tMs[n] = tMs;
    this.importances[n] = this.importance;
    this.collapseMetrics[n] = this.collapseMetric;
    if (this.points === EXAMPLE_POINTS) {
      // Every other point goes: the first stays, and the checks kept from now on are every 2 * stride-th.
      for (const a of [this.tMs, this.importances, this.collapseMetrics]) for (let i = 0; 2 * i < EXAMPLE_POINTS; i++) a[i] = a[2 * i] as number;
      this.points = Math.ceil(EXAMPLE_POINTS / 2);
      this.stride *= 2;
    }
  }

  /** Why a trajectory stops at this check when asked to run until `untilImportance` (null: it goes on), in the order of {@link StopReason}. */
  verdict(untilImportance: number): StopReason | null {
    if (!Number.isNaN(this.heldSinceMs) && this.lastCheckMs - this.heldSinceMs >= this.risk.collapse.forMs) return 'collapse';
    if (this.importance >= untilImportance) return 'level';
    const absorb = this.risk.absorbBelow;
    if (absorb !== undefined && this.reachedAbsorb && this.importance < absorb) return 'absorbed';
    if (this.over) return 'horizon';
    return null;
  }

  /** The trajectory so far, as plain JSON. */
  example(): ExampleTrajectory {
    const n = this.points;
    const x = {
      tMs: Array.from(this.tMs.subarray(0, n)),
      importance: Array.from(this.importances.subarray(0, n)),
      collapseMetric: Array.from(this.collapseMetrics.subarray(0, n)),
      collapseAtMs: this.heldSinceMs,
    };
    // The last check (the collapse) is drawn even where the thinning skipped it.
    if (this.lastCheckMs >= 0 && x.tMs.at(-1) !== this.lastCheckMs) {
      x.tMs.push(this.lastCheckMs);
      x.importance.push(this.importance);
      x.collapseMetric.push(this.collapseMetric);
    }
    return x;
  }
}
