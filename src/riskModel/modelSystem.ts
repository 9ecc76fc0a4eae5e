import { copyState, stateProblems, type AnyFunction } from '../engine/copyState.js';
import { runMemoryCeiling } from '../engine/memoryMeter.js';
import type { RiskSection } from '../experiment/riskSchema.js';
import { Model } from '../model/Model.js';
import { memoryCeilingWords } from '../model/results.js';
import type { Scenario } from '../model/scenario.js';
import { notDrawn } from '../model/streams.js';
import type { Advanced, BranchStreams, Continuation, SplittableSystem } from '../risk/SplittableSystem.js';
import { RiskMonitor, type ExampleTrajectory } from './RiskMonitor.js';

/** A snapshot of a run watched by a risk estimate: the model and its monitor, copied together. */
export interface ModelState {
  model: Model;
  monitor: RiskMonitor;
}

/** The functions a model's state may hold that have no state of their own (shared by every copy). */
export const STATELESS_FUNCTIONS: readonly AnyFunction[] = [notDrawn];

/**
 * A copy of `state` with `streams`, sharing only the functions that hold no state. (Copying into a
 * model just built, `copyState`'s `into`, keeps the constructors' object layouts, but building a
 * model per restore costs more than the layouts save: twice the time on the cache case of
 * experiments/collapse-risk.json.)
 */
function copyOf(state: ModelState, streams: BranchStreams, rootName: string): ModelState {
  return copyState(state, { streams, stateless: STATELESS_FUNCTIONS, rootName });
}

/** Thrown between trajectories when the caller's `shouldStop` says so (an interrupt). */
export class RiskStopped extends Error {
  constructor() {
    super('the risk estimate was stopped before it ended');
    this.name = 'RiskStopped';
  }
}

/** A trajectory the memory meter stopped (its tables passed the thread's ceiling): the cell's estimate ends with this reason. */
export class RiskMemoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RiskMemoryError';
  }
}

/**
 * After a run of `model` ended (`runUntil` said it is over): throws {@link RiskMemoryError} when it
 * ended because its tables passed the thread's memory ceiling (src/engine/memoryMeter.ts: tables
 * only grow, so a count past the ceiling is one the meter stopped the run at), so that a stopped
 * trajectory is never read as one that ran to its end. No ceiling (the default): never.
 */
export function checkMemoryCeiling(model: Model): void {
  const held = model.memoryHeldBytes();
  if (held > runMemoryCeiling()) {
    throw new RiskMemoryError(`a trajectory ${memoryCeilingWords(held, 'each copy of the run', 'risk --memory-limit')} at ${model.nowMs().toFixed(1)} ms`);
  }
}

/** The settings of a {@link ModelSystem} besides its scenario and risk section. */
export interface ModelSystemOptions {
  /** Polled before each trajectory starts; true stops the estimate ({@link RiskStopped}). */
  shouldStop?: () => boolean;
}

/**
 * A scenario's model as a {@link SplittableSystem}: a trajectory is a run of the model from its
 * start (the start of its warm-up) to its horizon (the scenario's `horizonMs`), read at the points
 * of the check grid of the risk section (every `checkEveryMs` ms from 0, or after every event when
 * it is 0). At each check the importance and collapse probes are read (`RiskMonitor`), and the
 * trajectory stops, in this order, when the collapse condition has held for `forMs`, when the
 * importance reaches the level asked for, when it fell below `absorbBelow` after reaching it, or at
 * the end of the run. A snapshot is a copy of the model and its monitor (`copyState`) with the
 * original streams, itself never run; a restore is a copy of the snapshot with the streams asked
 * for. It records the first trajectory that collapsed (the report's example) and the events run.
 */
export class ModelSystem implements SplittableSystem<ModelState> {
  /** The first trajectory that collapsed, as the check grid saw it (null: none yet). */
  example: ExampleTrajectory | null = null;
  /** Trajectories started or restored. */
  trajectories = 0;

