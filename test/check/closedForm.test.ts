import { describe, expect, it } from 'vitest';
import { expectedMultiple, geometricAttempts, simulateStorm, stormScenario, type CheckStack } from '../../src/check/index.js';
import { metricStats } from '../../src/metrics/metricStats.js';
import { simulate } from '../../src/simulate.js';
import { stackOf } from './helpers.js';

const STORM = { replications: 8, ratePerSec: 100, durationMs: 10_000 } as const;

describe('the closed form of the expected load multiple', () => {
  it('one layer of A attempts: 1 + p + ... + p^(A-1) = (1 - p^A) / (1 - p)', () => {
    expect(geometricAttempts(0.5, 3)).toBe(1.75);
    expect(geometricAttempts(0.1, 3)).toBeCloseTo(1.11, 12);
    expect(geometricAttempts(1, 4)).toBe(4);
    expect(geometricAttempts(0, 4)).toBe(1);
    expect(geometricAttempts(0.5, Infinity)).toBe(2);
    expect(geometricAttempts(0.9, 1)).toBe(1);
  });

  it('nested layers compose: the layer above sees p_below = p^A', () => {
    const stack = stackOf({ layers: [{ name: 'app', policy: { maxAttempts: 3 } }, { name: 'sdk', policy: { maxAttempts: 3 } }] });
    const e = expectedMultiple(stack.layers, '503', 0.5, 'GET', false);
    expect(e.layers[1]).toMatchObject({ layer: 'sdk', failureBelow: 0.5, attemptsPerCall: 1.75, failureOut: 0.125 });
    expect(e.layers[0]!.failureBelow).toBe(0.125);
    expect(e.layers[0]!.attemptsPerCall).toBeCloseTo(1 + 0.125 + 0.125 ** 2, 12);
    expect(e.multiple).toBeCloseTo(1.75 * (1 + 0.125 + 0.125 ** 2), 12);
    expect(e.operationFailure).toBeCloseTo(0.125 ** 3, 12);
    expect(expectedMultiple(stack.layers, '503', 1, 'GET', false).multiple).toBe(9);
  });

  it('a layer that does not retry the class passes the failure rate through', () => {
    const stack = stackOf({ layers: [{ policy: { maxAttempts: 3, retryOn: ['429'] } }, { policy: { maxAttempts: 2 } }] });
    const e = expectedMultiple(stack.layers, '503', 0.5, 'GET', false);
    expect(e.layers.map((l) => l.attemptsPerCall)).toEqual([1, 1.5]);
    expect(e.layers[0]!.failureBelow).toBe(0.25);
    expect(e.multiple).toBe(1.5);
  });

  it('budgets cap a layer in the long run: the SRE ratio at 1 + ratio, gRPC throttling at 1x above ratio / (1 + ratio), the AWS quota at capacity / cost retries then 1x', () => {
    const sre = stackOf({ layers: [{ policy: { maxAttempts: 3, budget: { kind: 'sre-ratio', ratio: 0.1 } } }] });
    expect(expectedMultiple(sre.layers, '503', 1, 'GET', true).multiple).toBeCloseTo(1.1, 12);
    expect(expectedMultiple(sre.layers, '503', 0.05, 'GET', true).multiple).toBeCloseTo(1 + 0.05 + 0.0025, 12);
    const grpc = stackOf({ layers: [{ policy: { maxAttempts: 4, budget: { kind: 'grpc-throttle', maxTokens: 10, tokenRatio: 0.1 } } }] });
    expect(expectedMultiple(grpc.layers, '503', 0.05, 'GET', true).multiple).toBeCloseTo(geometricAttempts(0.05, 4), 12);
    expect(expectedMultiple(grpc.layers, '503', 0.1, 'GET', true).multiple).toBe(1);
    const aws = stackOf({ layers: [{ policy: { preset: 'aws-sdk-js-standard' } }] });
    const atFull = expectedMultiple(aws.layers, '503', 1, 'GET', true);
    expect(atFull.multiple).toBe(1);
    expect(atFull.layers[0]!.budgetNotes[0]).toContain('after a first burst of 50 retries per instance (500 / 10)');
    // 50% failures: failed retries per call <= (1 - q) x 1 / (q x 10) = 0.1.
    expect(expectedMultiple(aws.layers, '503', 0.5, 'GET', true).multiple).toBeCloseTo(1.1, 12);
    expect(expectedMultiple(aws.layers, '503', 0.5, 'GET', false).multiple).toBe(1.75);
  });
});

/** Whether the simulated mean's 95% interval contains `x`. */
function within(ci: [number, number], x: number): boolean {
  return ci[0] <= x && x <= ci[1];
}

