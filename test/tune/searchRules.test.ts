import { describe, expect, it } from 'vitest';
import type { ReplicationRecord } from '../../src/sweep/runPlan.js';
import { runTune, type EvaluateRound } from '../../src/tune/runTune.js';
import { tuneAnswer } from '../../src/tune/tuneAnswer.js';
import { problemOf } from './helpers.js';

/** A search over maxAttempts 1..8 whose runs are scripted: the objective is x, the constraint's metric alternates 0.4, 0.6. */
function scripted(metricsOf: (x: number, replication: number) => Record<string, number>): { evaluate: EvaluateRound; started: number } {
  const state = { started: 0, evaluate: (async () => ({ interrupted: true })) as EvaluateRound };
  state.evaluate = async (req) => {
    const variants = req.experiment.variants as Record<string, Record<string, number>>;
    const have = new Set(req.prior.map((r) => `${r.variant}/${r.replication}`));
    const records: ReplicationRecord[] = [...req.prior];
    for (const [variant, overrides] of Object.entries(variants)) {
      for (let r = 0; r < req.replications; r++) {
        if (have.has(`${variant}/${r}`)) continue;
        state.started++;
        const x = overrides['stack.0.policy.maxAttempts'] as number;
        records.push({ state: 'ok', key: variant, part: 'main', variant, params: {}, replication: r, seed: 0, metrics: metricsOf(x, r), results: {} as never });
      }
    }
    return { interrupted: false, records };
  };
  return state;
}

const root = (tune: Record<string, unknown>) => ({
  name: 'scripted',
  scenario: {
    workload: { kind: 'burst', clients: 1 },
    stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
    leaf: { kind: 'server', serviceMs: 0 },
  },
  tune: { space: { 'stack.0.policy.maxAttempts': { kind: 'int', min: 1, max: 8 } }, objectives: [{ metric: 'amplification', goal: 'minimize' }], ...tune },
});

