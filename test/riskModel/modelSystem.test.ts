import { describe, expect, it } from 'vitest';
import { systemProblems } from '../../src/risk/index.js';
import { ModelSystem } from '../../src/riskModel/index.js';
import { faultyServer, mm1, ruinRisk, smallGraph, smallStorm } from './riskScenarios.js';
import type { RiskSection } from '../../src/experiment/riskSchema.js';

/** Requests at the service read every 50 ms; the collapse: more than 30 of them for 200 ms. */
const gridRisk = (service?: string): RiskSection => ({
  importance: { metric: 'inFlight', service },
  collapse: { metric: 'inFlight', service, above: 30, forMs: 200 },
  checkEveryMs: 50,
});

describe('the model as a splittable system keeps the contract (systemProblems: same seed, pieces, snapshots with original and fresh streams)', () => {
  it('M/M/1, checked after every event', () => {
    expect(systemProblems(new ModelSystem(mm1(100, 200), ruinRisk(10)), { seed: 1, importanceStep: 1 })).toEqual([]);
  });

  it('a retrying stack of two layers into a server with a fault window, on a 50 ms grid', () => {
    expect(systemProblems(new ModelSystem(smallStorm(faultyServer()), gridRisk()), { seed: 2, importanceStep: 2 })).toEqual([]);
  });

  it('a retrying stack into a pool of 3 servers behind a load balancer', () => {
    const pool = { kind: 'pool', backends: 3, server: { concurrency: 1, serviceMs: { dist: 'exponential', mean: 10 } }, loadBalancer: 'p2c' };
    expect(systemProblems(new ModelSystem(smallStorm(pool), gridRisk()), { seed: 3, importanceStep: 2 })).toEqual([]);
  });

  it('a graph: a frontend calling a backend, probed at the backend', () => {
    expect(systemProblems(new ModelSystem(smallGraph(), gridRisk('backend')), { seed: 4, importanceStep: 1 })).toEqual([]);
  });

  it('branches with fresh streams go their own ways from one snapshot; the original streams go on as the run did', () => {
    const system = new ModelSystem(mm1(100, 200), ruinRisk(30));
    // The first start (of the seeds 1, 2, ...) whose queue reaches 3 requests.
    let seed = 1;
    let c = system.start(seed);
    while (c.advance(3).reason !== 'level') c = system.start(++seed);
    const snap = c.snapshot();
    const run = c.advance(Infinity);
    const again = system.restore(snap, { kind: 'original' }).advance(Infinity);
    expect(again).toEqual(run);
    const branches = Array.from({ length: 8 }, (_, i) => system.restore(snap, { kind: 'fresh', seed: 100 + i }).advance(Infinity).steps);
    expect(new Set(branches).size).toBeGreaterThan(1);
  });
});