describe('the closed form matches the simulation within its 95% confidence interval', () => {
  const stacks: Array<[string, CheckStack]> = [
    ['3 layers x 3 attempts', stackOf({ layers: [0, 1, 2].map((i) => ({ name: `l${i}`, policy: { maxAttempts: 3, backoff: { kind: 'full-jitter', baseMs: 1, capMs: 8 } } })) })],
    [
      '4 x 2 x 5, mixed backoffs',
      stackOf({
        layers: [
          { name: 'app', policy: { maxAttempts: 4, backoff: { kind: 'constant', baseMs: 2 } } },
          { name: 'sdk', policy: { maxAttempts: 2, backoff: { kind: 'equal-jitter', baseMs: 1, capMs: 4 } } },
          { name: 'proxy', policy: { maxAttempts: 5, backoff: { kind: 'none', baseMs: 0, capMs: 0 } } },
        ],
      }),
    ],
    ['one layer, unlimited attempts', stackOf({ layers: [{ policy: { maxAttempts: 'unlimited', backoff: { kind: 'full-jitter', baseMs: 1, capMs: 4 } } }] })],
  ];
  for (const [name, stack] of stacks) {
    for (const p of [0.1, 0.3, 0.6]) {
      it(`${name} at ${p * 100}% failure`, () => {
        const storm = simulateStorm(stack, { failureRate: p, fullFailure: false, ...STORM });
        expect(storm.runs).toHaveLength(1);
        const run = storm.runs[0]!;
        expect(run.truncated).toBe(0);
        const closed = expectedMultiple(stack.layers, '503', p, 'GET', false).multiple;
        expect(run.closedForm.withoutBudgets).toBe(closed);
        expect(run.amplification.n).toBe(8);
        expect(within(run.amplification.ci95, closed), `${closed} in [${run.amplification.ci95.join(', ')}]`).toBe(true);
        // And the interval is narrow enough to mean something.
        expect(run.amplification.ci95[1] - run.amplification.ci95[0]).toBeLessThan(0.1 * closed);
      });
    }
  }

  it('goodput is successes per second of the arrivals (the results\' one rule), not of the drain after them', () => {
    // Operations that arrive near the end of the 10 s take up to 3 x 400 ms more: the run ends after 10 s.
    const stack = stackOf({ layers: [{ name: 'app', policy: { maxAttempts: 3, perAttemptTimeoutMs: 400, backoff: { kind: 'none' } } }] });
    const storm = simulateStorm(stack, { failureClass: 'timeout', failureRate: 0.5, fullFailure: false, replications: 3, ratePerSec: 100, durationMs: 10_000 });
    const runs = [0, 1, 2].map((i) => simulate(stormScenario(stack, 'timeout', 0.5, { ratePerSec: 100, durationMs: 10_000 }), { seed: 1 + i }));
    expect(runs.every((r) => r.completionTimeMs > 10_000)).toBe(true);
    const perSec = runs.map((r) => r.operations.succeeded / 10);
    expect(runs.map((r) => r.goodputPerSec)).toEqual(perSec);
    expect(storm.runs[0]!.goodputPerSec.mean).toBe(metricStats(perSec).mean);
  });

  it('timeouts at partial failure: each attempt against a leaf that does not answer ends at its timeout', () => {
    const stack = stackOf({
      layers: [
        { name: 'app', policy: { maxAttempts: 2, perAttemptTimeoutMs: 400, backoff: { kind: 'full-jitter', baseMs: 1, capMs: 4 } } },
        { name: 'sdk', policy: { maxAttempts: 3, perAttemptTimeoutMs: 50, backoff: { kind: 'full-jitter', baseMs: 1, capMs: 4 } } },
      ],
    });
    const storm = simulateStorm(stack, { failureClass: 'timeout', failureRate: 0.4, ...STORM });
    expect(storm.runs.map((r) => r.failureRate)).toEqual([1, 0.4]);
    // At 100%: 2 app attempts of 400 ms, each long enough for 3 sdk attempts of 50 ms.
    expect(storm.runs[0]!.amplification.mean).toBe(6);
    const run = storm.runs[1]!;
    expect(run.goodputPerSec.mean).toBeGreaterThan(90);
    const closed = expectedMultiple(stack.layers, 'timeout', 0.4, 'GET', false).multiple;
    expect(within(run.amplification.ci95, closed), `${closed} in [${run.amplification.ci95.join(', ')}]`).toBe(true);
  });

  it('with budgets at 100% failure, the long-run caps: SRE ratio 1.1x, gRPC throttling 1x, the AWS quota 3x over a retrying app', () => {
    const cases: Array<[object, number, number]> = [
      [{ layers: [{ policy: { maxAttempts: 3, budget: { kind: 'sre-ratio', ratio: 0.1 } } }] }, 1.1, 0.01],
      [{ layers: [{ policy: { maxAttempts: 4, budget: { kind: 'grpc-throttle', maxTokens: 10, tokenRatio: 0.1 } } }] }, 1, 0.01],
      [{ layers: [{ policy: { maxAttempts: 3 } }, { policy: { preset: 'aws-sdk-js-standard' } }] }, 3, 0.03],
    ];
    for (const [doc, expected, tolerance] of cases) {
      const stack = stackOf(doc);
      const run = simulateStorm(stack, { failureRate: 1, ...STORM }).runs[0]!;
      expect(run.closedForm.withBudgets).toBeCloseTo(expected, 12);
      expect(Math.abs(run.amplification.mean - expected) / expected).toBeLessThan(tolerance);
    }
  });
});

describe('the interval check --simulate prints', () => {
  it('is the sweep\'s Student-t interval (Hill 1970) of the runs\' amplification, seed + i for run i', () => {
    const stack = stackOf({ layers: [{ policy: { maxAttempts: 3, backoff: { kind: 'none' } } }] });
    const options = { failureRate: 0.5, fullFailure: false, seed: 7, replications: 4, ratePerSec: 50, durationMs: 2000 } as const;
    const storm = simulateStorm(stack, options);
    const scenario = stormScenario(stack, '503', 0.5, options);
    const amplifications = [7, 8, 9, 10].map((seed) => simulate(scenario, { seed }).amplification);
    expect(storm.runs[0]!.amplification).toEqual(metricStats(amplifications));
    // t(0.975, 3) = 3.182446 (Hill's algorithm), not the three-decimal table value 3.182.
    const m = storm.runs[0]!.amplification;
    expect((m.ci95[1] - m.mean) / (m.sd / 2)).toBeCloseTo(3.182446, 5);
  });
});
