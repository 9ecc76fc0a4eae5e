import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Truncation } from '../../src/model/results.js';
import { seriesCutNote } from '../../src/report/buildReport.js';
import type { ReportSummary } from '../../src/report/types.js';
import { simulate } from '../../src/simulate.js';
import { readJsonFile } from '../../src/sweep/ResultReader.js';
import { ResultWriter } from '../../src/sweep/ResultWriter.js';
import { cli, tempDir, writeExperiment } from '../helpers/reliability.js';

/** The longest string V8 makes in Node 20 (2^29 - 24 characters): the text JSON.stringify could not exceed. */
const V8_MAX_STRING = 2 ** 29 - 24;

describe('results of any accepted size are written and read back', () => {
  it('a summary whose JSON is longer than any string is written in pieces and read back in chunks, value for value', () => {
    // Just over the longest string: 515 texts of a mebibyte (cheap to write and scan) beside a series
    // of 1,000,000 numbers (the numbers' paths are checked value by value in test/sweep/jsonStream.test.ts).
    const series = Array.from({ length: 1_000_000 }, (_, i) => ((i * 7919) % 100_003) / 7 + 1e-9);
    const texts = Array.from({ length: 515 }, (_, i) => String.fromCharCode(0x41 + (i % 26), 0xe9).repeat(2 ** 19));
    const summary = { experiment: 'huge', cells: [{ key: 'cell-0', texts, timeSeries: { typical: { queue: series } } }] };
    const dir = tempDir();
    new ResultWriter(dir).writeJsonFile('summary.json', summary, 2);
    const bytes = statSync(join(dir, 'summary.json')).size;
    expect(bytes).toBeGreaterThan(V8_MAX_STRING);
    expect(bytes).toBeLessThan(1.1 * V8_MAX_STRING * 1.5);
    const back = readJsonFile(join(dir, 'summary.json')) as typeof summary;
    expect(back.experiment).toBe('huge');
    const cell = back.cells[0]!;
    expect(cell.key).toBe('cell-0');
    expect(cell.texts.length).toBe(515);
    expect(cell.texts.filter((t, i) => t !== texts[i]).length).toBe(0);
    const got = cell.timeSeries.typical.queue;
    expect(got.length).toBe(series.length);
    expect(got.filter((v, i) => v !== series[i]).length).toBe(0);
  }, 900_000);

  it('a sweep with long series writes its summary, rebuilds its report, resumes and merges to the same bytes', async () => {
    const dir = tempDir();
    const exp = {
      name: 'long-series',
      description: 'three variants, two replications, 20,000 bins a series',
      seed: 7,
      scenario: {
        workload: { kind: 'open', rate: 200, durationMs: 1000 },
        stack: [{ name: 'client', policy: { maxAttempts: 3 } }],
        leaf: { kind: 'server', concurrency: 1, queueLimit: 5, serviceMs: { dist: 'exponential', mean: 5 } },
        metrics: { timeSeriesBinMs: 0.05 },
      },
      variants: { a: { 'stack.0.policy.maxAttempts': 1 }, b: { 'stack.0.policy.maxAttempts': 2 }, c: { 'stack.0.policy.maxAttempts': 3 } },
      replications: 2,
    };
    const file = writeExperiment(dir, 'long.json', exp);
    const out = join(dir, 'out');
    const run = await cli(['run', file, '--out', out, '--quiet', '--workers', '2']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    const summaryPath = join(out, 'long-series', 'summary.json');
    const text = readFileSync(summaryPath, 'utf8');
    const summary = JSON.parse(text) as { cells: Array<{ timeSeries: { typical: { tMs: number[] } } }> };
    expect(summary.cells).toHaveLength(3);
    expect(summary.cells.map((c) => c.timeSeries.typical.tMs.length).every((n) => n > 20_000)).toBe(true);
    expect(text).toBe(JSON.stringify(summary, (_k, v: unknown) => (v === Infinity || v === -Infinity ? undefined : v), 2));
    const report = await cli(['report', join(out, 'long-series')]);
    expect(report.code).toBe(0);
    const resumed = await cli(['run', file, '--out', out, '--quiet', '--workers', '2', '--resume']);
    expect(resumed.code).toBe(0);
    expect(readFileSync(summaryPath, 'utf8')).toBe(text);
    for (const k of ['0/2', '1/2']) expect((await cli(['run', file, '--out', join(dir, `shard${k[0]}`), '--quiet', '--workers', '1', '--shard', k])).code).toBe(0);
    const merged = await cli(['merge', join(dir, 'shard0', 'long-series'), join(dir, 'shard1', 'long-series'), '--out', join(dir, 'merged')]);
    expect(merged.code).toBe(0);
    expect(readFileSync(join(dir, 'merged', 'long-series', 'summary.json'), 'utf8')).toBe(text);
  }, 900_000);
});

describe('a time series cut at 1,000,000 bins says so', () => {
  const scenario = (serviceMs: number) => ({
    workload: { kind: 'burst', clients: 1 },
    stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
    leaf: { kind: 'server', concurrency: 1, serviceMs },
    metrics: { timeSeriesBinMs: 0.001 },
  });

  it('in the results (timeSeries.cutAtMs) and in the report\'s notes; an uncut run has no such field', () => {
    const cut = simulate(scenario(1500));
    expect(cut.simulatedMs).toBe(1500);
    expect(cut.timeSeries.tMs).toHaveLength(1_000_000);
    expect(cut.timeSeries.cutAtMs).toBe(1000);
    expect(cut.operations.succeeded).toBe(1);
    const whole = simulate(scenario(900));
    expect('cutAtMs' in whole.timeSeries).toBe(false);
    const cell = (ts: typeof cut.timeSeries) => ({ timeSeries: { typical: ts, mean: null } });
    const summary = { experiment: 'x', description: '', seed: 1, version: '0', cells: [cell(cut.timeSeries), cell(whole.timeSeries)] } as unknown as ReportSummary;
    expect(seriesCutNote(summary)).toBe(
      'the time series of 1 of 2 cells stop at 1 s (at most 1000000 bins of 0.001 ms are kept; metrics.timeSeriesBinMs sets their width): the charts over time end there, while the totals cover the whole run',
    );
    expect(seriesCutNote({ ...summary, cells: [summary.cells[1]!] })).toBeNull();
  });

  it('an interrupted run is a truncation of its own kind', () => {
    expectTypeOf<Truncation>().toEqualTypeOf<null | 'horizon' | 'event-cap' | 'in-flight-cap' | 'memory-cap' | 'interrupted'>();
    const t: Truncation = 'interrupted';
    expect(t).toBe('interrupted');
  });
});
