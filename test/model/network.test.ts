import { describe, expect, it } from 'vitest';
import type { Dist } from '../../src/model/scenario.js';
import { burst, layer, scenario, server, simulateTraced } from '../helpers/scenario.js';

const hop: Dist = { dist: 'abs-normal', mean: 10, sd: 2 };

/** When each operation of a burst of `clients` (one attempt, a server that never waits) ends. */
function endTimes(clients: number, seed: number): number[] {
  const { timeline } = simulateTraced(
    scenario({
      workload: burst(clients),
      stack: [layer('client', { maxAttempts: 1 })],
      leaf: server({ concurrency: 'unlimited', serviceMs: { dist: 'constant', value: 5 } }),
      network: { hopMs: hop },
    }),
    seed,
  );
  const ends: number[] = [];
  for (const e of timeline) if (e.event === 'give-up') ends[e.op] = e.tMs;
  return ends;
}

describe('network hops', () => {
  it("come from each client's own stream: more clients leave the first clients' hops as they were", () => {
    for (const seed of [1, 2, 3]) {
      const few = endTimes(3, seed);
      const many = endTimes(8, seed);
      expect(few).toHaveLength(3);
      expect(many).toHaveLength(8);
      // A burst starts its clients in order, so operation i is client i's.
      expect(many.slice(0, 3)).toEqual(few);
      // The hops are random: the clients do not all take the same time.
      expect(new Set(many).size).toBe(8);
      for (const t of many) expect(t).toBeGreaterThan(5);
    }
  });

  it('differ from seed to seed', () => {
    expect(endTimes(3, 1)).not.toEqual(endTimes(3, 2));
  });
});
