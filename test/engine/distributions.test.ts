import { errorFunction } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import {
  distMean,
  isContinuous,
  makeSampler,
  standardNormal,
  validateDist,
  type DistSpec,
} from '../../src/engine/distributions.js';
import { stream } from '../../src/engine/random.js';

/** Standard normal CDF from simple-statistics' erf (absolute error about 1e-7): an independent reference. */
function Phi(z: number): number {
  return 0.5 * (1 + errorFunction(z / Math.SQRT2));
}

function normalPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}

/** Composite Simpson's rule with `n` (even) intervals. */
function integrate(f: (x: number) => number, lo: number, hi: number, n = 20_000): number {
  const h = (hi - lo) / n;
  let s = f(lo) + f(hi);
  for (let i = 1; i < n; i++) s += (i % 2 === 1 ? 4 : 2) * f(lo + i * h);
  return (s * h) / 3;
}

/** Mean and variance of a density on [lo, hi], by numerical integration (normalising it first). */
function numericMoments(density: (x: number) => number, lo: number, hi: number): { mean: number; variance: number } {
  const z = integrate(density, lo, hi);
  const m1 = integrate((x) => x * density(x), lo, hi) / z;
  const m2 = integrate((x) => x * x * density(x), lo, hi) / z;
  return { mean: m1, variance: m2 - m1 * m1 };
}

/** The true mean and variance of each distribution, independently of the code under test. */
function referenceMoments(spec: DistSpec): { mean: number; variance: number } {
  switch (spec.dist) {
    case 'constant':
      return { mean: spec.value, variance: 0 };
    case 'uniform':
      return { mean: (spec.min + spec.max) / 2, variance: (spec.max - spec.min) ** 2 / 12 };
    case 'exponential':
      return { mean: spec.mean, variance: spec.mean ** 2 };
    case 'lognormal':
      return { mean: spec.mean, variance: spec.sd ** 2 };
    case 'normal': {
      const { mean, sd } = spec;
      return numericMoments((x) => normalPdf((x - mean) / sd), 0, Math.max(0, mean) + 14 * sd);
    }
    case 'abs-normal': {
      const { mean, sd } = spec;
      return numericMoments(
        (x) => normalPdf((x - mean) / sd) + normalPdf((x + mean) / sd),
        0,
        Math.abs(mean) + 14 * sd,
      );
    }
    case 'histogram':
    case 'samples':
      throw new Error('the empirical kinds are checked in empiricalDistributions.test.ts');
  }
}

function sample(spec: DistSpec, n: number, seed = 2015): Float64Array {
  const draw = makeSampler(spec, stream(seed, 'dist', JSON.stringify(spec)));
  const xs = new Float64Array(n);
  for (let i = 0; i < n; i++) xs[i] = draw.sample();
  return xs;
}

function moments(xs: Float64Array): { mean: number; variance: number; min: number } {
  let s = 0;
  let min = Infinity;
  for (const x of xs) {
    s += x;
    if (x < min) min = x;
  }
  const mean = s / xs.length;
  let ss = 0;
  for (const x of xs) ss += (x - mean) ** 2;
  return { mean, variance: ss / (xs.length - 1), min };
}

/** Largest distance between the empirical CDF of `xs` and `cdf` (Kolmogorov-Smirnov D). */
function ksDistance(xs: Float64Array, cdf: (x: number) => number): number {
  const sorted = Float64Array.from(xs).sort();
  const n = sorted.length;
  let d = 0;
  for (let i = 0; i < n; i++) {
    const f = cdf(sorted[i] as number);
    d = Math.max(d, f - i / n, (i + 1) / n - f);
  }
  return d;
}

/** The KS critical value at significance 0.001: 1.95 / sqrt(n). */
function ksCritical(n: number): number {
  return 1.95 / Math.sqrt(n);
}

const N = 200_000;

