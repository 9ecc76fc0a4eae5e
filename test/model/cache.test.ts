import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stream } from '../../src/engine/index.js';
import { LruCache } from '../../src/model/cache/LruCache.js';
import { cheHitRatio, ZipfKeys } from '../../src/model/cache/ZipfKeys.js';

describe('Zipf key popularity', () => {
  it('its alias table gives each rank exactly its probability i^-s / sum', () => {
    for (const [k, s] of [
      [1, 0.8],
      [7, 0],
      [1000, 0.8],
      [10_000, 1.2],
    ] as const) {
      const z = new ZipfKeys(k, s);
      let norm = 0;
      for (let i = 1; i <= k; i++) norm += Math.pow(i, -s);
      // The mass each rank receives: its own column's keep share plus every column aliasing to it.
      const mass = new Float64Array(k + 1);
      const keep = (z as unknown as { keep: Float64Array }).keep;
      const alias = (z as unknown as { alias: Int32Array }).alias;
      for (let c = 0; c < k; c++) {
        mass[c + 1] = mass[c + 1]! + keep[c]! / k;
        mass[alias[c]!] = mass[alias[c]!]! + (1 - keep[c]!) / k;
      }
      for (let i = 1; i <= k; i++) {
        expect(z.probability(i)).toBeCloseTo(Math.pow(i, -s) / norm, 14);
        expect(Math.abs(mass[i]! - z.probability(i))).toBeLessThan(1e-12);
      }
    }
  });

  it('draws ranks in 1..K with the frequencies of their probabilities', () => {
    const z = new ZipfKeys(100, 0.8);
    const u = stream(7, 'zipf');
    const n = 200_000;
    const counts = new Int32Array(101);
    for (let i = 0; i < n; i++) counts[z.draw(u())]!++;
    expect(counts[0]).toBe(0);
    // Each count within 5 standard deviations of its binomial mean.
    for (let i = 1; i <= 100; i++) {
      const p = z.probability(i);
      expect(Math.abs(counts[i]! - n * p)).toBeLessThan(5 * Math.sqrt(n * p * (1 - p)));
    }
    expect(z.draw(0)).toBeGreaterThanOrEqual(1);
    expect(z.draw(1 - 2 ** -53)).toBeLessThanOrEqual(100);
  });

  it('refuses nonsense', () => {
    expect(() => new ZipfKeys(0, 1)).toThrow('Zipf keys must be an integer >= 1 (got 0)');
    expect(() => new ZipfKeys(10, -1)).toThrow('Zipf exponent must be finite and >= 0 (got -1)');
  });
});

