import { tableGrew } from './memoryMeter.js';

/**
 * Cancellable timers by tombstone: each slot has a generation counter. Arming a slot returns the
 * generation to put in the event's payload; cancelling (or re-arming) bumps the generation, so the
 * stale event is recognised and skipped when it pops. Cancellation is O(1) and the pop that
 * discards the stale event is O(log n); nothing is searched for.
 */
export class Timers {
  private gens: Uint32Array;

  constructor(initialSlots = 1024) {
    this.gens = new Uint32Array(Math.max(1, initialSlots | 0));
  }

  /** Make room for slot indices below `slots`. */
  ensure(slots: number): void {
    if (slots <= this.gens.length) return;
    let c = this.gens.length;
    while (c < slots) c *= 2;
    tableGrew((c - this.gens.length) * 4);
    const g = new Uint32Array(c);
    g.set(this.gens);
    this.gens = g;
  }

  /** A fresh generation for `slot`: every event armed earlier for this slot becomes stale. */
  arm(slot: number): number {
    if (slot >= this.gens.length) this.ensure(slot + 1);
    const g = ((this.gens[slot] as number) + 1) >>> 0;
    this.gens[slot] = g;
    return g | 0;
  }

  /** Invalidate every pending event of `slot`. */
  cancel(slot: number): void {
    if (slot >= this.gens.length) this.ensure(slot + 1);
    this.gens[slot] = ((this.gens[slot] as number) + 1) >>> 0;
  }

  /** The live generation of `slot` (what its newest armed event carries), without changing it. */
  current(slot: number): number {
    if (slot >= this.gens.length) this.ensure(slot + 1);
    return (this.gens[slot] as number) | 0;
  }

  /** True when an event carrying `gen` for `slot` is still the live one. */
  isLive(slot: number, gen: number): boolean {
    return ((this.gens[slot] as number) | 0) === gen;
  }
}
