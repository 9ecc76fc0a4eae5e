import { assertValid } from './distributionRules.js';
import { HistogramSampler, SamplesSampler, type HistogramDist, type SamplesDist } from './empiricalDistributions.js';
import type { Uniform } from './random.js';

export type { HistogramDist, SamplesDist } from './empiricalDistributions.js';
export { DIST_KINDS, DIST_TEXT, distMean, isContinuous, validateDist, type DistKind } from './distributionRules.js';

/** A random distribution of a non-negative quantity (times in ms); its kinds are {@link DIST_KINDS}. */
export type DistSpec =
  | { dist: 'constant'; value: number }
  | { dist: 'uniform'; min: number; max: number }
  | { dist: 'exponential'; mean: number }
  /** Normal(mean, sd) truncated at 0 (redrawn until >= 0). */
  | { dist: 'normal'; mean: number; sd: number }
  /** |Normal(mean, sd)|, as the AWS 2015 study's network delay. */
  | { dist: 'abs-normal'; mean: number; sd: number }
  /** Lognormal with the given mean and standard deviation of the value itself. */
  | { dist: 'lognormal'; mean: number; sd: number }
  | HistogramDist
  | SamplesDist;

/**
 * A source of draws from one distribution (built by {@link makeSampler}). An object with a method
 * rather than a function: a model builds its samplers anew for every run, and instances of the
 * same classes keep a call site the same from run to run, where a new closure per run would make
 * V8 discard the optimized code that called the previous one.
 */
export interface Sampler {
  /** The next draw. */
  sample(): number;
}

// ---------------------------------------------------------------------------------------------
// Ziggurat tables: G. Marsaglia and W. W. Tsang, "The Ziggurat Method for Generating Random
// Variables", Journal of Statistical Software 5(8), 2000, with 128 layers. The half-normal
// density f(x) = exp(-x^2/2) is covered by 128 layers of equal area ZIG_V: layer 0 is the base
// strip (the rectangle [0, R] x [0, f(R)] plus the tail beyond R), layer i >= 1 is the rectangle
// [0, X[i]] x [f(X[i]), f(X[i+1])].
// ---------------------------------------------------------------------------------------------

const ZIG_LAYERS = 128;
/** Start of the tail, R in Marsaglia & Tsang (2000) for 128 layers. */
const ZIG_R = 3.442619855899;
/** Area of each layer, v in Marsaglia & Tsang (2000) for 128 layers. */
const ZIG_V = 9.91256303526217e-3;
/** X[i]: right edge of layer i (X[0] = V / f(R) is the base strip's pseudo-width, X[128] = 0). */
const ZIG_X = new Float64Array(ZIG_LAYERS + 1);
/** F[i] = f(X[i]). */
const ZIG_F = new Float64Array(ZIG_LAYERS + 1);
/** K[i] = X[i+1] / X[i]: a point of layer i with |w| < K[i] lies under the layer above: accept. */
const ZIG_K = new Float64Array(ZIG_LAYERS);

(function buildZigguratTables(): void {
  const fR = Math.exp(-0.5 * ZIG_R * ZIG_R);
  ZIG_X[0] = ZIG_V / fR;
  ZIG_F[0] = fR; // unused: layer 0 has no wedge
  ZIG_X[1] = ZIG_R;
  ZIG_F[1] = fR;
  for (let i = 2; i < ZIG_LAYERS; i++) {
    const prev = ZIG_X[i - 1] as number;
    const f = ZIG_V / prev + (ZIG_F[i - 1] as number);
    ZIG_X[i] = Math.sqrt(-2 * Math.log(f));
    ZIG_F[i] = f;
  }
  ZIG_X[ZIG_LAYERS] = 0;
  ZIG_F[ZIG_LAYERS] = 1;
  for (let i = 0; i < ZIG_LAYERS; i++) ZIG_K[i] = (ZIG_X[i + 1] as number) / (ZIG_X[i] as number);
})();

/**
 * A draw from the standard normal tail beyond `a` > 0 (Marsaglia's method, as used for the
 * ziggurat's base strip in Marsaglia & Tsang 2000): x = -ln(u1)/a, y = -ln(u2), accept when
 * 2y >= x^2, return a + x.
 */
