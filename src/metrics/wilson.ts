/**
 * The standard normal quantile of 0.975, the z of a two-sided 95% interval (Abramowitz and Stegun,
 * 1964, Table 26.5, to the digits a double holds).
 */
export const Z95 = 1.959963984540054;

/**
 * The Wilson score interval of a proportion, k successes out of n trials (Wilson, "Probable
 * inference, the law of succession, and statistical inference", JASA 22:209-212, 1927), in its
 * closed form:
 *
 *   (2k + z^2 +- z * sqrt(z^2 + 4k(n - k)/n)) / (2(n + z^2))
 *
 * (Newcombe, "Two-sided confidence intervals for the single proportion: comparison of seven
 * methods", Statistics in Medicine 17:857-872, 1998, method 3; its worked examples, 0 of 20:
 * [0, 0.1611], are in the tests). Unlike the Wald or Student-t interval on 0/1 values it never
 * leaves [0, 1] and does not collapse to a point at k = 0 or k = n: 2 of 2 gives [0.342, 1], not
 * [1, 1] nor 1 +- 6. The ends at k = 0 and k = n are exactly 0 and 1 (the closed form gives them up to
 * rounding). n = 0 gives [NaN, NaN].
 */
export function wilsonInterval(k: number, n: number, z: number = Z95): [number, number] {
  if (!(n > 0)) return [NaN, NaN];
  const z2 = z * z;
  const centre = 2 * k + z2;
  const spread = z * Math.sqrt(z2 + (4 * k * (n - k)) / n);
  const denom = 2 * (n + z2);
  const lo = k <= 0 ? 0 : Math.max(0, (centre - spread) / denom);
  const hi = k >= n ? 1 : Math.min(1, (centre + spread) / denom);
  return [lo, hi];
}
