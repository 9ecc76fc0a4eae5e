// Random draws for the reference engines: mulberry32 (Tommy Ettinger, public domain) with its
// state in a typed array, a uniform draw, and an exponential ziggurat (G. Marsaglia and W. W. Tsang,
// "The Ziggurat Method for Generating Random Variables", J. Stat. Software 5(8), 2000; 256 layers).
// The functions are small and monomorphic so that V8 inlines them into the hot loops; one 32-bit
// draw gives both the ziggurat layer (low 8 bits) and the abscissa (high 24 bits), so about 98% of
// exponential draws cost one uniform and no Math.log.

const S = new Int32Array(1);
const INV_2_32 = 1 / 4294967296;
const INV_2_24 = 1 / 16777216;

/** Reseed the generator shared by the reference engines. */
export function seed(s) {
  S[0] = s | 0;
}

/** 32 random bits, unsigned. */
export function bits() {
  const a = (S[0] + 0x6d2b79f5) | 0;
  S[0] = a;
  let t = Math.imul(a ^ (a >>> 15), a | 1);
  t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
  return (t ^ (t >>> 14)) >>> 0;
}

/** Uniform in [0, 1). */
export function uniform() {
  return bits() * INV_2_32;
}

const LAYERS = 256;
const R = 7.69711747013105; // Marsaglia & Tsang (2000) print 7.69711747013104972, the same double
const V = 3.949659822581572e-3;
const X = new Float64Array(LAYERS + 1);
const F = new Float64Array(LAYERS + 1);
const K = new Float64Array(LAYERS);
{
  const fR = Math.exp(-R);
  X[0] = V / fR;
  F[0] = fR;
  X[1] = R;
  F[1] = fR;
  for (let i = 2; i < LAYERS; i++) {
    const f = V / X[i - 1] + F[i - 1];
    X[i] = -Math.log(f);
    F[i] = f;
  }
  X[LAYERS] = 0;
  F[LAYERS] = 1;
  for (let i = 0; i < LAYERS; i++) K[i] = X[i + 1] / X[i];
}

/** Standard exponential (mean 1). */
export function exp1() {
  const j = bits();
  const i = j & 255;
  const w = (j >>> 8) * INV_2_24;
  if (w < K[i]) return w * X[i];
  return expSlow(i, w * X[i]);
}

function expSlow(i, x) {
  if (i === 0) return R - Math.log(1 - uniform());
  if (F[i] + uniform() * (F[i + 1] - F[i]) < Math.exp(-x)) return x;
  return exp1();
}
