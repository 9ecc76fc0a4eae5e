import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import type { ServiceResult, SimulationResults } from '../../src/model/results.js';

type Json = Record<string, any>;

function run(raw: Json, seed = 1): SimulationResults {
  const r = resolveScenario(raw);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Model(r.scenario, { seed }).run();
}

const service = (r: SimulationResults, name: string): ServiceResult => (r.services ?? []).find((s) => s.service === name)!;
const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
/** The entry calls fe's endpoint `page`: a handler whose only step is `work` on fe's fleet (zero hops, bins of 5 ms). */
const workOnly = (fleet: Json, workload: Json, stack: Json[]) => ({
  workload: { ...workload, entry: { service: 'fe' } },
  stack,
  network: { hopMs: 0 },
  metrics: { timeSeriesBinMs: 5 },
  services: { fe: { fleet, endpoints: { page: { steps: [{ kind: 'work' }] } } } },
});

describe('per-service, per-bin counts of a graph run (scripted fleets, zero hops: exact values)', () => {
  it('shed, dropped, served and wasted work land in the bins where they happen', () => {
    // fe: 1 worker, a queue of 1, 10 ms of work, dropping expired requests. Three operations with a
    // 5 ms deadline arrive at 0: op 0 is served over [0, 10), op 1 queues, op 2 finds the queue full
    // (shed at 0). All three callers give up by 5. At 10 op 0 is served with nobody waiting (10 ms
    // wasted) and op 1 leaves the queue expired (dropped, lost: a failed answer at 10).
    const r = run(workOnly({ kind: 'server', concurrency: 1, queueLimit: 1, serviceMs: 10, dropExpired: true }, { kind: 'burst', clients: 3, deadlineMs: 5 }, [{ name: 'app', policy: { maxAttempts: 1 } }]));
    expect(r.simulatedMs).toBe(10);
    const ts = service(r, 'fe').timeSeries;
    expect({ shed: ts.shed, dropped: ts.dropped, served: ts.served, wastedWorkMs: ts.wastedWorkMs, answered: ts.answered, failed: ts.failed, lost: ts.lost }).toEqual({
      shed: [1, 0, 0],
      dropped: [0, 0, 1],
      served: [0, 0, 1],
      wastedWorkMs: [0, 0, 10],
      answered: [1, 0, 2],
      failed: [1, 0, 1],
      lost: [0, 0, 0],
    });
    // The bins add up to the totals.
    const s = service(r, 'fe');
    expect([sum(ts.shed), sum(ts.dropped), sum(ts.served), sum(ts.wastedWorkMs)]).toEqual([s.shed, s.dropped, s.served, s.wastedWorkMs]);
  });

  it('a crash: its bin, the requests it lost, and the refusals while the backend is down', () => {
    // fe: 1 worker, 10 ms of work, crashing when its queue passes 1 (restart after 20 ms). Three
    // operations at 0: op 0 starts, op 1 and op 2 queue, and the second queued passes the threshold:
    // the crash at 0 loses all three. Their attempts time out at 7 and retry at once into the
    // backend still down: refused (503) at 7, and the operations fail. (The run ends at 10, when the
    // lost op 0's service would have ended.)
    const r = run(
      workOnly({ kind: 'server', concurrency: 1, serviceMs: 10, crash: { queueAbove: 1, restartMs: 20 } }, { kind: 'burst', clients: 3 }, [
        { name: 'app', policy: { maxAttempts: 2, perAttemptTimeoutMs: 7, backoff: { kind: 'none' } } },
      ]),
    );
    expect(r.simulatedMs).toBe(10);
    expect(r.operations).toMatchObject({ offered: 3, failed: 3 });
    const s = service(r, 'fe');
    expect(s).toMatchObject({ crashes: 1, lost: 3, refused: 3, served: 0 });
    const ts = s.timeSeries;
    expect({ crashes: ts.crashes, lost: ts.lost, refused: ts.refused, answered: ts.answered, failed: ts.failed, arrivalsRetry: ts.arrivalsRetry }).toEqual({
      crashes: [1, 0, 0],
      lost: [3, 0, 0],
      refused: [0, 3, 0],
      answered: [3, 3, 0],
      failed: [3, 3, 0],
      arrivalsRetry: [0, 3, 0],
    });
  });

  it('faults are counted per bin, and utilisation is over the workers the capacity schedule leaves', () => {
    // fe: 2 workers, 20 ms of work, down to 1 worker over [5, 15); a 503 fault for every request over
    // [0, 1). The one operation's first attempt is faulted at 0 (a failed answer); its retry at 1
    // is served over [1, 21). Busy workers: 1 over [1, 21); workers available 2, 1, 1, 2, 2 in the
    // 5 ms bins: utilisation 0.4, 1, 1, 0.5, 0.5 (the results' utilization: 20 / 21 / 2).
    const r = run(
      workOnly(
        { kind: 'server', concurrency: 2, serviceMs: 20, capacity: [{ atMs: 5, durationMs: 10, concurrency: 1 }], faults: [{ status: 503, probability: 1, fromMs: 0, toMs: 1 }] },
        { kind: 'burst', clients: 1 },
        [{ name: 'app', policy: { maxAttempts: 2, backoff: { kind: 'constant', baseMs: 1 } } }],
      ),
    );
    expect(r.simulatedMs).toBe(21);
    const s = service(r, 'fe');
    expect(s).toMatchObject({ faulted: 1, served: 1, utilization: 20 / 21 / 2 });
    const ts = s.timeSeries;
    expect({ faulted: ts.faulted, served: ts.served, answered: ts.answered, failed: ts.failed, busy: ts.busy }).toEqual({
      faulted: [1, 0, 0, 0, 0],
      served: [0, 0, 0, 0, 1],
      answered: [1, 0, 0, 0, 1],
      failed: [1, 0, 0, 0, 0],
      busy: [0.8, 1, 1, 1, 1],
    });
    expect(ts.utilization).toEqual([0.4, 1, 1, 0.5, 0.5]);
  });
});