describe('search rules', () => {
  it('halves by mean while no candidate is proven feasible, and stops before a round that would pass the run budget', async () => {
    const problem = problemOf(root({ constraints: [{ metric: 'successRate', min: 0.5 }], maxRuns: 150 }));
    const run = scripted((x, r) => ({ amplification: x, successRate: r % 2 === 0 ? 0.4 : 0.6 }));
    const outcome = await runTune(problem, run.evaluate);
    expect(outcome.rounds.map((r) => [r.index, r.replications, r.entered, r.runs, r.totalRuns, r.leader, r.dropped, r.added])).toEqual([
      [0, 4, ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'], 32, 32, null, ['c5', 'c6', 'c7', 'c8'].map((id) => ({ id, reason: 'halved' })), []],
      [1, 8, ['c1', 'c2', 'c3', 'c4'], 16, 48, null, [{ id: 'c3', reason: 'halved' }, { id: 'c4', reason: 'halved' }], []],
      [2, 16, ['c1', 'c2'], 16, 64, null, [{ id: 'c2', reason: 'halved' }], []],
      [3, 32, ['c1'], 16, 80, null, [], []],
      [4, 64, ['c1'], 32, 112, null, [], []],
    ]);
    // Round 5 would start 64 more runs: 176 > 150.
    expect(outcome.stopReason).toBe('max-runs');
    expect(outcome.totalRuns).toBe(112);
    expect(run.started).toBe(112);
    expect(outcome.recommended).toBeNull();
    const answer = tuneAnswer(problem, outcome);
    expect(answer.status).toBe('no-feasible-candidate');
    expect(answer.headline).toMatch(/no candidate met the constraints \(feasibility not established within 150 runs\)/);
    expect(answer.closest).toEqual(['c1', 'c2', 'c3']);
  });

  it('drops the proven worse, halves the rest, and stops from round 2 when the leader is alone', async () => {
    // Objective 10 + |x - 5| / 100 + a shared replication effect (it cancels in pairs); x = 6 also
    // alternates -0.1, +0.1: its difference from x = 5 is -0.09, 0.11, ... (mean 0.01, sd about 0.1).
    const problem = problemOf(root({ objectives: [{ metric: 'amplification', goal: 'minimize', tolerance: 0.05 }] }));
    const run = scripted((x, r) => ({ amplification: 10 + Math.abs(x - 5) / 100 + (r % 3) + (x === 6 ? (r % 2) * 0.2 - 0.1 : 0) }));
    const outcome = await runTune(problem, run.evaluate);
    // Round 0: no constraints, so all are feasible; c5 leads; a constant difference is significant with
    // 4 pairs, c6's is not. Round 1: 2 entered, so 1 is kept. The refinement found every neighbour run.
    expect(outcome.rounds.map((r) => [r.entered, r.leader, r.dropped, r.added])).toEqual([
      [['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'], 'c5', ['c1', 'c2', 'c3', 'c4', 'c7', 'c8'].map((id) => ({ id, reason: 'worse than c5 (paired 95%)' })), []],
      [['c5', 'c6'], 'c5', [{ id: 'c6', reason: 'halved' }], []],
      [['c5'], 'c5', [], []],
    ]);
    expect(outcome.stopReason).toBe('converged');
    expect(outcome.recommended).toBe('c5');
    expect(outcome.totalRuns).toBe(8 * 4 + 2 * 4 + 8);
  });

  it('stops when the other survivors are indistinguishable from the leader, and says so', async () => {
    // Every x gives the same values: each pair differs by exactly 0.
    const problem = problemOf({ ...root({}), tune: { ...root({}).tune, space: { 'stack.0.policy.maxAttempts': { kind: 'int', min: 1, max: 40 } } } }, { quick: false }, { candidates: 4 });
    const run = scripted((_x, r) => ({ amplification: 10 + (r % 3) }));
    const outcome = await runTune(problem, run.evaluate);
    const [r0, r1, r2] = outcome.rounds;
    expect([r0?.entered.length, r0?.dropped.map((d) => d.reason)]).toEqual([4, ['halved', 'halved']]);
    expect(r1?.dropped.map((d) => d.reason)).toEqual(['halved']);
    // The survivor's two neighbours join round 2; 2 of the 3 are kept and they are equivalent.
    expect(r1?.added.length).toBe(2);
    expect(r2?.entered).toEqual([r1?.leader, ...(r1?.added ?? [])]);
    expect(outcome.rounds.length).toBe(3);
    expect(outcome.stopReason).toBe('converged');
    const answer = tuneAnswer(problem, outcome);
    expect(answer.recommendation?.id).toBe(r1?.leader);
    expect(answer.recommendation?.indistinguishableFrom).toEqual([r1?.added[0]]);
    expect(answer.headline).toContain(`indistinguishable from ${r1?.added[0]}`);
  });

  it('adds after round 1 the neighbours of the best survivors that were not run, at the next round\'s replications', async () => {
    // 4 hypercube points of 1..8 (one in each of 1-2, 3-4, 5-6, 7-8); the objective is x exactly.
    const problem = problemOf(root({}), { quick: false }, { candidates: 4 });
    const run = scripted((x) => ({ amplification: x }));
    const outcome = await runTune(problem, run.evaluate);
    const first = outcome.candidates.filter((c) => outcome.rounds[0]?.entered.includes(c.id));
    const points = first.map((c) => c.point?.[0] as number);
    expect(points.map((x) => Math.ceil(x / 2)).sort()).toEqual([1, 2, 3, 4]);
    const leader = Math.min(...points);
    expect(outcome.rounds[0]?.leader).toBe(first.find((c) => c.point?.[0] === leader)?.id);
    const added = outcome.candidates.filter((c) => outcome.rounds[1]?.added.includes(c.id));
    const expected = [leader - 1, leader + 1].filter((x) => x >= 1 && !points.includes(x));
    expect(added.map((c) => c.point?.[0])).toEqual(expected);
    expect(added.every((c) => c.origin === 'refinement' && c.replications >= 16)).toBe(true);
    expect(outcome.rounds[2]?.runs).toBe(8 + 16 * expected.length);
    // The optimum the hypercube may have missed (x = 1) is found either way.
    expect(outcome.candidates.find((c) => c.id === outcome.recommended)?.point).toEqual([1]);
  });
  it('keeps the leader when halving, whatever the means of candidates of unknown feasibility', async () => {
    // x = 1: objective 1 but its constraint metric alternates 0.4, 0.6 (never decided); x = 2: objective 2, always feasible.
    const problem = problemOf({ ...root({ constraints: [{ metric: 'successRate', min: 0.5 }] }), tune: { ...root({ constraints: [{ metric: 'successRate', min: 0.5 }] }).tune, space: { 'stack.0.policy.maxAttempts': { kind: 'int', min: 1, max: 2 } } } });
    const run = scripted((x, r) => ({ amplification: x, successRate: x === 2 ? 1 : r % 2 === 0 ? 0.4 : 0.6 }));
    const outcome = await runTune(problem, run.evaluate);
    expect(outcome.rounds[0]?.leader).toBe('c2');
    expect(outcome.rounds[0]?.dropped).toEqual([{ id: 'c1', reason: 'halved' }]);
    expect(outcome.recommended).toBe('c2');
  });
});
