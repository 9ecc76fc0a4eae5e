import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareTune } from '../../src/tune/prepareTune.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';

type Json = Record<string, unknown>;

const server = { kind: 'server', serviceMs: 1, concurrency: 4 };

/** A small graph: the workload enters `fe`, which calls `db` through a cache; two layers at the entry. */
function graphExperiment(tune: Json, parts = false): Json {
  const scenario = {
    workload: { kind: 'burst', clients: 5, entry: { service: 'fe', endpoint: 'get' } },
    stack: [{ name: 'app', policy: { maxAttempts: 2 } }, { name: 'sdk' }],
    services: {
      fe: { fleet: server, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', cache: { capacity: 10, keys: 100, zipf: 1 } }] }] } } },
      db: { fleet: server, endpoints: { get: {} } },
    },
    metrics: { windows: [{ name: 'all', fromMs: 0, toMs: 1000 }] },
  };
  const base = { name: 'graph-tune', ...(parts ? { parts: [{ name: 'a', scenario }, { name: 'b', scenario }] } : { scenario }) };
  return {
    ...base,
    tune: {
      space: { 'stack.0.policy.maxAttempts': { kind: 'int', min: 1, max: 3 } },
      objectives: [{ metric: 'amplification', goal: 'minimize' }],
      ...tune,
    },
  };
}

function problems(tune: Json, parts = false): string[] {
  const r = prepareTune(graphExperiment(tune, parts));
  return r.ok ? [] : r.errors;
}

describe('tune: goals on graph metrics must name what the scenario has', () => {
  it('refuses a service, edge, cache, layer or window that does not exist, saying which exist', () => {
    expect(problems({ constraints: [{ metric: 'services.nope.utilization', max: 0.9 }] })).toEqual([
      'tune.constraints.0.metric must name a service of the scenario (got "services.nope.utilization"; services: fe, db)',
    ]);
    expect(problems({ objectives: [{ metric: 'edges.fe->nope.amplification', goal: 'minimize' }] })).toEqual([
      'tune.objectives.0.metric must name an edge (<caller>-><callee>) of the scenario (got "edges.fe->nope.amplification"; edges: workload->fe, fe->db)',
    ]);
    expect(problems({ constraints: [{ metric: 'services.fe.caches.nope.hitRatio', min: 0.5 }, { metric: 'services.db.caches.db.hits', min: 1 }] })).toEqual([
      'tune.constraints.0.metric must name a cache of service "fe" of the scenario (got "services.fe.caches.nope.hitRatio"; caches there: db)',
      'tune.constraints.1.metric must name a cache of service "db" of the scenario (got "services.db.caches.db.hits"; it has no caches there)',
    ]);
    expect(problems({ constraints: [{ metric: 'attempts.proxy.retries', max: 10 }, { metric: 'windows.during.successRate', min: 0.9 }] })).toEqual([
      'tune.constraints.0.metric must name a layer of the scenario (got "attempts.proxy.retries"; layers: app, sdk)',
      'tune.constraints.1.metric must name a window of metrics.windows of the scenario (got "windows.during.successRate"; windows: all)',
    ]);
  });

  it('names the part where a part lacks it, and accepts what exists', () => {
    const exp = graphExperiment({ constraints: [{ metric: 'services.db.utilization', max: 0.9 }, { metric: 'services.fe.caches.db.hitRatio', min: 0.1, part: 'b' }] }, true);
    const r = prepareTune(exp);
    expect(r.ok && r.problem.constraints.map((c) => c.label)).toEqual(['services.db.utilization (a) <= 0.9', 'services.db.utilization (b) <= 0.9', 'services.fe.caches.db.hitRatio (b) >= 0.1']);
    expect(problems({ constraints: [{ metric: 'cascade.nope.troubleAtMs', max: 1000, part: 'b' }] }, true)).toEqual([
      'tune.constraints.0.metric must name a service of part "b" (got "cascade.nope.troubleAtMs"; services: fe, db)',
    ]);
  });

  it('refuses a stack + leaf scenario\'s goal on a service: it has none', () => {
    const r = prepareTune({
      name: 'plain',
      scenario: { workload: { kind: 'burst', clients: 5 }, stack: [{ name: 'client' }], leaf: server },
      tune: { space: { 'stack.0.policy.maxAttempts': { kind: 'int', min: 1, max: 3 } }, objectives: [{ metric: 'services.nope.utilization', goal: 'minimize', tolerance: 0.01 }] },
    });
    expect(r.ok ? [] : r.errors).toEqual(['tune.objectives.0.metric must name a service of the scenario (got "services.nope.utilization"; it has no services)']);
  });
});

describe('tune: bounds and tolerances within the metric\'s range', () => {
  it('refuses a bound a metric can never reach, for rates, counts and window measures', () => {
    expect(
      problems({
        constraints: [
          { metric: 'successRate', min: 1.5 },
          { metric: 'leafCalls', max: -1 },
          { metric: 'successRate', min: -0.1, max: 2 },
          { metric: 'recovered', min: 1.01, window: 'all' },
          { metric: 'services.fe.caches.db.hitRatio', max: 1.2 },
        ],
      }),
    ).toEqual([
      'tune.constraints.0.min must be between 0 and 1, the range of successRate (got 1.5)',
      'tune.constraints.1.max must be >= 0, the range of leafCalls (got -1)',
      'tune.constraints.2.min must be between 0 and 1, the range of successRate (got -0.1)',
      'tune.constraints.2.max must be between 0 and 1, the range of successRate (got 2)',
      'tune.constraints.3.min must be between 0 and 1, the range of recovered (got 1.01)',
      'tune.constraints.4.max must be between 0 and 1, the range of services.fe.caches.db.hitRatio (got 1.2)',
    ]);
    // The ends of the range are bounds like any other.
    expect(problems({ constraints: [{ metric: 'successRate', min: 1 }, { metric: 'leafCalls', max: 0 }] })).toEqual([]);
  });

  it('refuses a tolerance as wide as a bounded metric\'s range', () => {
    expect(problems({ objectives: [{ metric: 'successRate', goal: 'maximize', tolerance: 1 }] })).toEqual([
      'tune.objectives.0.tolerance must be < 1, the width of the range of successRate (between 0 and 1), or every candidate is equivalent (got 1)',
    ]);
    expect(problems({ objectives: [{ metric: 'successRate', goal: 'maximize', tolerance: 0.01 }] })).toEqual([]);
  });

  it('exits 2 from tune and validate with the dotted path, before running anything', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'g.json', graphExperiment({ constraints: [{ metric: 'services.nope.utilization', max: 0.9 }, { metric: 'successRate', min: 1.5 }] }));
    for (const args of [['tune', file, '--out', join(dir, 'out'), '--quiet'], ['validate', file]]) {
      const r = await cli(args);
      expect(r.code, args[0]).toBe(2);
      expect(r.err).toBe(
        [
          `error: ${file}: tune.constraints.0.metric must name a service of the scenario (got "services.nope.utilization"; services: fe, db)`,
          `error: ${file}: tune.constraints.1.min must be between 0 and 1, the range of successRate (got 1.5)`,
          '',
        ].join('\n'),
      );
    }
    const good = writeExperiment(dir, 'good.json', graphExperiment({ constraints: [{ metric: 'services.db.utilization', max: 0.9 }] }));
    const r = await cli(['validate', good]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('graph-tune: valid');
  });
});
