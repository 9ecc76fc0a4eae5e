import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Leaf, Scenario } from '../../src/model/scenario.js';
import { continuousArb, poolArb, scenarioArb, scenarios } from '../helpers/arbitraries.js';
import { simulate, simulateTraced, sum, total } from '../helpers/scenario.js';

const product = (xs: number[]) => xs.reduce((a, b) => a * b, 1);
const caps = (sc: Scenario) => sc.stack.map((l) => l.policy.maxAttempts as number);

describe('properties of random small scenarios', () => {
  it('every operation ends exactly once, and nothing is left running', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (sc, seed) => {
        const r = simulate(sc, seed);
        const n = sc.workload.clients;
        expect(r.truncated).toBeNull();
        expect(r.operations.offered).toBe(n);
        expect(r.operations.unfinished).toBe(0);
        expect(r.operations.succeeded + r.operations.failed).toBe(n);
        expect(total(r.giveUps)).toBe(n);
        expect(r.giveUps.success).toBe(r.operations.succeeded);
        expect(total(r.attempts[0]?.giveUps ?? {})).toBe(n);
        expect(r.latencyMs.count).toBe(r.operations.succeeded);
        expect(r.operationMs.count).toBe(n);
      }),
      { numRuns: 300 },
    );
  });

  it("leaf calls never exceed the product of the layers' attempt caps per operation", () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (sc, seed) => {
        const r = simulate(sc, seed);
        const bound = product(caps(sc));
        expect(r.leafCalls).toBeLessThanOrEqual(sc.workload.clients * bound);
        expect(r.amplification).toBeLessThanOrEqual(bound);
        // Layer by layer: a call makes at most A_k attempts, and each attempt at most one call below.
        r.attempts.forEach((l, k) => {
          expect(l.first + l.retries).toBeLessThanOrEqual(l.first * (caps(sc)[k] as number));
          const below = r.attempts[k + 1];
          if (below) expect(below.first).toBeLessThanOrEqual(l.first + l.retries);
        });
      }),
      { numRuns: 300 },
    );
  });

  it("first tries + retries of each layer are that layer's attempts, as the timeline shows them", () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (sc, seed) => {
        const { results: r, timeline } = simulateTraced(sc, seed);
        sc.stack.forEach((_, k) => {
          const attempts = timeline.filter((e) => e.layer === k && e.event === 'attempt');
          const layerK = r.attempts[k];
          expect(layerK?.first).toBe(attempts.filter((e) => e.event === 'attempt' && e.attempt === 1).length);
          expect((layerK?.first as number) + (layerK?.retries as number)).toBe(attempts.length);
        });
        expect(r.attempts[0]?.first).toBe(sc.workload.clients);
        // Without cancellation every request of the last layer reaches the leaf.
        const last = r.attempts[r.attempts.length - 1] as { first: number; retries: number };
        if (!sc.cancellation) expect(r.leafCalls).toBe(last.first + last.retries);
        else expect(r.leafCalls).toBeLessThanOrEqual(last.first + last.retries);
        // Tracing observes the run without changing it.
        expect(simulate(sc, seed)).toEqual(r);
      }),
      { numRuns: 200 },
    );
  });

  it('without any timeout or deadline nobody stops waiting: no wasted work and nothing cancelled', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (sc0, seed) => {
        const { deadlineMs: _deadline, ...w } = sc0.workload;
        const stack = sc0.stack.map((l) => {
          const { perAttemptTimeoutMs: _t, ...policy } = l.policy;
          return { ...l, policy };
        });
        const leaf: Leaf =
          sc0.leaf.kind === 'script'
            ? { kind: 'script', script: sc0.leaf.script.map((e) => (e.status === 'hang' ? { ...e, status: 503 } : e)) }
            : sc0.leaf;
        const r = simulate({ ...sc0, workload: w, stack, leaf }, seed);
        expect(r.server.wastedWorkMs).toBe(0);
        expect(r.server.cancelled).toBe(0);
        expect(r.server.dropped).toBe(0);
        expect(r.giveUps['deadline'] ?? 0).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  it('the same seed gives identical results', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (sc, seed) => {
        expect(simulate(sc, seed)).toEqual(simulate(sc, seed));
      }),
      { numRuns: 100 },
    );
  });

  it('time series counts, away from the last instant of the run, never exceed the totals', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (sc, seed) => {
        const r = simulate(sc, seed);
        const ts = r.timeSeries;
        expect(ts.tMs[0]).toBe(0);
        expect(ts.arrivalsFirst).toHaveLength(ts.tMs.length);
        expect(sum(ts.arrivalsFirst)).toBeLessThanOrEqual(r.operations.offered);
        expect(sum(ts.arrivalsFirst) + sum(ts.arrivalsRetry)).toBeLessThanOrEqual(r.leafCalls);
        expect(sum(ts.successes)).toBeLessThanOrEqual(r.operations.succeeded);
        expect(sum(ts.failures)).toBeLessThanOrEqual(r.operations.failed);
      }),
      { numRuns: 200 },
    );
  });

  // The series drop whatever happens at exactly the run's end when it falls on a bin boundary
  // (ceil(endMs / binMs) bins leave out the bin that holds endMs); this property holds once every event is binned.
  it('time series counts sum to the totals', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (sc, seed) => {
        const r = simulate(sc, seed);
        const ts = r.timeSeries;
        expect(sum(ts.arrivalsFirst) + sum(ts.arrivalsRetry)).toBe(r.leafCalls);
        expect(sum(ts.successes)).toBe(r.operations.succeeded);
        expect(sum(ts.failures)).toBe(r.operations.failed);
      }),
      { numRuns: 200, seed: 20240601 },
    );
  });

  // A call still on its way to the next layer when its caller times out is cancelled: no operation
  // may be lost and no frame freed twice.
  it('with cancellation across delayed hops, every operation still ends exactly once', () => {
    fc.assert(
      fc.property(scenarios('always'), fc.nat(), (sc, seed) => {
        const r = simulate(sc, seed);
        expect(r.truncated).toBeNull();
        expect(r.operations.unfinished).toBe(0);
        expect(total(r.giveUps)).toBe(sc.workload.clients);
      }),
      { numRuns: 300, seed: 20240601 },
    );
  });
});

describe('the folds of the model', () => {
  it('change no result: a traced run (which takes none) equals an untraced one, in fewer events or as many', () => {
    fc.assert(
      fc.property(continuousArb, fc.nat(), (sc, seed) => {
        const plain = simulateTraced(sc, seed).results;
        const folded = simulate(sc, seed);
        expect(folded.events).toBeLessThanOrEqual(plain.events);
        expect({ ...folded, events: 0 }).toEqual({ ...plain, events: 0 });
      }),
      { numRuns: 400 },
    );
  });
});

describe("the load balancer's shortcut", () => {
  it('changes no result: a traced run (which tests every backend) equals an untraced one', () => {
    fc.assert(
      fc.property(poolArb, fc.nat(), (sc, seed) => {
        const plain = simulateTraced(sc, seed).results;
        const fast = simulate(sc, seed);
        expect(fast.events).toBeLessThanOrEqual(plain.events);
        expect({ ...fast, events: 0 }).toEqual({ ...plain, events: 0 });
      }),
      { numRuns: 100 },
    );
  }, 600_000);
});