describe('makeSampler', () => {
  it('draws fixed sequences from a fixed seed', () => {
    const first = (spec: DistSpec) => {
      const draw = makeSampler(spec, stream(2015, 'dist'));
      return [draw.sample(), draw.sample(), draw.sample(), draw.sample()];
    };
    expect(first({ dist: 'constant', value: 7 })).toEqual([7, 7, 7, 7]);
    expect(first({ dist: 'uniform', min: 5, max: 15 })).toEqual([
      5.888244966045022, 7.844863536302, 5.049997214227915, 12.816562613006681,
    ]);
    expect(first({ dist: 'exponential', mean: 100 })).toEqual([
      301.84044200349456, 209.22311756950984, 215.4643965813085, 8.986937872993991,
    ]);
    expect(first({ dist: 'normal', mean: 50, sd: 10 })).toEqual([
      43.29664960928764, 46.65151156199331, 60.39399347500303, 40.76379090644918,
    ]);
    expect(first({ dist: 'abs-normal', mean: 10, sd: 2 })).toEqual([
      8.659329921857529, 9.330302312398661, 12.078798695000605, 8.152758181289837,
    ]);
    expect(first({ dist: 'lognormal', mean: 100, sd: 50 })).toEqual([
      65.16646897943374, 76.35719543864425, 146.14373589236868, 57.81785821558954,
    ]);
  });

  it('gives the same sequence for the same seed and another for another seed', () => {
    const spec: DistSpec = { dist: 'normal', mean: 1, sd: 3 };
    expect(sample(spec, 1000, 1)).toEqual(sample(spec, 1000, 1));
    expect(sample(spec, 1000, 1)).not.toEqual(sample(spec, 1000, 2));
  });

  it('draws a constant exactly', () => {
    const xs = sample({ dist: 'constant', value: 12.5 }, 1000);
    expect(xs.every((x) => x === 12.5)).toBe(true);
    expect(sample({ dist: 'normal', mean: 4, sd: 0 }, 10).every((x) => x === 4)).toBe(true);
    expect(sample({ dist: 'lognormal', mean: 4, sd: 0 }, 10).every((x) => Math.abs(x - 4) < 1e-12)).toBe(true);
  });

  const cases: Array<{ spec: DistSpec; varianceTolerance: number }> = [
    { spec: { dist: 'uniform', min: 5, max: 15 }, varianceTolerance: 0.02 },
    { spec: { dist: 'uniform', min: 3, max: 3 }, varianceTolerance: 0 },
    { spec: { dist: 'exponential', mean: 100 }, varianceTolerance: 0.03 },
    { spec: { dist: 'normal', mean: 50, sd: 10 }, varianceTolerance: 0.02 },
    { spec: { dist: 'normal', mean: 0, sd: 1 }, varianceTolerance: 0.02 },
    { spec: { dist: 'normal', mean: -0.5, sd: 1 }, varianceTolerance: 0.03 },
    { spec: { dist: 'normal', mean: -3, sd: 2 }, varianceTolerance: 0.03 },
    { spec: { dist: 'normal', mean: -24, sd: 3 }, varianceTolerance: 0.03 },
    { spec: { dist: 'abs-normal', mean: 10, sd: 2 }, varianceTolerance: 0.02 },
    { spec: { dist: 'abs-normal', mean: 0, sd: 1 }, varianceTolerance: 0.02 },
    { spec: { dist: 'abs-normal', mean: 1, sd: 2 }, varianceTolerance: 0.02 },
    { spec: { dist: 'abs-normal', mean: -3, sd: 1 }, varianceTolerance: 0.02 },
    { spec: { dist: 'lognormal', mean: 100, sd: 50 }, varianceTolerance: 0.04 },
  ];

  for (const { spec, varianceTolerance } of cases) {
    it(`matches the mean and variance of ${JSON.stringify(spec)}`, () => {
      const ref = referenceMoments(spec);
      const m = moments(sample(spec, N));
      const standardError = Math.sqrt(ref.variance / N);
      expect(Math.abs(m.mean - ref.mean)).toBeLessThanOrEqual(5 * standardError + 1e-12);
      expect(Math.abs(m.variance - ref.variance)).toBeLessThanOrEqual(varianceTolerance * ref.variance + 1e-12);
      expect(m.min).toBeGreaterThanOrEqual(0);
    });
  }

  it('never draws a negative value from a normal truncated at 0', () => {
    for (const spec of [
      { dist: 'normal', mean: 0.1, sd: 10 },
      { dist: 'normal', mean: -1, sd: 1 },
      { dist: 'normal', mean: -1.0001, sd: 1 },
      { dist: 'normal', mean: -8, sd: 1 },
    ] as const) {
      expect(moments(sample(spec, 100_000)).min).toBeGreaterThanOrEqual(0);
    }
  });

  it('draws a truncated normal with the right distribution, redrawn or from the tail', () => {
    for (const { mean, sd } of [
      { mean: -0.5, sd: 1 },
      { mean: -3, sd: 1 },
    ]) {
      const a = -mean / sd;
      const q = 1 - Phi(a);
      const cdf = (x: number) => (Phi((x - mean) / sd) - Phi(a)) / q;
      const xs = sample({ dist: 'normal', mean, sd }, N);
      expect(ksDistance(xs, cdf)).toBeLessThan(ksCritical(N));
    }
  });

  it('rejects an invalid spec with a RangeError naming the problem', () => {
    expect(() => makeSampler({ dist: 'normal', mean: -9, sd: 1 }, stream(1, 'x'))).toThrow(RangeError);
    expect(() => makeSampler({ dist: 'normal', mean: -9, sd: 1 }, stream(1, 'x'))).toThrow(
      'invalid "normal" distribution: mean must be >= -8 * sd (got mean -9, sd 1)',
    );
    expect(() => makeSampler({ dist: 'exponential', mean: 0 }, stream(1, 'x'))).toThrow(
      'invalid "exponential" distribution: mean must be > 0 (got 0)',
    );
  });
});

