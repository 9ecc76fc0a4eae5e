import { describe, expect, it } from 'vitest';
import { resolveScenario, ValidationError } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import { simulate } from '../../src/simulate.js';

const tries = (n: number) => ({ maxAttempts: n, backoff: { kind: 'none' } });
const graph = {
  workload: { kind: 'burst', clients: 3, entry: { service: 'fe' } },
  stack: [{ name: 'app', policy: tries(2) }],
  network: { hopMs: 0 },
  metrics: { timeSeriesBinMs: 5 },
  services: {
    fe: { fleet: { kind: 'server', concurrency: 2, serviceMs: 4 }, endpoints: { page: { steps: [{ kind: 'work' }, { kind: 'call', calls: [{ service: 'db', stack: [{ name: 'to-db', policy: tries(3) }] }] }] } } },
    db: { fleet: { kind: 'script', script: ['503:1', '200:1'] }, endpoints: { get: {} } },
  },
};

describe('simulate() knows service graphs', () => {
  it('runs a graph of services and gives what the model gives: edges, services and their series', () => {
    const resolved = resolveScenario(graph);
    if (!resolved.ok) throw new Error(resolved.errors.join('\n'));
    const r = simulate(graph, { seed: 7 });
    expect(r).toEqual(new Model(resolved.scenario, { seed: 7 }).run());
    // The script answers db's attempts 503 then 200: every call to db takes 2 attempts, the second a retry of to-db.
    expect(r.edges?.map((e) => [`${e.caller} -> ${e.callee}`, e.calls, e.ownRetries])).toEqual([
      ['workload -> fe', 3, 0],
      ['fe -> db', 6, 3],
    ]);
    expect(r.services?.map((s) => [s.service, s.arrivals, s.first, s.retries])).toEqual([
      ['fe', 3, 3, 0],
      ['db', 6, 3, 3],
    ]);
    expect(r.services?.[1]?.timeSeries.arrivalsFirst.reduce((a, b) => a + b, 0)).toBe(3);
  });

  it('an invalid graph throws a ValidationError naming the dotted path', () => {
    const bad = { ...graph, services: { ...graph.services, fe: { ...graph.services.fe, endpoints: { page: { steps: [{ kind: 'call', calls: [{ service: 'dbx' }] }] } } } } };
    expect(() => simulate(bad)).toThrow(ValidationError);
    expect(() => simulate(bad)).toThrow(/scenario\.services\.fe\.endpoints\.page\.steps\.0\.calls\.0\.service/);
  });
});
