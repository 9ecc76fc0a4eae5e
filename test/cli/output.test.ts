import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { printRunSummary } from '../../src/cli/printResults.js';
import { progressText } from '../../src/cli/progress.js';
import type { CellSummary } from '../../src/sweep/runPlan.js';
import type { SweepResult } from '../../src/sweep/runSweep.js';
import { cli, tempDir } from './helpers.js';

function cell(variant: string, params: Record<string, unknown>, leafCalls: number): CellSummary {
  return {
    key: JSON.stringify({ params, part: 'main', variant }),
    part: 'main',
    variant,
    params,
    state: 'ok',
    replications: 2,
    errors: [],
    metrics: { leafCalls: { n: 2, mean: leafCalls, sd: 0, ci95: [leafCalls, leafCalls] } },
    scenario: null as unknown as CellSummary['scenario'],
    timeSeries: { typical: null, mean: null },
    samples: { replications: [0, 1], values: { leafCalls: [leafCalls, leafCalls] } },
  };
}

function sweep(cells: CellSummary[]): SweepResult {
  return { summary: { experiment: 'e', description: '', seed: 1, version: '0', cells }, single: null, interrupted: false, total: 0, done: 0, errored: [] };
}

/** The table's rows (up to the blank line before its legend), split into columns. */
function rows(text: string): string[][] {
  const lines = text.split('\n');
  const end = lines.indexOf('');
  return lines.slice(0, end < 0 ? undefined : end).map((l) => l.trim().split(/\s{2,}/));
}

/** The first column of the table's rows. */
function labels(text: string): string[] {
  return rows(text)
    .slice(2)
    .map((r) => r[0] as string);
}

/** A cell whose metrics have these means (one replication's worth of stats each). */
function measured(variant: string, means: Record<string, number>, warmupMs = 0): CellSummary {
  const c = cell(variant, {}, 0);
  c.metrics = Object.fromEntries(Object.entries(means).map(([k, v]) => [k, { n: 2, mean: v, sd: 0, ci95: [v, v] }]));
  c.samples = { replications: [0, 1], values: Object.fromEntries(Object.entries(means).map(([k, v]) => [k, [v, v]])) };
  c.scenario = { warmupMs } as unknown as CellSummary['scenario'];
  return c;
}

/** A cell that measured operations, and one whose operations all fell in a 1 ms warm-up (its results hold 0 for figures per operation). */
const busy = { 'operations.offered': 100, 'operations.succeeded': 90, leafCalls: 150, amplification: 1.5, 'latencyMs.count': 90, 'latencyMs.p99': 1500, completionTimeMs: 7_200_000 };
const idle = { 'operations.offered': 0, 'operations.succeeded': 0, leafCalls: 10_000, amplification: 0, 'latencyMs.count': 0, completionTimeMs: 0, goodputPerSec: 0 };

describe('the summary printed after a sweep', () => {
  it('lists the rows in numeric order of the swept values, not in the string order of the cell keys', () => {
    const keyOrder = [100, 10, 110, 20].map((n) => cell('default', { 'workload.clients': n }, n));
    expect(labels(printRunSummary(sweep(keyOrder)))).toEqual(['clients=10', 'clients=20', 'clients=100', 'clients=110']);
  });

  it('keeps variants in file order within a sweep point', () => {
    const cells = [cell('b', { x: 2 }, 1), cell('a', { x: 2 }, 1), cell('b', { x: 1 }, 1), cell('a', { x: 1 }, 1)];
    const source = { variants: { b: {}, a: {} } };
    expect(labels(printRunSummary(sweep(cells), source))).toEqual(['b x=1', 'a x=1', 'b x=2', 'a x=2']);
  });

  it('names a field changed at every layer once, and tells fields of the same name apart when their values differ', () => {
    const zip = { 'stack.0.policy.maxAttempts': 2, 'stack.1.policy.maxAttempts': 2, 'stack.2.policy.maxAttempts': 2 };
    expect(labels(printRunSummary(sweep([cell('exponential', zip, 8)])))).toEqual(['exponential maxAttempts=2']);
    const differ = { 'stack.0.policy.maxAttempts': 2, 'stack.1.policy.maxAttempts': 3 };
    expect(labels(printRunSummary(sweep([cell('v', differ, 6)])))).toEqual(['v 0.policy.maxAttempts=2 1.policy.maxAttempts=3']);
  });
});

