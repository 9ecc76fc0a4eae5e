import { tableGrew } from '../../engine/memoryMeter.js';
import type { ZipfKeys } from './ZipfKeys.js';

/** Bytes per key of the key space (its slot: Int32). */
export const LRU_KEY_BYTES = 4;
/** Bytes per entry of capacity (its key, previous and next: Int32; its fill time: Float64). */
export const LRU_ENTRY_BYTES = 20;

const NONE = -1;

/**
 * One lookaside cache's entries: keys are ranks 1..K, at most `capacity` of them
 * held, least recently used evicted first. An optional TTL counts from the fill: a hit moves the entry
 * to the head without extending it; an entry found expired is a miss and is removed then, and until
 * found it holds its place (and capacity) like any other. A fill of a key already held renews its fill
 * time and moves it to the head.
 *
 * State lives in typed arrays (a doubly linked list over slots, and a key-to-slot index), so a
 * lookup, a fill and an eviction cost O(1) and allocate nothing.
 */
export class LruCache {
  readonly capacity: number;
  /** Time to live in ms from the fill (Infinity: none). */
  readonly ttlMs: number;
  /** Per key (index = rank): its slot, or NONE. */
  private readonly slotOf: Int32Array;
  /** Per slot: its key (0: free). */
  private readonly keyAt: Int32Array;
  private readonly filledAt: Float64Array;
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  /** Most recently used slot, least recently used slot. */
  private head = NONE;
  private tail = NONE;
  /** Slots in use. */
  private used = 0;

  constructor(keys: number, capacity: number, ttlMs = Infinity) {
    if (!Number.isInteger(capacity) || capacity < 0) throw new RangeError(`cache capacity must be an integer >= 0 (got ${capacity})`);
    if (!(ttlMs > 0)) throw new RangeError(`cache ttlMs must be > 0 (got ${ttlMs})`);
    this.capacity = capacity;
    this.ttlMs = ttlMs;
    tableGrew((keys + 1) * LRU_KEY_BYTES + capacity * LRU_ENTRY_BYTES);
    this.slotOf = new Int32Array(keys + 1).fill(NONE);
    this.keyAt = new Int32Array(capacity);
    this.filledAt = new Float64Array(capacity);
    this.prev = new Int32Array(capacity).fill(NONE);
    this.next = new Int32Array(capacity).fill(NONE);
  }

  /** Entries held (expired ones not yet found included). */
  get size(): number {
    return this.used;
  }

  /**
   * Look `key` up at time `nowMs`: true on a hit (the entry moves to the head); false on a miss
   * (absent, or expired: then it is removed).
   */
  lookup(key: number, nowMs: number): boolean {
    const slot = this.slotOf[key]!;
    if (slot === NONE) return false;
    if (nowMs - this.filledAt[slot]! >= this.ttlMs) {
      this.remove(slot);
      return false;
    }
    this.toHead(slot);
    return true;
  }

  /** Fill `key` at `nowMs`: at the head, with a fresh TTL, evicting the least recently used entry when full. */
  fill(key: number, nowMs: number): void {
    if (this.capacity === 0) return;
    let slot = this.slotOf[key]!;
    if (slot === NONE) {
      if (this.used === this.capacity) {
        slot = this.tail;
        this.unlink(slot);
        this.slotOf[this.keyAt[slot]!] = NONE;
      } else {
        slot = this.used++;
      }
      this.keyAt[slot] = key;
      this.slotOf[key] = slot;
      this.linkHead(slot);
    } else {
      this.toHead(slot);
    }
    this.filledAt[slot] = nowMs;
  }

  /** Empty the cache (a flush). */
  flush(): void {
    for (let s = 0; s < this.used; s++) this.slotOf[this.keyAt[s]!] = NONE;
    this.keyAt.fill(0);
    this.prev.fill(NONE);
    this.next.fill(NONE);
    this.head = this.tail = NONE;
    this.used = 0;
  }

  /**
   * Warm the cache at `nowMs` with the `n` most popular keys (an operator's warming): filled from the
   * n-th most popular to the most popular, which ends at the head; entries beyond the capacity are
   * evicted by LRU as any fill evicts.
   */
  warmMostPopular(n: number, nowMs: number): void {
    for (let rank = Math.min(n, this.slotOf.length - 1); rank >= 1; rank--) this.fill(rank, nowMs);
  }

  /**
   * Warm the cache as `requests` lookups at `nowMs` with zero latency would leave it: each key drawn
   * from `popularity` with the uniform draws of `u`, filled on a miss.
   */
  warmFromRequests(requests: number, popularity: ZipfKeys, u: () => number, nowMs: number): void {
    for (let i = 0; i < requests; i++) {
      const key = popularity.draw(u());
      if (!this.lookup(key, nowMs)) this.fill(key, nowMs);
    }
  }

  /** The keys held, from the most to the least recently used (for tests and traces). */
  keysInOrder(): number[] {
    const out: number[] = [];
    for (let s = this.head; s !== NONE; s = this.next[s]!) out.push(this.keyAt[s]!);
    return out;
  }

  private remove(slot: number): void {
    this.unlink(slot);
    this.slotOf[this.keyAt[slot]!] = NONE;
    // Keep slots 0..used-1 in use: move the last slot into the freed one.
    const last = --this.used;
    if (slot !== last) {
      const key = this.keyAt[last]!;
      this.keyAt[slot] = key;
      this.filledAt[slot] = this.filledAt[last]!;
      this.slotOf[key] = slot;
      const p = this.prev[last]!;
      const n = this.next[last]!;
      this.prev[slot] = p;
      this.next[slot] = n;
      if (p !== NONE) this.next[p] = slot;
      else this.head = slot;
      if (n !== NONE) this.prev[n] = slot;
      else this.tail = slot;
    }
    this.keyAt[last] = 0;
    this.prev[last] = this.next[last] = NONE;
  }

  private toHead(slot: number): void {
    if (slot === this.head) return;
    this.unlink(slot);
    this.linkHead(slot);
  }

  private unlink(slot: number): void {
    const p = this.prev[slot]!;
    const n = this.next[slot]!;
    if (p !== NONE) this.next[p] = n;
    else this.head = n;
    if (n !== NONE) this.prev[n] = p;
    else this.tail = p;
    this.prev[slot] = this.next[slot] = NONE;
  }

  private linkHead(slot: number): void {
    this.prev[slot] = NONE;
    this.next[slot] = this.head;
    if (this.head !== NONE) this.prev[this.head] = slot;
    this.head = slot;
    if (this.tail === NONE) this.tail = slot;
  }
}
