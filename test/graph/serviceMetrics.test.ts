import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import type { ServiceResult, SimulationResults } from '../../src/model/results.js';
import { flattenMetrics } from '../../src/sweep/flattenMetrics.js';

type Json = Record<string, any>;

function run(raw: Json): SimulationResults {
  const r = resolveScenario(raw);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Model(r.scenario, { seed: 1 }).run();
}

/** A service's whole series over n bins: zeros but for the fields given. */
const series = (n: number, given: Json): Json => {
  const z = () => new Array<number>(n).fill(0);
  const names = ['arrivalsFirst', 'arrivalsRetry', 'answered', 'failed', 'refusedInFlight', 'served', 'shed', 'dropped', 'refused', 'faulted', 'rejected', 'lost', 'crashes', 'wastedWorkMs', 'inFlight', 'queue', 'busy'];
  return { ...Object.fromEntries(names.map((k) => [k, z()])), ...given };
};
const tries = (n: number) => ({ maxAttempts: n, backoff: { kind: 'none' } });
const service = (r: SimulationResults, name: string): ServiceResult => (r.services ?? []).find((s) => s.service === name)!;
const callDb = { kind: 'call', calls: [{ service: 'db', stack: [{ name: 'to-db', policy: tries(1) }] }] };
const db = { fleet: { kind: 'script', script: ['200:5'] }, endpoints: { get: {} } };
/** Zero hops, one attempt per layer unless told, bins of 5 ms. */
const graph = (clients: number, attempts: number, services: Json) => ({
  workload: { kind: 'burst', clients, entry: { service: 'fe' } },
  stack: [{ name: 'app', policy: tries(attempts) }],
  network: { hopMs: 0 },
  metrics: { timeSeriesBinMs: 5 },
  services,
});

describe('per-service totals and series (scripted leaves, zero hops: exact values)', () => {
  it('an async service: arrivals, requests in flight through its calls, busy workers only while working, refusals by reason', () => {
    // fe: 1 worker, no queue; its handler calls db (answers in 5 ms) and then works 10 ms. Both
    // operations reach fe at 0 and call db at once (db: 2 in flight over [0, 5)); at 5 op 0's work
    // takes the worker until 15 and op 1's finds it busy and the queue full (shed, 503 upward).
    // fe in flight: 2 over [0, 5), 1 over [5, 15); busy: 1 over [5, 15). The run ends at 15: bins
    // [0, 5), [5, 10), [10, 15), [15, 20).
    const r = run(graph(2, 1, { fe: { fleet: { kind: 'server', concurrency: 1, queueLimit: 0, serviceMs: 10 }, endpoints: { page: { steps: [callDb, { kind: 'work' }] } } }, db }));
    expect(r.simulatedMs).toBe(15);
    expect(service(r, 'fe')).toMatchObject({ arrivals: 2, first: 2, retries: 0, served: 1, shed: 1, refusedInFlight: 0, crashes: 0, utilization: 10 / 15 });
    // fe answers op 1's 503 at 5 and op 0's success at 15; it served op 0 at 15 (the worker freed).
    expect(service(r, 'fe').timeSeries).toEqual(
      series(4, { arrivalsFirst: [2, 0, 0, 0], answered: [0, 1, 0, 1], failed: [0, 1, 0, 0], served: [0, 0, 0, 1], shed: [0, 1, 0, 0], inFlight: [2, 1, 1, 0], busy: [0, 1, 1, 0], utilization: [0, 1, 1, 0] }),
    );
    // A scripted fleet has no workers: no utilisation, no queue or busy workers.
    expect(service(r, 'db')).toMatchObject({ arrivals: 2, first: 2, retries: 0, utilization: null });
    expect(service(r, 'db').timeSeries).toEqual(series(4, { arrivalsFirst: [2, 0, 0, 0], answered: [0, 2, 0, 0], inFlight: [2, 0, 0, 0] }));
  });

  it('retries and maxInFlight refusals: the retry is an arrival of its own, each refusal counted', () => {
    // fe admits 1 request at a time (maxInFlight 1) and works 10 ms on 1 worker. At 0 op 0 is
    // admitted; op 1 is refused (503), retried at once (no backoff) and refused again, then gives up.
    const r = run(graph(2, 2, { fe: { maxInFlight: 1, fleet: { kind: 'server', concurrency: 1, serviceMs: 10 }, endpoints: { page: { steps: [{ kind: 'work' }] } } } }));
    expect(r.simulatedMs).toBe(10);
    expect(service(r, 'fe')).toMatchObject({ arrivals: 3, first: 2, retries: 1, served: 1, refusedInFlight: 2, utilization: 1 });
    expect(service(r, 'fe').timeSeries).toEqual(
      series(3, { arrivalsFirst: [2, 0, 0], arrivalsRetry: [1, 0, 0], answered: [2, 0, 1], failed: [2, 0, 0], refusedInFlight: [2, 0, 0], served: [0, 0, 1], inFlight: [1, 1, 0], busy: [1, 1, 0], utilization: [1, 1, 0] }),
    );
  });

  it('a threaded service: its handlers hold their workers through their calls (threads busy)', () => {
    // fe: threaded, 2 workers, its handler only calls db (5 ms): both workers are held over [0, 5).
    const r = run(graph(2, 1, { fe: { execution: 'threaded', fleet: { kind: 'server', concurrency: 2, serviceMs: 10 }, endpoints: { page: { steps: [callDb] } } }, db }));
    expect(r.simulatedMs).toBe(5);
    expect(service(r, 'fe')).toMatchObject({ arrivals: 2, utilization: 1, meanBusy: 2 });
    // Both handlers end at 5, releasing their workers: served then, utilisation 1 over [0, 5).
    expect(service(r, 'fe').timeSeries).toEqual(series(2, { arrivalsFirst: [2, 0], answered: [0, 2], served: [0, 2], inFlight: [2, 0], busy: [2, 0], utilization: [1, 0] }));
  });

  it('the scalar fields are metrics of a sweep (services.<name>.<field>); the series are not', () => {
    const r = run(graph(2, 2, { fe: { maxInFlight: 1, fleet: { kind: 'server', concurrency: 1, serviceMs: 10 }, endpoints: { page: { steps: [{ kind: 'work' }] } } } }));
    const m = flattenMetrics(r);
    expect([m['services.fe.first'], m['services.fe.retries'], m['services.fe.refusedInFlight'], m['services.fe.utilization'], m['services.fe.crashes']]).toEqual([2, 1, 2, 1, 0]);
    expect(Object.keys(m).filter((k) => k.startsWith('services.fe.timeSeries'))).toEqual([]);
  });
});
