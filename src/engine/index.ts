/**
 * The simulation engine: event queue, cancellable timers, the run loop, seeded random streams and
 * distributions. It knows nothing of retries, requests or servers.
 */

/** Binary heap of integer-kind events ordered by (time, seq). */
export * from './eventQueue.js';
/** Cancellable timers by generation tombstones. */
export * from './timers.js';
/** The discrete-event clock and run loop. */
export * from './simulator.js';
/** A flag another thread raises to stop the runs of this one. */
export * from './interrupt.js';
/** Named random streams, seed derivation and per-client generators. */
export * from './random.js';
/** Deep copies of a run's state, to continue it any number of times from a simulated time. */
export * from './copyState.js';
/** Distribution specs, samplers, exact means and validation. */
export * from './distributions.js';