/** 200 clients whose first attempts all fall in a 1 ms warm-up and fail; every retry succeeds (timer-granularity-and-seeds in small). */
const warmupOnly = {
  workload: { kind: 'closed', clients: 200, durationMs: 1, thinkMs: 1_000_000_000, method: 'GET' },
  stack: [{ name: 'client', policy: { maxAttempts: 3, backoff: { kind: 'full-jitter', baseMs: 100, capMs: 2000 }, tickMs: 0 } }],
  leaf: { kind: 'script', script: ['503:0', '200:0'] },
  network: { hopMs: 0.5 },
  warmupMs: 1,
  metrics: { timeSeriesBinMs: 10, clusteringBinMs: [1, 10] },
};

describe('units and figures that do not apply in the results of one run', () => {
  it('prints n/a with the reason for figures over no operations, and durations with their unit', async () => {
    const dir = tempDir();
    const file = join(dir, 'one.json');
    writeFileSync(file, JSON.stringify({ name: 'one', seed: 1, scenario: warmupOnly }));
    const r = await cli(['run', file, '--out', join(dir, 'out')]);
    expect(r.code).toBe(0);
    const line = (start: string) => r.out.split('\n').find((l) => l.startsWith(start))?.slice(start.length).trim();
    expect(line('operations offered')).toBe('0');
    expect(line('leaf calls')).toBe('200');
    expect(line('amplification (leaf calls / operation)')).toBe('n/a (no operations)');
    expect(line('goodput (/s)')).toBe('n/a (no operations)');
    expect(line('completion time')).toBe('n/a (no operations)');
    expect(line('wasted server work')).toBe('0 ms');
    expect(line('latency (successes)')).toMatch(/^0\s+n\/a \(no successes\)$/);
    expect(line('operation time (all)')).toMatch(/^0\s+n\/a \(no operation ended\)$/);
    expect(line('1000 ms bins')).toBeUndefined();
    expect(line('1 ms bins')).toMatch(/^\d/);
    expect(r.out).toContain('\np50, p90, p99, p99.9: half, 90%, 99% and 99.9% of the operations took at most that long.\n');
    expect(r.out).toContain('\npeak/mean: the largest bin over the mean bin (1 is even); dispersion: variance over mean of the counts per bin (1 for Poisson arrivals); max bin: calls in the largest bin.\n');
  });
});

