import { EventQueue } from './eventQueue.js';
import { INTERRUPT_CHECK_EVENTS, interruptFlag } from './interrupt.js';
import { beginRunMemory, resumeRunMemory, type RunMemory } from './memoryMeter.js';

/** Why a run stopped early; `null` when it ran out of events. */
export type TruncatedBy = null | 'horizon' | 'event-cap' | 'stopped';

/** Bounds of one run. */
export interface RunBounds {
  /** Events later than this simulated time are not executed (the run is then `truncated: 'horizon'`). */
  horizonMs: number;
  /** At most this many events are executed (then `truncated: 'event-cap'`). */
  maxEvents: number;
}

/** Outcome of {@link Simulator.run}. */
export interface RunStats {
  /** Events dispatched (stale tombstoned events included: they were popped and handed over). */
  events: number;
  /** Simulated time when the run stopped. */
  nowMs: number;
  truncated: TruncatedBy;
}

/**
 * Receives every event: one call per event, dispatching on the integer kind. Handlers schedule
 * further events through the simulator they were given.
 */
export type EventHandler = (kind: number, a: number, b: number, timeMs: number) => void;

/**
 * An object that receives every event through its `handle` method, as an {@link EventHandler}
 * does. A model builds its own per run: instances of one class keep the run loop's call the same
 * from run to run, where a new closure per run would make V8 discard the loop's optimized code
 * when the second run begins.
 */
export interface EventDispatcher {
  handle(kind: number, a: number, b: number, timeMs: number): void;
}

/** An {@link EventHandler} as an {@link EventDispatcher}. */
class CallbackDispatcher implements EventDispatcher {
  constructor(private readonly fn: EventHandler) {}
  handle(kind: number, a: number, b: number, timeMs: number): void {
    this.fn(kind, a, b, timeMs);
  }
}

/**
 * The discrete-event clock: an {@link EventQueue} and a run loop bounded by a horizon and an
 * event cap. Time only moves forward: scheduling into the past is an error.
 */
export class Simulator {
  readonly queue: EventQueue;
  nowMs = 0;
  /** Events the current run may still handle: the event cap, or 0 once {@link stop} was called. */
  private limit = 0;
  private stopRequested = false;
  /** The count of this run's tables against the memory ceiling (src/engine/memoryMeter.ts). */
  readonly memory: RunMemory;

  constructor(startMs = 0, initialCapacity = 1024) {
    // A simulator is a new run: the memory meter counts its tables from here (src/engine/memoryMeter.ts).
    this.memory = beginRunMemory(this);
    this.queue = new EventQueue(initialCapacity);
    this.nowMs = startMs;
  }

  /** Schedule an event at absolute time `atMs` (>= now). */
  at(atMs: number, kind: number, a: number, b: number): void {
    if (!(atMs >= this.nowMs)) intoThePast(atMs, this.nowMs);
    this.queue.push(atMs, kind, a, b);
  }

  /**
   * A lane for events that are scheduled in time order (see {@link EventQueue.addLane}); returns
   * its number for {@link atInLane}.
   */
  addLane(): number {
    return this.queue.addLane();
  }

  /**
   * Schedule an event at absolute time `atMs` (>= now) in lane `lane`: O(1) while the lane's events
   * come in time order (an earlier one goes to the heap, and a negative `lane` means the heap, as
   * {@link at}); the run order is the same as {@link at}'s.
   */
  atInLane(lane: number, atMs: number, kind: number, a: number, b: number): void {
    if (!(atMs >= this.nowMs)) intoThePast(atMs, this.nowMs);
    this.queue.pushLane(lane, atMs, kind, a, b);
  }

  /** Schedule an event `delayMs` (>= 0) from now. */
  after(delayMs: number, kind: number, a: number, b: number): void {
    this.at(this.nowMs + delayMs, kind, a, b);
  }

  /**
   * Pop and dispatch events in (time, seq) order to `handler` until none is left, the next one lies beyond
   * the horizon, or the event cap is reached. A raised interrupt flag (see `watchInterrupt`) ends
   * the run as {@link stop} does, leaving the rest pending; so does a table growing past the run's
   * memory ceiling (src/engine/memoryMeter.ts).
   */
  run(handler: EventHandler | EventDispatcher, bounds: RunBounds): RunStats {
    const target = typeof handler === 'function' ? new CallbackDispatcher(handler) : handler;
    const q = this.queue;
    const horizon = bounds.horizonMs;
    this.limit = bounds.maxEvents;
    this.stopRequested = false;
    // The tables that grow from here are this run's; built past the ceiling before the run (or
    // before this part of it), they stop it at once.
    resumeRunMemory(this.memory);
    if (this.memory.over) this.stop();
    let events = 0;
    let truncated: TruncatedBy = null;
    const interrupt = interruptFlag();
    const checkMask = INTERRUPT_CHECK_EVENTS - 1;
    // One pop per event: an event past the horizon is put back (it stays pending).
    while (q.pop()) {
      const t = q.lastTimeMs;
      if (t > horizon) {
        q.unpop();
        truncated = this.stopRequested ? 'stopped' : 'horizon';
        break;
      }
      if (events >= this.limit) {
        q.unpop();
        truncated = this.stopRequested ? 'stopped' : 'event-cap';
        break;
      }
      if ((events & checkMask) === 0 && interrupt !== null && Atomics.load(interrupt, 0) !== 0) {
        q.unpop();
        this.stopRequested = true;
        truncated = 'stopped';
        break;
      }
      this.nowMs = t;
      events++;
      target.handle(q.lastKind, q.lastA, q.lastB, t);
    }
    // A stop asked for by the last event wins over the bound that would have ended the run anyway.
    if (truncated === null && this.stopRequested) truncated = 'stopped';
    if (truncated === 'horizon' && this.nowMs < horizon) this.nowMs = horizon;
    return { events, nowMs: this.nowMs, truncated };
  }

  /**
   * End the current run after the event being handled: the rest stays pending and the run reports
   * `truncated: 'stopped'` (a handler's own safety bound, such as the model's cap on operations in flight).
   */
  stop(): void {
    this.stopRequested = true;
    this.limit = 0;
  }
}

/** Thrown out of line: a `throw` with a template string inside a hot method slows down its callers. */
function intoThePast(atMs: number, nowMs: number): never {
  throw new RangeError(`cannot schedule at ${atMs} ms: before now (${nowMs} ms)`);
}
