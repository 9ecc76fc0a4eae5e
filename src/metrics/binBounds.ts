// Bounds of the times t that certainly land in bin b of width w, where the bin of t is Math.floor(t / w)
// in floating point. The edges of that set are within an ulp or two of b * w and (b + 1) * w but not
// always on them (43 * 0.1 is 4.3, yet 4.3 / 0.1 is 42.99999999999999; 1.7 is below 17 * 0.1, yet
// 1.7 / 0.1 is 17), so the bounds are pulled inside by a relative margin of about 2^-50: the bin's
// start is b * wUp and its end (b + 1) * wDown, with wUp = fl(w * (1 + 8u)) and wDown = fl(w * (1 - 8u))
// for the unit roundoff u = 2^-53 (1 +- 8u are doubles). A product of normal numbers rounded to nearest
// is off by at most u relative, so
// - t >= fl(b * wUp) means t >= b * w * (1 + 8u) * (1 - u)^2 > b * w: t / w > b before rounding, and
//   fl(t / w) >= b after it (rounding is monotone and b is a double);
// - t < fl((b + 1) * wDown) means t < (b + 1) * w * (1 - 8u) * (1 + u)^2 (if the product rounds up to
//   Infinity, its exact value already exceeds every finite t), so t / w < (b + 1) * (1 - u): below the
//   midpoint between b + 1 and the double under it (at most 2u * (b + 1) apart), and fl(t / w) < b + 1.
// Both need w normal (and b a nonnegative integer below 2^53). A time within the margin of an edge is
// simply not known to be inside: the caller divides for it.

/** Below this width the margins are not sure to survive rounding (subnormal results), and nothing is claimed. */
const MIN_WIDTH = 2 ** -1000;

/**
 * The width `wUp` such that every t >= bin * wUp (bin a nonnegative integer) has Math.floor(t / binMs)
 * >= bin: binMs nudged up by a relative 2^-50. Infinity (nothing is known to be inside; 0 * Infinity
 * is NaN, which no time reaches either) for a width below 2^-1000.
 */
export function innerStartWidth(binMs: number): number {
  return binMs >= MIN_WIDTH ? binMs * (1 + 2 ** -50) : Infinity;
}

/**
 * The width `wDown` such that every t < (bin + 1) * wDown (bin a nonnegative integer) has
 * Math.floor(t / binMs) <= bin: binMs nudged down by a relative 2^-50. -Infinity (nothing is known
 * to be inside) for a width below 2^-1000.
 */
export function innerEndWidth(binMs: number): number {
  return binMs >= MIN_WIDTH ? binMs * (1 - 2 ** -50) : -Infinity;
}
