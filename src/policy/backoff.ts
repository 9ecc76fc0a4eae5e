/**
 * Backoff: the kinds and their integer codes, what sets each kind apart (`BACKOFF_TRAITS`), the
 * formulas of every kind's ceiling, wait and carried state, each citing its source, and the draw
 * of a wait from a backoff's compiled form (`drawBackoff`, `compiledNextPrevSleepMs`,
 * `tableCeilingMs`). The compiled form itself, with the exponential ceilings in tables, and its
 * construction are `compiledBackoff.ts`. The draw stays here, with the formulas it calls on the
 * hot path: from another module each call goes through the imported binding (about 2% more
 * instructions in `planRetry`, into which the draw is inlined, in the storm benchmark).
 */
import type { CeilingTable, CompiledBackoff } from './compiledBackoff.js';
import type { BackoffKind, BackoffSpec } from './types.js';

/** Integer codes of the backoff kinds, for the hot path. */
export const BackoffCode = {
  none: 0,
  constant: 1,
  exponential: 2,
  'full-jitter': 3,
  'equal-jitter': 4,
  'decorrelated-jitter': 5,
  linear: 6,
  'aws-sdk-js': 7,
  envoy: 8,
  'polly-decorrelated-v2': 9,
  randomized: 10,
  'node-retry': 11,
  'random-exponential': 12,
} as const satisfies Record<BackoffKind, number>;
/** The integer code of one backoff kind. */
export type BackoffCodeValue = (typeof BackoffCode)[BackoffKind];

/** The backoff kinds, in a stable order (for messages and schemas). */
export const BACKOFF_KINDS = Object.keys(BackoffCode) as unknown as readonly [BackoffKind, ...BackoffKind[]];

/**
 * What sets one backoff kind apart, for the code that treats kinds differently without computing a
 * wait (the draws of the hot path, `check`'s findings). Every kind has an entry, so a new kind does
 * not compile until its traits are written here.
 */
export interface BackoffTraits {
  /**
   * Whether a wait takes a random draw: always, never, or as a field of the spec says
   * (`randomized` draws while `randomizationFactor` > 0, `node-retry` only with `randomize`).
   */
  readonly random: 'always' | 'never' | 'randomizationFactor' | 'randomize';
  /**
   * How the waits grow from retry to retry: `multiplier`, as base x multiplier^(r - 1 + exponentOffset)
   * (growing when multiplier > 1 and base > 0); `previous-wait`, from the wait before (decorrelated
   * jitter and Polly's V2, growing whenever base > 0); `linear`, as base x r; `doubling-range`,
   * Envoy's (2^N - 1) x base while that stays within the cap; `none`, the same wait every time.
   */
  readonly growth: 'multiplier' | 'previous-wait' | 'linear' | 'doubling-range' | 'none';
  /**
   * Whether the ceiling and the sample derive from the exponential ceiling e =
   * {@link exponentialCeilingMs} alone, so that a compiled backoff reads e from a table.
   */
  readonly fromExponentialCeiling: boolean;
}

/** The traits of every backoff kind (see {@link BackoffTraits}; the formulas and their sources are at {@link backoffDelayMs}). */
export const BACKOFF_TRAITS: Readonly<Record<BackoffKind, BackoffTraits>> = {
  none: { random: 'never', growth: 'none', fromExponentialCeiling: false },
  constant: { random: 'never', growth: 'none', fromExponentialCeiling: false },
  exponential: { random: 'never', growth: 'multiplier', fromExponentialCeiling: true },
  'full-jitter': { random: 'always', growth: 'multiplier', fromExponentialCeiling: true },
  'equal-jitter': { random: 'always', growth: 'multiplier', fromExponentialCeiling: true },
  'decorrelated-jitter': { random: 'always', growth: 'previous-wait', fromExponentialCeiling: false },
  linear: { random: 'never', growth: 'linear', fromExponentialCeiling: false },
  'aws-sdk-js': { random: 'always', growth: 'multiplier', fromExponentialCeiling: false },
  envoy: { random: 'always', growth: 'doubling-range', fromExponentialCeiling: false },
  'polly-decorrelated-v2': { random: 'always', growth: 'previous-wait', fromExponentialCeiling: false },
  randomized: { random: 'randomizationFactor', growth: 'multiplier', fromExponentialCeiling: true },
  'node-retry': { random: 'randomize', growth: 'multiplier', fromExponentialCeiling: false },
  'random-exponential': { random: 'always', growth: 'multiplier', fromExponentialCeiling: true },
};