function normalTail(u: Uniform, a: number): number {
  for (;;) {
    const x = -Math.log(1 - u()) / a;
    const y = -Math.log(1 - u());
    if (y + y >= x * x) return a + x;
  }
}

// Exponential ziggurat (Marsaglia & Tsang 2000, section 5), 256 layers: the density f(x) = exp(-x)
// is covered by layers of equal area EXP_V; layer 0 is the base strip [0, R] x [0, f(R)] plus the
// tail beyond R, which is R + a standard exponential (the distribution is memoryless).
const EXP_LAYERS = 256;
/** Start of the tail, r in Marsaglia & Tsang (2000) for 256 layers (printed there as 7.69711747013104972, the same double). */
const EXP_R = 7.69711747013105;
/** Area of each layer, v in Marsaglia & Tsang (2000) for 256 layers. */
const EXP_V = 3.949659822581572e-3;
const EXP_X = new Float64Array(EXP_LAYERS + 1);
const EXP_F = new Float64Array(EXP_LAYERS + 1);
const EXP_K = new Float64Array(EXP_LAYERS);

(function buildExponentialTables(): void {
  const fR = Math.exp(-EXP_R);
  EXP_X[0] = EXP_V / fR;
  EXP_F[0] = fR;
  EXP_X[1] = EXP_R;
  EXP_F[1] = fR;
  for (let i = 2; i < EXP_LAYERS; i++) {
    const f = EXP_V / (EXP_X[i - 1] as number) + (EXP_F[i - 1] as number);
    EXP_X[i] = -Math.log(f);
    EXP_F[i] = f;
  }
  EXP_X[EXP_LAYERS] = 0;
  EXP_F[EXP_LAYERS] = 1;
  for (let i = 0; i < EXP_LAYERS; i++) EXP_K[i] = (EXP_X[i + 1] as number) / (EXP_X[i] as number);
})();

/**
 * A standard exponential draw (mean 1) by the ziggurat method (G. Marsaglia and W. W. Tsang, "The
 * Ziggurat Method for Generating Random Variables", Journal of Statistical Software 5(8), 2000):
 * about 98% of draws take one uniform and no logarithm (`Math.log` costs about 25 ns here).
 */
export function standardExponential(u: Uniform): number {
  const X = EXP_X;
  const K = EXP_K;
  for (;;) {
    const t = u() * EXP_LAYERS;
    const i = t | 0;
    const w = t - i; // in [0, 1), independent of the layer
    const x = w * (X[i] as number);
    if (w < (K[i] as number)) return x;
    if (i === 0) return EXP_R - Math.log(1 - u());
    const f0 = EXP_F[i] as number;
    const f1 = EXP_F[i + 1] as number;
    if (f0 + u() * (f1 - f0) < Math.exp(-x)) return x;
  }
}

/**
 * A standard normal draw by the ziggurat method (G. Marsaglia and W. W. Tsang, "The Ziggurat
 * Method for Generating Random Variables", Journal of Statistical Software 5(8), 2000; 128
 * layers, tables built once at module load). One uniform picks the layer (its top 7 bits) and
 * the signed abscissa (the remaining bits); about 97% of draws need nothing more, no logarithm
 * and no second uniform.
 */
export function standardNormal(u: Uniform): number {
  const X = ZIG_X;
  const K = ZIG_K;
  for (;;) {
    const t = u() * ZIG_LAYERS;
    const i = t | 0;
    const w = 2 * (t - i) - 1; // in [-1, 1), independent of the layer
    const x = w * (X[i] as number);
    if (Math.abs(w) < (K[i] as number)) return x;
    if (i === 0) {
      const tail = normalTail(u, ZIG_R);
      return w < 0 ? -tail : tail;
    }
    // Wedge between the layer's rectangle and the curve: accept under f.
    const f0 = ZIG_F[i] as number;
    const f1 = ZIG_F[i + 1] as number;
    if (f0 + u() * (f1 - f0) < Math.exp(-0.5 * x * x)) return x;
  }
}

