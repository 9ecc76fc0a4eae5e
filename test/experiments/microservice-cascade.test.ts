import { describe, expect, it } from 'vitest';
import { runReplication } from '../../src/sweep/runPlan.js';
import { shippedPlan } from '../helpers/shipped.js';

function run(variant: string) {
  const cell = shippedPlan('experiments/microservice-cascade.json').parts.flatMap((p) => p.cells).find((c) => c.variant === variant);
  if (!cell) throw new Error(`no cell ${variant}`);
  const rec = runReplication(cell, 0, 2026);
  if (rec.state !== 'ok') throw new Error(rec.error);
  return rec;
}

describe('microservice-cascade (quick size)', () => {
  it('with retries at every tier the database gets in trouble first and the graph stays collapsed after the dip', () => {
    const rec = run('every-tier');
    if (rec.state !== 'ok') throw new Error('errored');
    const m = rec.metrics;
    expect(m['windows.after.recovered']).toBe(0);
    // The dip starts at 20 s in quick mode: the database's bin first, its callers after.
    expect(rec.results.cascade?.[0]).toEqual({ service: 'db', event: 'trouble', atMs: 20_000 });
    expect(m['cascade.users.troubleAtMs']).toBeGreaterThan(m['cascade.db.troubleAtMs'] as number);
    // The calls concentrate on the database's edges.
    expect(m['edges.users->db.amplification']).toBeGreaterThan(4 * (m['edges.frontend->users.amplification'] as number));
  });

  it('without retries, or with bulkheads towards the database, it recovers', () => {
    for (const v of ['no-retries', 'bulkheads']) expect(run(v).metrics['windows.after.recovered']).toBe(1);
  });
});
