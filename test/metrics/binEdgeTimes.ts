// Times that probe a binning by Math.floor(t / binMs): exact multiples of the width, their neighbours a
// few ulps away (where floor(t / binMs) and the products k * binMs disagree), points inside bins, far
// gaps and, on request, times before 0. Shared by the tests of the binned metrics.
import fc from 'fast-check';

/** Widths with inexact multiples (0.1, 0.3, 15.6, 1000 / 3), exact ones, and extremes (subnormal, 1e300). */
export const EDGE_WIDTHS_MS = [1, 10, 0.1, 0.3, 0.7, 15.6, 1000 / 3, 1e-3, 60_000, 2 ** -1074, 1e300] as const;

const F64 = new Float64Array(1);
const I64 = new BigInt64Array(F64.buffer);

/** The next double above `x` (finite). */
function nextUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE;
  F64[0] = x;
  I64[0] = (I64[0] as bigint) + (x > 0 ? 1n : -1n);
  return F64[0] as number;
}

/** `x` moved by `ulps` doubles (down when negative). */
export function stepUlps(x: number, ulps: number): number {
  let y = x;
  for (let i = 0; i < ulps; i++) y = nextUp(y);
  for (let i = 0; i > ulps; i--) y = -nextUp(-y);
  return y;
}

/** A time near bin `k` of `binMs`: on its start, a few ulps off it, or inside it. */
function nearBin(binMs: number, k: fc.Arbitrary<number>): fc.Arbitrary<number> {
  return fc.oneof(
    k.map((b) => b * binMs),
    fc.tuple(k, fc.integer({ min: -3, max: 3 })).map(([b, d]) => stepUlps(b * binMs, d)),
    fc.tuple(k, fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })).map(([b, f]) => (b + f) * binMs),
  );
}

/**
 * Times for bins of `binMs`: mostly near bins 0..80, some after a far gap (bins up to 2^40), and with
 * `beforeZero` some negative times and -0.
 */
export function edgeTime(binMs: number, beforeZero: boolean): fc.Arbitrary<number> {
  const near = nearBin(binMs, fc.integer({ min: 0, max: 80 }));
  const far = nearBin(binMs, fc.constantFrom(1e6, 1e9 + 7, 2 ** 40));
  if (!beforeZero) return fc.oneof({ arbitrary: near, weight: 8 }, { arbitrary: far, weight: 1 });
  const negative = fc.oneof(fc.constant(-0), fc.double({ min: -1e6, max: -Number.MIN_VALUE, noNaN: true }));
  return fc.oneof({ arbitrary: near, weight: 8 }, { arbitrary: far, weight: 1 }, { arbitrary: negative, weight: 1 });
}
