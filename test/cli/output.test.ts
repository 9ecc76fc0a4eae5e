import { spawn } from 'node:child_process';
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

/** The first column of the table's rows. */
function labels(text: string): string[] {
  return text.split('\n').slice(2).filter((l) => l.trim() !== '').map((l) => l.split(/\s{2,}/)[0] as string);
}

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