/** Codes of the kinds whose waits derive from the exponential ceiling alone ({@link BackoffTraits.fromExponentialCeiling}). */
type ExponentialCode = (typeof BackoffCode)['exponential' | 'full-jitter' | 'equal-jitter' | 'randomized' | 'random-exponential'];

/** The end of a switch that has handled every kind: the compiler rejects it while a kind is missing. */
function unknownCode(code: never): never {
  throw new Error(`unknown backoff code ${String(code)}`);
}

/** Largest exponent ever evaluated: 2^1100 is already +Infinity, so the cap wins long before. */
const MAX_EXPONENT = 1100;

/** Default `randomizationFactor` of `randomized`: cenkalti/backoff `DefaultRandomizationFactor` (exponential.go). */
export const DEFAULT_RANDOMIZATION_FACTOR = 0.5;

/**
 * Polly's DecorrelatedJitterBackoffV2 constants (App-vNext/Polly:src/Polly.Core/Retry/RetryHelper.cs):
 * `PFactor` smooths the first delay, `RpScalingFactor` = 1/1.4 puts the median delays near
 * base x 1, 2, 4 ...
 */
const POLLY_P_FACTOR = 4.0;
const POLLY_RP_SCALING = 1 / 1.4;

/** 2^k for integer k in [0, 1024] (2^1024 is +Infinity): the common multiplier without Math.pow. */
const POW2 = Float64Array.from({ length: 1025 }, (_, k) => Math.pow(2, k));

/** base * multiplier^e, the exponent clamped to [0, MAX_EXPONENT] so it never overflows into NaN. */
function grown(baseMs: number, multiplier: number, exponent: number): number {
  if (baseMs === 0) return 0;
  if (multiplier === 1) return baseMs;
  const e = Math.min(MAX_EXPONENT, Math.max(0, exponent));
  if (multiplier === 2 && (e | 0) === e) return baseMs * (e <= 1024 ? (POW2[e] as number) : Infinity);
  return baseMs * Math.pow(multiplier, e);
}

/** @internal The base in effect: `throttledBaseMs` after a throttling failure when the spec has one. */
export function baseOf(b: BackoffSpec, throttled: boolean): number {
  return throttled && b.throttledBaseMs !== undefined ? b.throttledBaseMs : b.baseMs;
}

/**
 * Exponential ceiling of retry `retry` (1 for the first retry):
 * min(capMs, baseMs * multiplier^(retry - 1 + exponentOffset)). The exponent is clamped before
 * the power is computed, so huge retry counts never overflow into NaN.
 * Source: AWS Architecture Blog, "Exponential Backoff And Jitter" (2015); the AWS study's
 * simulator starts the exponent at 1 (exponentOffset 1). `throttled` uses `throttledBaseMs`.
 */
export function exponentialCeilingMs(b: BackoffSpec, retry: number, throttled = false): number {
  const base = baseOf(b, throttled);
  if (base === 0) return 0;
  return Math.min(b.capMs, grown(base, b.multiplier, retry - 1 + b.exponentOffset));
}

/**
 * Envoy's back-off interval for retry `retry`: min(base * 2^(retry - 1), cap). The source starts
 * `next_interval_` at base_interval and doubles it after each retry until doubling would pass
 * max_interval, then holds it at max_interval (envoyproxy/envoy:source/common/common/
 * backoff_strategy.cc, `JitteredExponentialBackOffStrategy::nextBackOffMs`, the code since 2020;
 * the 2018-2020 code, envoy#3791 and #10417, drew from [0, (2^N - 1) * base), the formula
 * router_filter.rst still documents).
 */
