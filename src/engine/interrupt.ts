/**
 * A flag another thread raises to stop every run of this thread: an `Int32Array` over a
 * `SharedArrayBuffer`, read with `Atomics.load` by {@link Simulator.run} every
 * {@link INTERRUPT_CHECK_EVENTS} events (and before the first), so a run in a worker thread,
 * whose synchronous loop no message can reach, stops within milliseconds of the flag going up.
 * A run that sees it ends as {@link Simulator.stop} ends it (`truncated: 'stopped'`).
 */
let flag: Int32Array | null = null;

/** How many events a run handles between two looks at the interrupt flag (a power of two). */
export const INTERRUPT_CHECK_EVENTS = 16_384;

/** Watch `shared` (element 0 non-zero = stop) in every later run of this thread; null stops watching. */
export function watchInterrupt(shared: Int32Array | null): void {
  flag = shared;
}

/** The flag being watched, if any. */
export function interruptFlag(): Int32Array | null {
  return flag;
}

