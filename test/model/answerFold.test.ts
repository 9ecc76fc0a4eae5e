import { describe, expect, it } from 'vitest';
import type { Dist, Scenario } from '../../src/model/scenario.js';
import type { SimulationResults } from '../../src/model/results.js';
import { alwaysFailing, backoff, burst, closedLoop, constant, layer, scenario, server, simulate } from '../helpers/scenario.js';

// A last-layer retry is decided when the failed answer leaves the leaf instead of when it arrives,
// and sent then with the wake-up's time (two events less per retry); an optimistic-concurrency
// request reads without an event (one less per attempt). A trace turns all that off, so a traced
// run is the run without it.
const hop: Dist = { dist: 'abs-normal', mean: 10, sd: 2 };

function withoutEvents(r: SimulationResults): Omit<SimulationResults, 'events'> {
  const { events: _events, ...rest } = r;
  return rest;
}

function both(sc: Scenario, seed: number): { folded: SimulationResults; plain: SimulationResults } {
  return { folded: simulate(sc, seed), plain: simulate(sc, seed, { trace: () => {} }) };
}

const cases: Array<[string, Scenario]> = [
  [
    'optimistic concurrency, 30 clients, full jitter',
    scenario({
      workload: burst(30, { method: 'PUT' }),
      stack: [layer('client', { maxAttempts: 'unlimited', backoff: backoff('full-jitter', 5, 2000) })],
      leaf: { kind: 'occ' },
      network: { hopMs: hop },
    }),
  ],
  [
    'optimistic concurrency, decorrelated jitter',
    scenario({
      workload: burst(20, { method: 'PUT' }),
      stack: [layer('client', { maxAttempts: 'unlimited', backoff: backoff('decorrelated-jitter', 5, 500) })],
      leaf: { kind: 'occ' },
      network: { hopMs: hop },
    }),
  ],
  [
    'closed loop, two layers, a server failing half its requests with Retry-After',
    scenario({
      workload: closedLoop(40, 50, 5_000),
      stack: [layer('app', { maxAttempts: 3, backoff: backoff('equal-jitter', 10, 200) }), layer('sdk', { maxAttempts: 4, backoff: backoff('exponential', 5, 100) })],
      leaf: server({ concurrency: 4, serviceMs: { dist: 'exponential', mean: 2 }, faults: [{ fromMs: 0, toMs: Infinity, probability: 0.5, status: 503, retryAfterMs: 30 }] }),
      network: { hopMs: hop },
    }),
  ],
  [
    'burst against an always failing server, three layers',
    scenario({
      workload: burst(25),
      stack: [layer('a'), layer('b'), layer('c', { backoff: backoff('full-jitter', 10, 1000) })],
      leaf: alwaysFailing(503),
      network: { hopMs: hop },
    }),
  ],
];

cases.push([
  'optimistic concurrency stopped by its horizon while retries wait',
  scenario({
    workload: burst(40, { method: 'PUT' }),
    stack: [layer('client', { maxAttempts: 'unlimited', backoff: backoff('exponential', 5, 2000) })],
    leaf: { kind: 'occ' },
    network: { hopMs: hop },
    horizonMs: 700,
  }),
]);

describe('deciding a last-layer retry when the answer leaves the leaf', () => {
  for (const [name, sc] of cases) {
    it(`changes no result: ${name}`, () => {
      for (const seed of [1, 2, 3]) {
        const { folded, plain } = both(sc, seed);
        expect(withoutEvents(folded)).toEqual(withoutEvents(plain));
        // ... and it does take fewer events: two less per last-layer retry whose wake-up runs (one
        // for the answer, one for the wake-up), and one less per read.
        const last = folded.attempts[folded.attempts.length - 1];
        const retries = last?.retries as number;
        expect(retries).toBeGreaterThan(0);
        if (folded.truncated === null) {
          expect(plain.events - folded.events).toBe(2 * retries + (folded.reads ?? 0));
        } else {
          // Past the horizon: wake-ups that would not run stay events, and are not counted.
          expect(plain.events - folded.events).toBeGreaterThan(retries + (folded.reads ?? 0));
        }
      }
    });
  }

  it('is not taken where something can reach the frame while the answer crosses the hop', () => {
    const base = cases[0]?.[1] as Scenario;
    const timeouts = { ...base, stack: [layer('client', { maxAttempts: 'unlimited', perAttemptTimeoutMs: 1000, backoff: backoff('full-jitter', 5, 2000) })] };
    const open = { ...base, workload: { kind: 'open', rate: { kind: 'steady', ratePerSec: 100 }, durationMs: 500, clients: 3, method: 'PUT', permanentErrorFraction: 0 } } as Scenario;
    const ticks = { ...base, stack: [layer('client', { maxAttempts: 'unlimited', tickMs: 7, backoff: backoff('full-jitter', 5, 2000) })] };
    // Constant hops, backoff and think time with CoDel dropping several queued requests at once: the
    // dropped requests' wake-ups tie with the start of an operation whose answer left at the same
    // instant, and deciding at the leaf would put the wake-ups first.
    const ties = scenario({
      workload: closedLoop(4, 20, 5_000, { startMs: { dist: 'uniform', min: 0, max: 50 } }),
      stack: [layer('client', { maxAttempts: 3, retryOn: ['503'], backoff: backoff('constant', 20, 200) })],
      leaf: server({ serviceMs: { dist: 'exponential', mean: 8 }, codel: { targetMs: 5, intervalMs: 20 } }),
      network: { hopMs: constant(10) },
    });
    for (const sc of [timeouts, open, ticks, ties]) {
      const { folded, plain } = both(sc, 4);
      expect(folded.events).toBe(plain.events);
      expect(withoutEvents(folded)).toEqual(withoutEvents(plain));
    }
  });
});