function envoyIntervalMs(baseMs: number, capMs: number, retry: number): number {
  return Math.min(capMs, grown(baseMs, 2, retry - 1));
}

/** Polly's `next` for retry `retry` and draw `u`: t = (retry - 1) + u, next = 2^t * tanh(sqrt(4t)). */
function pollyNext(retry: number, u: number): number {
  const t = retry - 1 + u;
  return Math.pow(2, t) * Math.tanh(Math.sqrt(POLLY_P_FACTOR * t));
}

/**
 * The `prevSleepMs` a fresh call starts with: decorrelated jitter's s0 = base; Polly's
 * DecorrelatedJitterBackoffV2 keeps its previous `next` (in units of the base, starting at 0).
 */
export function initialPrevSleepMs(b: BackoffSpec): number {
  return b.kind === 'polly-decorrelated-v2' ? 0 : b.baseMs;
}

/**
 * Upper end of the range the wait of retry `retry` is drawn from (what `trace` prints as the
 * ceiling): 0 for `none`, base for `constant`, the exponential ceiling for `exponential`,
 * `full-jitter` and `equal-jitter`, min(cap, 3 * prevSleep) for `decorrelated-jitter`, and for the
 * library kinds the wait a draw of 1 would give (see {@link backoffDelayMs}).
 */
export function backoffCeilingMs(b: BackoffSpec, retry: number, prevSleepMs: number, throttled = false): number {
  return ceilingOfCode(BackoffCode[b.kind], b, retry, prevSleepMs, throttled);
}

/** {@link backoffCeilingMs} for the kind whose code is `code` (the kind of `b`). */
function ceilingOfCode(code: BackoffCodeValue, b: BackoffSpec, retry: number, prevSleepMs: number, throttled: boolean): number {
  const base = baseOf(b, throttled);
  switch (code) {
    case BackoffCode.none:
      return 0;
    case BackoffCode.constant:
      return base;
    case BackoffCode['decorrelated-jitter']:
      return Math.min(b.capMs, 3 * prevSleepMs);
    case BackoffCode.linear:
      return Math.min(b.capMs, base * Math.max(1, retry));
    case BackoffCode.envoy:
      return envoyIntervalMs(base, b.capMs, retry);
    case BackoffCode['polly-decorrelated-v2']:
      if (base === 0) return 0;
      return Math.min(b.capMs, (pollyNext(retry, 1) - prevSleepMs) * POLLY_RP_SCALING * base);
    case BackoffCode['node-retry']: {
      const r = b.randomize === true ? 2 : 1;
      return Math.min(b.capMs, Math.round(r * grown(base, b.multiplier, retry - 1 + b.exponentOffset)));
    }
    case BackoffCode.exponential:
    case BackoffCode['full-jitter']:
    case BackoffCode['equal-jitter']:
    case BackoffCode['aws-sdk-js']:
    case BackoffCode.randomized:
    case BackoffCode['random-exponential']:
      return ceilingFromExponentialMs(code, exponentialCeilingMs(b, retry, throttled), randomizationFactorOf(b), b.minMs ?? 0);
    default:
      return unknownCode(code);
  }
}

/** @internal The `randomizationFactor` in effect (`randomized`). */
export function randomizationFactorOf(b: BackoffSpec): number {
  return b.randomizationFactor ?? DEFAULT_RANDOMIZATION_FACTOR;
}

/**
 * The ceiling of the kinds that grow as the exponential ceiling e = {@link exponentialCeilingMs}
 * (`exponential`, `full-jitter`, `equal-jitter`, `aws-sdk-js`, `randomized`, `random-exponential`):
 * e itself (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015), e * (1 + f) for
 * `randomized` (factor f; cenkalti/backoff:exponential.go `getRandomValueFromInterval`),
 * max(min, e) for `random-exponential` (jd/tenacity:tenacity/wait.py `wait_random_exponential`).
 */
function ceilingFromExponentialMs(code: BackoffCodeValue, e: number, factor: number, minMs: number): number {
  if (code === BackoffCode.randomized) return e * (1 + factor);
  if (code === BackoffCode['random-exponential']) return Math.max(minMs, e);
  return e;
}

