import type { z } from 'zod';
import type { CallCacheSpec, SharedCacheSpec } from '../model/graph/ServiceGraph.js';
import type { Dist } from '../model/scenario.js';
import { describeValue } from '../policy/schema/describeValue.js';
import { fields as f } from '../policy/schema/fields.js';
import { doc } from '../policy/schema/schemaDocs.js';
import { hint, NAME } from './graphNames.js';
import type { PathSegment } from './Problem.js';

/** How a graph check reports a problem at a path (related paths: the fields it involves). */
export type GraphReport = (path: PathSegment[], message: string, input: unknown, related?: PathSegment[][]) => void;

/** A call's cache as parsed: its own (settings not yet defaulted, its name not yet the callee's), or one naming a shared tier. */
export type ParsedCache = { [K in keyof Omit<CallCacheSpec, 'coalesce' | 'shared'>]?: CallCacheSpec[K] | undefined } & { coalesce: boolean; shared?: string | undefined };
/** A shared tier as parsed (`caches.<name>`). */
export type ParsedSharedCache = Omit<SharedCacheSpec, 'name' | 'ttlMs'> & { ttlMs?: number | undefined };

/**
 * The defaults of a cache's settings, for a call's own cache and a shared tier alike (a call's own
 * applies them when it is resolved, so that a call naming a shared tier can be told it wrote one).
 */
export const CACHE_DEFAULTS = { hitLatencyMs: 1, perBackend: false, initial: 'warm', flushAtMs: [] as number[] } as const;

const HIT_LATENCY_TEXT = 'The time a hit takes to answer the call (ms); default 1.';

/** The settings of a call's cache that belong to a shared tier: a call naming one (`shared`) may not write them. */
const TIER_FIELDS = ['name', 'capacity', 'keys', 'zipf', 'ttlMs', 'hitLatencyMs', 'initial', 'flushAtMs'] as const;

/**
 * The schemas of graph caches (docs/experiments.md, "Caches"): a call's `cache` (its own, or `shared`
 * naming a tier) and a shared tier of the scenario's `caches`.
 */
export function cacheSchemas(dist: z.ZodType<Dist, unknown>) {
  const tier = {
    capacity: doc(f.boundedInt(10_000_000), 'Entries held at most (per copy); the least recently used is evicted first.'),
    keys: doc(f.boundedInt(10_000_000), 'The key space K: each operation carries one key, rank i in 1..K with probability proportional to i^-zipf; every cache of a graph declares the same keys and zipf.'),
    zipf: doc(f.number('>= 0'), 'The Zipf exponent s of the keys\' popularity (0: uniform; web traces: 0.64 to 0.83, Breslau et al. 1999).'),
    ttlMs: doc(f.number('> 0').optional(), 'Time to live from the fill; a hit does not extend it; an expired entry is a miss. Default: none.'),
    initial: doc(f.oneOf(['warm', 'empty']), 'warm (default): at the start it holds the LRU state of 20 x capacity requests drawn from the keys\' popularity; empty: cold.'),
    flushAtMs: doc(f.array(f.number('>= 0'), 'times'), 'Times (ms from t = 0) at which every copy is emptied; default none.'),
  };
  const cache = doc(
    f.object({
      shared: doc(f.nonEmptyString().optional(), 'Look up the graph\'s shared tier caches.<name> instead of a cache of the call\'s own (then only coalesce may be set beside it).'),
      name: doc(f.matching(NAME, 'a name (a letter, then letters, digits, "_" and "-")').optional(), "Its name among the calling service's caches (results: services.<service>.caches.<name>); default: the callee's name."),
      capacity: doc(tier.capacity.optional(), 'Entries held at most (per copy); the least recently used is evicted first. Required unless shared.'),
      keys: doc(tier.keys.optional(), 'The key space K: each operation carries one key, rank i in 1..K with probability proportional to i^-zipf; every cache of a graph declares the same keys and zipf. Required unless shared.'),
      zipf: doc(tier.zipf.optional(), 'The Zipf exponent s of the keys\' popularity (0: uniform; web traces: 0.64 to 0.83, Breslau et al. 1999). Required unless shared.'),
      ttlMs: tier.ttlMs,
      hitLatencyMs: doc(dist.optional(), HIT_LATENCY_TEXT),
      perBackend: doc(f.boolean().optional(), 'One copy per backend of the calling service, each of `capacity` entries; default false: one copy shared by its backends. Not with shared.'),
      coalesce: doc(f.boolean().default(false), "Request coalescing at the calling side: later misses of this call for a key in flight wait for the first miss's call and share its outcome."),
      initial: tier.initial.optional(),
      flushAtMs: tier.flushAtMs.optional(),
    }),
    'A lookaside cache in front of the call, at the calling service (or the graph\'s shared tier it names): a hit answers without calling; a miss fills the entry on a success that arrives while the call waits.',
    'Cache',
  );
  const sharedCache = doc(
    f.object({
      ...tier,
      hitLatencyMs: doc(dist.prefault(CACHE_DEFAULTS.hitLatencyMs), HIT_LATENCY_TEXT),
      initial: tier.initial.default(CACHE_DEFAULTS.initial),
      flushAtMs: tier.flushAtMs.default([...CACHE_DEFAULTS.flushAtMs]),
    }),
    'A cache tier shared by the calls of several services that name it (cache: { "shared": "<name>" }): one store, one hit ratio, one flush (a Memcached or Redis in front of a database).',
    'Shared cache',
  );
  return { cache, sharedCache };
}

