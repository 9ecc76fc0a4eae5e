import { describe, expect, it } from 'vitest';
import { runReplication } from '../../src/sweep/runPlan.js';
import { shippedPlan } from '../helpers/shipped.js';

function metrics(variant: string) {
  const cell = shippedPlan('experiments/noisy-neighbor.json').parts.flatMap((p) => p.cells).find((c) => c.variant === variant);
  if (!cell) throw new Error(`no cell ${variant}`);
  const rec = runReplication(cell, 0, 2027);
  if (rec.state !== 'ok') throw new Error(rec.error);
  return rec.metrics;
}

describe('noisy-neighbor (quick size)', () => {
  it("the batch caller's retry storm starves the web caller, whose own retries cannot help it", () => {
    const quiet = metrics('quiet-neighbor');
    const noisy = metrics('noisy');
    const own = metrics('victim-no-retries');
    expect(noisy['workloads.web.successRate']).toBeLessThan((quiet['workloads.web.successRate'] as number) - 0.2);
    expect(noisy['edges.reports->db.amplification']).toBeGreaterThan(5 * (quiet['edges.reports->db.amplification'] as number));
    expect(Math.abs((own['workloads.web.successRate'] as number) - (noisy['workloads.web.successRate'] as number))).toBeLessThan(0.05);
  });

  it('a bulkhead on the noisy caller, or shedding at the database, protects it', () => {
    const quiet = metrics('quiet-neighbor')['workloads.web.successRate'] as number;
    for (const v of ['bulkhead', 'shedding']) expect(metrics(v)['workloads.web.successRate']).toBeGreaterThanOrEqual(quiet - 0.02);
  });
});