/**
 * The sample of the kinds drawn from the exponential ceiling e for the draw `u` (details at
 * {@link backoffDelayMs}): `exponential` e, `full-jitter` u * e, `equal-jitter` e/2 + u * e/2
 * (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015); `randomized` e(1 - f) + u * 2fe
 * (cenkalti/backoff:exponential.go `getRandomValueFromInterval`); `random-exponential`
 * uniform(min, max(min, e)) (jd/tenacity:tenacity/wait.py `wait_random_exponential`).
 */
function sampleFromExponentialMs(code: ExponentialCode, e: number, u: number, factor: number, minMs: number): number {
  switch (code) {
    case BackoffCode.exponential:
      return e;
    case BackoffCode['full-jitter']:
      return u * e;
    // Floating-point rounding can carry a sum one ulp past its ceiling (seen with subnormal e, where
    // e / 2 is not exact): each jittered wait is bounded by the ceiling of ceilingFromExponentialMs.
    case BackoffCode['equal-jitter']: {
      const half = e / 2;
      return Math.min(e, half + u * half);
    }
    case BackoffCode.randomized:
      return Math.min(e * (1 + factor), e * (1 - factor) + u * (2 * factor * e));
    case BackoffCode['random-exponential']: {
      const hi = Math.max(minMs, e);
      return Math.min(hi, minMs + u * (hi - minMs));
    }
    default:
      return unknownCode(code);
  }
}

/**
 * The backoff delay before retry `retry` (1 for the first retry) for the uniform draw `u` in
 * [0, 1). `throttled` (the failure was a 429) swaps in `throttledBaseMs` where the spec has one.
 *
 * AWS Architecture Blog, "Exponential Backoff And Jitter" (2015; formulas as in
 * aws-samples/aws-arch-backoff-simulator), with ceiling(r) = min(cap, base * multiplier^(r - 1 + e0)):
 * - `none`: 0; `constant`: base; `exponential`: ceiling(r), no randomness;
 * - `full-jitter`: uniform(0, ceiling(r)) (a later wait can be shorter than an earlier one);
 *   this is also botocore's standard mode, rand * min(2^(attempt - 1) * base, 20 s)
 *   (boto/botocore:botocore/retries/standard.py, `ExponentialBackoff`), and gRPC A6's
 *   random(0, min(initialBackoff * multiplier^(n - 1), maxBackoff));
 * - `equal-jitter`: ceiling(r)/2 + uniform(0, ceiling(r)/2);
 * - `decorrelated-jitter`: min(cap, uniform(base, 3 * prevSleep)), s0 = base; the capped value is
 *   the next prevSleep (see {@link nextPrevSleepMs}).
 *
 * Library formulas (each follows its source):
 * - `linear`: min(cap, base * r) (Polly v8 `DelayBackoffType.Linear`: (attempt + 1) * delay,
 *   App-vNext/Polly:src/Polly.Core/Retry/RetryHelper.cs);
 * - `aws-sdk-js`: floor(min(cap, u * base * multiplier^(r - 1 + e0))), the cap applied after the
 *   jitter (smithy-lang/smithy-typescript:packages/util-retry/src/defaultRetryBackoffStrategy.ts,
 *   `computeNextBackoffDelay(retryCount)` with retryCount 0 for the first retry; base 100 ms,
 *   MAXIMUM_RETRY_DELAY 20 s in constants.ts);
 * - `envoy`: floor(u * min(base * 2^(r - 1), cap)), an integer uniform on [0, interval) ms
 *   (envoyproxy/envoy:source/common/common/backoff_strategy.cc,
 *   `JitteredExponentialBackOffStrategy::nextBackOffMs`: random % next_interval_, the interval
 *   doubling from base_interval until it reaches max_interval; base 25 ms, max 10 x base). The
 *   [0, (2^N - 1) * base) of router_filter.rst is the 2018-2020 code. `multiplier` and
 *   `exponentOffset` are not used;
 * - `polly-decorrelated-v2`: Polly v8's DecorrelatedJitterBackoffV2: t = (r - 1) + u,
 *   next = 2^t * tanh(sqrt(4t)), delay = min(cap, (next - prev) * base / 1.4), then prev = next
 *   (prev starts at 0 and travels in `prevSleepMs`; RetryHelper.cs). Base 0 waits 0;
 * - `randomized`: interval i = min(cap, base * multiplier^(r - 1 + e0)) (the cap bounds the interval,
 *   not the randomized value), delay = i * (1 - f) + u * 2f * i with f = randomizationFactor
 *   (cenkalti/backoff:exponential.go `getRandomValueFromInterval`; google-http-client
 *   ExponentialBackOff; resilience4j IntervalFunction `ofRandomized`: U[x/2, 3x/2) for f = 0.5).
 *   The sources add one unit (1 ns in Go, 1 ms before truncation in Java) to the range width and
 *   truncate the interval to whole units as it grows; both are left out;
 * - `node-retry`: min(cap, round(R * base * multiplier^(r - 1 + e0))), R = 1 + u when `randomize`,
 *   else 1 (tim-kos/node-retry:lib/retry.js `_createTimeout`; npm retry, p-retry and async-retry).
 *   node-retry sorts its list of timeouts; with multiplier >= 2 the randomized ranges do not
 *   overlap and sorting changes nothing;
 * - `random-exponential`: uniform(min, max(min, min(cap, base * multiplier^(r - 1 + e0))))
 *   (jd/tenacity:tenacity/wait.py `wait_random_exponential`: multiplier * exp_base^(attempt - 1),
 *   capped at max, drawn from [min, that]).
 */
