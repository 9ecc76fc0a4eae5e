import type { Simulator } from '../../engine/simulator.js';
import type { Sampler } from '../../engine/distributions.js';
import type { BinnedSeries } from '../../metrics/BinnedSeries.js';
import * as outcomeModule from '../../policy/outcome.js';
import type { LruCache } from '../cache/LruCache.js';
import type { ZipfKeys } from '../cache/ZipfKeys.js';
import type { ServiceTracer } from '../traceGraph.js';
import type { CallCacheSpec } from './ServiceGraph.js';
import { tableGrew } from '../../engine/memoryMeter.js';
import { keyedUniform, type NamedSeed } from '../../engine/random.js';
import type { RetryLoop } from '../../policy/retryLoop.js';
import { K_CACHE_HIT, K_CACHE_WAIT, type CacheCounts, type CacheResult, type CacheStore } from './CacheStore.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { GiveUp, Outcome } = outcomeModule;

export { CACHE_KINDS, K_CACHE_FLUSH, K_CACHE_HIT, K_CACHE_WAIT, WARM_REQUESTS_PER_ENTRY, type CacheCounts, type CacheResult } from './CacheStore.js';

const NONE = -1;

/** What a cache asks of the handlers it answers for (its call site's service). */
export interface CacheOwner {
  /** Call j of handler h's current step (generation gen) ended (ServiceHandlers.callEnded). */
  callEnded(h: number, gen: number, j: number, reason: number, outcome: number, degraded: boolean, t: number): void;
  /** Whether handler h still waits for its current step's calls (its generation is still gen). */
  awaits(h: number, gen: number): boolean;
  /** Whether handler h (generation gen) still waits, and its own caller for it. */
  waitsFor(h: number, gen: number): boolean;
}

/**
 * The lookaside cache of one call of a `call` step (docs/experiments.md, "Service graphs", "Caches"), at the
 * calling service: the lookaside part (the handlers it answers, hits on their way, coalescing and
 * its waiters) over a {@link CacheStore} (the copies, counts, series, flushes and warming): its own
 * store (one copy, or one per backend of that service, `perBackend`), or a shared tier's, looked up
 * by the calls of several services alike. Each copy is an {@link LruCache} over the graph's key
 * space. Each operation carries one key, the rank the
 * operation's own draw stands for in the keys' popularity ({@link opKey}: a draw keyed by the
 * operation, so every cache on its way and every retry sees the same key).
 *
 * A handler's call looks its key up once, before the call's stack ({@link lookup}). A hit answers
 * the call with success after the hit latency and makes no call. A miss calls through the stack
 * (whose retries reuse the miss); the entry is filled when the call ends with a success while the
 * handler that looked it up still waits for it (a success the stack accepted: within its attempt's
 * timeout and the deadline); a call that ends after its handler stopped waiting fills nothing.
 *
 * Coalescing (a behaviour of the calling side, so per call even over a shared tier): while a miss's
 * call of this call site for a key is in flight at a copy, later misses of that key wait
 * for it (they count as misses) and share its outcome, success or failure, when it ends, which
 * clears the mark; a waiter whose own deadline (the one the call's top layer would have worked to)
 * passes first gives up with `deadline`. A call some waiter still waits for is not cancelled when
 * its own handler stops waiting for it: it runs on for the waiters (and its success fills the cache
 * if one of them still waits).
 *
 * Counts and series are from t = 0 on. Records (hits on their way, waiters) live in typed arrays
 * reused through free lists.
 */
export class CallCache {
  readonly service: string;
  readonly name: string;
  /** Where it is declared, relative to the scenario (`services.<service>.endpoints.<endpoint>.steps.<i>.calls.<j>.cache`). */
  readonly path: string;
  readonly spec: CallCacheSpec;
  readonly popularity: ZipfKeys;
  /** One copy, or one per backend of the calling service. */
  readonly copies: LruCache[];
  /** What it looks up: its own store, or a shared tier's (one store for several calls). */
  readonly store: CacheStore;
  /** The store's counts (shared with every call looking the same store up). */
  readonly counts: CacheCounts;
  private readonly sLookups: BinnedSeries;
  private readonly sHits: BinnedSeries;
  private readonly sim: Simulator;
  /** The first of the graph's cache kinds, and this cache's index among the graph's caches (the events' `b`). */
  private readonly kindBase: number;
  private readonly index: number;
  private readonly keySeed: NamedSeed;
  private readonly hitMs: Sampler;
  /** The lane of a constant hit latency's events (in time order), or -1. */
  private readonly hitLane: number;
  private owner!: CacheOwner;
  /** A traced run's reporter of the calling service (null when untraced), and the endpoint whose handlers look up. */
  tracer: ServiceTracer | null = null;
  endpoint = 0;
  /**
   * The retry loop whose deadline rule a waiter gives up by (from its handler's deadline and the
   * time it starts waiting): the call's top layer's when the cache was connected; null: the
   * handler's deadline as it is (a call without layers).
   */
  private deadlineLoop: RetryLoop | null = null;
  private readonly slotsPerCopy: number;

