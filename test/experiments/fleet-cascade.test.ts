import { describe, expect, it } from 'vitest';
import type { Cell } from '../../src/experiment/index.js';
import { runReplication } from '../../src/sweep/runPlan.js';
import { shippedPlan } from '../helpers/shipped.js';

function cells(): Cell[] {
  return shippedPlan('experiments/fleet-cascade.json').parts.flatMap((p) => p.cells);
}

function metrics(part: string, variant: string, replication = 0) {
  const cell = cells().find((c) => c.part === part && c.variant === variant);
  if (!cell) throw new Error(`no cell ${part}/${variant}`);
  const rec = runReplication(cell, replication, 22);
  if (rec.state !== 'ok') throw new Error(rec.error);
  return rec.metrics;
}

describe('fleet-cascade (quick size)', () => {
  it('without retries the seven survivors hold at 99%', () => {
    expect(metrics('single-cluster', 'no-retries')['fleet.crashes']).toBe(0);
  });

  it('immediate retries take the survivors down one after another', () => {
    const m = metrics('single-cluster', 'immediate');
    expect(m['fleet.crashes']).toBeGreaterThanOrEqual(7);
    expect(m['fleet.maxDown']).toBe(10);
    expect(m['amplification']).toBeGreaterThan(1.5);
  });

  it('load shedding with "overloaded; don\'t retry" holds with the same retries', () => {
    const m = metrics('single-cluster', 'immediate+shedding');
    expect(m['fleet.crashes']).toBe(0);
    expect(m['fleet.maxDown']).toBe(3);
  });

  it('the spill-over takes down the second cluster; a retry budget usually stops it, shedding always', () => {
    const reps = [0, 1, 2];
    const immediate = reps.map((r) => metrics('failover', 'immediate', r)['fleet.b.crashes'] as number);
    const budget = reps.map((r) => metrics('failover', 'budget', r)['fleet.b.crashes'] as number);
    immediate.forEach((n) => expect(n).toBeGreaterThan(0));
    expect(budget.filter((n) => n === 0).length).toBeGreaterThanOrEqual(1);
    expect(budget.reduce((a, b) => a + b, 0)).toBeLessThan(immediate.reduce((a, b) => a + b, 0));
    expect(metrics('failover', 'shedding')['fleet.crashes']).toBe(0);
  });
});