export function backoffDelayMs(b: BackoffSpec, retry: number, prevSleepMs: number, u: number, throttled = false): number {
  return delayOfCode(BackoffCode[b.kind], b, retry, prevSleepMs, u, throttled);
}

/** {@link backoffDelayMs} for the kind whose code is `code` (the kind of `b`). */
function delayOfCode(code: BackoffCodeValue, b: BackoffSpec, retry: number, prevSleepMs: number, u: number, throttled: boolean): number {
  const base = baseOf(b, throttled);
  switch (code) {
    case BackoffCode.none:
      return 0;
    case BackoffCode.constant:
      return base;
    case BackoffCode.exponential:
    case BackoffCode['full-jitter']:
    case BackoffCode['equal-jitter']:
    case BackoffCode.randomized:
    case BackoffCode['random-exponential']:
      return sampleFromExponentialMs(code, exponentialCeilingMs(b, retry, throttled), u, randomizationFactorOf(b), b.minMs ?? 0);
    case BackoffCode['decorrelated-jitter']: {
      const hi = 3 * prevSleepMs;
      return Math.min(b.capMs, base + u * (hi - base));
    }
    case BackoffCode.linear:
      return Math.min(b.capMs, base * Math.max(1, retry));
    case BackoffCode['aws-sdk-js']: {
      // u = 0 waits 0 even where 2^retries has overflowed to +Infinity (0 x Infinity is NaN).
      const range = grown(base, b.multiplier, retry - 1 + b.exponentOffset);
      return u === 0 ? 0 : Math.floor(Math.min(b.capMs, u * range));
    }
    case BackoffCode.envoy:
      return Math.floor(u * envoyIntervalMs(base, b.capMs, retry));
    case BackoffCode['polly-decorrelated-v2']:
      if (base === 0) return 0;
      return Math.min(b.capMs, (pollyNext(retry, u) - prevSleepMs) * POLLY_RP_SCALING * base);
    case BackoffCode['node-retry']: {
      const r = b.randomize === true ? 1 + u : 1;
      return Math.min(b.capMs, Math.round(r * grown(base, b.multiplier, retry - 1 + b.exponentOffset)));
    }
    default:
      return unknownCode(code);
  }
}

/**
 * The state to carry to the next retry after retry `retry` drew `delayMs` with draw `u`:
 * decorrelated jitter carries the (capped) delay; Polly's DecorrelatedJitterBackoffV2 carries its
 * `next` = 2^t * tanh(sqrt(4t)) (computed from `retry` and `u` when given, else recovered from the
 * delay); every other kind keeps `prevSleepMs` unchanged.
 */