/**
 * A sampler of the distribution `spec` describes, drawing from `u`:
 * - `constant`: value;
 * - `uniform`: min + (max - min) u;
 * - `exponential`: -mean ln(1 - u) (inversion);
 * - `normal`: Normal(mean, sd) conditioned on being >= 0 (the distribution of redrawing until
 *   >= 0; when mean < -sd the draw comes straight from the normal tail beyond 0 by Marsaglia's
 *   tail method, which is the same distribution without the long run of redraws);
 * - `abs-normal`: |Normal(mean, sd)| (the AWS 2015 study's network delay);
 * - `lognormal`: exp(mu + sigma Z) with the value's own mean and sd:
 *   sigma^2 = ln(1 + sd^2/mean^2), mu = ln(mean) - sigma^2/2.
 * - `histogram` and `samples`: `HistogramSampler` and `SamplesSampler`
 *   (src/engine/empiricalDistributions.ts), one uniform per draw from tables built here.
 * Normal draws come from the ziggurat {@link standardNormal}. Throws a RangeError for an invalid
 * spec (see {@link validateDist}), e.g. a truncated normal with mean < -8 sd.
 */
export function makeSampler(spec: DistSpec, u: Uniform): Sampler {
  assertValid(spec);
  switch (spec.dist) {
    case 'constant':
      return new ConstantSampler(spec.value);
    case 'uniform':
      return new UniformSampler(spec.min, spec.max - spec.min, u);
    case 'exponential':
      return new ExponentialSampler(spec.mean, u);
    case 'normal': {
      const { mean, sd } = spec;
      if (sd === 0) return new ConstantSampler(mean);
      const a = -mean / sd; // standardised truncation point
      return a <= 1 ? new RedrawnNormalSampler(mean, sd, u) : new NormalTailSampler(mean, sd, a, u);
    }
    case 'abs-normal':
      return new AbsNormalSampler(spec.mean, spec.sd, u);
    case 'lognormal': {
      const ratio = spec.sd / spec.mean;
      const sigma2 = Math.log1p(ratio * ratio);
      return new LognormalSampler(Math.log(spec.mean) - sigma2 / 2, Math.sqrt(sigma2), u);
    }
    case 'histogram':
      return new HistogramSampler(spec, u);
    case 'samples':
      return new SamplesSampler(spec, u);
  }
}

// The samplers {@link makeSampler} builds, one class per formula.

class ConstantSampler implements Sampler {
  constructor(private readonly value: number) {}
  sample(): number {
    return this.value;
  }
}

class UniformSampler implements Sampler {
  constructor(
    private readonly min: number,
    private readonly width: number,
    private readonly u: Uniform,
  ) {}
  sample(): number {
    return this.min + this.width * this.u();
  }
}

class ExponentialSampler implements Sampler {
  constructor(
    private readonly mean: number,
    private readonly u: Uniform,
  ) {}
  sample(): number {
    return this.mean * standardExponential(this.u);
  }
}

/** A normal truncated at 0 whose truncation point lies at most 1 sd above the mean: redraw until >= 0. */
class RedrawnNormalSampler implements Sampler {
  constructor(
    private readonly mean: number,
    private readonly sd: number,
    private readonly u: Uniform,
  ) {}
  sample(): number {
    for (;;) {
      const x = this.mean + this.sd * standardNormal(this.u);
      if (x >= 0) return x;
    }
  }
}

/** A normal truncated at 0 far in its tail (`a` = -mean / sd > 1): a draw from the tail beyond `a`. */
class NormalTailSampler implements Sampler {
  constructor(
    private readonly mean: number,
    private readonly sd: number,
    private readonly a: number,
    private readonly u: Uniform,
  ) {}
  sample(): number {
    return Math.max(0, this.mean + this.sd * normalTail(this.u, this.a));
  }
}

class AbsNormalSampler implements Sampler {
  constructor(
    private readonly mean: number,
    private readonly sd: number,
    private readonly u: Uniform,
  ) {}
  sample(): number {
    return Math.abs(this.mean + this.sd * standardNormal(this.u));
  }
}

class LognormalSampler implements Sampler {
  constructor(
    private readonly mu: number,
    private readonly sigma: number,
    private readonly u: Uniform,
  ) {}
  sample(): number {
    return Math.exp(this.mu + this.sigma * standardNormal(this.u));
  }
}
