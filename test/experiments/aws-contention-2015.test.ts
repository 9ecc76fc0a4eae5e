import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CellSummary, SweepSummary } from '../../src/sweep/runPlan.js';
import { runShipped } from '../helpers/shipped.js';

const FILE = 'experiments/aws-contention-2015.json';
const STRATEGIES = ['none', 'exponential', 'full-jitter', 'equal-jitter', 'decorrelated-jitter'] as const;
type Strategy = (typeof STRATEGIES)[number];


/** Least-squares slope of log(y) against log(x). */
function logLogSlope(points: Array<[number, number]>): number {
  const xs = points.map(([x]) => Math.log(x));
  const ys = points.map(([, y]) => Math.log(y));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    num += (x - mx) * ((ys[i] as number) - my);
    den += (x - mx) ** 2;
  });
  return num / den;
}

describe('aws-contention-2015 (quick mode)', () => {
  let dir: string;
  let summary: SweepSummary;
  const cell = (part: string, variant: Strategy, clients?: number): CellSummary => {
    const c = summary.cells.find(
      (x) => x.part === part && x.variant === variant && (clients === undefined || x.params['workload.clients'] === clients),
    );
    if (!c) throw new Error(`no cell ${part}/${variant}/${clients}`);
    return c;
  };
  const mean = (c: CellSummary, metric: string): number => {
    const m = c.metrics[metric];
    if (!m) throw new Error(`no metric ${metric} in ${c.key}`);
    return m.mean;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'retrystorm-aws-'));
    summary = await runShipped(FILE, dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is the study as published: N = 10..190, OCC leaf, base 5 ms, cap 2 s, first exponential ceiling 10 ms, |N(10, 2)| hops', () => {
    const sweep = summary.cells.filter((c) => c.part === 'sweep');
    expect(new Set(sweep.map((c) => c.params['workload.clients']))).toEqual(new Set(Array.from({ length: 19 }, (_, i) => 10 * (i + 1))));
    expect(new Set(sweep.map((c) => c.variant))).toEqual(new Set(STRATEGIES));
    for (const c of summary.cells) {
      const s = c.scenario;
      expect(s.leaf.kind).toBe('occ');
      expect(s.network.hopMs).toEqual({ dist: 'abs-normal', mean: 10, sd: 2 });
      expect(s.stack).toHaveLength(1);
      const p = s.stack[0]?.policy;
      expect(p?.maxAttempts).toBe('unlimited');
      expect(p?.backoff).toMatchObject({ kind: c.variant, baseMs: 5, capMs: 2000, multiplier: 2, exponentOffset: 1 });
    }
  });

  it('every client writes once in the end, and no run is cut short', () => {
    for (const c of summary.cells) {
      expect(mean(c, 'truncated')).toBe(0);
      expect(mean(c, 'operations.succeeded')).toBe(c.scenario.workload.kind === 'burst' ? c.scenario.workload.clients : NaN);
    }
  });

  it("at N = 100 the blog's orderings hold: full jitter less than half the calls of exponential; full ~ equal < decorrelated << exponential < none", () => {
    const w = (v: Strategy) => mean(cell('sweep', v, 100), 'writes');
    expect(w('exponential')).toBeGreaterThan(2 * w('full-jitter'));
    expect(Math.abs(w('full-jitter') - w('equal-jitter')) / w('full-jitter')).toBeLessThan(0.08);
    expect(w('decorrelated-jitter')).toBeGreaterThan(1.1 * w('full-jitter'));
    expect(w('exponential')).toBeGreaterThan(1.5 * w('decorrelated-jitter'));
    expect(w('none')).toBeGreaterThan(w('exponential'));
  });

  it('at N = 100 exponential without jitter is the slowest by far, and equal jitter the slowest of the jittered', () => {
    const t = (v: Strategy) => mean(cell('sweep', v, 100), 'completionTimeMs');
    const jittered = [t('full-jitter'), t('equal-jitter'), t('decorrelated-jitter')];
    expect(t('exponential')).toBeGreaterThan(5 * Math.max(...jittered));
    expect(t('equal-jitter')).toBeGreaterThan(t('full-jitter'));
    expect(t('equal-jitter')).toBeGreaterThan(t('decorrelated-jitter'));
    expect(t('none')).toBeLessThan(Math.min(...jittered));
  });

  it('work grows close to N^2 without backoff and about N^1.25 with full jitter (log-log slope over N = 10..190)', () => {
    const slope = (v: Strategy) =>
      logLogSlope(
        summary.cells
          .filter((c) => c.part === 'sweep' && c.variant === v)
          .map((c): [number, number] => [c.params['workload.clients'] as number, mean(c, 'writes')]),
      );
    expect(slope('none')).toBeGreaterThan(1.6);
    expect(slope('none')).toBeLessThan(2.0);
    expect(slope('full-jitter')).toBeGreaterThan(1.1);
    expect(slope('full-jitter')).toBeLessThan(1.45);
    expect(slope('exponential')).toBeGreaterThan(slope('decorrelated-jitter'));
    expect(slope('decorrelated-jitter')).toBeGreaterThan(slope('full-jitter'));
  });

  it('writes-over-time keeps a 10 ms series of writes per strategy at N = 100 whose sum is the writes, and exponential backoff writes in lock-step clusters', () => {
    for (const v of STRATEGIES) {
      const c = cell('writes-over-time', v);
      expect(c.scenario.metrics.timeSeriesBinMs).toBe(10);
      const series = c.timeSeries.mean?.writes ?? [];
      const total = series.reduce((a, b) => a + b, 0);
      expect(total).toBeCloseTo(mean(c, 'writes'), 6);
      expect(c.timeSeries.typical?.writes?.length).toBeGreaterThan(0);
    }
    const ptm = (v: Strategy) => mean(cell('writes-over-time', v), 'clustering.10ms.peakToMean');
    expect(ptm('exponential')).toBeGreaterThan(3 * ptm('full-jitter'));
    expect(ptm('full-jitter')).toBeGreaterThan(3 * ptm('none'));
  });
});
