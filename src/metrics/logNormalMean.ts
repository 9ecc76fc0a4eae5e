import { studentTQuantile } from './studentT.js';

/**
 * A 95% interval for the mean of positive values that are roughly log-normal, by the modified Cox
 * method: with y = log x, mean ȳ and sample variance s² over n values,
 * exp(ȳ + s²/2 ± t(0.975, n-1) · sqrt(s²/n + s⁴/(2(n-1)))). Olsson, U. (2005), "Confidence
 * intervals for the mean of a log-normal distribution", Journal of Statistics Education 13(1)
 * (the t quantile in place of Cox's normal one, after Zhou and Gao 1997, Statistics in Medicine
 * 16:783). Skewed values, such as the repetitions of a splitting estimate of a small probability,
 * get an interval that reaches further above the mean than below it, where the Student-t interval
 * of the values themselves is symmetric and too short. Null when a value is not positive (no
 * logarithm) or there are fewer than 2 values.
 */
export function logNormalMeanInterval(values: readonly number[]): [number, number] | null {
  const n = values.length;
  if (n < 2 || values.some((x) => !(x > 0 && x < Infinity))) return null;
  let sum = 0;
  for (const x of values) sum += Math.log(x);
  const m = sum / n;
  let ss = 0;
  for (const x of values) ss += (Math.log(x) - m) ** 2;
  const s2 = ss / (n - 1);
  const half = studentTQuantile(0.05, n - 1) * Math.sqrt(s2 / n + (s2 * s2) / (2 * (n - 1)));
  return [Math.exp(m + s2 / 2 - half), Math.exp(m + s2 / 2 + half)];
}
