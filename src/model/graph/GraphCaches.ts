import { NamedSeed } from '../../engine/random.js';
import type { Simulator } from '../../engine/simulator.js';
import { ZipfKeys } from '../cache/ZipfKeys.js';
import type { Layers } from '../layers/Layers.js';
import type { ServiceResult } from '../results.js';
import { CallCache } from './CallCache.js';
import { CACHE_KINDS, CacheStore, type CacheResult } from './CacheStore.js';
import type { CallCacheSpec } from './ServiceGraph.js';
import type { ServiceRuntime } from './ServiceRuntime.js';

/**
 * The lookaside caches of a graph's run (docs/experiments.md, "Caches"): each call's {@link CallCache} over
 * its own {@link CacheStore} or over a shared tier's (one store per name of the graph's `caches`,
 * made when a call first looks it up), their
 * one range of event kinds (taken only when the graph has a cache, so that other graphs run as
 * before), the keys' popularity (one {@link ZipfKeys} per key space; validation allows one), and
 * their results beside their services'. `cache(service, name)` is how a run reaches one (an
 * operator's warming: {@link CallCache.warm}).
 */
export class GraphCaches {
  readonly list: CallCache[] = [];
  /** The shared tiers by name, in the order calls first look them up. */
  readonly shared = new Map<string, CacheStore>();
  private readonly popularity = new Map<string, ZipfKeys>();
  private readonly sim: Simulator;
  private readonly seed: number;
  /** The base of every operation's key draw, one for the whole graph (every cache reads the same draw of an operation). */
  private readonly keySeed: NamedSeed;
  private readonly binMs: number;
  private readonly startMs: number;
  /** The first of the caches' event kinds (-1: none taken yet). */
  kindBase = -1;

  constructor(sim: Simulator, seed: number, binMs: number, startMs: number) {
    this.sim = sim;
    this.seed = seed;
    this.keySeed = new NamedSeed(seed, 'cache-keys');
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
    const o = {
      sim: this.sim,
      seed: this.seed,
      // One stream of keys for the whole graph: every cache reads the same draw of an operation.
      keySeed: this.keySeed,
      kindBase: this.kindBase,
      index: this.list.length,
      binMs: this.binMs,
      startMs: this.startMs,
    };
    let store: CacheStore | undefined;
    if (spec.shared) {
      store = this.shared.get(spec.name);
      if (store === undefined) {
        store = new CacheStore(spec, keys, 1, ['shared-cache', spec.name], o);
        this.shared.set(spec.name, store);
      }
    } else store = new CacheStore(spec, keys, spec.perBackend ? owner.backendCount : 1, ['cache', owner.name, spec.name], o);
    const cache = new CallCache(owner.name, spec, store, path, o);
    cache.tracer = owner.handlers.tracer;
    cache.endpoint = endpoint;
    cache.connect(owner.handlers, layers.loops[0] ?? null);
    this.list.push(cache);
    return cache;
  }

  /** The cache named `name` of service `service` (a call's own), if any. */
  cache(service: string, name: string): CallCache | undefined {
    return this.list.find((c) => c.service === service && c.name === name && !c.spec.shared);
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

  /** Arm the flushes (those up to the run's horizon): each store's once, in the order of the calls first looking it up. */
  start(horizonMs: number): void {
    const started = new Set<CacheStore>();
    for (const c of this.list) {
      if (started.has(c.store)) continue;
      started.add(c.store);
      c.store.start(horizonMs);
    }
  }

  /** Each service's caches in its result (`caches.<name>`), over `bins` bins; services without a cache have none. */
  attach(services: ServiceResult[], bins: number): void {
    for (const c of this.list) {
      if (c.spec.shared) continue;
      const s = services.find((x) => x.service === c.service);
      if (s === undefined) continue;
      (s.caches ??= {})[c.name] = c.result(bins);
    }
  }

  /** The shared tiers' results by name (`caches.<name>`), in the order `names` declares them; undefined when the graph has none. */
  sharedResults(names: readonly string[], bins: number): Record<string, CacheResult> | undefined {
    if (this.shared.size === 0) return undefined;
    const out: Record<string, CacheResult> = {};
    for (const name of names) {
      const store = this.shared.get(name);
      if (store !== undefined) out[name] = store.result(bins);
    }
    return out;
  }
}

export type { CacheResult };
