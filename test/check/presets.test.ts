import { describe, expect, it } from 'vitest';
import { checkStack, firstWaits, worstCase, type FailureClass } from '../../src/check/index.js';
import { stackOf } from './helpers.js';

/** A one-layer stack starting from a preset, as a stack file writes it. */
function presetPolicy(name: string) {
  return stackOf({ layers: [{ name: 'client', preset: name }] }).layers[0]!.policy;
}

/** The [shortest, longest] of each first wait `check` lists. */
function waitRanges(name: string): Array<[number, number]> {
  return firstWaits(presetPolicy(name)).map((w) => [w.minMs, w.maxMs]);
}

function lifetimeMs(name: string, cls: FailureClass): number {
  return worstCase([presetPolicy(name)], cls, 'GET').lifetimeMs;
}

describe('check on the presets that follow the libraries\' current code: first waits and worst cases by the cited formulas', () => {
  it('grpc (A6 as amended in 2024): min(0.1 s x 2^(n-1), 1 s) x U(0.8, 1.2), so the three waits span 560 to 840 ms', () => {
    expect(waitRanges('grpc')).toEqual([
      [80, 120],
      [160, 240],
      [320, 480],
    ]);
    expect(lifetimeMs('grpc', '503')).toBe(840);
    expect(worstCase([presetPolicy('grpc')], '503', 'GET').leafCalls).toBe(4);
  });

  it('grpc-js (A6 before the amendment): random(0, min(0.1 s x 2^(n-1), 1 s))', () => {
    expect(waitRanges('grpc-js')).toEqual([
      [0, 100],
      [0, 200],
      [0, 400],
    ]);
    expect(lifetimeMs('grpc-js', '503')).toBe(700);
  });

  it('envoy: one retry after [0, 25) ms; a timeout lasts the 15 s route timeout, which covers every attempt', () => {
    expect(waitRanges('envoy')).toEqual([[0, 25]]);
    expect(lifetimeMs('envoy', '503')).toBe(25);
    expect(worstCase([presetPolicy('envoy')], 'timeout', 'GET')).toMatchObject({ leafCalls: 1, lifetimeMs: 15_000 });
  });

  it('aws-sdk-js-standard and its pre-4.3 form: floor(U x 100 ms x 2^retries), 500 ms base after a throttling error', () => {
    for (const name of ['aws-sdk-js-standard', 'aws-sdk-js-standard-pre-4.3']) {
      expect(waitRanges(name)).toEqual([
        [0, 100],
        [0, 200],
      ]);
      expect(lifetimeMs(name, '503')).toBe(300);
      expect(lifetimeMs(name, '429')).toBe(1500);
    }
  });

  it('botocore-legacy: 5 attempts, rand x 2^(n-1) s with no cap; each attempt bounded by the 60 s timeouts', () => {
    expect(waitRanges('botocore-legacy')).toEqual([
      [0, 1000],
      [0, 2000],
      [0, 4000],
      [0, 8000],
    ]);
    expect(lifetimeMs('botocore-legacy', '503')).toBe(15_000);
    expect(worstCase([presetPolicy('botocore-legacy')], 'timeout', 'GET')).toMatchObject({ leafCalls: 5, lifetimeMs: 5 * 60_000 + 15_000 });
    expect(lifetimeMs('botocore-standard', 'timeout')).toBe(3 * 60_000 + 1000 + 2000);
  });

  it('does not say an attempt of botocore waits forever: the unbounded-time finding is a warning with the bound', () => {
    const bounds: Record<string, string> = { 'botocore-standard': '3.05 min', 'botocore-legacy': '5.25 min', 'botocore-standard-2026': '3 min' };
    for (const [name, bound] of Object.entries(bounds)) {
      const report = checkStack(stackOf({ layers: [{ name: 'sdk', preset: name }] }));
      const rs006 = report.findings.filter((f) => f.code === 'RS006');
      expect(rs006.map((f) => f.severity), name).toEqual(['warning']);
      expect(rs006[0]!.risk).toContain(`at worst it lasts ${bound}`);
      expect(report.worstCase.every((w) => Number.isFinite(w.lifetimeMs))).toBe(true);
    }
  });
});
