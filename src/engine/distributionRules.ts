/**
 * The kinds of distribution (`DIST_TEXT`, `DIST_KINDS`), their rules (`validateDist`), exact means
 * (`distMean`) and whether their draws can tie (`isContinuous`): what is read about a distribution
 * without drawing from it. The samplers are src/engine/distributions.ts.
 */
import type { DistSpec } from './distributions.js';
import {
  empiricalIsContinuous,
  histogramMean,
  histogramProblem,
  samplesMean,
  samplesProblem,
  type DistProblem,
  type HistogramDist,
  type SamplesDist,
} from './empiricalDistributions.js';

/** A distribution's kind, its `dist` field. */
export type DistKind = DistSpec['dist'];

/**
 * What each kind of distribution is, in one sentence: the one table of the kinds (the order of
 * {@link DIST_KINDS}), read by the experiment schema's docs. A new kind of `DistSpec` must be
 * added here (the compiler says so), in {@link validateDist}, {@link distMean}, makeSampler
 * (src/engine/distributions.ts) and {@link isContinuous}, and in the schema's choice (src/experiment/distSchema.ts).
 */
export const DIST_TEXT: Record<DistKind, string> = {
  constant: 'A constant value.',
  uniform: 'Uniform between min and max.',
  exponential: 'Exponential with the given mean.',
  normal: 'Normal(mean, sd) truncated at 0 (redrawn until >= 0).',
  'abs-normal': '|Normal(mean, sd)|, as the network delay of the AWS 2015 contention study.',
  lognormal: 'Lognormal with the given mean and standard deviation of the value itself.',
  histogram:
    'A Prometheus histogram: le, the buckets\' upper bounds (ms; the last may be "+Inf"), and counts, cumulative ' +
    '(observations <= each bound). Values are spread uniformly within a bucket (histogram_quantile\'s linear ' +
    'interpolation), the lowest from min (default 0); the +Inf bucket draws the highest finite bound (tail "at-bound") ' +
    'or that bound plus an exponential excess that makes the mean sum / count (tail "exponential", with sum).',
  samples: 'Observed values (ms), each drawn with probability 1/n; with interpolate, linearly between consecutive sorted values.',
};

/** The kinds of distribution, in the order of {@link DIST_TEXT}. */
export const DIST_KINDS = Object.keys(DIST_TEXT) as readonly DistKind[];

/**
 * Relative spread below which draws are treated as lattice-valued: doubles carry 52 bits, so a
 * spread of 1e-6 of the scale still leaves billions of distinct values, while one of 1e-14 leaves
 * a few dozen and draws coincide.
 */
const MIN_RELATIVE_SPREAD = 1e-6;

/**
 * Whether two draws of `spec` coincide with negligible probability (a continuous distribution with
 * a spread of at least a millionth of its scale): a constant, a uniform of zero width or a zero sd
 * are not, nor is one so narrow that its draws round to a few dozen doubles. Times built from such draws
 * do not tie, so the order among simultaneous events cannot matter for them.
 */
export function isContinuous(spec: DistSpec): boolean {
  switch (spec.dist) {
    case 'constant':
      return false;
    case 'uniform':
      return spec.max - spec.min > MIN_RELATIVE_SPREAD * Math.max(Math.abs(spec.min), Math.abs(spec.max));
    case 'exponential':
      return spec.mean > 0;
    case 'normal':
    case 'abs-normal':
    case 'lognormal':
      return spec.sd > MIN_RELATIVE_SPREAD * Math.abs(spec.mean);
    case 'histogram':
    case 'samples':
      return empiricalIsContinuous(spec, MIN_RELATIVE_SPREAD);
  }
}

// ---------------------------------------------------------------------------------------------
// Normal density and tail probabilities, accurate to near double precision.
// ---------------------------------------------------------------------------------------------

const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

/** Standard normal density. */
function normalPdf(z: number): number {
  return INV_SQRT_2PI * Math.exp(-0.5 * z * z);
}

/**
 * phi(z) / Q(z) for z >= 3 (the inverse Mills ratio), by Laplace's continued fraction
 * Q(z) = phi(z) / (z + 1/(z + 2/(z + 3/(z + ...)))), evaluated backwards.
 */
function inverseMillsLarge(z: number): number {
  let t = 0;
  for (let n = 300; n >= 1; n--) t = n / (z + t);
  return z + t;
}

/**
 * Q(z) = 1 - Phi(z), the standard normal upper tail, with small relative error far into the
 * tail: Marsaglia's series Phi(z) = 1/2 + phi(z) (z + z^3/3 + z^5/(3*5) + ...) (G. Marsaglia,
 * "Evaluating the Normal Distribution", Journal of Statistical Software 11(4), 2004) for |z| < 3,
 * the continued fraction beyond.
 */
function normalUpperTail(z: number): number {
  if (z < 0) return 1 - normalUpperTail(-z);
  if (z >= 3) return normalPdf(z) / inverseMillsLarge(z);
  const z2 = z * z;
  let s = z;
  let term = z;
  for (let k = 3; ; k += 2) {
    term *= z2 / k;
    const next = s + term;
    if (next === s) break;
    s = next;
  }
  return 0.5 - normalPdf(z) * s;
}

/** phi(a) / (1 - Phi(a)): E[Z | Z >= a] for a standard normal Z. */
function inverseMills(a: number): number {
  if (a >= 3) return inverseMillsLarge(a);
  return normalPdf(a) / normalUpperTail(a);
}

// ---------------------------------------------------------------------------------------------
// Validation, means, samplers.
// ---------------------------------------------------------------------------------------------