/** The caches of a graph as {@link cacheIssues} reads them. */
interface CacheGraph {
  services: Record<string, { endpoints: Record<string, { steps?: ReadonlyArray<{ kind: 'work' } | { kind: 'call'; calls: ReadonlyArray<{ service: string; cache?: ParsedCache | undefined }> }> | undefined }> }>;
  caches?: Record<string, ParsedSharedCache> | undefined;
}

/**
 * The caches' checks across the graph: names unique among a service's caches (a cache's name is
 * its callee's unless written), and one key space for the whole graph (every operation carries one
 * key, which every cache on its way reads: they must agree on `keys` and `zipf`), a call's own cache
 * has its capacity and key space; shared tiers (`caches`): valid names, each looked up by some call, a
 * call naming one names a tier that exists and writes none of the tier's settings (nor `perBackend`).
 */
export function cacheIssues(graph: CacheGraph, report: GraphReport): void {
  const tiers = graph.caches ?? {};
  const tierNames = Object.keys(tiers);
  const used = new Set<string>();
  let space: { keys: number; zipf: number; path: PathSegment[] } | undefined;
  const sameSpace = (at: PathSegment[], c: { keys?: number | undefined; zipf?: number | undefined }): void => {
    if (c.keys === undefined || c.zipf === undefined) return;
    if (space === undefined) {
      space = { keys: c.keys, zipf: c.zipf, path: at };
      return;
    }
    for (const field of ['keys', 'zipf'] as const) {
      if (c[field] !== space[field]) {
        report([...at, field], `must equal the ${field} of the cache at ${space.path.join('.')} (got ${c[field]}, there ${space[field]}; an operation carries one key, read alike by every cache of the graph)`, c[field], [[...space.path, field]]);
      }
    }
  };
  const inOrder = (at: PathSegment[], flushAtMs: readonly number[]): void => {
    const late = flushAtMs.findIndex((t, k) => k > 0 && t < (flushAtMs[k - 1] as number));
    if (late >= 0) report([...at, 'flushAtMs', late], `must not be earlier than the flush before it (got ${flushAtMs[late]} < ${flushAtMs[late - 1]})`, flushAtMs[late]);
  };
  for (const [name, tier] of Object.entries(tiers)) {
    const at: PathSegment[] = ['caches', name];
    if (!NAME.test(name)) report(at, 'is not a valid cache name (a letter, then letters, digits, "_" and "-")', name);
    sameSpace(at, tier);
    inOrder(at, tier.flushAtMs);
  }
  for (const [name, s] of Object.entries(graph.services)) {
    const names = new Map<string, PathSegment[]>();
    for (const [e, ep] of Object.entries(s.endpoints)) {
      (ep.steps ?? []).forEach((st, i) => {
        if (st.kind !== 'call') return;
        st.calls.forEach((c, j) => {
          const cache = c.cache;
          if (cache === undefined) return;
          const at: PathSegment[] = ['services', name, 'endpoints', e, 'steps', i, 'calls', j, 'cache'];
          if (cache.shared !== undefined) {
            sharedCallIssues(at, cache, tierNames, report);
            used.add(cache.shared);
            return;
          }
          for (const field of ['capacity', 'keys', 'zipf'] as const) {
            if (cache[field] === undefined) report([...at, field], 'is required (a call\'s own cache; or name a shared tier of caches with "shared")', undefined);
          }
          const cacheName = cache.name ?? c.service;
          const first = names.get(cacheName);
          if (first !== undefined) {
            const why = cache.name === undefined ? `its default name, the callee's, is ${JSON.stringify(cacheName)}` : `named ${JSON.stringify(cacheName)}`;
            report(cache.name === undefined ? at : [...at, 'name'], `repeats the name of the cache at ${first.join('.')} (${why}; a service's caches need distinct names: set name)`, cacheName, [first]);
          } else names.set(cacheName, at);
          sameSpace(at, cache);
          inOrder(at, cache.flushAtMs ?? []);
        });
      });
    }
  }
  for (const name of tierNames) {
    if (!used.has(name)) report(['caches', name], `is looked up by no call (a call names it with cache: { "shared": ${JSON.stringify(name)} })`, tiers[name]);
  }
}

