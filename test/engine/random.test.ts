import { describe, expect, it } from 'vitest';
import { ClientRandom, deriveSeed, stream, type Uniform } from '../../src/engine/random.js';

/** Tommy Ettinger's reference mulberry32, verbatim apart from types. */
function referenceMulberry32(seed: number): Uniform {
  let a = seed;
  return () => {
    let t = (a += 0x6d2b79f5);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function draws(u: Uniform, n: number): number[] {
  return Array.from({ length: n }, u);
}

function popcount(x: number): number {
  let c = 0;
  for (let v = x >>> 0; v !== 0; v &= v - 1) c++;
  return c;
}

function correlation(xs: number[], ys: number[]): number {
  const n = xs.length;
  let sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (let i = 0; i < n; i++) {
    const x = xs[i] as number;
    const y = ys[i] as number;
    sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y;
  }
  const cov = sxy / n - (sx / n) * (sy / n);
  return cov / Math.sqrt((sxx / n - (sx / n) ** 2) * (syy / n - (sy / n) ** 2));
}

/**
 * Checks that `n` draws look uniform on [0, 1): every draw in range, the mean within 6 standard
 * errors of 1/2, and Pearson's chi-square over 10 equal bins below df + 6 sqrt(2 df) (a p-value
 * around 1e-4 for df = 9).
 */
function expectUniform(next: () => number, n: number): void {
  const bins = 10;
  const counts = new Array<number>(bins).fill(0);
  let sum = 0;
  let outOfRange = 0;
  for (let i = 0; i < n; i++) {
    const x = next();
    if (!(x >= 0 && x < 1)) outOfRange++;
    sum += x;
    const b = Math.floor(x * bins);
    counts[b] = (counts[b] as number) + 1;
  }
  expect(outOfRange).toBe(0);
  const meanTolerance = 6 * Math.sqrt(1 / 12 / n);
  expect(Math.abs(sum / n - 0.5)).toBeLessThan(meanTolerance);
  const expected = n / bins;
  const chi2 = counts.reduce((acc, c) => acc + (c - expected) ** 2 / expected, 0);
  const df = bins - 1;
  expect(chi2).toBeLessThan(df + 6 * Math.sqrt(2 * df));
}

describe('deriveSeed', () => {
  it('gives fixed 32-bit seeds for a master seed and a path of names', () => {
    expect(deriveSeed(2015)).toBe(1007838220);
    expect(deriveSeed(2015, 'arrivals')).toBe(1306139259);
    expect(deriveSeed(2015, 'arrivals', 0)).toBe(1418957724);
    expect(deriveSeed(0)).toBe(442365393);
  });

  it('keeps paths apart however their names could be concatenated or typed', () => {
    const seeds = [
      deriveSeed(1, 'a', 'b'),
      deriveSeed(1, 'ab'),
      deriveSeed(1, 'a b'),
      deriveSeed(1, 'b', 'a'),
      deriveSeed(1, 'a', 'b', ''),
      deriveSeed(1, 1),
      deriveSeed(1, '1'),
      deriveSeed(1),
      deriveSeed('1'),
      deriveSeed(11),
    ];
    expect(new Set(seeds).size).toBe(seeds.length);
  });

  it('changes about half the bits when one name changes', () => {
    let bits = 0;
    const n = 2000;
    for (let r = 0; r < n; r++) bits += popcount(deriveSeed(7, 'rep', r) ^ deriveSeed(7, 'rep', r + 1));
    expect(bits / n).toBeGreaterThan(15.5);
    expect(bits / n).toBeLessThan(16.5);
  });

  it('returns unsigned 32-bit integers', () => {
    for (let r = 0; r < 1000; r++) {
      const s = deriveSeed('x', r);
      expect(Number.isInteger(s) && s >= 0 && s < 2 ** 32).toBe(true);
    }
  });

  it('rejects non-finite numbers', () => {
    expect(() => deriveSeed(Number.NaN)).toThrow(RangeError);
    expect(() => deriveSeed(1, Infinity)).toThrow('name 0 must be a finite number (got Infinity)');
  });
});

describe('stream', () => {
  it('draws a fixed sequence for a fixed master seed and name', () => {
    expect(draws(stream(2015, 'arrivals'), 3)).toEqual([0.24862769013270736, 0.900889400858432, 0.3166240572463721]);
    expect(draws(stream(2015, 'arrivals'), 1000)).toEqual(draws(stream(2015, 'arrivals'), 1000));
  });

  it('gives unrelated sequences for different names', () => {
    const a = draws(stream(2015, 'arrivals'), 50_000);
    const b = draws(stream(2015, 'service'), 50_000);
    const c = draws(stream(2016, 'arrivals'), 50_000);
    // |r| of independent samples is below 5 / sqrt(n) with overwhelming probability.
    const bound = 5 / Math.sqrt(a.length);
    expect(Math.abs(correlation(a, b))).toBeLessThan(bound);
    expect(Math.abs(correlation(a, c))).toBeLessThan(bound);
    expect(a[0]).not.toBe(b[0]);
  });

  it('draws uniformly on [0, 1)', () => {
    expectUniform(stream(1, 'uniformity'), 200_000);
  });
});

describe('ClientRandom', () => {
  it('runs the reference mulberry32 from hash(seed) = deriveSeed(seed) in shared mode', () => {
    const r = new ClientRandom(3, 2015, { kind: 'shared' });
    const ref = referenceMulberry32(deriveSeed(2015));
    for (let i = 0; i < 1000; i++) expect(r.next(1)).toBe(ref());
  });

  it('draws fixed sequences per client in independent mode', () => {
    const r = new ClientRandom(4, 2015, { kind: 'independent' });
    expect([r.next(0), r.next(0), r.next(0)]).toEqual([0.6522241372149438, 0.30760361487045884, 0.40981311770156026]);
    expect([r.next(1), r.next(1), r.next(1)]).toEqual([0.44193625869229436, 0.348529041511938, 0.6207196868490428]);
  });

  it('keeps clients apart in independent mode: draws of one client do not move another', () => {
    const a = new ClientRandom(2, 9, { kind: 'independent' });
    const b = new ClientRandom(2, 9, { kind: 'independent' });
    for (let i = 0; i < 100; i++) a.next(0);
    expect(draws(() => a.next(1), 10)).toEqual(draws(() => b.next(1), 10));
  });

  it('gives unrelated sequences to different clients in independent mode', () => {
    const clients = 1000;
    const r = new ClientRandom(clients, 3, { kind: 'independent' });
    const first = Array.from({ length: clients }, (_, c) => r.next(c));
    expect(new Set(first).size).toBe(clients);
    const x = draws(() => r.next(10), 50_000);
    const y = draws(() => r.next(11), 50_000);
    expect(Math.abs(correlation(x, y))).toBeLessThan(5 / Math.sqrt(x.length));
  });

  it('gives every client the same sequence in shared mode', () => {
    const r = new ClientRandom(5, 2015, { kind: 'shared' });
    const expected = [0.3958717330824584, 0.141580626135692, 0.27555544790811837];
    for (let c = 0; c < 5; c++) expect(draws(() => r.next(c), 3)).toEqual(expected);
  });

  it('gives clients starting in the same time window identical sequences in time-seeded mode', () => {
    const r = new ClientRandom(6, 2015, { kind: 'time-seeded', resolutionMs: 1000 });
    r.start(0, 0);
    r.start(1, 999.9); // same 1 s window as client 0
    r.start(2, 1000); // next window
    r.start(3, 1999); // same window as client 2
    r.start(4, -1); // window -1 (warm-up)
    const seq = Array.from({ length: 5 }, (_, c) => draws(() => r.next(c), 20));
    expect(seq[1]).toEqual(seq[0]);
    expect(seq[3]).toEqual(seq[2]);
    expect(seq[2]).not.toEqual(seq[0]);
    expect(seq[4]).not.toEqual(seq[0]);
    expect(seq[4]).not.toEqual(seq[2]);
    // A client that was never started draws as if it started at time 0.
    expect(draws(() => r.next(5), 20)).toEqual(seq[0]);
  });

  it('reseeds a time-seeded client at every start, from its new window', () => {
    const r = new ClientRandom(2, 1, { kind: 'time-seeded', resolutionMs: 10 });
    r.start(0, 35);
    const first = draws(() => r.next(0), 5);
    r.start(0, 31);
    expect(draws(() => r.next(0), 5)).toEqual(first);
    r.start(1, 40);
    expect(draws(() => r.next(1), 5)).not.toEqual(first);
  });

  it('ignores start in independent and shared modes', () => {
    for (const kind of ['independent', 'shared'] as const) {
      const a = new ClientRandom(2, 5, { kind });
      const b = new ClientRandom(2, 5, { kind });
      a.start(1, 12345);
      expect(draws(() => a.next(1), 10)).toEqual(draws(() => b.next(1), 10));
    }
  });

  it('replays a client from the beginning after reset', () => {
    const r = new ClientRandom(3, 8, { kind: 'independent' });
    const first = draws(() => r.next(2), 10);
    r.next(1);
    r.reset(2);
    expect(draws(() => r.next(2), 10)).toEqual(first);
  });

  it('draws uniformly on [0, 1), within a client and across clients', () => {
    const one = new ClientRandom(1, 77, { kind: 'independent' });
    expectUniform(() => one.next(0), 200_000);
    const clients = 100_000;
    const many = new ClientRandom(clients, 77, { kind: 'independent' });
    let c = 0;
    expectUniform(() => many.next(c++ % clients), 200_000);
  });

  it('rejects bad arguments with the field named', () => {
    expect(() => new ClientRandom(-1, 1, { kind: 'shared' })).toThrow('clients must be an integer in [0, 2^32) (got -1)');
    expect(() => new ClientRandom(1, Number.NaN, { kind: 'shared' })).toThrow('seed must be a finite number (got NaN)');
    expect(() => new ClientRandom(1, 1, { kind: 'time-seeded', resolutionMs: 0 })).toThrow(
      'resolutionMs must be > 0 and finite (got 0)',
    );
    const r = new ClientRandom(3, 1, { kind: 'independent' });
    expect(() => r.next(3)).toThrow('client must be an integer in [0, 3) (got 3)');
    expect(() => r.next(-1)).toThrow(RangeError);
    expect(() => r.next(0.5)).toThrow(RangeError);
    expect(() => r.reset(7)).toThrow(RangeError);
  });
});