/** How many standard deviations below 0 a truncated normal's mean may lie. */
const MAX_NORMAL_TRUNCATION_SDS = 8;

function shown(x: unknown): string {
  if (typeof x === 'number') return String(x);
  const json = JSON.stringify(x);
  return json === undefined ? String(x) : json;
}

function finite(field: string, x: unknown): string | null {
  return typeof x === 'number' && Number.isFinite(x) ? null : `${field} must be a finite number (got ${shown(x)})`;
}

/** A problem's field (dotted within the distribution) and rule, as one message fragment. */
function said(problem: DistProblem | null): string | null {
  return problem === null ? null : `${problem.path.join('.')} ${problem.rule}`;
}

/**
 * The first rule `spec` breaks, as a message fragment that starts with the field's name (to be
 * prefixed with the distribution's path, e.g. `mean must be > 0 (got -1)`), or null when the
 * distribution is valid. Rules: every parameter is a finite number; constant `value >= 0`;
 * uniform `min >= 0` and `max >= min`; exponential `mean > 0`; normal, abs-normal and lognormal
 * `sd >= 0`; lognormal `mean > 0`; normal (truncated at 0) `mean >= -8 * sd`, beyond which a
 * value >= 0 is practically never drawn; histogram and samples as `histogramProblem` and
 * `samplesProblem` say (src/engine/empiricalDistributions.ts).
 */
export function validateDist(spec: DistSpec): string | null {
  const s = spec as unknown as Record<string, unknown> | null;
  const kind = s !== null && typeof s === 'object' ? s['dist'] : undefined;
  switch (kind) {
    case 'constant': {
      const value = s?.['value'];
      const bad = finite('value', value);
      if (bad !== null) return bad;
      if ((value as number) < 0) return `value must be >= 0 (got ${shown(value)})`;
      return null;
    }
    case 'uniform': {
      const min = s?.['min'];
      const max = s?.['max'];
      const bad = finite('min', min) ?? finite('max', max);
      if (bad !== null) return bad;
      if ((min as number) < 0) return `min must be >= 0 (got ${shown(min)})`;
      if ((max as number) < (min as number)) return `max must be >= min (got ${shown(max)} < ${shown(min)})`;
      return null;
    }
    case 'exponential': {
      const mean = s?.['mean'];
      const bad = finite('mean', mean);
      if (bad !== null) return bad;
      if (!((mean as number) > 0)) return `mean must be > 0 (got ${shown(mean)})`;
      return null;
    }
    case 'normal':
    case 'abs-normal':
    case 'lognormal': {
      const mean = s?.['mean'];
      const sd = s?.['sd'];
      const bad = finite('mean', mean) ?? finite('sd', sd);
      if (bad !== null) return bad;
      const m = mean as number;
      const d = sd as number;
      if (d < 0) return `sd must be >= 0 (got ${shown(sd)})`;
      if (kind === 'lognormal' && !(m > 0)) return `mean must be > 0 (got ${shown(mean)})`;
      if (kind === 'normal' && m < -MAX_NORMAL_TRUNCATION_SDS * d) {
        return (
          `mean must be >= -${MAX_NORMAL_TRUNCATION_SDS} * sd (got mean ${shown(mean)}, sd ${shown(sd)}): ` +
          `a normal truncated at 0 would practically never draw a value >= 0`
        );
      }
      return null;
    }
    case 'histogram':
      return said(histogramProblem(spec as HistogramDist));
    case 'samples':
      return said(samplesProblem(spec as SamplesDist));
    default:
      return `dist must be one of ${DIST_KINDS.join(', ')} (got ${shown(kind)})`;
  }
}

/** Throws a RangeError naming the distribution and the rule `spec` breaks (see {@link validateDist}). */
export function assertValid(spec: DistSpec): void {
  const problem = validateDist(spec);
  if (problem !== null) throw new RangeError(`invalid ${shown((spec as { dist?: unknown }).dist)} distribution: ${problem}`);
}

/**
 * The exact mean of the distribution `spec` describes. For the normal truncated at 0,
 * mean + sd * phi(a) / (1 - Phi(a)) with a = -mean / sd; for the absolute normal (folded normal,
 * F. C. Leone, L. S. Nelson and R. B. Nottingham, "The Folded Normal Distribution",
 * Technometrics 3(4), 1961), sd * sqrt(2/pi) * exp(-mean^2 / (2 sd^2)) + mean * (1 - 2 Phi(-mean/sd)).
 * For a histogram and samples, `histogramMean` and `samplesMean` (exact for the piecewise-uniform
 * density and the interpolated quantile function).
 * Throws a RangeError for an invalid spec (see {@link validateDist}).
 */
export function distMean(spec: DistSpec): number {
  assertValid(spec);
  switch (spec.dist) {
    case 'constant':
      return spec.value;
    case 'uniform':
      return spec.min + (spec.max - spec.min) / 2;
    case 'exponential':
    case 'lognormal':
      return spec.mean;
    case 'normal': {
      const { mean, sd } = spec;
      if (sd === 0) return mean;
      return mean + sd * inverseMills(-mean / sd);
    }
    case 'abs-normal': {
      const { mean, sd } = spec;
      if (sd === 0) return Math.abs(mean);
      return (
        sd * Math.sqrt(2 / Math.PI) * Math.exp(-(mean * mean) / (2 * sd * sd)) +
        mean * (1 - 2 * normalUpperTail(mean / sd))
      );
    }
    case 'histogram':
      return histogramMean(spec);
    case 'samples':
      return samplesMean(spec);
  }
}

