/**
 * The bytes the current run's growing tables hold (its event queue, and the typed-array tables of
 * the model that runs on it), against a ceiling: a run whose tables would grow past it stops as
 * {@link Simulator.stop} stops it, and the model reports it truncated at its memory ceiling. Tables
 * grow by doubling and tell the meter each time ({@link tableGrew}), so the check costs nothing per
 * event. The ceiling is per thread, as the interrupt flag is; the count is per run: each
 * {@link Simulator} holds its run's {@link RunMemory} (a field of the run's state, so a copy of a
 * run, src/engine/copyState.ts, carries the count of the tables it copied and goes on counting its
 * own growth). Runs of a thread advance one at a time, so a table's growth is counted in the run
 * that is advancing (or being built): the one whose simulator last began ({@link beginRunMemory})
 * or went on ({@link resumeRunMemory}). Several copies of a run alive at once are so many runs,
 * each held to the ceiling on its own; what they hold together is not counted (the caller that
 * keeps copies bounds their number). Counting the bytes the tables allocate rather than asking the
 * process keeps a run's stop reproducible: the same scenario and seed stop at the same event
 * whatever else the process holds.
 */

/** What the meter stops when the ceiling is passed. */
interface Stoppable {
  stop(): void;
}

/** The count of one run's tables (plain fields: part of the run's state). */
export class RunMemory {
  /** The bytes the run's tables hold now. */
  heldBytes = 0;
  /** The most they held. */
  peakBytes = 0;
  /** Whether they passed the ceiling (the run was then stopped). */
  over = false;

  /** The count of the run of `run`, which a pass of the ceiling stops. */
  constructor(readonly run: Stoppable) {}
}

let ceilingBytes = Infinity;
/** The run whose tables grow now (null before the thread's first run). */
let current: RunMemory | null = null;

/** The ceiling of every later run of this thread, in bytes of its tables (Infinity: none). */
export function watchRunMemory(bytes: number): void {
  ceilingBytes = bytes > 0 ? bytes : Infinity;
}

/** The ceiling of this thread's runs (Infinity: none). */
export function runMemoryCeiling(): number {
  return ceilingBytes;
}

/** A new run begins (its simulator `sim` is built): its count, at 0, is the one growth adds to; `sim` is what a pass of the ceiling stops. */
export function beginRunMemory(sim: Stoppable): RunMemory {
  current = new RunMemory(sim);
  return current;
}

/** The run counted by `memory` goes on (its simulator runs again): growth from here adds to its count. */
export function resumeRunMemory(memory: RunMemory): void {
  current = memory;
}

/** A table of the current run grew by `bytes` (or shrank, negative): past the ceiling, the run stops after the event being handled. */
export function tableGrew(bytes: number): void {
  const m = current;
  if (m === null) return;
  m.heldBytes += bytes;
  if (m.heldBytes > m.peakBytes) m.peakBytes = m.heldBytes;
  if (m.heldBytes > ceilingBytes && !m.over) {
    m.over = true;
    m.run.stop();
  }
}