describe('standardNormal (ziggurat)', () => {
  it('passes a Kolmogorov-Smirnov check against the normal CDF', () => {
    const u = stream(2015, 'ziggurat');
    const xs = new Float64Array(N);
    for (let i = 0; i < N; i++) xs[i] = standardNormal(u);
    expect(ksDistance(xs, Phi)).toBeLessThan(ksCritical(N));
    const m = moments(xs);
    expect(Math.abs(m.mean)).toBeLessThan(5 / Math.sqrt(N));
    expect(Math.abs(m.variance - 1)).toBeLessThan(5 * Math.sqrt(2 / N));
  });

  it('fills the wedges exactly: variance, fourth moment and 200 equiprobable bins of 2M draws', () => {
    // Accepting every point of the wedges (skipping the curve test) shifts the variance by about
    // 12 standard errors, the fourth moment by about 16 and this chi-square to about 550.
    const u = stream(2015, 'ziggurat-moments');
    const n = 2_000_000;
    const bins = 200;
    const counts = new Float64Array(bins);
    let s2 = 0;
    let s4 = 0;
    for (let i = 0; i < n; i++) {
      const z = standardNormal(u);
      const z2 = z * z;
      s2 += z2;
      s4 += z2 * z2;
      const b = Math.min(bins - 1, Math.floor(Phi(z) * bins));
      counts[b] = (counts[b] as number) + 1;
    }
    // Var(Z^2) = 2, Var(Z^4) = E[Z^8] - 9 = 96.
    expect(Math.abs(s2 / n - 1)).toBeLessThan(5 * Math.sqrt(2 / n));
    expect(Math.abs(s4 / n - 3)).toBeLessThan(5 * Math.sqrt(96 / n));
    const expected = n / bins;
    let chi2 = 0;
    for (const c of counts) chi2 += (c - expected) ** 2 / expected;
    const df = bins - 1;
    expect(chi2).toBeLessThan(df + 6 * Math.sqrt(2 * df));
  });

  it('draws the tails beyond the base strip as often as the normal does', () => {
    const u = stream(2015, 'ziggurat-tails');
    const n = 2_000_000;
    let beyondR = 0;
    let beyond4 = 0;
    let negative = 0;
    for (let i = 0; i < n; i++) {
      const z = standardNormal(u);
      const a = Math.abs(z);
      if (a > 3.442619855899) beyondR++;
      if (a > 4) beyond4++;
      if (z < 0) negative++;
    }
    for (const [count, p] of [
      [beyondR, 2 * (1 - Phi(3.442619855899))],
      [beyond4, 2 * (1 - Phi(4))],
      [negative, 0.5],
    ] as const) {
      const expected = n * p;
      expect(Math.abs(count - expected)).toBeLessThan(5 * Math.sqrt(expected * (1 - p)));
    }
  });

  it('uses about one uniform per draw', () => {
    const inner = stream(3, 'count');
    let calls = 0;
    const u = () => {
      calls++;
      return inner();
    };
    const n = 100_000;
    for (let i = 0; i < n; i++) standardNormal(u);
    expect(calls / n).toBeGreaterThan(1);
    expect(calls / n).toBeLessThan(1.05);
  });
});