/** A call's cache naming a shared tier: the tier exists, and the call writes none of its settings. */
function sharedCallIssues(at: PathSegment[], cache: ParsedCache, tierNames: readonly string[], report: GraphReport): void {
  const shared = cache.shared as string;
  if (!tierNames.includes(shared)) {
    const known = tierNames.length > 0 ? hint(shared, tierNames, 'the caches are') : 'the graph declares no caches';
    report([...at, 'shared'], `must name a shared cache of caches (got ${describeValue(shared)}; ${known})`, shared);
  }
  if (cache.perBackend === true) {
    report([...at, 'perBackend'], `does not apply to a shared cache (caches.${shared} is one store for every call naming it; per-backend copies are a call's own cache)`, cache.perBackend, [[...at, 'shared']]);
  }
  for (const field of TIER_FIELDS) {
    if (cache[field] !== undefined) {
      report([...at, field], `is a setting of the shared cache caches.${shared} (a call naming a shared cache may set only coalesce beside shared)`, cache[field], [[...at, 'shared']]);
    }
  }
}

/** A call's resolved cache: its own, named after the callee unless named, defaults filled in; or the shared tier it names, with the call's coalescing. */
export function resolveCache(cache: ParsedCache, callee: string, tiers: Record<string, ParsedSharedCache>): CallCacheSpec {
  if (cache.shared !== undefined) {
    const { ttlMs, ...tier } = tiers[cache.shared] as ParsedSharedCache;
    return { name: cache.shared, ...tier, ...(ttlMs !== undefined ? { ttlMs } : {}), perBackend: false, coalesce: cache.coalesce, shared: true };
  }
  const { name, ttlMs, capacity, keys, zipf, hitLatencyMs, perBackend, initial, flushAtMs, coalesce } = cache;
  return {
    name: name ?? callee,
    capacity: capacity as number,
    keys: keys as number,
    zipf: zipf as number,
    ...(ttlMs !== undefined ? { ttlMs } : {}),
    hitLatencyMs: hitLatencyMs ?? { dist: 'constant', value: CACHE_DEFAULTS.hitLatencyMs },
    perBackend: perBackend ?? CACHE_DEFAULTS.perBackend,
    coalesce,
    initial: initial ?? CACHE_DEFAULTS.initial,
    flushAtMs: flushAtMs ?? [...CACHE_DEFAULTS.flushAtMs],
  };
}

/** The shared tiers, resolved, in declaration order. */
export function resolveTiers(tiers: Record<string, ParsedSharedCache>): SharedCacheSpec[] {
  return Object.entries(tiers).map(([name, { ttlMs, ...tier }]) => ({ name, ...tier, ...(ttlMs !== undefined ? { ttlMs } : {}) }));
}