  /** Hits on their way: handler, generation, call index. */
  private pH = new Int32Array(16);
  private pGen = new Int32Array(16);
  private pJ = new Int32Array(16);
  private readonly pFree: number[] = [];
  private pNext = 0;

  /** Coalescing, per (copy, key) slot: the top frame of the call in flight (or NONE), and the first and last waiter. */
  private readonly leader: Int32Array;
  private readonly wHead: Int32Array;
  private readonly wTail: Int32Array;
  /** Waiters: handler, generation, call index, next in its slot's list, state bits (1: waiting, 2: its deadline event pending). */
  private wH = new Int32Array(16);
  private wGen = new Int32Array(16);
  private wJ = new Int32Array(16);
  private wNextIn = new Int32Array(16);
  private wState = new Uint8Array(16);
  private readonly wFree: number[] = [];
  private wNext = 0;

  /** Per top frame of the call's stack: the (copy, key) slot whose miss it carries, or NONE; and (traced runs) its operation. */
  private fSlot = new Int32Array(64).fill(NONE);
  private fOp = new Float64Array(64);
  /** The operation of the miss {@link missSlot} (traced runs). */
  private missOp = 0;

  /** Set by {@link lookup} on a miss that calls through: the slot and whether the call leads coalescing. */
  missSlot = NONE;

  constructor(
    service: string,
    spec: CallCacheSpec,
    store: CacheStore,
    path: string,
    o: { sim: Simulator; kindBase: number; index: number },
  ) {
    this.service = service;
    this.name = spec.name;
    this.path = path;
    this.spec = spec;
    this.store = store;
    this.popularity = store.popularity;
    this.sim = o.sim;
    this.kindBase = o.kindBase;
    this.index = o.index;
    this.keySeed = store.keySeed;
    this.copies = store.copies;
    this.counts = store.counts;
    this.hitMs = store.hitMs;
    this.hitLane = store.hitLane;
    this.sLookups = store.sLookups;
    this.sHits = store.sHits;
    this.slotsPerCopy = store.popularity.keys + 1;
    const slots = spec.coalesce ? this.copies.length * this.slotsPerCopy : 0;
    this.leader = new Int32Array(slots).fill(NONE);
    this.wHead = new Int32Array(slots).fill(NONE);
    this.wTail = new Int32Array(slots).fill(NONE);
  }

  /** Connect the service whose handlers look up, and the retry loop of the call's top layer (null: none), whose deadline rule a waiter follows. */
  connect(owner: CacheOwner, deadlineLoop: RetryLoop | null): void {
    this.owner = owner;
    this.deadlineLoop = deadlineLoop;
  }

  /** The deadline a waiter starting at `t` gives up at, from its handler's deadline `incomingMs`. */
  private deadlineOf(incomingMs: number, t: number): number {
    const loop = this.deadlineLoop;
    return loop === null ? incomingMs : loop.deadlineAtMs(incomingMs, t);
  }

  /** The key operation `opSeq` carries: the rank its own draw stands for in the keys' popularity. */
  opKey(opSeq: number): number {
    return this.popularity.draw(keyedUniform(this.keySeed.value, opSeq));
  }

  /**
   * Call j of handler h (generation gen, on `backend`, deadline `deadlineMs`) looks its key up at
   * t. True: the cache answers it (a hit, answered after the hit latency; or a coalesced miss,
   * answered when the call it waits for ends); false: a miss that calls through ({@link missSlot}
   * says which slot, and the call site records it with the call's top frame, {@link calls}).
   */
  lookup(h: number, gen: number, j: number, backend: number, opSeq: number, deadlineMs: number, t: number): boolean {
    const copy = this.copies.length === 1 ? 0 : backend;
    const key = this.opKey(opSeq);
    const counted = t >= 0;
    if (counted) {
      this.counts.lookups++;
      this.sLookups.add(t);
    }
    if ((this.copies[copy] as LruCache).lookup(key, t)) {
      if (counted) {
        this.counts.hits++;
        this.sHits.add(t);
      }
      this.tracer?.cache(opSeq, this.endpoint, this.name, key, 'hit', t);
      this.answerHit(h, gen, j, t);
      return true;
    }
    const slot = copy * this.slotsPerCopy + key;
    this.missSlot = slot;
    this.missOp = opSeq;
    if (!this.spec.coalesce || this.leader[slot] === NONE) {
      this.tracer?.cache(opSeq, this.endpoint, this.name, key, 'miss', t);
      return false;
    }
    this.tracer?.cache(opSeq, this.endpoint, this.name, key, 'waits', t);
    if (counted) this.counts.coalesced++;
    this.wait(slot, h, gen, j, Math.max(t, this.deadlineOf(deadlineMs, t)));
    return true;
  }