describe('LRU cache', () => {
  it('evicts the least recently used entry, a hit moving its entry to the head', () => {
    const c = new LruCache(10, 3);
    c.fill(1, 0);
    c.fill(2, 0);
    c.fill(3, 0);
    expect(c.keysInOrder()).toEqual([3, 2, 1]);
    expect(c.lookup(1, 1)).toBe(true);
    expect(c.keysInOrder()).toEqual([1, 3, 2]);
    c.fill(4, 2);
    expect(c.keysInOrder()).toEqual([4, 1, 3]);
    expect(c.lookup(2, 3)).toBe(false);
    c.fill(3, 4);
    expect(c.keysInOrder()).toEqual([3, 4, 1]);
    expect(c.size).toBe(3);
  });

  it('expires entries by the TTL from the fill, a hit not extending it; an expired entry holds its place until found', () => {
    const c = new LruCache(10, 2, 100);
    c.fill(1, 0);
    expect(c.lookup(1, 90)).toBe(true);
    expect(c.lookup(1, 99.999)).toBe(true);
    c.fill(2, 50);
    // Key 1 expired at 100 but is not yet found: it still holds capacity, and is the most recently used.
    expect(c.keysInOrder()).toEqual([2, 1]);
    expect(c.size).toBe(2);
    expect(c.lookup(1, 100)).toBe(false);
    expect(c.keysInOrder()).toEqual([2]);
    expect(c.size).toBe(1);
    // A fill renews the TTL.
    c.fill(2, 140);
    expect(c.lookup(2, 239)).toBe(true);
    expect(c.lookup(2, 240)).toBe(false);
    expect(c.size).toBe(0);
  });

  it('removing an expired entry keeps every other entry its own fill time and place', () => {
    const c = new LruCache(10, 3, 100);
    c.fill(1, 0);
    c.fill(2, 10);
    c.fill(3, 50);
    expect(c.lookup(1, 100)).toBe(false);
    expect(c.keysInOrder()).toEqual([3, 2]);
    expect(c.lookup(3, 149)).toBe(true);
    expect(c.lookup(2, 109)).toBe(true);
    expect(c.lookup(2, 110)).toBe(false);
    expect(c.lookup(3, 150)).toBe(false);
    expect(c.size).toBe(0);
  });

  it('a flush empties it; warming fills the most popular keys with the most popular at the head', () => {
    const c = new LruCache(10, 3);
    c.fill(7, 0);
    c.fill(8, 0);
    c.flush();
    expect(c.size).toBe(0);
    expect(c.lookup(7, 1)).toBe(false);
    c.fill(9, 2);
    c.warmMostPopular(5, 3);
    expect(c.keysInOrder()).toEqual([1, 2, 3]);
    c.warmMostPopular(2, 4);
    expect(c.keysInOrder()).toEqual([1, 2, 3]);
    const empty = new LruCache(10, 0);
    empty.fill(1, 0);
    expect(empty.lookup(1, 0)).toBe(false);
  });

  it('agrees with a reference LRU on any sequence of lookups, fills and flushes', () => {
    const op = fc.oneof(
      { arbitrary: fc.record({ kind: fc.constant('lookup' as const), key: fc.integer({ min: 1, max: 12 }), dt: fc.integer({ min: 0, max: 20 }) }), weight: 10 },
      { arbitrary: fc.record({ kind: fc.constant('fill' as const), key: fc.integer({ min: 1, max: 12 }), dt: fc.integer({ min: 0, max: 20 }) }), weight: 10 },
      { arbitrary: fc.record({ kind: fc.constant('flush' as const), key: fc.constant(0), dt: fc.integer({ min: 0, max: 20 }) }), weight: 1 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }), fc.array(op, { minLength: 50, maxLength: 300 }), (capacity, ttl, ops) => {
        const ttlMs = ttl ?? Infinity;
        const c = new LruCache(12, capacity, ttlMs);
        // The reference: a Map in recency order (oldest first) of key -> fill time.
        const ref = new Map<number, number>();
        let t = 0;
        for (const o of ops) {
          t += o.dt;
          if (o.kind === 'flush') {
            c.flush();
            ref.clear();
          } else if (o.kind === 'lookup') {
            const at = ref.get(o.key);
            let hit = false;
            if (at !== undefined) {
              ref.delete(o.key);
              if (t - at < ttlMs) {
                ref.set(o.key, at);
                hit = true;
              }
            }
            expect(c.lookup(o.key, t)).toBe(hit);
          } else if (capacity > 0) {
            ref.delete(o.key);
            if (ref.size === capacity) ref.delete(ref.keys().next().value!);
            ref.set(o.key, t);
            c.fill(o.key, t);
          }
          expect(c.keysInOrder()).toEqual([...ref.keys()].reverse());
        }
      }),
      { numRuns: 400, seed: 20261202 },
    );
  });

  it("has the hit ratio of Che's approximation: K 10,000, capacity 1,000, Zipf 0.8, warm", () => {
    const z = new ZipfKeys(10_000, 0.8);
    const c = new LruCache(10_000, 1000);
    const u = stream(1, 'che');
    c.warmFromRequests(10_000, z, u, 0);
    let hits = 0;
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const key = z.draw(u());
      if (c.lookup(key, 0)) hits++;
      else c.fill(key, 0);
    }
    const che = cheHitRatio(z, 1000);
    expect(che).toBeGreaterThan(0.3);
    expect(che).toBeLessThan(0.7);
    expect(Math.abs(hits / n - che)).toBeLessThan(0.02);
  });

  it("Che's approximation at its limits: no capacity never hits, capacity K always does, uniform keys hit C/K", () => {
    const z = new ZipfKeys(100, 0.8);
    expect(cheHitRatio(z, 0)).toBe(0);
    expect(cheHitRatio(z, 100)).toBe(1);
    // Uniform popularity: every key has the same characteristic-time occupancy C/K, so the hit ratio is C/K.
    expect(cheHitRatio(new ZipfKeys(100, 0), 25)).toBeCloseTo(0.25, 9);
  });
});
