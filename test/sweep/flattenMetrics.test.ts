import { describe, expect, it } from 'vitest';
import type { Cell } from '../../src/experiment/index.js';
import { parseScenario } from '../../src/experiment/index.js';
import type { SimulationResults } from '../../src/model/results.js';
import { simulate } from '../../src/simulate.js';
import { flattenMetrics } from '../../src/sweep/flattenMetrics.js';
import { runReplication } from '../../src/sweep/runPlan.js';

/** The record spelled out directly: every dotted name built in place, in the documented order. */
function flattenDirectly(r: SimulationResults): Record<string, number> {
  const out: Record<string, number> = {};
  const put = (k: string, v: number | null | undefined) => {
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  };
  for (const [k, v] of Object.entries(r.operations)) put(`operations.${k}`, v);
  for (const [k, v] of Object.entries(r.giveUps)) put(`giveUps.${k}`, v);
  for (const l of r.attempts) {
    put(`attempts.${l.layer}.first`, l.first);
    put(`attempts.${l.layer}.retries`, l.retries);
  }
  put('leafCalls', r.leafCalls);
  put('writes', r.writes);
  put('reads', r.reads);
  put('amplification', r.amplification);
  for (const [k, v] of Object.entries(r.latencyMs)) put(`latencyMs.${k}`, v);
  for (const [k, v] of Object.entries(r.operationMs)) put(`operationMs.${k}`, v);
  put('completionTimeMs', r.completionTimeMs);
  put('goodputPerSec', r.goodputPerSec);
  for (const [k, v] of Object.entries(r.server)) if (typeof v === 'number') put(`server.${k}`, v);
  for (const c of r.clustering) {
    put(`clustering.${c.binMs}ms.peakToMean`, c.peakToMean);
    put(`clustering.${c.binMs}ms.dispersionIndex`, c.dispersionIndex);
    put(`clustering.${c.binMs}ms.maxBin`, c.maxBin);
  }
  if (r.backends) {
    const clusters = [...new Set(r.backends.map((b) => b.cluster))];
    put('fleet.crashes', r.backends.reduce((n, b) => n + b.crashes, 0));
    put('fleet.ejections', r.backends.reduce((n, b) => n + b.ejections, 0));
    for (const name of clusters) {
      const mine = r.backends.filter((b) => b.cluster === name);
      put(`fleet.${name}.crashes`, mine.reduce((n, b) => n + b.crashes, 0));
      put(`fleet.${name}.served`, mine.reduce((n, b) => n + b.served, 0));
    }
    const down = r.timeSeries.fleet?.downBackends ?? [];
    put('fleet.maxDown', down.length > 0 ? Math.max(...down) : 0);
  }
  for (const c of r.retryClustering) {
    put(`retryClustering.${c.binMs}ms.peakToMean`, c.peakToMean);
    put(`retryClustering.${c.binMs}ms.maxBin`, c.maxBin);
  }
  put('simulatedMs', r.simulatedMs);
  put('successRate', r.operations.offered > 0 ? r.operations.succeeded / r.operations.offered : undefined);
  put('truncated', r.truncated === null ? 0 : 1);
  if (r.truncated === 'memory-cap') put('truncatedAtMemoryCeiling', 1);
  return out;
}

const occ = {
  workload: { kind: 'burst', clients: 20, method: 'PUT' },
  stack: [{ name: 'client', policy: { maxAttempts: 'unlimited', backoff: { kind: 'full-jitter', baseMs: 5, capMs: 2000 } } }],
  leaf: { kind: 'occ' },
  network: { hopMs: { dist: 'abs-normal', mean: 10, sd: 2 } },
  metrics: { timeSeriesBinMs: 1000, clusteringBinMs: [10, 100] },
};

/** Two layers over a server that always fails: no successes, so no latency statistics. */
const failing = {
  workload: { kind: 'burst', clients: 10 },
  stack: [
    { name: 'edge', policy: { maxAttempts: 3, backoff: { kind: 'none' } } },
    { name: 'inner', policy: { maxAttempts: 2, backoff: { kind: 'none' } } },
  ],
  leaf: { kind: 'server', serviceMs: 1, faults: [{ probability: 1 }] },
  metrics: { timeSeriesBinMs: 100, clusteringBinMs: [0.5, 1, 15.6] },
};

const pool = {
  workload: { kind: 'open', rate: 200, durationMs: 5000 },
  stack: [{ name: 'sdk', policy: { maxAttempts: 2 } }],
  leaf: { kind: 'pool', backends: 4, server: { concurrency: 2, serviceMs: { dist: 'exponential', mean: 10 } } },
};