describe('units and figures that do not apply in the summary printed after a sweep', () => {
  it('prints durations in the unit that reads best, with the unit, and explains its short headers under the table', () => {
    const text = printRunSummary(sweep([measured('a', busy)]), { variants: { a: {} } });
    const [header, , row] = rows(text);
    expect(header).toEqual(['cell', 'reps', 'offered', 'succeeded', 'leaf calls', 'amplif.', 'p99', 'completion']);
    expect(row).toEqual(['a', '2', '100', '90', '150', '1.50', '1.5 s', '2 h']);
    expect(text).toContain('\nreps: replications; ');
    expect(text).toContain('amplif.: leaf calls per operation; p99: 99% of the successful operations took at most this long; completion: when the last operation ended; ');
  });

  it('shows a ratio over no operations as n/a with the reason, never 0, and says why under the table', () => {
    const text = printRunSummary(sweep([measured('a', busy, 1), measured('b', idle, 1)]), { variants: { a: {}, b: {} } });
    const [header, , a, b] = rows(text);
    const col = (name: string) => (header as string[]).indexOf(name);
    expect((a as string[])[col('amplif.')]).toBe('1.50');
    expect((b as string[])[col('amplif.')]).toBe('n/a (no operations)');
    expect((b as string[])[col('completion')]).toBe('n/a (no operations)');
    expect((b as string[])[col('p99')]).toBe('n/a (no successes)');
    expect((b as string[])[col('leaf calls')]).toBe('10000');
    expect(text).toContain(
      '\nn/a (no operations): 1 of 2 cells measured no operation, so figures per operation do not apply to them: their operations all started in the warm-up (warmupMs: the first 1 ms), which is not measured; leaf calls count the calls after it.',
    );
  });

  it('leaves the figures per operation out, and says why, when no cell measured an operation', () => {
    const text = printRunSummary(sweep([measured('a', idle, 1), measured('b', idle, 1)]), { variants: { a: {}, b: {} } });
    expect(rows(text)[0]).toEqual(['cell', 'reps', 'leaf calls']);
    expect(rows(text).slice(2)).toEqual([
      ['a', '2', '10000'],
      ['b', '2', '10000'],
    ]);
    expect(text).toContain(
      '\nNo operation was measured in any cell: their operations all started in the warm-up (warmupMs: the first 1 ms), which is not measured; leaf calls count the calls after it. Figures per operation (offered, succeeded, amplification, latency, completion time) do not apply and are left out.',
    );
  });

  it('a run whose first attempts all fall in the warm-up (the shape of timer-granularity-and-seeds) prints no offered 0 and no amplification 0', async () => {
    const dir = tempDir();
    const scenario = warmupOnly;
    const file = join(dir, 'tick.json');
    writeFileSync(file, JSON.stringify({ name: 'tick', seed: 1, scenario, sweep: { grid: { 'stack.0.policy.tickMs': [0, 10] } }, replications: 2 }));
    const r = await cli(['run', file, '--out', join(dir, 'out'), '--workers', '1']);
    expect(r.code).toBe(0);
    const table = r.out.slice(r.out.indexOf('cell '));
    expect(rows(table)[0]).toEqual(['cell', 'reps', 'leaf calls']);
    expect(rows(table).slice(2)).toEqual([
      ['tickMs=0', '2', '200'],
      ['tickMs=10', '2', '200'],
    ]);
    expect(table).toContain('No operation was measured in any cell: their operations all started in the warm-up (warmupMs: the first 1 ms)');
    // The results keep what the run measured: no operation, and 0 where a figure per operation has no denominator.
    const summary = JSON.parse(readFileSync(join(dir, 'out', 'tick', 'summary.json'), 'utf8')) as { cells: Array<{ metrics: Record<string, { mean: number }> }> };
    expect(summary.cells.map((c) => [c.metrics['operations.offered']?.mean, c.metrics['amplification']?.mean, c.metrics['leafCalls']?.mean])).toEqual([
      [0, 0, 200],
      [0, 0, 200],
    ]);
  });
});

describe('progress', () => {
  it('shows no rate and no time left before the first replication of the run has finished', () => {
    expect(progressText({ done: 0, total: 40, errored: 0, resumed: 0 }, 0)).toEqual({ rate: '–', eta: '–' });
    expect(progressText({ done: 5, total: 40, errored: 0, resumed: 5 }, 2000)).toEqual({ rate: '–', eta: '–' });
  });

  it('gives the rate of this run and the time left at that rate', () => {
    expect(progressText({ done: 10, total: 40, errored: 0, resumed: 0 }, 5000)).toEqual({ rate: '2.0/s', eta: '15 s' });
    expect(progressText({ done: 15, total: 40, errored: 0, resumed: 5 }, 1000)).toEqual({ rate: '10.0/s', eta: '2.5 s' });
  });
});

describe('small command-line contracts', () => {
  it('run-all on a directory without experiment files is an input error', async () => {
    const dir = tempDir();
    const r = await cli(['run-all', '--dir', dir, '--out', dir]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`error: ${dir}: no experiment files (*.json) in this directory\n`);
  });

  it('a reader that closes the pipe early ends the output quietly (schema | head)', async () => {
    const child = spawn(process.execPath, ['dist/cli/main.js', 'schema'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const first = await new Promise<string>((res) => child.stdout.once('data', (d: Buffer) => res(d.toString())));
    child.stdout.destroy();
    const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
    expect(first.startsWith('{')).toBe(true);
    expect({ code, err }).toEqual({ code: 0, err: '' });
  });
});
