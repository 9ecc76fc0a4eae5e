import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/simulate.js';

const HEAD = ['version', 'seed', 'truncated', 'truncatedReason', 'simulatedMs', 'events', 'operations', 'giveUps', 'attempts', 'leafCalls'];
const MIDDLE = ['amplification', 'latencyMs', 'operationMs', 'completionTimeMs', 'goodputPerSec', 'server'];
const TAIL = ['clustering', 'retryClustering', 'timeSeries'];
const SERVER = ['kind', 'meanBusy', 'wastedWorkMs', 'maxQueue', 'served', 'shed', 'dropped', 'faulted', 'refused', 'rejected', 'lost', 'cancelled', 'queuedAtEnd', 'inServiceAtEnd', 'utilization'];
const SERIES = ['binMs', 'tMs', 'arrivalsFirst', 'arrivalsRetry', 'successes', 'failures', 'goodputPerSec', 'queue', 'inFlight', 'busy', 'budgets'];
const SUMMARY = ['count', 'mean', 'p50', 'p90', 'p99', 'p999', 'max'];

describe('the results object: fields in a fixed order (the order of results.jsonl)', () => {
  it('an OCC run adds writes and reads after leafCalls, and a writes series last', () => {
    const r = simulate({
      workload: { kind: 'burst', clients: 30, method: 'PUT' },
      stack: [{ policy: { maxAttempts: 'unlimited', backoff: { kind: 'full-jitter', baseMs: 5, capMs: 2000 } } }],
      leaf: { kind: 'occ' },
      network: { hopMs: { dist: 'abs-normal', mean: 10, sd: 2 } },
      metrics: { timeSeriesBinMs: 100, clusteringBinMs: [10] },
    });
    expect(Object.keys(r)).toEqual([...HEAD, 'writes', 'reads', ...MIDDLE, ...TAIL]);
    expect(Object.keys(r.server)).toEqual(SERVER);
    expect(r.server.utilization).toBeNull();
    expect(Object.keys(r.timeSeries)).toEqual([...SERIES, 'writes']);
    expect(Object.keys(r.latencyMs)).toEqual(SUMMARY);
    expect(Object.keys(r.attempts[0] ?? {})).toEqual(['layer', 'first', 'retries', 'hedges', 'giveUps', 'cancelled']);
    const ts = r.timeSeries;
    expect(ts.tMs).toEqual(ts.successes.map((_, b) => b * 100));
    expect(ts.goodputPerSec).toEqual(ts.successes.map((n) => n / 0.1));
    expect(r.amplification).toBe(r.leafCalls / r.operations.offered);
  });

  it('a pool adds its backends after the server and its fleet series after the budgets', () => {
    const r = simulate({
      workload: { kind: 'open', rate: 200, durationMs: 3000 },
      stack: [{ name: 'sdk', policy: { maxAttempts: 3, budget: [{ kind: 'sre-ratio' }] } }],
      leaf: { kind: 'pool', backends: 3, server: { concurrency: 2, serviceMs: { dist: 'exponential', mean: 10 } } },
      metrics: { timeSeriesBinMs: 250, clusteringBinMs: [10] },
    });
    expect(Object.keys(r)).toEqual([...HEAD, ...MIDDLE, 'backends', ...TAIL]);
    expect(Object.keys(r.server)).toEqual(SERVER);
    expect(r.server.utilization).toBe(r.server.meanBusy / 6);
    expect(Object.keys(r.timeSeries)).toEqual([...SERIES, 'fleet']);
    expect((r.timeSeries.budgets ?? []).map((b) => b.layer)).toEqual(['sdk']);
    expect(r.timeSeries.tMs.slice(0, 3)).toEqual([0, 250, 500]);
  });

  it('a server leaf has neither writes nor backends; no successes leave the latency statistics null', () => {
    const r = simulate({
      workload: { kind: 'burst', clients: 5 },
      stack: [{ policy: { maxAttempts: 2, backoff: { kind: 'none' } } }],
      leaf: { kind: 'server', concurrency: 4, serviceMs: 1, faults: [{ probability: 1 }] },
    });
    expect(Object.keys(r)).toEqual([...HEAD, ...MIDDLE, ...TAIL]);
    expect(Object.keys(r.timeSeries)).toEqual(SERIES);
    expect(r.latencyMs).toStrictEqual({ count: 0, mean: null, p50: null, p90: null, p99: null, p999: null, max: null });
    expect(r.operationMs.count).toBe(5);
    expect(r.server.utilization).toBe(r.server.meanBusy / 4);
  });
});