  /** Top frame f carries the miss of {@link missSlot} (just looked up): with coalescing it leads that slot's waiters. */
  calls(f: number): void {
    if (f >= this.fSlot.length) {
      let n = this.fSlot.length;
      while (n <= f) n *= 2;
      const b = new Int32Array(n).fill(NONE);
      b.set(this.fSlot);
      this.fSlot = b;
      const o = new Float64Array(n);
      o.set(this.fOp);
      this.fOp = o;
    }
    const slot = this.missSlot;
    this.fSlot[f] = slot;
    this.fOp[f] = this.missOp;
    if (this.spec.coalesce) this.leader[slot] = f;
  }

  /**
   * The call of top frame f ended at t, for handler h (generation gen): a success fills the entry if
   * the handler, or a waiter, still waits for it; the coalescing mark clears; the handler, then each
   * waiter still waiting, in the order they came, are told the outcome.
   */
  callEnded(f: number, h: number, gen: number, j: number, reason: number, outcome: number, degraded: boolean, t: number): void {
    const slot = this.fSlot[f] as number;
    this.fSlot[f] = NONE;
    const owner = this.owner;
    let waiters = NONE;
    if (this.spec.coalesce && this.leader[slot] === f) {
      this.leader[slot] = NONE;
      waiters = this.wHead[slot] as number;
      this.wHead[slot] = this.wTail[slot] = NONE;
    }
    if (reason === GiveUp.SUCCESS) {
      const copy = Math.floor(slot / this.slotsPerCopy);
      const key = slot - copy * this.slotsPerCopy;
      if (owner.awaits(h, gen) || this.anyWaiting(waiters)) {
        (this.copies[copy] as LruCache).fill(key, t);
        if (t >= 0) this.counts.fills++;
        this.tracer?.cache(this.fOp[f] as number, this.endpoint, this.name, key, 'filled', t);
      } else {
        if (t >= 0) this.counts.lateSuccesses++;
        this.tracer?.cache(this.fOp[f] as number, this.endpoint, this.name, key, 'late', t);
      }
    }
    owner.callEnded(h, gen, j, reason, outcome, degraded, t);
    for (let w = waiters; w !== NONE; ) {
      const next = this.wNextIn[w] as number;
      const state = this.wState[w] as number;
      this.wState[w] = state & ~1;
      if ((state & 2) === 0) this.wFree.push(w);
      if ((state & 1) !== 0) owner.callEnded(this.wH[w] as number, this.wGen[w] as number, this.wJ[w] as number, reason, outcome, degraded, t);
      w = next;
    }
  }

  /**
   * Whether a waiter's handler still waits for the call of top frame f: then the call is not
   * cancelled when its own handler stops waiting for it, and runs on for the waiters.
   */
  waitedFor(f: number): boolean {
    const slot = this.fSlot[f] as number;
    return slot !== NONE && this.spec.coalesce && this.leader[slot] === f && this.anyWaiting(this.wHead[slot] as number);
  }

  /** The call of top frame f is cancelled: its slot's mark clears, and its waiters (none waits any more: {@link waitedFor}) are dropped. */
  cancelled(f: number): void {
    const slot = this.fSlot[f] as number;
    this.fSlot[f] = NONE;
    if (slot === NONE || !this.spec.coalesce || this.leader[slot] !== f) return;
    this.leader[slot] = NONE;
    for (let w = this.wHead[slot] as number; w !== NONE; ) {
      const next = this.wNextIn[w] as number;
      const state = this.wState[w] as number;
      this.wState[w] = state & ~1;
      if ((state & 2) === 0) this.wFree.push(w);
      w = next;
    }
    this.wHead[slot] = this.wTail[slot] = NONE;
  }

  /**
   * Whether a waiter of the call of top frame f still waits for it, and the waiter's own caller for
   * it: then the call is wanted although its own handler may no longer be.
   */
  wantedByWaiters(f: number): boolean {
    const slot = this.fSlot[f] as number;
    return slot !== NONE && this.spec.coalesce && this.leader[slot] === f && this.anyWanted(this.wHead[slot] as number);
  }