  constructor(
    private readonly scenario: Scenario,
    private readonly risk: RiskSection,
    private readonly options: ModelSystemOptions = {},
  ) {}

  /** A run of the model under `seed`, begun and checked at its first point of the grid. */
  start(seed: number): Continuation<ModelState> {
    this.beforeTrajectory();
    const model = new Model(this.scenario, { seed });
    model.begin();
    const monitor = new RiskMonitor(model, this.risk, model.nowMs());
    const c = new ModelContinuation({ model, monitor }, this);
    c.firstCheck();
    return c;
  }

  /** A copy of `snapshot` (left unchanged) going on with the streams `streams` says. */
  restore(snapshot: ModelState, streams: BranchStreams): Continuation<ModelState> {
    this.beforeTrajectory();
    return new ModelContinuation(copyOf(snapshot, streams, 'snapshot'), this);
  }

  /**
   * What in a run of the scenario keeps it from being snapshotted and branched with fresh streams
   * (closures holding state, generators from a bare seed: `stateProblems`), each `path: why`; none:
   * splitting can run on it. Plain Monte Carlo needs no snapshot.
   */
  copyProblems(): string[] {
    const model = new Model(this.scenario, { seed: 0 });
    model.begin();
    const monitor = new RiskMonitor(model, this.risk, model.nowMs());
    return stateProblems({ model, monitor }, { streams: { kind: 'fresh', seed: 0 }, stateless: STATELESS_FUNCTIONS, rootName: 'run' });
  }

  /** @internal Called by a continuation when its trajectory collapses: the first one is the example. */
  collapsed(monitor: RiskMonitor): void {
    if (this.example === null) this.example = monitor.example();
  }

  private beforeTrajectory(): void {
    if (this.options.shouldStop?.() === true) throw new RiskStopped();
    this.trajectories++;
  }
}

/** One running trajectory of a {@link ModelSystem}. */
class ModelContinuation implements Continuation<ModelState> {
  constructor(
    private readonly state: ModelState,
    private readonly system: ModelSystem,
  ) {}

  /** The check at the first point of the grid (for a grid of 0: the start itself, before any event). */
  firstCheck(): void {
    const { model, monitor } = this.state;
    if (monitor.checkEveryMs === 0) return monitor.check(model.nowMs(), false);
    const over = model.runUntil(monitor.nextCheckMs);
    if (over) checkMemoryCeiling(model);
    monitor.check(monitor.nextCheckMs, over);
    this.stepGrid();
  }

  importance(): number {
    return this.state.monitor.importance;
  }

  snapshot(): ModelState {
    return copyOf(this.state, { kind: 'original' }, 'state');
  }

  advance(untilImportance: number): Advanced {
    const { model, monitor } = this.state;
    const events0 = model.eventsRun();
    for (;;) {
      const reason = monitor.verdict(untilImportance);
      if (reason !== null) {
        if (reason === 'collapse') this.system.collapsed(monitor);
        return { reason, importance: monitor.importance, steps: model.eventsRun() - events0 };
      }
      this.nextCheck();
    }
  }

  /** Runs the model to the next point of the grid (one event for a grid of 0) and checks there. */
  private nextCheck(): void {
    const { model, monitor } = this.state;
    if (monitor.checkEveryMs === 0) {
      const over = model.runUntil(Infinity, 1);
      if (over) checkMemoryCeiling(model);
      monitor.check(model.nowMs(), over);
      return;
    }
    const over = model.runUntil(monitor.nextCheckMs);
    if (over) checkMemoryCeiling(model);
    monitor.check(over ? Math.min(monitor.nextCheckMs, model.nowMs()) : monitor.nextCheckMs, over);
    this.stepGrid();
  }

  private stepGrid(): void {
    const m = this.state.monitor;
    if (m.checkEveryMs > 0) m.nextCheckMs += m.checkEveryMs;
  }
}
