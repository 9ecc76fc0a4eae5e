import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expandExperiment, parseExperimentText } from '../../src/experiment/index.js';

function load(path: string, quick: boolean) {
  const parsed = parseExperimentText(readFileSync(path, 'utf8'), path);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const expanded = expandExperiment(parsed.experiment, { quick });
  if (!expanded.ok) throw new Error(expanded.errors.join('\n'));
  return expanded.plan;
}

describe('shipped validation experiments', () => {
  it('mm1 is an open-loop M/M/1 at utilisation 0.8 with about 1.6 million operations', () => {
    const plan = load('experiments/validation/mm1.json', false);
    const s = plan.parts[0]?.cells[0]?.scenario;
    expect(plan.parts[0]?.cells).toHaveLength(1);
    expect(plan.parts[0]?.replications).toBe(1);
    expect(s?.workload).toMatchObject({ kind: 'open', rate: { kind: 'steady', ratePerSec: 80 }, durationMs: 20_000_000 });
    expect(s?.stack).toHaveLength(1);
    expect(s?.stack[0]?.policy.maxAttempts).toBe(1);
    expect(s?.leaf).toMatchObject({ kind: 'server', concurrency: 1, queueLimit: 'unlimited', serviceMs: { dist: 'exponential', mean: 10 } });
    expect(s?.warmupMs).toBe(5000);
    expect(s !== undefined && s.horizonMs > 20_000_000).toBe(true);
    expect(load('experiments/validation/mm1.json', true).parts[0]?.cells[0]?.scenario.workload).toMatchObject({ durationMs: 500_000 });
  });

  it('mmc is an open-loop M/M/10 at utilisation 0.8 with about 1.6 million operations', () => {
    const plan = load('experiments/validation/mmc.json', false);
    const s = plan.parts[0]?.cells[0]?.scenario;
    expect(s?.workload).toMatchObject({ kind: 'open', rate: { kind: 'steady', ratePerSec: 800 }, durationMs: 2_000_000 });
    expect(s?.stack[0]?.policy.maxAttempts).toBe(1);
    expect(s?.leaf).toMatchObject({ kind: 'server', concurrency: 10, queueLimit: 'unlimited', serviceMs: { dist: 'exponential', mean: 10 } });
    expect(load('experiments/validation/mmc.json', true).parts[0]?.cells[0]?.scenario.workload).toMatchObject({ durationMs: 50_000 });
  });
});
