import { describe, expect, it } from 'vitest';
import { formatTuneAnswer } from '../../src/cli/tuneCommand.js';
import { renderTuneReport } from '../../src/report/tuneReport.js';
import type { CandidateRow, TuneAnswer } from '../../src/tune/tuneAnswer.js';

const stats = (mean: number, lo: number, hi: number) => ({ n: 4, mean, sd: (hi - lo) / 4, ci95: [lo, hi] as [number, number] });

/** A candidate of the ranked table whose success rate is met, not met or undecided against a bound of 0.9. */
function row(rank: number, met: 'yes' | 'no' | 'unknown', rate: [number, number, number]): CandidateRow {
  return {
    rank,
    id: `c${rank}`,
    label: `maxAttempts=${rank}`,
    origin: 'hypercube',
    values: { 'stack.0.policy.maxAttempts': rank },
    preset: null,
    replications: 4,
    status: 'survivor',
    reason: null,
    droppedInRound: null,
    feasibility: met === 'yes' ? 'feasible' : met === 'no' ? 'infeasible' : 'unknown',
    objectives: [stats(1.5 + rank / 10, 1.4 + rank / 10, 1.6 + rank / 10)],
    constraints: [{ ...stats(...rate), met }],
  };
}

const answer = {
  experiment: 'e',
  seed: 1,
  status: 'recommended',
  stopReason: 'converged',
  headline: 'Recommended c1.',
  totalRuns: 12,
  maxRuns: 100,
  space: [],
  objectives: [{ label: 'amplification', goal: 'minimize', tolerance: null }],
  constraints: ['successRate >= 0.9'],
  rounds: [],
  ranking: [row(1, 'yes', [0.95, 0.93, 0.97]), row(2, 'unknown', [0.9, 0.88, 0.92]), row(3, 'no', [0.8, 0.78, 0.82])],
  recommendation: null,
  front: [],
  closest: [],
  presets: [],
} as unknown as TuneAnswer;

describe("tune's ranked table", () => {
  it('writes a duration objective in the unit that reads best for its mean, with the unit', () => {
    const latency = {
      ...answer,
      objectives: [{ label: 'latencyMs.p99', goal: 'minimize', tolerance: null }],
      ranking: [{ ...row(1, 'yes', [0.95, 0.93, 0.97]), objectives: [stats(1500, 1400, 1600)] }, { ...row(2, 'yes', [0.95, 0.93, 0.97]), objectives: [stats(523.4, 500, 540)] }],
    } as TuneAnswer;
    const text = formatTuneAnswer(latency, { objectives: ['latencyMs.p99'], constraints: ['successRate'] });
    const line = (id: string) => text.split('\n').find((l) => l.includes(`${id}: maxAttempts`)) ?? '';
    expect(line('c1')).toContain('  1.5 [1.4, 1.6] s  ');
    expect(line('c2')).toContain('  523.4 [500, 540] ms  ');
    expect(line('c1')).toContain('0.95 [0.93, 0.97] met');
  });

  it('says undecided, never an unexplained "?", when the interval lies across a bound, and explains its words and brackets under the table', () => {
    const text = formatTuneAnswer(answer);
    const lines = text.split('\n');
    const cell = (id: string) => lines.find((l) => l.includes(`${id}: maxAttempts`)) ?? '';
    expect(cell('c1')).toContain('0.95 [0.93, 0.97] met');
    expect(cell('c2')).toContain('0.9 [0.88, 0.92] undecided');
    expect(cell('c3')).toContain('0.8 [0.78, 0.82] not met');
    expect(text).not.toMatch(/\?/);
    expect(lines[lines.length - 1]).toBe(
      "Each figure is the mean over the candidate's replications (reps) with its 95% interval [low, high]. min / max: the objective is minimised / maximised. met: the interval lies within the constraint's bound; not met: beyond it; undecided: across it (more replications may decide). status: a survivor is still in the search; a dropped candidate says why and in which round.",
    );
  });

  it('in the HTML report too: undecided, a legend under the table, and durations with their unit', () => {
    const latency = {
      ...answer,
      objectives: [{ label: 'latencyMs.p99', goal: 'minimize', tolerance: null }],
      ranking: answer.ranking.map((r, i) => ({ ...r, objectives: [stats(1500 + i, 1400, 1600)] })),
    } as TuneAnswer;
    const html = renderTuneReport(latency, {
      keys: { objectives: ['latencyMs.p99'], constraints: ['successRate'] },
      description: '',
      version: '0',
      date: '2026-01-01T00:00:00.000Z',
      runTimeMs: 1000,
      assets: { mode: 'shared', base: '../assets/' },
    });
    expect(html).toContain('<td class="num">1.5 <span class="ci">[1.4, 1.6]</span> s</td>');
    expect(html).toContain('<td class="num">0.9 <span class="ci">[0.88, 0.92]</span> undecided</td>');
    expect(html).toContain("met: the interval lies within the constraint&#39;s bound; not met: beyond it; undecided: across it (more replications may decide).</p>");
    expect(html).not.toContain(' ?</td>');
  });
});