describe('distMean', () => {
  it('gives the exact means of the simple distributions', () => {
    expect(distMean({ dist: 'constant', value: 3 })).toBe(3);
    expect(distMean({ dist: 'uniform', min: 2, max: 10 })).toBe(6);
    expect(distMean({ dist: 'exponential', mean: 250 })).toBe(250);
    expect(distMean({ dist: 'lognormal', mean: 40, sd: 90 })).toBe(40);
    expect(distMean({ dist: 'normal', mean: 7, sd: 0 })).toBe(7);
    expect(distMean({ dist: 'abs-normal', mean: -7, sd: 0 })).toBe(7);
  });

  it('gives sqrt(2/pi) sd for a half-normal, truncated or folded', () => {
    expect(distMean({ dist: 'normal', mean: 0, sd: 2 })).toBeCloseTo(2 * Math.sqrt(2 / Math.PI), 14);
    expect(distMean({ dist: 'abs-normal', mean: 0, sd: 2 })).toBeCloseTo(2 * Math.sqrt(2 / Math.PI), 14);
  });

  it('matches numerical integration for truncated and folded normals', () => {
    for (const spec of [
      { dist: 'normal', mean: 50, sd: 10 },
      { dist: 'normal', mean: 1, sd: 1 },
      { dist: 'normal', mean: -0.5, sd: 1 },
      { dist: 'normal', mean: -2.9, sd: 1 },
      { dist: 'normal', mean: -3.1, sd: 1 },
      { dist: 'normal', mean: -6, sd: 2 },
      { dist: 'abs-normal', mean: 10, sd: 2 },
      { dist: 'abs-normal', mean: 1, sd: 2 },
      { dist: 'abs-normal', mean: -3, sd: 1 },
    ] as const) {
      const ref = referenceMoments(spec).mean;
      expect(Math.abs(distMean(spec) - ref)).toBeLessThan(1e-9 * Math.max(1, ref));
    }
  });

  it('stays accurate far in the tail, where the mean tends to sd^2 / |mean|', () => {
    // Mills ratio Q(a)/phi(a) ~ 1/a - 1/a^3 + 3/a^5 - 15/a^7 + ... (asymptotic, fine at a = 8 for
    // 20 terms); the mean of Normal(-24, 3) truncated at 0 is 3 * (phi(8)/Q(8) - 8).
    const a = 8;
    let mills = 0;
    let term = 1 / a;
    for (let n = 1; n <= 20; n++) {
      mills += term;
      term *= -(2 * n - 1) / (a * a);
    }
    const mean = distMean({ dist: 'normal', mean: -24, sd: 3 });
    expect(mean).toBeCloseTo(3 * (1 / mills - a), 10);
    // The same through an erfc accurate to a few ulps (CPython's math.erfc).
    expect(mean).toBeCloseTo(0.36410433670820197, 12);
  });
});

describe('validateDist', () => {
  it('accepts valid distributions', () => {
    for (const spec of [
      { dist: 'constant', value: 0 },
      { dist: 'uniform', min: 0, max: 0 },
      { dist: 'exponential', mean: 1e-3 },
      { dist: 'normal', mean: -8, sd: 1 },
      { dist: 'abs-normal', mean: -5, sd: 1 },
      { dist: 'lognormal', mean: 5, sd: 0 },
    ] as const) {
      expect(validateDist(spec)).toBeNull();
    }
  });

  it('names the field and the rule it breaks', () => {
    const cases: Array<[unknown, string]> = [
      [{ dist: 'constant', value: -2 }, 'value must be >= 0 (got -2)'],
      [{ dist: 'constant', value: Infinity }, 'value must be a finite number (got Infinity)'],
      [{ dist: 'uniform', min: -1, max: 3 }, 'min must be >= 0 (got -1)'],
      [{ dist: 'uniform', min: 5, max: 1 }, 'max must be >= min (got 1 < 5)'],
      [{ dist: 'exponential', mean: -1 }, 'mean must be > 0 (got -1)'],
      [{ dist: 'exponential', mean: 0 }, 'mean must be > 0 (got 0)'],
      [{ dist: 'exponential', mean: Number.NaN }, 'mean must be a finite number (got NaN)'],
      [{ dist: 'exponential', mean: '5' }, 'mean must be a finite number (got "5")'],
      [{ dist: 'normal', mean: 1, sd: -1 }, 'sd must be >= 0 (got -1)'],
      [{ dist: 'normal', mean: 1 }, 'sd must be a finite number (got undefined)'],
      [
        { dist: 'normal', mean: -1, sd: 0 },
        'mean must be >= -8 * sd (got mean -1, sd 0): a normal truncated at 0 would practically never draw a value >= 0',
      ],
      [{ dist: 'abs-normal', mean: 1, sd: -0.5 }, 'sd must be >= 0 (got -0.5)'],
      [{ dist: 'lognormal', mean: 0, sd: 1 }, 'mean must be > 0 (got 0)'],
      [{ dist: 'lognormal', mean: 1, sd: -1 }, 'sd must be >= 0 (got -1)'],
      [
        { dist: 'pareto', mean: 1 },
        'dist must be one of constant, uniform, exponential, normal, abs-normal, lognormal, histogram, samples (got "pareto")',
      ],
    ];
    for (const [spec, message] of cases) expect(validateDist(spec as DistSpec)).toBe(message);
  });

  it('makes distMean refuse what it refuses', () => {
    expect(() => distMean({ dist: 'uniform', min: 5, max: 1 })).toThrow(
      'invalid "uniform" distribution: max must be >= min (got 1 < 5)',
    );
  });
});

