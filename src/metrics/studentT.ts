/**
 * Standard normal quantile (inverse CDF), relative error below 1.2e-9: Peter J. Acklam's rational
 * approximation ("An algorithm for computing the inverse normal cumulative distribution
 * function", 2003). simple-statistics' `probit` is only good to about 2e-3 (1.9572 for 0.975).
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`p must be in (0, 1) (got ${p})`);
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  const pLow = 0.02425;
  if (p < pLow) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  if (p > 1 - pLow) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return -(((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) / (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1);
}

/**
 * Two-sided Student-t quantile: the t such that P(|T| > t) = `twoTailP` with `df` degrees of
 * freedom. Hill, G. W. (1970), "Algorithm 396: Student's t-quantiles", Communications of the ACM
 * 13(10): 619-620 (exact for df 1 and 2, about 6 significant digits otherwise).
 */
export function studentTQuantile(twoTailP: number, df: number): number {
  if (!(twoTailP > 0 && twoTailP < 1)) throw new RangeError(`twoTailP must be in (0, 1) (got ${twoTailP})`);
  if (!(df >= 1)) throw new RangeError(`df must be >= 1 (got ${df})`);
  const P = twoTailP;
  const n = df;
  if (n === 1) return Math.cos((P * Math.PI) / 2) / Math.sin((P * Math.PI) / 2);
  if (n === 2) return Math.sqrt(2 / (P * (2 - P)) - 2);
  const a = 1 / (n - 0.5);
  const b = 48 / (a * a);
  let c = ((((20700 * a) / b - 98) * a - 16) * a) + 96.36;
  const d = ((94.5 / (b + c) - 3) / b + 1) * Math.sqrt((a * Math.PI) / 2) * n;
  let x = d * P;
  let y = Math.pow(x, 2 / n);
  if (y > 0.05 + a) {
    x = -normalQuantile(P * 0.5);
    y = x * x;
    if (n < 5) c += 0.3 * (n - 4.5) * (x + 0.6);
    c = (((0.05 * d * x - 5) * x - 7) * x - 2) * x + b + c;
    y = (((((0.4 * y + 6.3) * y + 36) * y + 94.5) / c - y - 3) / b + 1) * x;
    y = a * y * y;
    y = y > 0.002 ? Math.exp(y) - 1 : 0.5 * y * y + y;
  } else {
    y = ((1 / ((((n + 6) / (n * y) - 0.089 * d - 0.822) * (n + 2) * 3)) + 0.5 / (n + 4)) * y - 1) * ((n + 1) / (n + 2)) + 1 / y;
  }
  return Math.sqrt(n * y);
}
