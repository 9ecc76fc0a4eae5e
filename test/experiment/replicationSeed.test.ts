import { describe, expect, it } from 'vitest';
import { deriveSeed } from '../../src/engine/random.js';
import { expandExperiment, replicationSeed, type ExperimentPlan } from '../../src/experiment/index.js';

function plan(clients: number[]): ExperimentPlan {
  const result = expandExperiment(
    {
      root: {
        name: 'exp',
        seed: 2015,
        scenario: { workload: { kind: 'burst', clients: 1 }, stack: [{}], leaf: { kind: 'occ' } },
        variants: { none: { 'stack.0.policy.backoff.kind': 'none' }, full: { 'stack.0.policy.backoff.kind': 'full-jitter' } },
        sweep: { grid: { 'workload.clients': clients } },
      },
    },
    { quick: false },
  );
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.plan;
}

/** cell key -> seeds of replications 0..2 */
function seeds(p: ExperimentPlan): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const part of p.parts) {
    for (const cell of part.cells) out.set(cell.key, [0, 1, 2].map((r) => replicationSeed(p.seed, cell.part, cell.params, r)));
  }
  return out;
}

describe('replicationSeed', () => {
  it('derives from master seed, part, canonical params and replication index', () => {
    expect(replicationSeed(2015, 'main', { 'workload.clients': 10, 'leaf.serviceMs': 2 }, 3)).toBe(
      deriveSeed(2015, 'replication', 'main', '{"leaf.serviceMs":2,"workload.clients":10}', 3),
    );
  });

  it('gives the variants of one sweep point the same seeds (common random numbers)', () => {
    const p = plan([10, 20]);
    const cells = p.parts[0]?.cells ?? [];
    const byParams = new Map<string, Set<number>>();
    for (const cell of cells) {
      const seed = replicationSeed(p.seed, cell.part, cell.params, 0);
      const key = JSON.stringify(cell.params);
      byParams.set(key, (byParams.get(key) ?? new Set()).add(seed));
    }
    expect([...byParams.values()].map((s) => s.size)).toEqual([1, 1]);
    const [a, b] = [...byParams.values()].map((s) => [...s][0]);
    expect(a).not.toBe(b);
  });

  it('differs between replications, parts, parameters and master seeds', () => {
    const base = replicationSeed(1, 'main', { x: 1 }, 0);
    const others = [
      replicationSeed(1, 'main', { x: 1 }, 1),
      replicationSeed(1, 'other', { x: 1 }, 0),
      replicationSeed(1, 'main', { x: 2 }, 0),
      replicationSeed(1, 'main', { x: '1' }, 0),
      replicationSeed(2, 'main', { x: 1 }, 0),
    ];
    expect(new Set([base, ...others]).size).toBe(6);
  });

  it('does not depend on the order parameters were written in', () => {
    expect(replicationSeed(5, 'p', { a: 1, b: [2, 3] }, 0)).toBe(replicationSeed(5, 'p', { b: [2, 3], a: 1 }, 0));
  });

  it('keeps every existing cell\'s seeds when a cell is added to the sweep', () => {
    const before = seeds(plan([10, 20]));
    const after = seeds(plan([10, 15, 20]));
    expect(after.size).toBe(6);
    for (const [key, values] of before) expect(after.get(key)).toEqual(values);
  });
});
