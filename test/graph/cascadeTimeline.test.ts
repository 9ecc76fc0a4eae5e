import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import type { SimulationResults } from '../../src/model/results.js';
import { flattenMetrics } from '../../src/sweep/flattenMetrics.js';

type Json = Record<string, any>;

function run(raw: Json, seed = 1): SimulationResults {
  const r = resolveScenario(raw);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Model(r.scenario, { seed }).run();
}

/** Two attempts, 1.5 s apart. */
const twice = (name: string) => [{ name, policy: { maxAttempts: 2, backoff: { kind: 'constant', baseMs: 1500 } } }];
const call = (service: string, stack: Json[]) => ({ kind: 'call', calls: [{ service, stack }] });
const unlimited = { kind: 'server', concurrency: 'unlimited', serviceMs: 0 };

/**
 * fe calls mid, mid calls db, each call making two attempts 1.5 s apart (the entry one attempt);
 * db (8 workers, 10 ms: utilisation 0.125) is down over [10 s, 20 s), refusing every request with a
 * 503. Zero hops, Poisson arrivals at 100/s for 60 s.
 */
function outageGraph(binMs: number): Json {
  return {
    workload: { kind: 'open', rate: 100, durationMs: 60_000, entry: { service: 'fe' } },
    stack: [{ name: 'browser', policy: { maxAttempts: 1 } }],
    network: { hopMs: 0 },
    metrics: { timeSeriesBinMs: binMs },
    services: {
      fe: { fleet: unlimited, endpoints: { page: { steps: [call('mid', twice('to-mid'))] } } },
      mid: { fleet: unlimited, endpoints: { get: { steps: [call('db', twice('to-db'))] } } },
      db: { fleet: { kind: 'server', concurrency: 8, serviceMs: 10, outages: [{ atMs: 10_000, durationMs: 10_000 }] }, endpoints: { get: {} } },
    },
  };
}

describe('the cascade timeline of a graph run', () => {
  it('lists a leaf outage travelling up the graph in the order and at the bins the script implies', () => {
    // db refuses everything from 10 s: its bins from 10 to 19 are all errors. mid fails a request
    // that arrived at t only once its retry at t + 1.5 s is refused too: its failures run from
    // 11.5 s (t = 10) and its last is just before 20 s (t just under 18.5); no request arriving in
    // [10, 18.5) succeeds, so each of its bins from 11 to 19 holds failures only. fe fails a request
    // that arrived at t when its retry, sent at t + 3 s, fails at mid: at t + 4.5 s, for t in
    // [10, 15.5): from 14.5 s to just before 20 s, bins 14 to 19. After 20 s nothing fails. In bin
    // 20 db meets the retries held back (mid's of the requests of [18.5, 19.5), fe's of those of
    // [17, 18) and their own retries at mid): four times its rate, utilisation 0.5 at most, calm.
    // Each service is calm from bin 20, recovered 30 s later (the run lasts 60 s). Ties list the
    // services as declared.
    const r = run(outageGraph(1000));
    expect(r.cascade).toEqual([
      { service: 'db', event: 'trouble', atMs: 10_000 },
      { service: 'mid', event: 'trouble', atMs: 11_000 },
      { service: 'fe', event: 'trouble', atMs: 14_000 },
      { service: 'fe', event: 'recovered', atMs: 20_000 },
      { service: 'mid', event: 'recovered', atMs: 20_000 },
      { service: 'db', event: 'recovered', atMs: 20_000 },
    ]);
    // The per-second series say the same: fe's first failed answers are in bin 14, mid's in bin 11.
    const failed = (s: string) => (r.services ?? []).find((x) => x.service === s)?.timeSeries.failed ?? [];
    expect(failed('fe').findIndex((n) => n > 0)).toBe(14);
    expect(failed('mid').findIndex((n) => n > 0)).toBe(11);
    expect(failed('db').findIndex((n) => n > 0)).toBe(10);
    expect(failed('fe').slice(20).every((n) => n === 0)).toBe(true);
  });

  it('is in summary.csv as cascade.<service>.<event>AtMs, absent for what did not happen', () => {
    const m = flattenMetrics(run(outageGraph(1000)));
    expect(Object.entries(m).filter(([k]) => k.startsWith('cascade.'))).toEqual([
      ['cascade.db.troubleAtMs', 10_000],
      ['cascade.mid.troubleAtMs', 11_000],
      ['cascade.fe.troubleAtMs', 14_000],
      ['cascade.fe.recoveredAtMs', 20_000],
      ['cascade.mid.recoveredAtMs', 20_000],
      ['cascade.db.recoveredAtMs', 20_000],
    ]);
  });

  it('keeps 1 s bins of its own when the series have another width (the same timeline)', () => {
    const a = run(outageGraph(1000));
    expect(run(outageGraph(250)).cascade).toEqual(a.cascade);
    expect(run(outageGraph(5000)).cascade).toEqual(a.cascade);
  });

  it('a crash: the crashed service and its caller, in the bin of the crash', () => {
    // Three operations at 1.5 s; db (1 worker, crashing when its queue passes 1) crashes at once and
    // loses all three (failed answers, bin 1); fe's calls time out 100 ms later (bin 1 too).
    const r = run({
      workload: { kind: 'burst', clients: 3, startMs: 1500, entry: { service: 'fe' } },
      stack: [{ name: 'browser', policy: { maxAttempts: 1 } }],
      network: { hopMs: 0 },
      services: {
        fe: { fleet: unlimited, endpoints: { page: { steps: [call('db', [{ name: 'to-db', policy: { maxAttempts: 1, perAttemptTimeoutMs: 100 } }])] } } },
        db: { fleet: { kind: 'server', concurrency: 1, serviceMs: 10, crash: { queueAbove: 1, restartMs: 1000 } }, endpoints: { get: {} } },
      },
    });
    expect(r.operations).toMatchObject({ offered: 3, failed: 3 });
    expect(r.cascade).toEqual([
      { service: 'fe', event: 'trouble', atMs: 1000 },
      { service: 'db', event: 'trouble', atMs: 1000 },
      { service: 'db', event: 'crashed', atMs: 1000 },
    ]);
  });
});
