import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CellSummary, SweepSummary } from '../../src/sweep/runPlan.js';
import { runShipped } from '../helpers/shipped.js';

const FILE = 'experiments/backoff-open-vs-closed.json';
const BASES = [10, 100, 1000];
const DEMAND_SEC = 60;


describe('backoff-open-vs-closed (quick mode)', () => {
  let dir: string;
  let summary: SweepSummary;
  const cell = (part: string, variant: string, baseMs: number): CellSummary => {
    const c = summary.cells.find((x) => x.part === part && x.variant === variant && x.params['stack.0.policy.backoff.baseMs'] === baseMs);
    if (!c) throw new Error(`no cell ${part}/${variant}/${baseMs}`);
    return c;
  };
  const mean = (c: CellSummary, metric: string): number => {
    const m = c.metrics[metric];
    if (!m) throw new Error(`no metric ${metric} in ${c.key}`);
    return m.mean;
  };
  const callsPerSec = (part: string, variant: string, baseMs: number) => mean(cell(part, variant, baseMs), 'leafCalls') / DEMAND_SEC;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'retrystorm-openclosed-'));
    summary = await runShipped(FILE, dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('every operation makes 1 + 3 retries = 4 leaf calls and fails, in both loops, whatever the backoff', () => {
    expect(summary.cells).toHaveLength(2 * 3 * 3);
    for (const c of summary.cells) {
      expect(mean(c, 'amplification')).toBe(4);
      expect(mean(c, 'operations.succeeded')).toBe(0);
      expect(mean(c, 'truncated')).toBe(0);
    }
  });

  it('open loop: backoff does not change the load, about 400 leaf calls/s at 100 operations/s', () => {
    for (const base of BASES) {
      const none = callsPerSec('open-loop', 'none', base);
      expect(none).toBeGreaterThan(380);
      expect(none).toBeLessThan(420);
      // The same arrivals for every variant (common random numbers): exactly the same calls.
      expect(callsPerSec('open-loop', 'exponential', base)).toBe(none);
      expect(callsPerSec('open-loop', 'full-jitter', base)).toBe(none);
    }
  });

  it('closed loop: the load falls with the time each client spends backing off (none > full jitter > exponential)', () => {
    const none = callsPerSec('closed-loop', 'none', 100);
    // 100 clients, 1 s think + 4 attempts of about 12 ms: about 95 operations/s, 380 calls/s.
    expect(none).toBeGreaterThan(360);
    expect(none).toBeLessThan(400);
    for (const base of BASES) {
      const n = callsPerSec('closed-loop', 'none', base);
      const fj = callsPerSec('closed-loop', 'full-jitter', base);
      const ex = callsPerSec('closed-loop', 'exponential', base);
      expect(n).toBeGreaterThan(fj);
      expect(fj).toBeGreaterThan(ex);
      // Exponential waits base + 2 base + 4 base: a cycle of about 1.048 s + 7 base.
      const predicted = (100 * 4) / (1.048 + (7 * base) / 1000);
      expect(ex).toBeGreaterThan(0.9 * predicted);
      expect(ex).toBeLessThan(1.15 * predicted);
    }
    expect(callsPerSec('closed-loop', 'exponential', 1000)).toBeLessThan(0.2 * none);
    expect(callsPerSec('closed-loop', 'exponential', 100)).toBeLessThan(0.7 * none);
  });

  it('with the same backoff, closed-loop clients load the server less than open-loop ones', () => {
    for (const base of BASES) {
      for (const v of ['exponential', 'full-jitter']) {
        expect(callsPerSec('closed-loop', v, base)).toBeLessThan(callsPerSec('open-loop', v, base));
      }
    }
  });
});
