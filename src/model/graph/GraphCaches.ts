import { deriveSeed } from '../../engine/random.js';
import type { Simulator } from '../../engine/simulator.js';
import { ZipfKeys } from '../cache/ZipfKeys.js';
import type { Layers } from '../layers/Layers.js';
import type { ServiceResult } from '../results.js';
import { CACHE_KINDS, CallCache, type CacheResult } from './CallCache.js';
import type { CallCacheSpec } from './ServiceGraph.js';
import type { ServiceRuntime } from './ServiceRuntime.js';

/**
 * The lookaside caches of a graph's run (docs/experiments.md, "Caches"): each call's {@link CallCache}, their
 * one range of event kinds (taken only when the graph has a cache, so that other graphs run as
 * before), the keys' popularity (one {@link ZipfKeys} per key space; validation allows one), and
 * their results beside their services'. `cache(service, name)` is how a run reaches one (an
 * operator's warming: {@link CallCache.warm}).
 */
export class GraphCaches {
  readonly list: CallCache[] = [];
  private readonly popularity = new Map<string, ZipfKeys>();
  private readonly sim: Simulator;
  private readonly seed: number;
  private readonly binMs: number;
  private readonly startMs: number;
  /** The first of the caches' event kinds (-1: none taken yet). */
  kindBase = -1;

  constructor(sim: Simulator, seed: number, binMs: number, startMs: number) {
    this.sim = sim;
    this.seed = seed;
    this.binMs = binMs;
    this.startMs = startMs;
  }

  /**
   * The cache of a call of `owner` (whose backends are its layers' instances), through `layers` (the
   * call's stack: its top layer's deadline is a coalesced waiter's), declared at `path` for the
   * handlers of `owner`'s endpoint number `endpoint`; `takeKinds`
   * gives the caches' range of kinds the first time.
   */
  add(owner: ServiceRuntime, spec: CallCacheSpec, layers: Layers, path: string, endpoint: number, takeKinds: (n: number) => number): CallCache {
    if (this.kindBase < 0) this.kindBase = takeKinds(CACHE_KINDS);
    const space = `${spec.keys}/${spec.zipf}`;
    let keys = this.popularity.get(space);
    if (keys === undefined) {
      keys = new ZipfKeys(spec.keys, spec.zipf);
      this.popularity.set(space, keys);
    }
    const cache = new CallCache(owner.name, spec, keys, owner.backendCount, path, {
      sim: this.sim,
      seed: this.seed,
      // One stream of keys for the whole graph: every cache reads the same draw of an operation.
      keySeed: deriveSeed(this.seed, 'cache-keys'),
      kindBase: this.kindBase,
      index: this.list.length,
      binMs: this.binMs,
      startMs: this.startMs,
    });
    cache.tracer = owner.handlers.tracer;
    cache.endpoint = endpoint;
    const top = layers.loops[0];
    cache.connect(owner.handlers, top === undefined ? (d) => d : (d, t) => top.deadlineAtMs(d, t));
    this.list.push(cache);
    return cache;
  }

  /** The cache named `name` of service `service`, if any. */
  cache(service: string, name: string): CallCache | undefined {
    return this.list.find((c) => c.service === service && c.name === name);
  }

  /** The cache declared at `path` (relative to the scenario: `services.app.endpoints.get.steps.0.calls.0.cache`), if any. */
  at(path: string): CallCache | undefined {
    return this.list.find((c) => c.path === path);
  }

  /** Whether `kind` is one of the caches' events. */
  owns(kind: number): boolean {
    return this.kindBase >= 0 && kind >= this.kindBase && kind < this.kindBase + CACHE_KINDS;
  }

  /** A cache event (b: the cache's index); true when it answered a call (activity of the run). */
  fire(kind: number, a: number, b: number, t: number): boolean {
    return (this.list[b] as CallCache).fire(kind - this.kindBase, a, t);
  }

  /** Arm the flushes (those up to the run's horizon). */
  start(horizonMs: number): void {
    for (const c of this.list) c.start(horizonMs);
  }

  /** Each service's caches in its result (`caches.<name>`), over `bins` bins; services without a cache have none. */
  attach(services: ServiceResult[], bins: number): void {
    for (const c of this.list) {
      const s = services.find((x) => x.service === c.service);
      if (s === undefined) continue;
      (s.caches ??= {})[c.name] = c.result(bins);
    }
  }
}

export type { CacheResult };
