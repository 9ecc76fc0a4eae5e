/**
 * The bytes the current run's growing tables hold (its event queue, and the typed-array tables of
 * the model that runs on it), against a ceiling: a run whose tables would grow past it stops as
 * {@link Simulator.stop} stops it, and the model reports it truncated at its memory ceiling. Tables
 * grow by doubling and tell the meter each time ({@link tableGrew}), so the check costs nothing per
 * event. The meter is per thread, as the interrupt flag is: a thread's runs are one after another,
 * and each new {@link Simulator} starts the count of its run at 0. Counting the bytes the tables
 * allocate rather than asking the process keeps a run's stop reproducible: the same scenario and
 * seed stop at the same event whatever else the process holds.
 */

/** What the meter stops when the ceiling is passed. */
interface Stoppable {
  stop(): void;
}

let ceilingBytes = Infinity;
let heldBytes = 0;
let peakBytes = 0;
let over = false;
let active: Stoppable | null = null;

/** The ceiling of every later run of this thread, in bytes of its tables (Infinity: none). */
export function watchRunMemory(bytes: number): void {
  ceilingBytes = bytes > 0 ? bytes : Infinity;
}

/** The ceiling of this thread's runs (Infinity: none). */
export function runMemoryCeiling(): number {
  return ceilingBytes;
}

/** A new run begins (its simulator is built): its tables' count starts at 0, and `sim` is what a pass of the ceiling stops. */
export function beginRunMemory(sim: Stoppable): void {
  heldBytes = 0;
  peakBytes = 0;
  over = false;
  active = sim;
}

/** A table of the current run grew by `bytes` (or shrank, negative): past the ceiling, the run stops after the event being handled. */
export function tableGrew(bytes: number): void {
  heldBytes += bytes;
  if (heldBytes > peakBytes) peakBytes = heldBytes;
  if (heldBytes > ceilingBytes && !over) {
    over = true;
    active?.stop();
  }
}

/** Whether the current run's tables passed the ceiling. */
export function runMemoryExceeded(): boolean {
  return over;
}

/** The most the current run's tables held, in bytes. */
export function runMemoryPeak(): number {
  return peakBytes;
}
