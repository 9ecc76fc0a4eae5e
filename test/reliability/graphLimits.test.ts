import { describe, expect, it } from 'vitest';
import { FARM_EVENT_KINDS } from '../../src/model/leaves/server/ServerFarm.js';
import { cli, tempDir, writeExperiment } from '../helpers/reliability.js';

const server = { kind: 'server', concurrency: 4, serviceMs: 1 };

/** A graph whose entry service `a` calls `fanOut` leaf services in one step. */
function fanOutExperiment(fanOut: number) {
  const services: Record<string, unknown> = {};
  const calls = Array.from({ length: fanOut }, (_, i) => ({ service: `b${i}` }));
  services.a = { fleet: server, endpoints: { get: { steps: [{ kind: 'call', calls }] } } };
  for (let i = 0; i < fanOut; i++) services[`b${i}`] = { fleet: server, endpoints: { get: {} } };
  return {
    name: 'fan-out',
    scenario: {
      workload: { kind: 'burst', clients: 1, entry: { service: 'a' } },
      stack: [{ name: 'client', policy: { maxAttempts: 2 } }],
      services,
    },
  };
}

describe('a graph that needs more event kinds than a run has is refused up front, with the count and why', () => {
  // 16 of the workload + 8 per call site x 30 + one fleet's kinds x 31 services.
  const needed = 16 + 8 * 30 + FARM_EVENT_KINDS * 31;
  const message =
    `e.json: scenario.services need ${needed} event kinds to run, at most 256 (the simulator's event queue carries 256): ` +
    `16 for the workload, 8 for each of 30 call sites, ${FARM_EVENT_KINDS * 31} for the fleets of 31 services (${FARM_EVENT_KINDS} each); use fewer calls or services`;

  it('validate, run and trace exit 2 with the same message', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'e.json', fanOutExperiment(30));
    const v = await cli(['validate', 'e.json'], dir);
    expect(v.err).toContain(message);
    expect(v.code).toBe(2);
    expect(v.out).toBe('');
    const r = await cli(['run', 'e.json', '--out', 'out', '--quiet'], dir);
    expect(r.err).toContain(message);
    expect(r.code).toBe(2);
    const t = await cli(['trace', 'e.json'], dir);
    expect(t.err).toContain(`need ${needed} event kinds to run, at most 256`);
    expect(t.code).toBe(2);
  });

  /** Two workloads, `n` calls from a to b (the first through a cache), 3 services. */
  function atTheLimit(n: number) {
    const calls = Array.from({ length: n }, (_, i) => ({ service: 'b', ...(i === 0 ? { cache: { capacity: 10, keys: 100, zipf: 0.8 } } : {}) }));
    const loop = (service: string) => ({ kind: 'burst', clients: 2, entry: { service }, stack: [{ name: 'client', policy: { maxAttempts: 2 } }] });
    return {
      name: 'at-the-limit',
      scenario: {
        workloads: { web: loop('a'), batch: loop('c') },
        services: {
          a: { fleet: server, endpoints: { get: { steps: [{ kind: 'call', calls }] } } },
          b: { fleet: server, endpoints: { get: {} } },
          c: { fleet: server, endpoints: { get: {} } },
        },
      },
    };
  }

  it('a graph that needs exactly 256 kinds (two workloads, a cache, 25 calls, 3 services) runs: the count is the run\'s', async () => {
    // 16 + 10 for the second workload + 3 for the caches + 8 x 25 call sites + 9 x 3 fleets = 256.
    const dir = tempDir();
    writeExperiment(dir, 'e.json', atTheLimit(25));
    const r = await cli(['run', 'e.json', '--out', 'out', '--quiet'], dir);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    // One call site more is 264.
    writeExperiment(dir, 'more.json', atTheLimit(26));
    const more = await cli(['validate', 'more.json'], dir);
    expect(more.err).toContain(
      'need 264 event kinds to run, at most 256 (the simulator\'s event queue carries 256): 16 for the workload, 10 for each of 1 more workloads, 8 for each of 26 call sites, 3 for the caches, 27 for the fleets of 3 services (9 each)',
    );
    expect(more.code).toBe(2);
  });

  it('a graph just within the limit validates', async () => {
    // 16 + 8 c + 9 (c + 1) <= 256 for c = 13 call sites.
    const fanOut = Math.floor((256 - 16 - FARM_EVENT_KINDS) / (8 + FARM_EVENT_KINDS));
    const dir = tempDir();
    writeExperiment(dir, 'e.json', fanOutExperiment(fanOut));
    const v = await cli(['validate', 'e.json'], dir);
    expect(v.err).toBe('');
    expect(v.code).toBe(0);
  });
});

describe('validate prints huge counts readably', () => {
  it('calls per operation of a deep chain of retrying stacks: a mantissa and a power of ten', async () => {
    // Three services in a chain, each call through 3 layers of 10^6 attempts: (10^6)^3 per edge, so (10^6)^9 at the last.
    const stack = [1, 2, 3].map((i) => ({ name: `l${i}`, policy: { maxAttempts: 1e6 } }));
    const dir = tempDir();
    writeExperiment(dir, 'e.json', {
      name: 'chain',
      scenario: {
        workload: { kind: 'burst', clients: 1, entry: { service: 'a' } },
        stack,
        services: {
          a: { fleet: server, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'b', stack }] }] } } },
          b: { fleet: server, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'c', stack }] }] } } },
          c: { fleet: server, endpoints: { get: {} } },
        },
      },
    });
    const v = await cli(['validate', 'e.json'], dir);
    expect(v.code).toBe(0);
    expect(v.out).toContain('calls per operation if every call failed (its first cell): workload -> a 1.0e18, a -> b 1.0e36, b -> c 1.0e54');
    expect(v.out).toMatch(/at most \d\.\de\d+ leaf calls/);
    expect(v.out).not.toMatch(/e\+/);
  });
});