  /** Empty every copy of its store (a flush; a shared tier's is emptied for every call looking it up). */
  flush(): void {
    this.store.flush();
  }

  /** Warm every copy of its store at t with the n most popular keys (CacheStore.warm). */
  warm(n: number, t: number): void {
    this.store.warm(n, t);
  }

  /**
   * One of the graph's cache events (kind relative to the caches' first): a hit answered, a
   * waiter's deadline, a flush. True when it answered a call that was still waited for (activity
   * of the run; a handler that moved on meanwhile makes it a stale timer).
   */
  fire(kind: number, a: number, t: number): boolean {
    const owner = this.owner;
    if (kind === K_CACHE_HIT) {
      this.pFree.push(a);
      const h = this.pH[a] as number;
      const gen = this.pGen[a] as number;
      if (!owner.awaits(h, gen)) return false;
      owner.callEnded(h, gen, this.pJ[a] as number, GiveUp.SUCCESS, Outcome.SUCCESS, false, t);
      return true;
    }
    if (kind === K_CACHE_WAIT) {
      const state = this.wState[a] as number;
      this.wState[a] = state & ~2;
      if ((state & 1) === 0) {
        this.wFree.push(a);
        return false;
      }
      // Gives up waiting; its record stays in its slot's list (not waiting) until the call it waited for ends.
      this.wState[a] = 0;
      const h = this.wH[a] as number;
      const gen = this.wGen[a] as number;
      if (!owner.awaits(h, gen)) return false;
      owner.callEnded(h, gen, this.wJ[a] as number, GiveUp.DEADLINE, Outcome.DEADLINE_EXCEEDED, false, t);
      return true;
    }
    this.flush();
    return false;
  }

  /** Its store's result over `bins` bins (CacheStore.result). */
  result(bins: number): CacheResult {
    return this.store.result(bins);
  }

  private answerHit(h: number, gen: number, j: number, t: number): void {
    const p = this.pFree.length > 0 ? (this.pFree.pop() as number) : this.pNext++;
    if (p >= this.pH.length) {
      this.pH = grow(this.pH, 0);
      this.pGen = grow(this.pGen, 0);
      this.pJ = grow(this.pJ, 0);
    }
    this.pH[p] = h;
    this.pGen[p] = gen;
    this.pJ[p] = j;
    this.sim.atInLane(this.hitLane, t + this.hitMs.sample(), this.kindBase + K_CACHE_HIT, p, this.index);
  }

  private wait(slot: number, h: number, gen: number, j: number, deadlineMs: number): void {
    const w = this.wFree.length > 0 ? (this.wFree.pop() as number) : this.wNext++;
    if (w >= this.wH.length) {
      this.wH = grow(this.wH, 0);
      this.wGen = grow(this.wGen, 0);
      this.wJ = grow(this.wJ, 0);
      this.wNextIn = grow(this.wNextIn, NONE);
      const s = new Uint8Array(this.wH.length);
      s.set(this.wState);
      this.wState = s;
    }
    this.wH[w] = h;
    this.wGen[w] = gen;
    this.wJ[w] = j;
    this.wNextIn[w] = NONE;
    this.wState[w] = 1;
    const tail = this.wTail[slot] as number;
    if (tail === NONE) this.wHead[slot] = w;
    else this.wNextIn[tail] = w;
    this.wTail[slot] = w;
    if (deadlineMs < Infinity) {
      this.wState[w] = 3;
      this.sim.at(deadlineMs, this.kindBase + K_CACHE_WAIT, w, this.index);
    }
  }

  /** Whether a waiter of the list from w still waits (its handler's step). */
  private anyWaiting(w: number): boolean {
    for (; w !== NONE; w = this.wNextIn[w] as number) {
      if (((this.wState[w] as number) & 1) !== 0 && this.owner.awaits(this.wH[w] as number, this.wGen[w] as number)) return true;
    }
    return false;
  }

  /** Whether a waiter of the list from w still waits, and its handler's caller for it. */
  private anyWanted(w: number): boolean {
    for (; w !== NONE; w = this.wNextIn[w] as number) {
      if (((this.wState[w] as number) & 1) !== 0 && this.owner.waitsFor(this.wH[w] as number, this.wGen[w] as number)) return true;
    }
    return false;
  }
}

function grow(a: Int32Array, fill: number): Int32Array<ArrayBuffer> {
  tableGrew(a.length * 4);
  const b = new Int32Array(a.length * 2).fill(fill);
  b.set(a);
  return b;
}
