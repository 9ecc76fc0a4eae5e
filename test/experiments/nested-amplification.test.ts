import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CellSummary, SweepSummary } from '../../src/sweep/runPlan.js';
import { runShipped } from '../helpers/shipped.js';

const FILE = 'experiments/nested-amplification.json';


describe('nested-amplification (quick mode)', () => {
  let dir: string;
  let summary: SweepSummary;
  const cellsOf = (part: string) => summary.cells.filter((c) => c.part === part);
  const cell = (part: string, variant: string): CellSummary => {
    const c = summary.cells.find((x) => x.part === part && x.variant === variant);
    if (!c) throw new Error(`no cell ${part}/${variant}`);
    return c;
  };
  const mean = (c: CellSummary, metric: string): number => {
    const m = c.metrics[metric];
    if (!m) throw new Error(`no metric ${metric} in ${c.key}`);
    return m.mean;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'retrystorm-nested-'));
    summary = await runShipped(FILE, dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('L layers of A attempts at 100% failure make exactly A^L leaf calls per operation, for L = 1..4 and A = 2..5', () => {
    for (let L = 1; L <= 4; L++) {
      const cells = cellsOf(`depth-${L}`);
      expect(cells).toHaveLength(4 * 3);
      for (const c of cells) {
        expect(c.scenario.stack).toHaveLength(L);
        const A = c.params['stack.0.policy.maxAttempts'] as number;
        for (const layer of c.scenario.stack) expect(layer.policy.maxAttempts).toBe(A);
        expect(mean(c, 'amplification')).toBe(A ** L);
        expect(c.metrics.amplification?.sd).toBe(0);
        expect(mean(c, 'leafCalls')).toBe(100 * A ** L);
        expect(mean(c, 'operations.succeeded')).toBe(0);
        expect(mean(c, 'giveUps.attempt-limit')).toBe(100);
        // Layer i (0 from the top) receives A^i calls per operation and makes A^(i+1): A^i first tries, A^i (A - 1) retries.
        c.scenario.stack.forEach((layer, i) => {
          expect(mean(c, `attempts.${layer.name}.first`)).toBe(100 * A ** i);
          expect(mean(c, `attempts.${layer.name}.retries`)).toBe(100 * A ** i * (A - 1));
        });
      }
    }
  });

  it('jitter changes when the calls happen, never how many: full jitter, exponential and no backoff give the same counts but not the same times', () => {
    for (let L = 1; L <= 4; L++) {
      for (const A of [2, 3, 4, 5]) {
        const cells = cellsOf(`depth-${L}`).filter((c) => c.params['stack.0.policy.maxAttempts'] === A);
        const byVariant = Object.fromEntries(cells.map((c) => [c.variant, c]));
        expect(Object.keys(byVariant).sort()).toEqual(['exponential', 'full-jitter', 'no-backoff']);
        const calls = cells.map((c) => mean(c, 'leafCalls'));
        expect(new Set(calls).size).toBe(1);
        const t = (v: string) => mean(byVariant[v] as CellSummary, 'operationMs.mean');
        expect(t('no-backoff')).toBeLessThan(t('full-jitter'));
        expect(t('full-jitter')).toBeLessThan(t('exponential'));
      }
    }
  });

  it("the SRE book's three layers of four attempts make 64 database calls per user action; retrying at one layer only makes 4", () => {
    expect(mean(cell('one-retrying-layer', 'every-layer'), 'amplification')).toBe(64);
    expect(mean(cell('one-retrying-layer', 'top-only'), 'amplification')).toBe(4);
    expect(mean(cell('one-retrying-layer', 'bottom-only'), 'amplification')).toBe(4);
    expect(mean(cell('one-retrying-layer', 'no-retries'), 'amplification')).toBe(1);
    expect(cell('one-retrying-layer', 'every-layer').scenario.stack.map((l) => l.name)).toEqual(['javascript', 'frontend', 'backend']);
  });

  it('budgets: none gives 64x; the 10% ratio budget at every layer at most 1.1^3; the AWS quota 100 retries per layer, then single attempts', () => {
    const none = cell('budgets', 'no-budget');
    const ratio = cell('budgets', 'sre-ratio-10pct');
    const quota = cell('budgets', 'aws-retry-quota');
    expect(none.scenario.workload.kind).toBe('open');
    expect(mean(none, 'amplification')).toBe(64);
    // A retry is allowed while retries / first tries < 10% over a sliding 60 s window, checked before the retry is counted:
    // each layer may end a retry or two above 10% of its first tries.
    expect(mean(ratio, 'amplification')).toBeLessThan(1.1 ** 3 + 0.001);
    expect(mean(ratio, 'amplification')).toBeGreaterThan(1.3);
    for (const layer of ['javascript', 'frontend', 'backend']) {
      const first = mean(ratio, `attempts.${layer}.first`);
      expect(mean(ratio, `attempts.${layer}.retries`)).toBeLessThanOrEqual(0.1 * first + 3);
      expect(mean(ratio, `attempts.${layer}.retries`)).toBeGreaterThan(0.099 * first);
      expect(mean(quota, `attempts.${layer}.retries`)).toBe(100);
    }
    expect(mean(quota, 'amplification')).toBeGreaterThan(1);
    expect(mean(quota, 'amplification')).toBeLessThan(1.06);
    expect(mean(quota, 'giveUps.budget-exhausted')).toBeGreaterThan(0.99 * mean(quota, 'operations.offered') - 100);
  });
});
