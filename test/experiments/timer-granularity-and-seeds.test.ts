import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CellSummary, SweepSummary } from '../../src/sweep/runPlan.js';
import { runShipped } from '../helpers/shipped.js';

const FILE = 'experiments/timer-granularity-and-seeds.json';
const TICKS = [0, 1, 4, 10, 15.6, 100, 1000];
const CLIENTS = 10_000;


describe('timer-granularity-and-seeds (quick mode)', () => {
  let dir: string;
  let summary: SweepSummary;
  const mean = (c: CellSummary, metric: string): number => {
    const m = c.metrics[metric];
    if (!m) throw new Error(`no metric ${metric} in ${c.key}`);
    return m.mean;
  };
  const tick = (t: number): CellSummary => {
    const c = summary.cells.find((x) => x.part === 'timer-tick' && x.params['stack.0.policy.tickMs'] === t);
    if (!c) throw new Error(`no cell for tick ${t}`);
    return c;
  };
  const variant = (v: string): CellSummary => {
    const c = summary.cells.find((x) => x.part === 'seeding-and-retry-after' && x.variant === v);
    if (!c) throw new Error(`no cell ${v}`);
    return c;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'retrystorm-timer-'));
    summary = await runShipped(FILE, dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('measures the retries alone: 10,000 of them, all succeeding, the failed first attempts in the warm-up', () => {
    for (const c of summary.cells) {
      expect(mean(c, 'leafCalls')).toBe(CLIENTS);
      expect(mean(c, 'attempts.client.retries')).toBe(CLIENTS);
      expect(mean(c, 'truncated')).toBe(0);
      expect(c.scenario.metrics.clusteringBinMs).toEqual([1, 10]);
    }
  });

  it('the largest 1 ms bin of server arrivals grows with the timer tick, up to every retry in one bin at a 1 s tick', () => {
    const max1 = TICKS.map((t) => mean(tick(t), 'clustering.1ms.maxBin'));
    // Full jitter over 1 s puts about 10 retries in each ms: the largest of 1000 such bins is about 22.
    expect(max1[0]).toBeGreaterThan(15);
    expect(max1[0]).toBeLessThan(35);
    // A 1 ms tick does not change 1 ms bins; from there each tick of T ms gathers about 10 T retries into one instant.
    expect(Math.abs((max1[1] as number) - (max1[0] as number))).toBeLessThan(5);
    for (let i = 2; i < TICKS.length; i++) expect(max1[i]).toBeGreaterThan(1.2 * (max1[i - 1] as number));
    TICKS.slice(2, 6).forEach((t, i) => {
      expect(max1[i + 2]).toBeGreaterThan(10 * t);
      expect(max1[i + 2]).toBeLessThan(10 * t * 1.8);
    });
    expect(max1[6]).toBe(CLIENTS);
  });

  it('the peak-to-mean ratio of 1 ms bins grows with the tick from 0 to 100 ms', () => {
    const ptm = TICKS.slice(0, 6).map((t) => mean(tick(t), 'clustering.1ms.peakToMean'));
    expect(ptm[0]).toBeLessThan(3);
    for (let i = 2; i < ptm.length; i++) expect(ptm[i]).toBeGreaterThan(1.2 * (ptm[i - 1] as number));
    expect(ptm[5]).toBeGreaterThan(80);
    // 10 ms bins see only ticks that are not multiples of 10 ms, or coarser than 10 ms.
    expect(mean(tick(15.6), 'clustering.10ms.peakToMean')).toBeGreaterThan(1.3 * mean(tick(10), 'clustering.10ms.peakToMean'));
    expect(mean(tick(100), 'clustering.10ms.maxBin')).toBeGreaterThan(5 * mean(tick(10), 'clustering.10ms.maxBin'));
  });

  it('shared seeds, clock seeds, an honoured whole-second Retry-After and a fixed delay send every retry at the same instant; independent jitter and Retry-After plus jitter do not', () => {
    for (const v of ['shared-seed', 'time-seeded-1s', 'time-seeded-1ms', 'retry-after-honor', 'fixed-1s']) {
      expect(mean(variant(v), 'clustering.1ms.maxBin')).toBe(CLIENTS);
    }
    for (const v of ['independent', 'retry-after-plus-jitter']) {
      expect(mean(variant(v), 'clustering.1ms.maxBin')).toBeLessThan(35);
      expect(mean(variant(v), 'clustering.10ms.maxBin')).toBeLessThan(200);
    }
    // Retry-After plus jitter is the independent jitter moved 1 s later: the same draws, the same bins.
    expect(mean(variant('retry-after-plus-jitter'), 'clustering.1ms.maxBin')).toBe(mean(variant('independent'), 'clustering.1ms.maxBin'));
    // The retries honouring Retry-After all arrive 1 s after the failures (plus the 0.5 ms hop).
    const series = variant('retry-after-honor').timeSeries.mean;
    expect(series?.arrivalsRetry?.[100]).toBe(CLIENTS);
  });
});
