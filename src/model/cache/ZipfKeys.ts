import { tableGrew } from '../../engine/memoryMeter.js';

/** Bytes per key kept (its probability and the alias table's keep: Float64; its alias: Int32). */
export const ZIPF_KEY_BYTES = 20;
/** Bytes per key more while the alias table is built (Vose's scaled probabilities: Float64; small and large work lists: Int32). */
export const ZIPF_BUILD_KEY_BYTES = 16;

/**
 * Key popularity of a lookaside cache's requests: rank i in 1..K with probability proportional to
 * i^-s (a Zipf law; s = 0 is uniform). Breslau, Cao, Fan, Phillips and Shenker, "Web Caching and
 * Zipf-like Distributions: Evidence and Implications" (INFOCOM 1999) measured web request streams
 * with s between 0.64 and 0.83; Huang et al., "Metastable Failures in the Wild" (OSDI 2022), use such a
 * popularity for their cache case.
 *
 * A draw takes one uniform u in [0, 1) and costs O(1): Walker's alias method (Walker, "An Efficient
 * Method for Generating Discrete Random Variables with General Distributions", ACM TOMS 3(3), 1977)
 * in Vose's numerically stable construction (Vose, "A Linear Algorithm for Generating Random Numbers
 * with a Given Distribution", IEEE TSE 17(9), 1991). The integer part of u x K picks a column, the
 * fraction decides between the column's own rank and its alias.
 */
export class ZipfKeys {
  /** The number of keys K. */
  readonly keys: number;
  /** The exponent s. */
  readonly exponent: number;
  /** p_i for rank i = index + 1 (sums to 1). */
  private readonly p: Float64Array;
  /** Per column: the probability of keeping the column's own rank. */
  private readonly keep: Float64Array;
  /** Per column: the rank (1-based) drawn otherwise. */
  private readonly alias: Int32Array;

  constructor(keys: number, exponent: number) {
    if (!Number.isInteger(keys) || keys < 1) throw new RangeError(`Zipf keys must be an integer >= 1 (got ${keys})`);
    if (!(exponent >= 0) || !Number.isFinite(exponent)) throw new RangeError(`Zipf exponent must be finite and >= 0 (got ${exponent})`);
    this.keys = keys;
    this.exponent = exponent;
    tableGrew(keys * ZIPF_KEY_BYTES);
    const p = new Float64Array(keys);
    let sum = 0;
    for (let i = 0; i < keys; i++) sum += p[i] = Math.pow(i + 1, -exponent);
    for (let i = 0; i < keys; i++) p[i] = p[i]! / sum;
    this.p = p;
    this.keep = new Float64Array(keys);
    this.alias = new Int32Array(keys);
    this.build();
  }

  /** Vose's construction of the alias table from {@link p}. */
  private build(): void {
    const n = this.keys;
    const scaled = new Float64Array(n);
    const small = new Int32Array(n);
    const large = new Int32Array(n);
    let ns = 0;
    let nl = 0;
    for (let i = 0; i < n; i++) {
      scaled[i] = this.p[i]! * n;
      if (scaled[i]! < 1) small[ns++] = i;
      else large[nl++] = i;
    }
    while (ns > 0 && nl > 0) {
      const l = small[--ns]!;
      const g = large[--nl]!;
      this.keep[l] = scaled[l]!;
      this.alias[l] = g + 1;
      scaled[g] = scaled[g]! + scaled[l]! - 1;
      if (scaled[g]! < 1) small[ns++] = g;
      else large[nl++] = g;
    }
    // What is left holds (up to rounding) exactly one column's worth: it keeps its own rank.
    while (nl > 0) {
      const g = large[--nl]!;
      this.keep[g] = 1;
      this.alias[g] = g + 1;
    }
    while (ns > 0) {
      const l = small[--ns]!;
      this.keep[l] = 1;
      this.alias[l] = l + 1;
    }
  }

  /** The probability of rank `rank` (1-based). */
  probability(rank: number): number {
    return this.p[rank - 1] ?? 0;
  }

  /** The rank (1..K) that the uniform draw u in [0, 1) stands for. */
  draw(u: number): number {
    const x = u * this.keys;
    const column = Math.min(this.keys - 1, Math.floor(x));
    return x - column < this.keep[column]! ? column + 1 : this.alias[column]!;
  }
}

/**
 * Che's approximation of an LRU cache's hit ratio under independent requests (Che, Tung and Wang,
 * "Hierarchical Web Caching Systems: Modeling, Design and Experimental Results", IEEE JSAC 20(7),
 * 2002): the characteristic time T solves sum_i (1 - exp(-p_i T)) = C, and the hit ratio is
 * sum_i p_i (1 - exp(-p_i T)). Fricker, Robert and Roberts (ITC 2012) explain why it is accurate.
 * T is found by bisection on a monotone function; a capacity of K or more hits always.
 */
export function cheHitRatio(keys: ZipfKeys, capacity: number): number {
  if (capacity <= 0) return 0;
  if (capacity >= keys.keys) return 1;
  const filled = (t: number): number => {
    let s = 0;
    for (let i = 1; i <= keys.keys; i++) s += 1 - Math.exp(-keys.probability(i) * t);
    return s;
  };
  let lo = 0;
  let hi = 1;
  while (filled(hi) < capacity) hi *= 2;
  for (let k = 0; k < 200 && hi - lo > 1e-12 * hi; k++) {
    const mid = (lo + hi) / 2;
    if (filled(mid) < capacity) lo = mid;
    else hi = mid;
  }
  const t = (lo + hi) / 2;
  let hit = 0;
  for (let i = 1; i <= keys.keys; i++) {
    const p = keys.probability(i);
    hit += p * (1 - Math.exp(-p * t));
  }
  return hit;
}