describe('exponential ziggurat', () => {
  it('has mean 1, variance 1 and the exponential CDF (Kolmogorov-Smirnov at 1%)', async () => {
    const { standardExponential } = await import('../../src/engine/distributions.js');
    const { stream } = await import('../../src/engine/random.js');
    const u = stream(123, 'exp-zig');
    const n = 200_000;
    const xs = new Float64Array(n);
    let sum = 0;
    let sq = 0;
    for (let i = 0; i < n; i++) {
      const x = standardExponential(u);
      xs[i] = x;
      sum += x;
      sq += x * x;
    }
    const mean = sum / n;
    const variance = sq / n - mean * mean;
    expect(Math.abs(mean - 1)).toBeLessThan(5 / Math.sqrt(n));
    expect(Math.abs(variance - 1)).toBeLessThan(0.03);
    xs.sort();
    let d = 0;
    for (let i = 0; i < n; i++) {
      const F = 1 - Math.exp(-(xs[i] as number));
      d = Math.max(d, Math.abs(F - i / n), Math.abs(F - (i + 1) / n));
    }
    expect(d).toBeLessThan(1.63 / Math.sqrt(n));
    // The tail beyond R = 7.697 is reached (P = e^-7.697 = 4.5e-4, about 90 draws here).
    expect(xs[n - 1]).toBeGreaterThan(7.7);
  });
});

describe('isContinuous', () => {
  it('is false for what can draw the same value twice: a constant, a uniform of zero width, a zero sd', () => {
    expect(
      [
        { dist: 'constant', value: 10 },
        { dist: 'uniform', min: 3, max: 3 },
        { dist: 'normal', mean: 10, sd: 0 },
        { dist: 'abs-normal', mean: 10, sd: 0 },
        { dist: 'lognormal', mean: 10, sd: 0 },
      ].map((d) => isContinuous(d as DistSpec)),
    ).toEqual([false, false, false, false, false]);
  });

  it('is false for a spread so narrow that draws round to a few dozen doubles', () => {
    const narrow = [
      { dist: 'uniform', min: 5, max: 5 + 1e-14 },
      { dist: 'normal', mean: 5, sd: 1e-14 },
      { dist: 'abs-normal', mean: 5, sd: 1e-14 },
      { dist: 'lognormal', mean: 5, sd: 1e-14 },
    ] as DistSpec[];
    expect(narrow.map((d) => isContinuous(d))).toEqual([false, false, false, false]);
    // ... as the draws show: 1,000 of them take fewer than 200 distinct values (many coincide).
    const draws = makeSampler(narrow[2] as DistSpec, stream(1, 'narrow'));
    const values = new Set(Array.from({ length: 1000 }, () => draws.sample()));
    expect(values.size).toBeLessThan(200);
    // A spread of a millionth of the scale is continuous, and its draws do not coincide.
    const wide = { dist: 'abs-normal', mean: 5, sd: 1e-5 } as DistSpec;
    expect(isContinuous(wide)).toBe(true);
    const w = makeSampler(wide, stream(1, 'wide'));
    expect(new Set(Array.from({ length: 1000 }, () => w.sample())).size).toBe(1000);
  });

  it('is true for the distributions with a spread', () => {
    expect(
      [
        { dist: 'uniform', min: 3, max: 4 },
        { dist: 'exponential', mean: 10 },
        { dist: 'normal', mean: 10, sd: 1 },
        { dist: 'abs-normal', mean: 10, sd: 2 },
        { dist: 'lognormal', mean: 10, sd: 5 },
      ].map((d) => isContinuous(d as DistSpec)),
    ).toEqual([true, true, true, true, true]);
  });
});
