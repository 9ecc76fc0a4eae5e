import type { EventDispatcher, RunBounds, RunStats, Simulator } from '../engine/simulator.js';
import type { AppliedIntervention, Intervention, InterventionTarget } from './interventions.js';

/**
 * A run in progress, advanced in pieces: `runUntil(t)` runs every event at or before t, applying
 * the timed interventions (docs/experiments.md, "Timed interventions") between the events: the
 * events before an intervention's `atMs` run, then its changes apply at `atMs`, then the events at
 * `atMs` and later, so that a change governs every decision at or after its moment and none
 * before. An intervention whose moment lies beyond the run's end (its events ran out, or a bound
 * stopped it) is not applied. Where the pieces end changes nothing: running to t1 and then to t2
 * runs the same events, in the same order, as running to t2 at once (the model reads the clock only
 * inside events). A run without interventions run to its horizon at once is one `sim.run`.
 *
 * Its state is plain fields (what a snapshot of a run copies, src/engine/copyState.ts).
 */
export class RunCursor {
  /** Events run so far, over every piece. */
  events = 0;
  /** The index of the next intervention to apply. */
  nextIntervention = 0;
  /** The interventions applied so far (the results' `interventions`). */
  readonly applied: AppliedIntervention[] = [];
  /** Whether the run is over: its horizon reached, its events run out, or a bound stopped it. */
  over = false;
  /** The stats of the last piece (`truncated` of the run once it is over). */
  private last: RunStats;

  constructor(
    private readonly sim: Simulator,
    private readonly handler: EventDispatcher,
    private readonly bounds: RunBounds,
    private readonly interventions: readonly Intervention[],
    private readonly target: InterventionTarget,
  ) {
    this.last = { events: 0, nowMs: sim.nowMs, truncated: null };
  }

  /**
   * Runs every event at or before `tMs` (at most the run's horizon), and at most `eventsAtMost`
   * events (a pause, not the run's event cap: the next call goes on from the next event). Returns
   * whether the run is over.
   */
  runUntil(tMs: number, eventsAtMost = Infinity): boolean {
    if (this.over) return true;
    const until = Math.min(tMs, this.bounds.horizonMs);
    const stopAt = this.events + eventsAtMost;
    const ivs = this.interventions;
    while (this.nextIntervention < ivs.length) {
      const iv = ivs[this.nextIntervention] as Intervention;
      if (iv.atMs > until) break;
      // The events strictly before `atMs`: the horizon of the piece is the largest time below it.
      if (!this.piece(below(iv.atMs), stopAt)) return this.over;
      if (this.sim.nowMs < iv.atMs) this.sim.nowMs = iv.atMs;
      for (const change of iv.changes) this.target.apply(change, iv.atMs);
      this.applied.push({ atMs: iv.atMs, paths: [...iv.paths] });
      this.nextIntervention++;
    }
    this.piece(until, stopAt);
    return this.over;
  }

  /** The run's stats: its events over every piece, the clock, and why it ended (null: its events ran out). */
  stats(): RunStats {
    return { events: this.events, nowMs: this.last.nowMs, truncated: this.last.truncated };
  }

  /**
   * Runs the events up to `horizonMs` and while fewer than `stopAt` have run in all. Returns true
   * when it reached `horizonMs` (what remains is later), false when it paused at `stopAt` or the run
   * is over.
   */
  private piece(horizonMs: number, stopAt: number): boolean {
    const capLeft = this.bounds.maxEvents - this.events;
    const pauseLeft = stopAt - this.events;
    const paused = pauseLeft < capLeft;
    const s = this.sim.run(this.handler, { horizonMs, maxEvents: paused ? pauseLeft : capLeft });
    this.events += s.events;
    this.last = s;
    if (s.truncated === 'horizon') {
      if (horizonMs >= this.bounds.horizonMs) this.over = true;
      return true;
    }
    if (s.truncated === 'event-cap' && paused) return false;
    this.over = true;
    return false;
  }
}

/** The largest double below x (x finite). */
function below(x: number): number {
  if (x === 0) return -Number.MIN_VALUE;
  const buf = new Float64Array([x]);
  const bits = new BigInt64Array(buf.buffer);
  bits[0] = (bits[0] as bigint) + (x > 0 ? -1n : 1n);
  return buf[0] as number;
}
