/**
 * The compiled form of a backoff, for the hot path (`compileBackoff`): the kind as an integer code,
 * the numbers the draw reads, and for the kinds drawn from the exponential ceiling, tables of that
 * ceiling (`ceilingTable`), so that a retry costs a table load instead of a power. The draw of a
 * wait from it is `drawBackoff` in `backoff.ts`, beside the formulas it calls (the same numbers, bit
 * for bit).
 */
import { BACKOFF_TRAITS, BackoffCode, baseOf, exponentialCeilingMs, initialPrevSleepMs, randomizationFactorOf, type BackoffCodeValue } from './backoff.js';
import type { BackoffSpec } from './types.js';

/**
 * Longest ceiling table {@link compileBackoff} builds; retries past a table that has no constant
 * tail are computed by {@link exponentialCeilingMs}.
 */
const MAX_TABLE_RETRIES = 64;

/**
 * Smallest multiplier for which the exponential ceiling is taken to stay at the cap once it has
 * reached it: a step of one in the exponent multiplies the power by at least 1.0001, far more than
 * the error of `Math.pow` (a few units in the last place), so base * multiplier^e never decreases
 * from one retry to the next.
 */
const MONOTONE_MIN_MULTIPLIER = 1.0001;

/**
 * The exponential ceiling of retries 0, 1, 2 ... as {@link exponentialCeilingMs} computes them,
 * cached: `ceilingsMs[r]` is the ceiling of retry r, and every retry >= ceilingsMs.length has the
 * ceiling `tailMs` (NaN: no constant tail is known, compute it).
 */
export interface CeilingTable {
  readonly ceilingsMs: Float64Array;
  readonly tailMs: number;
}

/** A {@link CeilingTable} as a class: one hidden class from run to run (see `PolicyNumbers` in decision.ts). */
class Ceilings implements CeilingTable {
  constructor(
    readonly ceilingsMs: Float64Array,
    readonly tailMs: number,
  ) {}
}

const NO_TABLE: CeilingTable = new Ceilings(new Float64Array(0), NaN);

/**
 * The ceiling table of `b` (with `throttledBaseMs` when `throttled`). Each entry is computed by
 * {@link exponentialCeilingMs} itself. The table ends at the first retry from which the ceiling is
 * the same for every later retry, whatever its number: a base of 0 (always 0), a multiplier of 1
 * (always min(cap, base)), or the cap reached with a positive base, a whole exponent offset and a
 * multiplier >= {@link MONOTONE_MIN_MULTIPLIER} (the ceiling only grows, and the cap bounds it).
 */
export function ceilingTable(b: BackoffSpec, throttled: boolean): CeilingTable {
  const base = baseOf(b, throttled);
  const capStays = base > 0 && b.multiplier >= MONOTONE_MIN_MULTIPLIER && Number.isInteger(b.exponentOffset) && b.exponentOffset >= 0;
  const ceilings: number[] = [];
  for (let r = 0; r <= MAX_TABLE_RETRIES; r++) {
    const c = exponentialCeilingMs(b, r, throttled);
    ceilings.push(c);
    if (base === 0 || b.multiplier === 1 || (capStays && r >= 1 && c === b.capMs)) {
      return new Ceilings(Float64Array.from(ceilings), c);
    }
  }
  return new Ceilings(Float64Array.from(ceilings), NaN);
}

/**
 * A backoff resolved for the hot path (see {@link compileBackoff}): the kind as an integer code,
 * and for the kinds drawn from the exponential ceiling (`exponential`, `full-jitter`,
 * `equal-jitter`, `randomized`, `random-exponential`) tables of that ceiling, so a retry costs a
 * table load instead of a power.
 */
export interface CompiledBackoff {
  readonly spec: BackoffSpec;
  readonly code: BackoffCodeValue;
  /** The ceiling and sample come from `ceilings` (an exponential kind). */
  readonly tabled: boolean;
  readonly ceilings: CeilingTable;
  /** The table for throttling failures (`throttledBaseMs`); `ceilings` without one. */
  readonly throttledCeilings: CeilingTable;
  /** The spec has a `throttledBaseMs` (otherwise a throttling failure changes nothing). */
  readonly hasThrottledBase: boolean;
  readonly randomizationFactor: number;
  readonly minMs: number;
  /** {@link initialPrevSleepMs} of the spec. */
  readonly initialPrevSleepMs: number;
}

/** Resolve a backoff spec into {@link CompiledBackoff}. The spec must not change afterwards. */
export function compileBackoff(b: BackoffSpec): CompiledBackoff {
  return new BackoffNumbers(b);
}

/** {@link CompiledBackoff} as a class: one hidden class from run to run (see `PolicyNumbers` in decision.ts). */
class BackoffNumbers implements CompiledBackoff {
  readonly spec: BackoffSpec;
  readonly code: BackoffCodeValue;
  readonly tabled: boolean;
  readonly ceilings: CeilingTable;
  readonly throttledCeilings: CeilingTable;
  readonly hasThrottledBase: boolean;
  readonly randomizationFactor: number;
  readonly minMs: number;
  readonly initialPrevSleepMs: number;

  constructor(b: BackoffSpec) {
    const tabled = BACKOFF_TRAITS[b.kind].fromExponentialCeiling;
    const hasThrottledBase = b.throttledBaseMs !== undefined;
    const ceilings = tabled ? ceilingTable(b, false) : NO_TABLE;
    this.spec = b;
    this.code = BackoffCode[b.kind];
    this.tabled = tabled;
    this.ceilings = ceilings;
    this.throttledCeilings = tabled && hasThrottledBase ? ceilingTable(b, true) : ceilings;
    this.hasThrottledBase = hasThrottledBase;
    this.randomizationFactor = randomizationFactorOf(b);
    this.minMs = b.minMs ?? 0;
    this.initialPrevSleepMs = initialPrevSleepMs(b);
  }
}
