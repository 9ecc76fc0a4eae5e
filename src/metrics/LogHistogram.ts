// A float64 is read through a shared two-word alias: the high word holds the sign bit, the 11 exponent
// bits and the top 20 mantissa bits, so `hi >>> 13` is (biased exponent << 7) | top 7 mantissa bits,
// a monotone bucket key for non-negative numbers. HI picks the high word for the platform's byte order.
const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const LO = 1 - HI;

const MANTISSA_BITS = 7;
const SHIFT = 20 - MANTISSA_BITS;
const EXP_BIAS = 1023;
const MIN_EXP = -20;
const MAX_EXP = 60;
/** Key of the lowest bucket, [2^MIN_EXP, 2^MIN_EXP * (1 + 1/128)). */
const KEY_MIN = (MIN_EXP + EXP_BIAS) << MANTISSA_BITS;
/** Slot 0 is the zero bucket; the key buckets follow it. */
const KEY_OFFSET = KEY_MIN - 1;
const BUCKETS = 1 + (MAX_EXP - MIN_EXP + 1) * (1 << MANTISSA_BITS);
const LAST = BUCKETS - 1;
/** Buckets are stored in chunks of 32 (a quarter of an exponent), allocated on first use: a run touches a few exponents, and a small run only parts of them. */
const CHUNK_BITS = 5;
const CHUNK = 1 << CHUNK_BITS;
const CHUNKS = Math.ceil(BUCKETS / CHUNK);

/** Values below this (0 included) count in the zero bucket; it exceeds 2^-20, so no value is clamped from below. */
export const HISTOGRAM_ZERO_LIMIT = 1e-6;

/** Smallest rank r (1-based) such that at least ceil(q * count) records are among the first r. */
function nearestRank(q: number, count: number): number {
  // q * count can land an ulp above an integer (0.07 * 100 = 7.000000000000001): nudge it down first.
  const r = Math.ceil(q * count * (1 - 1e-12));
  return r < 1 ? 1 : r > count ? count : r;
}

/** Midpoint of bucket slot `i` (> 0): the key with the next mantissa bit set, read back as a float64. */
function bucketMidpoint(i: number): number {
  U32[HI] = (((i + KEY_OFFSET) << SHIFT) | (1 << (SHIFT - 1))) >>> 0;
  U32[LO] = 0;
  return F64[0] as number;
}

/** Ranks, then values, of the quantiles of {@link LogHistogram.summary} (reused: no allocation per summary). */
const SUMMARY_QUANTILES = new Float64Array(4);

/** Summary of a {@link LogHistogram}; every statistic is null when nothing was recorded. */
export interface HistogramSummary {
  count: number;
  mean: number | null;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
}

/**
 * Streaming histogram of non-negative numbers (latencies in ms) in log-spaced buckets, in the spirit of
 * HdrHistogram (Gil Tene) and DDSketch (Masson, Rim and Lee, VLDB 2019) with a fixed relative accuracy.
 * A bucket is indexed by the number's binary exponent and the top 7 bits of its mantissa, read from the
 * float64's bits (no `Math.log`), so each bucket spans at most 1/128 of its lower bound and a quantile,
 * reported as its bucket's midpoint, is within 1/256 of the true value. Buckets cover 2^-20 .. 2^61;
 * larger values share the top bucket. Values below {@link HISTOGRAM_ZERO_LIMIT} go to a zero bucket.
 * Count, sum, mean, min and max are exact. Recording allocates nothing.
 */
export class LogHistogram {
  private readonly chunks: Array<Float64Array | null> = new Array<Float64Array | null>(CHUNKS).fill(null);
  private n = 0;
  /**
   * Starts as -0, a double, not as the integer 0: a field that starts as an integer and later
   * holds fractions changes representation in V8, which then discards the optimized code of every
   * caller that stored a histogram, once per run (a model builds new histograms for each run).
   * -0 + v is v for every v >= 0 (+0 for v = 0), so the sums are the same.
   */
  private total = -0;
  private lo = Infinity;
  private hi = -Infinity;

  /** Count one value. Throws a RangeError for negative numbers and NaN. */
  record(v: number): void {
    if (!(v >= 0)) badValue(v);
    this.n++;
    this.total += v;
    if (v < this.lo) this.lo = v;
    if (v > this.hi) this.hi = v;
    let i = 0;
    if (v >= HISTOGRAM_ZERO_LIMIT) {
      F64[0] = v;
      i = ((U32[HI] as number) >>> SHIFT) - KEY_OFFSET;
      if (i > LAST) i = LAST;
    }
    const chunk = this.chunks[i >> CHUNK_BITS] ?? this.newChunk(i >> CHUNK_BITS);
    const k = i & (CHUNK - 1);
    chunk[k] = (chunk[k] as number) + 1;
  }

  /** Allocate chunk `c` on first use; out of line, to keep {@link record} small enough to inline. */
  private newChunk(c: number): Float64Array {
    return (this.chunks[c] = new Float64Array(CHUNK));
  }

  /** Number of recorded values. */
  get count(): number {
    return this.n;
  }

  /** Sum of the recorded values. */
  get sum(): number {
    return this.total + 0;
  }

  /** Smallest recorded value (exact); NaN when empty. */
  get min(): number {
    return this.n > 0 ? this.lo : NaN;
  }

