import { describe, expect, it } from 'vitest';
import { cascadeTimeline, inTrouble, type ServiceBins } from '../../src/metrics/cascadeTimeline.js';

/** A service's bins over n seconds: utilisation u(i), a answers of which f(i) failed, crashes c(i). */
function bins(name: string, n: number, u: (i: number) => number, f: (i: number) => number = () => 0, c: (i: number) => number = () => 0, a = 100): ServiceBins {
  return {
    name,
    binMs: 1000,
    utilisation: Float64Array.from({ length: n }, (_, i) => u(i)),
    answered: Float64Array.from({ length: n }, () => a),
    failed: Float64Array.from({ length: n }, (_, i) => f(i)),
    crashes: Float64Array.from({ length: n }, (_, i) => c(i)),
  };
}

const within = (from: number, to: number, yes: number, no: number) => (i: number) => (i >= from && i < to ? yes : no);

describe('cascade timeline', () => {
  it('is in trouble at utilisation 0.9 or an error rate of one half, and not just below either', () => {
    const s: ServiceBins = { name: 's', binMs: 1000, utilisation: [0.9, 0.8999, 0, 0, 0.5], answered: [0, 10, 10, 10, 0], failed: [0, 4, 5, 4.999, 0], crashes: [] };
    expect([0, 1, 2, 3, 4].map((i) => inTrouble(s, i))).toEqual([true, false, true, false, false]);
  });

  it('lists first trouble, first crash and recovery (30 s calm) of every service in time order', () => {
    const n = 80;
    const db = bins('db', n, within(10, 41, 1, 0.5));
    const mid = bins('mid', n, () => 0.3, within(12, 46, 60, 0));
    const front = bins('front', n, within(15, 21, 0.95, 0.2), () => 0, (i) => (i === 16 || i === 30 ? 1 : 0));
    const calm = bins('calm', n, () => 0.89, () => 49);
    expect(cascadeTimeline([front, mid, db, calm])).toEqual([
      { service: 'db', event: 'trouble', atMs: 10_000 },
      { service: 'mid', event: 'trouble', atMs: 12_000 },
      { service: 'front', event: 'trouble', atMs: 15_000 },
      { service: 'front', event: 'crashed', atMs: 16_000 },
      { service: 'front', event: 'recovered', atMs: 21_000 },
      { service: 'db', event: 'recovered', atMs: 41_000 },
      { service: 'mid', event: 'recovered', atMs: 46_000 },
    ]);
  });

  it('does not call a service recovered before 30 s of calm, nor when trouble returns within them', () => {
    // Calm for 29 s, trouble again for one bin, then calm for 30 s to the end (65 s measured).
    const flicker = bins('flicker', 65, (i) => (i < 5 || i === 34 ? 1 : 0));
    expect(cascadeTimeline([flicker])).toEqual([
      { service: 'flicker', event: 'trouble', atMs: 0 },
      { service: 'flicker', event: 'recovered', atMs: 35_000 },
    ]);
    // 29 calm bins at the end: not yet recovered.
    expect(cascadeTimeline([bins('late', 40, (i) => (i < 11 ? 1 : 0))])).toEqual([{ service: 'late', event: 'trouble', atMs: 0 }]);
    expect(cascadeTimeline([bins('edge', 41, (i) => (i < 11 ? 1 : 0))])).toEqual([
      { service: 'edge', event: 'trouble', atMs: 0 },
      { service: 'edge', event: 'recovered', atMs: 11_000 },
    ]);
  });

  it('counts calm in bins of the given width, and orders ties by the services given, trouble before crash', () => {
    const half: ServiceBins = { ...bins('half', 0, () => 0), binMs: 500, utilisation: Float64Array.from({ length: 80 }, (_, i) => (i < 4 ? 1 : 0)), answered: [], failed: [], crashes: [0, 0, 1] };
    const other = bins('other', 3, () => 0, () => 0, (i) => (i === 1 ? 1 : 0));
    expect(cascadeTimeline([other, half])).toEqual([
      { service: 'half', event: 'trouble', atMs: 0 },
      { service: 'other', event: 'crashed', atMs: 1000 },
      { service: 'half', event: 'crashed', atMs: 1000 },
      { service: 'half', event: 'recovered', atMs: 2000 },
    ]);
    expect(() => cascadeTimeline([{ ...other, binMs: 0 }])).toThrow("cascade timeline: other's binMs must be > 0 (got 0)");
  });
});
