import { describe, expect, it } from 'vitest';
import type { Cell, ExperimentPlan } from '../../src/experiment/index.js';
import type { SimulationResults } from '../../src/model/results.js';
import { runReplication } from '../../src/sweep/runPlan.js';
import { shippedPlan } from '../helpers/shipped.js';

const FILE = 'experiments/work-vs-completion.json';

function plan(): ExperimentPlan {
  return shippedPlan(FILE);
}

const p = plan();
const STRATEGIES = ['none', 'exponential', 'full-jitter', 'equal-jitter', 'decorrelated-jitter'];

const cache = new Map<string, SimulationResults[]>();
/** Replications 0 .. n-1 of one cell. */
function runs(partName: string, variant: string, strategy: string, n: number): SimulationResults[] {
  const part = p.parts.find((x) => x.name === partName);
  const c: Cell | undefined = part?.cells.find((x) => x.variant === variant && x.params['stack.0.policy.backoff.kind'] === strategy);
  if (!c) throw new Error(`no cell ${partName}/${variant}/${strategy}`);
  const key = `${c.key}/${n}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const out = Array.from({ length: n }, (_, r) => {
    const rec = runReplication(c, r, p.seed);
    if (rec.state !== 'ok') throw new Error(rec.error);
    return rec.results;
  });
  cache.set(key, out);
  return out;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const success = (r: SimulationResults) => (r.giveUps.success ?? 0) / r.operations.offered;
const open = (variant: string, strategy: string) => runs('overloaded-open', variant, strategy, 1)[0] as SimulationResults;
const burst = (variant: string, strategy: string) => runs('contended-burst', variant, strategy, 4);

describe('work-vs-completion (shipped experiment, quick mode)', () => {
  it('open loop: backoff barely changes the total work, but lengthens the p99 operation time', () => {
    const calls = STRATEGIES.map((s) => open('no-budget', s).leafCalls);
    const lo = Math.min(...calls);
    expect(Math.max(...calls) / lo).toBeLessThan(1.06);
    const p99 = (s: string) => open('no-budget', s).operationMs.p99 as number;
    for (const s of ['exponential', 'full-jitter', 'equal-jitter', 'decorrelated-jitter']) {
      expect({ s, longer: p99(s) > p99('none') }).toEqual({ s, longer: true });
    }
  });

  it('open loop: every retry budget cuts the work by more than 15% at (nearly) the same success rate', () => {
    for (const s of ['none', 'full-jitter']) {
      const base = open('no-budget', s);
      for (const v of ['token-bucket', 'sre-ratio', 'grpc-throttle', 'circuit-breaker']) {
        const r = open(v, s);
        expect({ v, s, less: r.leafCalls < 0.85 * base.leafCalls }).toEqual({ v, s, less: true });
        expect({ v, s, ok: success(r) > success(base) - 0.02 }).toEqual({ v, s, ok: true });
      }
      expect(open('adaptive-throttle', s).leafCalls).toBeLessThan(base.leafCalls);
    }
  });

  it('contended burst: jitter halves the writes of plain exponential backoff and of no backoff; exponential is the slowest', () => {
    const writes = (s: string) => mean(burst('no-budget', s).map((r) => r.writes as number));
    const time = (s: string) => mean(burst('no-budget', s).map((r) => r.completionTimeMs));
    expect(writes('full-jitter')).toBeLessThan(writes('exponential') / 2);
    expect(writes('full-jitter')).toBeLessThan(writes('none') / 2);
    for (const s of ['none', 'full-jitter', 'equal-jitter', 'decorrelated-jitter']) {
      expect({ s, faster: time(s) < time('exponential') }).toEqual({ s, faster: true });
    }
    for (const r of burst('no-budget', 'full-jitter')) expect(success(r)).toBe(1);
  });

  it('contended burst: per-client quotas and adaptive throttling never bind (conflicts are accepted answers); the ratio budget saves work only by abandoning writes', () => {
    const base = burst('no-budget', 'full-jitter');
    for (const v of ['token-bucket', 'adaptive-throttle']) {
      expect(burst(v, 'full-jitter').map((r) => r.writes)).toEqual(base.map((r) => r.writes));
    }
    const ratio = burst('sre-ratio', 'full-jitter');
    expect(mean(ratio.map((r) => r.writes as number))).toBeLessThan(mean(base.map((r) => r.writes as number)) / 2);
    expect(mean(ratio.map(success))).toBeLessThan(0.2);
    expect(mean(ratio.map((r) => r.giveUps['budget-exhausted'] ?? 0))).toBeGreaterThan(50);
  });
});
