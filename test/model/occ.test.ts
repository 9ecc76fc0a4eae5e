import { describe, expect, it } from 'vitest';
import { backoff, burst, constant, layer, scenario, simulate, sum } from '../helpers/scenario.js';

const occ = { kind: 'occ' } as const;
const untilSuccess = layer('client', { maxAttempts: 'unlimited', backoff: backoff('none') });

describe('optimistic-concurrency leaf', () => {
  it('one client: one read, one write, done after 4 hops (read there and back, write there and back)', () => {
    const r = simulate(scenario({ workload: burst(1), stack: [untilSuccess], leaf: occ, network: { hopMs: constant(10) } }));
    expect([r.reads, r.writes, r.leafCalls]).toEqual([1, 1, 2]);
    expect(r.completionTimeMs).toBe(40);
    expect(r.latencyMs.max).toBe(40);
    expect(r.giveUps.success).toBe(1);
    expect(r.server.kind).toBe('occ');
  });

  it('N clients in lockstep with no backoff: one write wins per round, N(N+1)/2 writes in all', () => {
    const N = 10;
    const r = simulate(scenario({ workload: burst(N), stack: [untilSuccess], leaf: occ, network: { hopMs: constant(10) } }));
    const conflicts = r.attempts[0]?.retries as number;
    expect(r.writes).toBe((N * (N + 1)) / 2);
    expect(conflicts).toBe((N * (N - 1)) / 2);
    expect((r.writes as number) - conflicts).toBe(N);
    expect(r.reads).toBe(r.writes);
    expect(r.leafCalls).toBe((r.reads as number) + (r.writes as number));
    expect(r.giveUps.success).toBe(N);
    // Round k ends at 40k ms.
    expect(r.completionTimeMs).toBe(40 * N);
    expect(r.latencyMs.max).toBe(40 * N);
    expect(r.latencyMs.mean).toBe((40 * (N + 1)) / 2);
  });

  it('the per-bin write series adds up to the writes', () => {
    const r = simulate(
      scenario({
        workload: burst(6),
        stack: [untilSuccess],
        leaf: occ,
        network: { hopMs: constant(10) },
        metrics: { timeSeriesBinMs: 7, clusteringBinMs: [1] },
      }),
    );
    expect(sum(r.timeSeries.writes as number[])).toBe(r.writes);
  });

  it('with random hops and full jitter every client still succeeds eventually ("unlimited" attempts)', () => {
    const N = 30;
    const r = simulate(
      scenario({
        workload: burst(N),
        stack: [
          layer('client', {
            maxAttempts: 'unlimited',
            backoff: { kind: 'full-jitter', baseMs: 5, capMs: 2000, multiplier: 2, exponentOffset: 1 },
          }),
        ],
        leaf: occ,
        network: { hopMs: { dist: 'abs-normal', mean: 10, sd: 2 } },
      }),
      2015,
    );
    expect(r.truncated).toBeNull();
    expect(r.giveUps.success).toBe(N);
    expect(r.operations.failed).toBe(0);
    expect((r.writes as number) - (r.attempts[0]?.retries as number)).toBe(N);
    expect(r.reads).toBe(r.writes);
    expect(r.leafCalls).toBe((r.reads as number) + (r.writes as number));
  });

  it('a capped client gives up after its attempts: 2 clients, 1 attempt each -> 1 success, 1 attempt-limit', () => {
    const r = simulate(
      scenario({ workload: burst(2), stack: [layer('client', { maxAttempts: 1 })], leaf: occ, network: { hopMs: constant(10) } }),
    );
    expect(r.giveUps).toMatchObject({ success: 1, 'attempt-limit': 1 });
    expect([r.reads, r.writes]).toEqual([2, 2]);
  });
});

describe('optimistic-concurrency leaf and bad input', () => {
  // The workload's permanentErrorFraction is documented as "the leaf answers them 400"; the OCC leaf
  // answers every read and write as if the input were good.
  it('operations marked as bad input get a 400 that is not retried', () => {
    const r = simulate(
      scenario({
        workload: burst(5, { permanentErrorFraction: 1 }),
        stack: [untilSuccess],
        leaf: occ,
        network: { hopMs: constant(10) },
      }),
    );
    expect(r.giveUps['not-retryable']).toBe(5);
    expect(r.giveUps.success).toBe(0);
  });
});