describe('flattenMetrics', () => {
  it.each([
    ['an OCC burst', occ],
    ['two layers, nothing succeeding', failing],
    ['a pool of backends', pool],
  ])('gives the dotted names, values and order of the record spelled out directly: %s', (_, sc) => {
    for (const seed of [1, 2, 3]) {
      const r = simulate(sc, { seed });
      const want = Object.entries(flattenDirectly(r));
      // Twice: the second call reuses the names built by the first.
      expect(Object.entries(flattenMetrics(r))).toStrictEqual(want);
      expect(Object.entries(flattenMetrics(r))).toStrictEqual(want);
    }
  });

  it('leaves out missing latencies and names attempts by layer and clustering by bin width', () => {
    const m = flattenMetrics(simulate(failing));
    expect(Object.keys(m).filter((k) => k.startsWith('latencyMs.'))).toEqual(['latencyMs.count']);
    // Layer edge: 10 first tries and 20 retries; layer inner: 30 first tries and 30 retries.
    expect(Object.entries(m).filter(([k]) => k.startsWith('attempts.'))).toEqual([
      ['attempts.edge.first', 10],
      ['attempts.edge.retries', 20],
      ['attempts.inner.first', 30],
      ['attempts.inner.retries', 30],
    ]);
    expect(Object.keys(m).filter((k) => k.startsWith('clustering.'))).toEqual(
      ['0.5', '1', '15.6'].flatMap((w) => [`clustering.${w}ms.peakToMean`, `clustering.${w}ms.dispersionIndex`, `clustering.${w}ms.maxBin`]),
    );
  });

  it('gives windows.<name>.recoveryMs of a window that got back and leaves it out of one that did not', () => {
    const m = flattenMetrics(
      simulate({ ...failing, metrics: { windows: [{ name: 'all', fromMs: 0, toMs: 10_000, recoveryTime: true }] } }),
    );
    // Every operation starts and fails in the first second: the only 10 s of the window never get back.
    expect(Object.keys(m).filter((k) => k.startsWith('windows.'))).toEqual(['windows.all.amplification', 'windows.all.successRate', 'windows.all.goodputPerSec', 'windows.all.recovered']);
    const ok = flattenMetrics(simulate({ ...pool, metrics: { windows: [{ name: 'all', fromMs: 0, toMs: 5000, recoveryTime: true }, { name: 'ten', fromMs: 0, toMs: 10_000, recoveryTime: true }, { name: 'plain', fromMs: 0, toMs: 10_000 }] } }));
    // A 5 s window has no 10 whole seconds; the 10 s one is back from its first bin.
    expect([ok['windows.all.recoveryMs'], ok['windows.ten.recoveryMs'], ok['windows.plain.recoveryMs']]).toEqual([undefined, 0, undefined]);
  });
});

describe('runReplication', () => {
  it('records the run with the master seed, replication index and derived seed after version, fields in the run’s order', () => {
    const cell: Cell = { part: 'main', variant: 'v', params: { 'workload.clients': 20 }, key: 'k', scenario: parseScenario(occ, ['scenario']) };
    const rec = runReplication(cell, 3, 77);
    if (rec.state !== 'ok') throw new Error(rec.error);
    expect(Object.keys(rec)).toEqual(['state', 'key', 'part', 'variant', 'params', 'replication', 'seed', 'metrics', 'results']);
    const raw = simulate(occ, { seed: rec.seed });
    const { version, seed: _derived, ...rest } = raw;
    expect(rec.results).toStrictEqual({ version, seed: 77, replication: 3, replicationSeed: rec.seed, ...rest });
    expect(Object.keys(rec.results)).toEqual(['version', 'seed', 'replication', 'replicationSeed', ...Object.keys(rest)]);
    expect(Object.entries(rec.metrics)).toStrictEqual(Object.entries(flattenDirectly(rec.results)));
  });

  it('turns a run that throws into an errored record with the same identifying fields', () => {
    const cell: Cell = { part: 'main', variant: 'v', params: {}, key: 'k', scenario: parseScenario(occ, ['scenario']) };
    const rec = runReplication(cell, 0, 5, true);
    expect(Object.keys(rec)).toEqual(['state', 'key', 'part', 'variant', 'params', 'replication', 'seed', 'error']);
    expect(rec).toMatchObject({ state: 'errored', error: 'injected fault in k replication 0' });
  });
});
