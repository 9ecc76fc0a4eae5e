import { describe, expect, it } from 'vitest';
import type { Cell, ExperimentPlan } from '../../src/experiment/index.js';
import type { SimulationResults } from '../../src/model/results.js';
import { runReplication } from '../../src/sweep/runPlan.js';
import { shippedPlan } from '../helpers/shipped.js';

const FILE = 'experiments/retry-budgets.json';

function plan(): ExperimentPlan {
  return shippedPlan(FILE);
}

const p = plan();

function cell(partName: string, variant: string, params: Record<string, unknown>): Cell {
  const part = p.parts.find((x) => x.name === partName);
  const c = part?.cells.find((x) => x.variant === variant && Object.entries(params).every(([k, v]) => x.params[k] === v));
  if (!c) throw new Error(`no cell ${partName}/${variant} ${JSON.stringify(params)}`);
  return c;
}

const cache = new Map<string, SimulationResults>();
function run(partName: string, variant: string, params: Record<string, unknown>): SimulationResults {
  const c = cell(partName, variant, params);
  const hit = cache.get(c.key);
  if (hit) return hit;
  const rec = runReplication(c, 0, p.seed);
  if (rec.state !== 'ok') throw new Error(rec.error);
  cache.set(c.key, rec.results);
  return rec.results;
}

const rate = (failure: number) => ({ 'leaf.faults.0.probability': failure });
const amp = (variant: string, failure: number) => run('failure-rate', variant, rate(failure)).amplification;
const success = (r: SimulationResults) => (r.giveUps.success ?? 0) / r.operations.offered;
const scope = (failure: number, clients: number, instances: number) => ({
  'leaf.faults.0.probability': failure,
  'workload.clients': clients,
  'stack.0.instances': instances,
});

describe('retry-budgets (shipped experiment, quick mode)', () => {
  it('at 100% failure: 3 retries make exactly 4x the load, no retries 1x, and every budget stays near 1x', () => {
    expect(amp('three-retries', 1)).toBe(4);
    expect(amp('no-retries', 1)).toBe(1);
    // SRE book: a 10% per-client ratio budget gives at most 1.1x.
    expect(amp('sre-ratio', 1)).toBeGreaterThan(1.08);
    expect(amp('sre-ratio', 1)).toBeLessThan(1.11); // plus one retry per client at its first call
    // Brooker's breaker opens at the first failure and stays open: no retries at all.
    expect(amp('brooker-breaker', 1)).toBe(1);
    // Brooker's bucket: 0.1 token per call plus the 5 it starts with (0.12 retries per call over 200 calls per client).
    for (const v of ['brooker-token-bucket', 'circuit-breaker', 'grpc-throttle']) {
      expect({ v, amp: amp(v, 1) < 1.13 }).toEqual({ v, amp: true });
    }
    // The AWS quota: 500 tokens / 5 per retry after a 503 = exactly 100 retries per client, then none.
    const aws = run('failure-rate', 'aws-token-bucket', rate(1));
    expect(aws.attempts[0]?.retries).toBe(100 * 100);
    expect(aws.giveUps['budget-exhausted']).toBeGreaterThan(0);
  });

  it('every budget sends less than 3 retries and more than none; at 50% failure the ordering holds', () => {
    const order = ['three-retries', 'aws-token-bucket', 'sre-ratio', 'no-retries'].map((v) => amp(v, 0.5));
    expect([...order].sort((a, b) => b - a)).toEqual(order);
    for (const v of ['brooker-token-bucket', 'circuit-breaker', 'brooker-breaker', 'grpc-throttle']) {
      expect(amp(v, 0.5)).toBeLessThan(amp('three-retries', 0.5));
      expect(amp(v, 0.5)).toBeGreaterThanOrEqual(1);
    }
  });

  it('at 10% failure retries buy success: 3 retries about 99.99%, no retries 90%, budgets in between', () => {
    const three = success(run('failure-rate', 'three-retries', rate(0.1)));
    const none = success(run('failure-rate', 'no-retries', rate(0.1)));
    expect(three).toBeGreaterThan(0.998);
    expect(none).toBeGreaterThan(0.88);
    expect(none).toBeLessThan(0.92);
    for (const v of ['aws-token-bucket', 'brooker-token-bucket', 'circuit-breaker', 'brooker-breaker', 'sre-ratio', 'grpc-throttle']) {
      const s = success(run('failure-rate', v, rate(0.1)));
      expect({ v, ok: s >= none - 0.01 && s <= three + 0.001 }).toEqual({ v, ok: true });
    }
    // The ratio budget covers the 10% of retries it needs: nearly all of 3 retries' success.
    expect(success(run('failure-rate', 'sre-ratio', rate(0.1)))).toBeGreaterThan(0.97);
  });

  it('scope: with 1,000 small clients each holding its own budget, buckets drift towards N retries', () => {
    // AWS quota: each client's 500 tokens outlast its 6 calls in the minute: all 3 retries of every call.
    expect(run('client-count', 'aws-token-bucket', scope(1, 1000, 1000)).amplification).toBe(4);
    expect(run('client-count', 'aws-token-bucket', scope(1, 1000, 1)).amplification).toBeLessThan(1.05);
    // Brooker's bucket starts with 5 tokens per client: far more retries per call with few calls each.
    const small = run('client-count', 'brooker-token-bucket', scope(1, 1000, 1000)).amplification;
    const shared = run('client-count', 'brooker-token-bucket', scope(1, 1000, 1)).amplification;
    expect(small).toBeGreaterThan(1.5);
    expect(shared).toBeLessThan(1.12);
  });

  it("scope: with 1,000 small clients Brooker's breaker drifts towards no retries, though a shared one retries every failure at 5%", () => {
    const small = run('client-count', 'brooker-breaker', scope(0.05, 1000, 1000));
    const shared = run('client-count', 'brooker-breaker', scope(0.05, 1000, 1));
    expect(small.amplification).toBeLessThan(1.01);
    expect(shared.amplification).toBeGreaterThan(1.04);
    expect(success(shared)).toBeGreaterThan(0.998);
    expect(success(small)).toBeLessThan(0.97);
  });
});