  /** Largest recorded value (exact); NaN when empty. */
  get max(): number {
    return this.n > 0 ? this.hi : NaN;
  }

  /** Exact arithmetic mean, sum / count; NaN when empty. */
  mean(): number {
    return this.n > 0 ? this.total / this.n : NaN;
  }

  /**
   * The q-quantile by the nearest-rank rule: the smallest recorded value v such that at least
   * ceil(q * count) records are <= v, reported as the midpoint of v's bucket clamped into [min, max]
   * (so rank 1 is min and rank count is max, exactly). NaN when empty; throws unless 0 <= q <= 1.
   */
  quantile(q: number): number {
    if (!(q >= 0 && q <= 1)) throw new RangeError(`LogHistogram.quantile: q must be in [0, 1] (got ${q})`);
    const n = this.n;
    if (n === 0) return NaN;
    const rank = nearestRank(q, n);
    if (rank === 1) return this.lo;
    if (rank === n) return this.hi;
    let seen = 0;
    let i = LAST;
    const chunks = this.chunks;
    search: for (let c = 0; c < CHUNKS; c++) {
      const chunk = chunks[c];
      if (chunk === null || chunk === undefined) continue;
      for (let k = 0; k < CHUNK; k++) {
        seen += chunk[k] as number;
        if (seen >= rank) {
          i = Math.min(LAST, c * CHUNK + k);
          break search;
        }
      }
    }
    return this.reported(i);
  }

  /** Count, mean, p50, p90, p99, p99.9 and max; the statistics are null when nothing was recorded. */
  summary(): HistogramSummary {
    const n = this.n;
    if (n === 0) return { count: 0, mean: null, p50: null, p90: null, p99: null, p999: null, max: null };
    // The four quantiles of {@link quantile}, found in one pass over the buckets (their ranks ascend).
    const q = SUMMARY_QUANTILES;
    q[0] = nearestRank(0.5, n);
    q[1] = nearestRank(0.9, n);
    q[2] = nearestRank(0.99, n);
    q[3] = nearestRank(0.999, n);
    this.quantilesOfRanks(q);
    return { count: n, mean: this.total / n, p50: q[0] as number, p90: q[1] as number, p99: q[2] as number, p999: q[3] as number, max: this.hi };
  }

  /**
   * Replace each rank of `ranks` (nondecreasing, each in 1..count) by its value as {@link quantile}
   * reports it, in a single pass over the buckets.
   */
  private quantilesOfRanks(ranks: Float64Array): void {
    const n = this.n;
    let j = 0;
    const m = ranks.length;
    // Ranks 1 and count are min and max exactly; only the ranks between need the buckets.
    while (j < m && ranks[j] === 1) ranks[j++] = this.lo;
    let end = m;
    while (end > j && ranks[end - 1] === n) ranks[--end] = this.hi;
    if (j === end) return;
    let rank = ranks[j] as number;
    let seen = 0;
    const chunks = this.chunks;
    for (let c = 0; c < CHUNKS; c++) {
      const chunk = chunks[c];
      if (chunk === null || chunk === undefined) continue;
      for (let k = 0; k < CHUNK; k++) {
        seen += chunk[k] as number;
        if (seen >= rank) {
          const v = this.reported(Math.min(LAST, c * CHUNK + k));
          do {
            ranks[j++] = v;
            if (j === end) return;
            rank = ranks[j] as number;
          } while (seen >= rank);
        }
      }
    }
    // Not reached while the bucket counts add up to count; {@link quantile} reports the last bucket then.
    while (j < end) ranks[j++] = this.reported(LAST);
  }

  /** What a quantile falling in bucket slot `i` reports: the bucket's midpoint clamped into [min, max]. */
  private reported(i: number): number {
    const mid = i === 0 ? 0 : bucketMidpoint(i);
    return mid < this.lo ? this.lo : mid > this.hi ? this.hi : mid;
  }

  /**
   * Add every record of `other` to this histogram (`other` is left as it is). Bucket counts, count, min,
   * max and so the quantiles come out exactly as if its values had been recorded here; the sum becomes
   * this sum + other's sum, which may differ in the last bits from recording the values one by one
   * (floating-point addition is not associative), and the mean with it.
   */
  merge(other: LogHistogram): void {
    for (let c = 0; c < CHUNKS; c++) {
      const b = other.chunks[c];
      if (b === null || b === undefined) continue;
      let a = this.chunks[c] as Float64Array | null;
      if (a === null) a = this.chunks[c] = new Float64Array(CHUNK);
      for (let k = 0; k < CHUNK; k++) a[k] = (a[k] as number) + (b[k] as number);
    }
    this.n += other.n;
    this.total += other.total;
    if (other.lo < this.lo) this.lo = other.lo;
    if (other.hi > this.hi) this.hi = other.hi;
  }

  /** Forget every record. */
  reset(): void {
    this.chunks.fill(null);
    this.n = 0;
    this.total = -0;
    this.lo = Infinity;
    this.hi = -Infinity;
  }
}

/** Thrown out of line: a `throw` with a template string inside a hot method slows down its callers. */
function badValue(v: number): never {
  throw new RangeError(`LogHistogram.record: value must be >= 0 (got ${v})`);
}