export function nextPrevSleepMs(b: BackoffSpec, delayMs: number, prevSleepMs: number, retry?: number, u?: number): number {
  return nextPrevSleepOfCode(BackoffCode[b.kind], b, delayMs, prevSleepMs, retry, u);
}

/** {@link nextPrevSleepMs} for the kind whose code is `code` (the kind of `b`). */
function nextPrevSleepOfCode(code: BackoffCodeValue, b: BackoffSpec, delayMs: number, prevSleepMs: number, retry?: number, u?: number): number {
  if (code === BackoffCode['decorrelated-jitter']) return delayMs;
  if (code === BackoffCode['polly-decorrelated-v2']) {
    if (b.baseMs === 0) return prevSleepMs;
    if (retry !== undefined && u !== undefined) return pollyNext(retry, u);
    return prevSleepMs + delayMs / (POLLY_RP_SCALING * b.baseMs);
  }
  return prevSleepMs;
}

/**
 * True when the kind draws a random number (the caller can skip the draw otherwise). `node-retry`
 * draws only with `randomize`; pass the spec to know (without it, it counts as random).
 */
export function backoffIsRandom(kind: BackoffKind, b?: BackoffSpec): boolean {
  const random = BACKOFF_TRAITS[kind].random;
  switch (random) {
    case 'always':
      return true;
    case 'never':
      return false;
    case 'randomizationFactor':
      return b === undefined || randomizationFactorOf(b) > 0;
    case 'randomize':
      return b === undefined || b.randomize === true;
    default: {
      const unknown: never = random;
      throw new Error(`unknown randomness ${String(unknown)}`);
    }
  }
}

/** `exponentialCeilingMs(b, retry, throttled)` of the `b` and `throttled` table `t` was built for. */
export function tableCeilingMs(t: CeilingTable, b: BackoffSpec, retry: number, throttled: boolean): number {
  const ceilings = t.ceilingsMs;
  if (retry >= 0 && retry < ceilings.length && (retry | 0) === retry) return ceilings[retry] as number;
  if (retry >= ceilings.length && t.tailMs === t.tailMs) return t.tailMs;
  return exponentialCeilingMs(b, retry, throttled);
}

/** The draw of one retry: where {@link drawBackoff} writes its results (a `RetryPlan`). */
export interface BackoffDraw {
  ceilingMs: number;
  backoffMs: number;
}

/**
 * `backoffCeilingMs` and `backoffDelayMs` of retry `retry` for the draw `u`, written into `out`
 * (the same numbers, bit for bit). The exponential kinds read their ceiling once, from the table,
 * and draw the sample from it.
 */
export function drawBackoff(c: CompiledBackoff, retry: number, prevSleepMs: number, u: number, throttled: boolean, out: BackoffDraw): void {
  if (c.tabled) {
    const e = tableCeilingMs(throttled ? c.throttledCeilings : c.ceilings, c.spec, retry, throttled);
    // `tabled` holds exactly for the kinds with the trait `fromExponentialCeiling`, whose codes are ExponentialCode.
    const code = c.code as ExponentialCode;
    out.ceilingMs = ceilingFromExponentialMs(code, e, c.randomizationFactor, c.minMs);
    out.backoffMs = sampleFromExponentialMs(code, e, u, c.randomizationFactor, c.minMs);
    return;
  }
  out.ceilingMs = ceilingOfCode(c.code, c.spec, retry, prevSleepMs, throttled);
  out.backoffMs = delayOfCode(c.code, c.spec, retry, prevSleepMs, u, throttled);
}

/** {@link nextPrevSleepMs} of a compiled backoff. */
export function compiledNextPrevSleepMs(c: CompiledBackoff, delayMs: number, prevSleepMs: number, retry: number, u: number): number {
  if (c.code === BackoffCode['decorrelated-jitter'] || c.code === BackoffCode['polly-decorrelated-v2']) {
    return nextPrevSleepOfCode(c.code, c.spec, delayMs, prevSleepMs, retry, u);
  }
  return prevSleepMs;
}
