import { keyedUniform, stream, type NamedSeed } from '../../engine/random.js';
import { notDrawn } from '../streams.js';
import type { Simulator } from '../../engine/simulator.js';
import { makeSampler, type Sampler } from '../../engine/distributions.js';
import { BinnedSeries } from '../../metrics/BinnedSeries.js';
import { LruCache } from '../cache/LruCache.js';
import type { ZipfKeys } from '../cache/ZipfKeys.js';
import type { CallCacheSpec } from './ServiceGraph.js';

/** The event kinds of a graph's caches, relative to their first (GraphRun gives them a range when the graph has a cache). */
export const K_CACHE_HIT = 0;
export const K_CACHE_WAIT = 1;
export const K_CACHE_FLUSH = 2;
export const CACHE_KINDS = 3;

/** Requests per entry of capacity that leave a warm cache's LRU state (docs/experiments.md, "Caches"). */
export const WARM_REQUESTS_PER_ENTRY = 20;

/** A cache's counters and series (docs/experiments.md, "Caches"; the results' `services.<service>.caches.<name>`, or `caches.<name>` for a shared tier). */
export interface CacheCounts {
  lookups: number;
  hits: number;
  /** Misses that waited for a call of the same key already in flight (coalescing). */
  coalesced: number;
  /** Entries filled by a miss's success. */
  fills: number;
  /** Successes of misses that came too late to fill (the call no longer waited for them). */
  lateSuccesses: number;
}

/**
 * One cache in a graph's results (`services.<service>.caches.<name>`, or `caches.<name>` for a
 * shared tier): its counts from t = 0 on, the hit ratio (hits / lookups; null without lookups) and,
 * per bin, its lookups and hits.
 */
export type CacheResult = CacheCounts & { hitRatio: number | null; timeSeries: { lookups: number[]; hits: number[] } };

/**
 * What a lookaside cache holds (docs/experiments.md, "Caches"): its copies ({@link LruCache}s over
 * the graph's key space), the keys' popularity and the operation's key, the hit latency, the counts
 * and series, and the flushes and warming. A call's own cache has one store; a shared tier
 * (`caches.<name>`) has one store looked up by the calls of several services, each through its own
 * `CallCache` (handlers, waiters, coalescing), so that they share one capacity, one key space, one
 * hit ratio and one flush.
 */
export class CacheStore {
  readonly name: string;
  readonly popularity: ZipfKeys;
  readonly copies: LruCache[];
  readonly counts: CacheCounts = { lookups: 0, hits: 0, coalesced: 0, fills: 0, lateSuccesses: 0 };
  readonly sLookups: BinnedSeries;
  readonly sHits: BinnedSeries;
  readonly hitMs: Sampler;
  /** The lane of a constant hit latency's events (in time order), or -1. */
  readonly hitLane: number;
  /** The base of every operation's key draw (one for the whole graph: every cache reads the same draw of an operation). */
  readonly keySeed: NamedSeed;
  /** The flush times (ms from t = 0). */
  private readonly flushAtMs: readonly number[];
  private readonly sim: Simulator;
  /** The first of the graph's cache kinds, and the index of the first call cache using this store (a flush event's `b`). */
  private readonly kindBase: number;
  readonly index: number;

  /**
   * `copies` copies of `spec`'s capacity (warmed, when `spec.initial` is warm, each from its own
   * stream named `streamNames..., 'warm', copy`; the hit latency from `streamNames..., 'hit'`).
   */
  constructor(
    spec: Pick<CallCacheSpec, 'name' | 'capacity' | 'ttlMs' | 'hitLatencyMs' | 'initial' | 'flushAtMs'>,
    popularity: ZipfKeys,
    copies: number,
    streamNames: readonly string[],
    o: { sim: Simulator; seed: number; keySeed: NamedSeed; kindBase: number; index: number; binMs: number; startMs: number },
  ) {
    this.name = spec.name;
    this.popularity = popularity;
    this.sim = o.sim;
    this.kindBase = o.kindBase;
    this.index = o.index;
    this.keySeed = o.keySeed;
    this.flushAtMs = spec.flushAtMs;
    const ttl = spec.ttlMs ?? Infinity;
    this.copies = Array.from({ length: copies }, (_, c) => {
      const cache = new LruCache(popularity.keys, spec.capacity, ttl);
      if (spec.initial === 'warm') cache.warmFromRequests(WARM_REQUESTS_PER_ENTRY * spec.capacity, popularity, stream(o.seed, ...streamNames, 'warm', c), o.startMs);
      return cache;
    });
    const hit = spec.hitLatencyMs;
    const constant = hit.dist === 'constant';
    this.hitMs = makeSampler(hit, constant ? notDrawn : stream(o.seed, ...streamNames, 'hit'));
    this.hitLane = constant ? o.sim.addLane() : -1;
    this.sLookups = new BinnedSeries(o.binMs);
    this.sHits = new BinnedSeries(o.binMs);
  }

  /** The flushes to come: each an event at its time (from t = 0 on); one past the run's horizon never comes (and does not hold the run open). */
  start(horizonMs: number): void {
    for (const at of this.flushAtMs) if (at <= horizonMs) this.sim.at(at, this.kindBase + K_CACHE_FLUSH, 0, this.index);
  }

  /** The key operation `opSeq` carries: the rank its own draw stands for in the keys' popularity. */
  opKey(opSeq: number): number {
    return this.popularity.draw(keyedUniform(this.keySeed.value, opSeq));
  }

  /** Empty every copy (a flush). */
  flush(): void {
    for (const c of this.copies) c.flush();
  }

  /**
   * Warm every copy at t with the n most popular keys (an operator's warming: the most popular ends
   * at the head, LRU evicting beyond the capacity; LruCache.warmMostPopular).
   */
  warm(n: number, t: number): void {
    for (const c of this.copies) c.warmMostPopular(n, t);
  }

  /** The cache's result over `bins` bins (docs/experiments.md, "Caches"; hitRatio null without lookups). */
  result(bins: number): CacheResult {
    const c = this.counts;
    return { ...c, hitRatio: c.lookups > 0 ? c.hits / c.lookups : null, timeSeries: this.series(bins) };
  }

  /** The series over `bins` bins: lookups and hits per bin. */
  series(bins: number): { lookups: number[]; hits: number[] } {
    return { lookups: this.sLookups.toArray(bins), hits: this.sHits.toArray(bins) };
  }
}
