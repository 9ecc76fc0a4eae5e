import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { expandExperiment, parseExperiment, type ExperimentPlan } from '../../src/experiment/index.js';
import { watchRunMemory } from '../../src/engine/memoryMeter.js';
import { ADAPTIVE_SNAPSHOTS_PER_PARTICLE, estimateCellRisk, RiskMemoryError, riskCopiesAtOnce } from '../../src/riskModel/index.js';
import { BASE_MEMORY_BYTES, estimateMemory } from '../../src/sweep/estimateMemory.js';
import { estimateRiskMemory, riskCopyCeiling } from '../../src/sweep/riskMemory.js';
import { formatBytes } from '../../src/sweep/resourceLimits.js';
import { countExcursions } from '../../src/riskModel/excursions.js';
import { tempDir, writeExperiment } from './helpers.js';

type Json = Record<string, unknown>;

/** Run the CLI in-process on a machine of `memoryBytes`, capturing its output. */
async function cliOn(memoryBytes: number | undefined, args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { stdout: (s) => (out += s), stderr: (s) => (err += s), cwd, ...(memoryBytes !== undefined ? { memoryBytes } : {}) });
  return { code, out, err };
}

/** An M/M/1 queue (service 100/s, one attempt, open loop) swept over its arrival rate; the collapse: 6 in the system before it empties. */
function mm1(rates: number[], risk: Json = {}, horizonMs = 600_000): Json {
  return {
    name: 'mm1-memory',
    seed: 11,
    scenario: {
      workload: { kind: 'open', rate: rates[0], durationMs: horizonMs },
      stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
      leaf: { kind: 'server', concurrency: 1, queueLimit: 'unlimited', serviceMs: { dist: 'exponential', mean: 10 } },
      horizonMs,
    },
    sweep: { grid: { 'workload.rate': rates } },
    risk: { importance: { metric: 'inFlight' }, collapse: { metric: 'inFlight', above: 5, forMs: 0 }, checkEveryMs: 0, absorbBelow: 1, particles: 20, repetitions: 3, ...risk },
  };
}

function plan(root: Json): ExperimentPlan {
  const parsed = parseExperiment(root);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const expanded = expandExperiment(parsed.experiment, { quick: false, set: [] });
  if (!expanded.ok) throw new Error(expanded.errors.join('\n'));
  return expanded.plan;
}

describe('the memory of a risk estimate: the copies of a run each cell holds at once', () => {
  it('adaptive splitting holds particles x its branch points a particle, fixed-level two levels of particles, plain Monte Carlo one run; each plus the trajectory running', () => {
    const risk = plan(mm1([80])).parts[0]!.risk!;
    expect(riskCopiesAtOnce({ ...risk, particles: 20 }).copies).toBe(20 * ADAPTIVE_SNAPSHOTS_PER_PARTICLE + 1);
    expect(riskCopiesAtOnce({ ...risk, particles: 40 }).copies).toBe(40 * ADAPTIVE_SNAPSHOTS_PER_PARTICLE + 1);
    expect(riskCopiesAtOnce({ ...risk, method: 'fixed', levels: [2, 4], particles: 20 }).copies).toBe(41);
    expect(riskCopiesAtOnce({ ...risk, method: 'fixed', levels: [2, 4], particles: 40 }).copies).toBe(81);
    const mc = { ...risk, particles: undefined, repetitions: undefined, method: 'monte-carlo' as const };
    expect(riskCopiesAtOnce({ ...mc, runs: 10 }).copies).toBe(1);
    expect(riskCopiesAtOnce({ ...mc, runs: 10_000 }).copies).toBe(1);
  });

  it('is the base plus, for each cell at once, its copies x the memory run estimates for one run, and grows with the particles', () => {
    const p20 = plan(mm1([80, 90]));
    // The same run estimate as run's (one replication a cell: no series kept for a summary beyond it).
    const runBytes = estimateMemory(p20, 1).perRunBytes;
    const copies = (particles: number) => particles * ADAPTIVE_SNAPSHOTS_PER_PARTICLE + 1;
    const e20 = estimateRiskMemory(p20, 2);
    expect(e20.run.bytes).toBe(runBytes);
    expect(e20.cellsAtOnce).toBe(2);
    expect(e20.bytes).toBe(BASE_MEMORY_BYTES + 2 * copies(20) * runBytes);
    const e40 = estimateRiskMemory(plan(mm1([80, 90], { particles: 40 })), 2);
    expect(e40.bytes - e20.bytes).toBe(2 * (copies(40) - copies(20)) * runBytes);
    expect(estimateRiskMemory(p20, 1).bytes).toBe(BASE_MEMORY_BYTES + copies(20) * runBytes);
    const fixed = estimateRiskMemory(plan(mm1([80, 90], { method: 'fixed', levels: [2, 4] })), 2);
    expect(fixed.bytes).toBe(BASE_MEMORY_BYTES + 2 * 41 * runBytes);
    const mc = estimateRiskMemory(plan(mm1([80, 90], { particles: undefined, repetitions: undefined, method: 'monte-carlo', runs: 500 })), 2);
    expect(mc.bytes).toBe(BASE_MEMORY_BYTES + 2 * runBytes);
  });

  it('each copy of a run is held to its share of the limit: the cells at once x the copies each holds', () => {
    const risk = plan(mm1([80])).parts[0]!.risk!;
    const limit = 2e9;
    expect(riskCopyCeiling(limit, 2, risk)).toBe((limit - BASE_MEMORY_BYTES) / (2 * (20 * ADAPTIVE_SNAPSHOTS_PER_PARTICLE + 1)));
    expect(riskCopyCeiling(limit, 1, { ...risk, particles: undefined, repetitions: undefined, method: 'monte-carlo', runs: 5 })).toBe(limit - BASE_MEMORY_BYTES);
  });
});

describe('retrystorm risk checks the memory before anything runs, as run does', () => {
  it('refuses an estimate over the machine\'s memory (exit 2, the file, the estimate, the particles and what to change), nothing written; --force estimates it with the refusal as a warning', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'mm1.json', mm1([80, 90]));
    const estimate = estimateRiskMemory(plan(mm1([80, 90])), 2).bytes;
    // A machine a little smaller than the estimate on 2 workers.
    const machine = estimate - 10e6;
    const r = await cliOn(machine, ['risk', 'mm1.json', '--out', 'out', '--workers', '2', '--quiet'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: mm1\.json: the risk estimate would need about \d+ MB of memory, more than this machine's \d+ MB: 321 copies of a run at once in a cell \(adaptive splitting with 20 particles /);
    expect(r.err).toContain('x 2 cells at once (--workers)');
    expect(r.err).toContain('(use fewer particles (risk.particles), fewer workers or a smaller scenario, or pass --force to run it anyway)\n');
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'out'))).toBe(false);
    const forced = await cliOn(machine, ['risk', 'mm1.json', '--out', 'forced', '--workers', '2', '--quiet', '--force', '--memory-limit', '1000', '--set', 'risk.repetitions=2'], dir);
    expect(forced.err).toMatch(/^warning: mm1\.json: the risk estimate would need about \d+ MB of memory, more than this machine's \d+ MB: 321 copies/);
    expect(forced.code).toBe(0);
    const result = JSON.parse(readFileSync(join(dir, 'forced', 'mm1-memory', 'risk.json'), 'utf8')) as { cells: Array<{ state: string }> };
    expect(result.cells.map((c) => c.state)).toEqual(['ok', 'ok']);
  });

  it('validate checks and prints a risk file as risk estimates it: its cells, the size of a run and risk\'s memory (not run\'s), refused where risk refuses', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'mm1.json', mm1([80, 90]));
    const p = plan(mm1([80, 90]));
    const estimate = estimateRiskMemory(p, 2);
    // run's own estimate of the same plan (above the process's base) is far smaller: validate must not print or check that one.
    expect(estimateMemory(p, 2).bytes - BASE_MEMORY_BYTES).toBeLessThan((estimate.bytes - BASE_MEMORY_BYTES) / 10);
    const ok = await cliOn(estimate.bytes * 4, ['validate', 'mm1.json', '--workers', '2'], dir);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('  part main: 2 cells\n');
    expect(ok.out).toContain('  2 cells to estimate; how many runs each takes depends on its estimate\n');
    expect(ok.out).not.toContain('runs in all');
    expect(ok.out).not.toContain('replications');
    expect(ok.out).not.toContain('of results; memory');
    expect(ok.out).toMatch(/ {2}work: a run lasts at most its cell's horizon, about 4[89]k to 5[45]k operations \(most runs stop sooner\)\n/);
    expect(ok.out).toContain(`  memory: about ${formatBytes(estimate.bytes)} at peak: 321 copies of a run at once in a cell (adaptive splitting with 20 particles`);
    expect(ok.out).toContain('x 2 cells at once (--workers), plus the process');
    const refused = await cliOn(estimate.bytes - 10e6, ['validate', 'mm1.json', '--workers', '2'], dir);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/^error: mm1\.json: the risk estimate would need about \d+ MB of memory, more than this machine's \d+ MB: 321 copies/);
    const forced = await cliOn(estimate.bytes - 10e6, ['validate', 'mm1.json', '--workers', '2', '--force'], dir);
    expect(forced.code).toBe(0);
    expect(forced.err).toMatch(/^warning: mm1\.json: the risk estimate would need about/);
  });

  it('warns above half of the machine\'s memory: the same file on one worker, one cell at once', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'mm1.json', mm1([80, 90]));
    const p = plan(mm1([80, 90]));
    const machine = estimateRiskMemory(p, 2).bytes - 10e6;
    expect(estimateRiskMemory(p, 1).bytes).toBeGreaterThan(machine / 2);
    const r = await cliOn(machine, ['risk', 'mm1.json', '--out', 'out', '--workers', '1', '--quiet', '--memory-limit', '1000', '--set', 'risk.repetitions=2'], dir);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^warning: mm1\.json: the risk estimate would need about \d+ MB of memory, over half of this machine's \d+ MB: 321 copies of a run at once in a cell \(adaptive splitting with 20 particles /);
    expect(r.err).toContain('x 1 cell at once (--workers)');
  });

  it('run-all refuses a risk file over the machine\'s memory up front, with the other risk files\' problems, and runs nothing', async () => {
    const root = tempDir();
    const dir = join(root, 'experiments');
    mkdirSync(dir);
    writeExperiment(dir, 'big.json', mm1([80, 90]));
    writeExperiment(dir, 'bad.json', { ...mm1([80]), name: 'bad', risk: { ...(mm1([80]).risk as Json), importance: { metric: 'inFlight', service: 'nowhere' } } });
    writeExperiment(dir, 'plain.json', { name: 'plain-run', scenario: (mm1([80]).scenario as Json), replications: 1 });
    const estimate = estimateRiskMemory(plan(mm1([80, 90])), 2).bytes;
    const r = await cliOn(estimate - 10e6, ['run-all', '--dir', dir, '--out', join(root, 'reports'), '--workers', '2', '--quiet'], root);
    expect(r.code).toBe(2);
    expect(r.err).toContain('big.json: the risk estimate would need about');
    expect(r.err).toMatch(/bad\.json: risk\.importance\.service/);
    expect(existsSync(join(root, 'reports'))).toBe(false);
  });
});

describe('a copy of a run that outgrows its share of the memory limit', () => {
  it('stops its cell, recorded as errored with the meter\'s reason, while the other cell of the file finishes', async () => {
    const dir = tempDir();
    // Plain Monte Carlo (one copy at once) of a queue that empties (50/s) and of one that grows without end (400/s into 100/s).
    writeExperiment(dir, 'mm1.json', mm1([50, 400], { particles: undefined, repetitions: undefined, method: 'monte-carlo', runs: 2, collapse: { metric: 'inFlight', above: 1e9, forMs: 0 } }));
    // 151 MB: 1 MB above the process's base, the least a copy may hold.
    const r = await cliOn(undefined, ['risk', 'mm1.json', '--out', 'out', '--workers', '1', '--quiet', '--memory-limit', '151'], dir);
    expect(r.code).toBe(1);
    const result = JSON.parse(readFileSync(join(dir, 'out', 'mm1-memory', 'risk.json'), 'utf8')) as { cells: Array<{ params: Json; state: string; error?: string }> };
    const byRate = Object.fromEntries(result.cells.map((c) => [c.params['workload.rate'], c]));
    expect(byRate[50]?.state).toBe('ok');
    expect(byRate[400]?.state).toBe('errored');
    expect(byRate[400]?.error).toMatch(/^a trajectory stopped at the memory ceiling \(its tables grew to 1\.\d MB, over the 1\.0 MB each copy of the run may hold: risk --memory-limit\) at \d+\.\d ms$/);
    expect(r.err).toContain('1 cell errored:');
    expect(r.err).toContain('stopped at the memory ceiling');
  });
});

describe('a trajectory the memory meter stops is never read as one that ran to its end', () => {
  /** The queue that grows for a minute (400/s into 100/s), watched on a grid of 100 ms. */
  const growing = (risk: Json) => {
    const p = plan(mm1([400], { checkEveryMs: 100, collapse: { metric: 'inFlight', above: 1e9, forMs: 0 }, ...risk }, 60_000));
    return { scenario: p.parts[0]!.cells[0]!.scenario, risk: p.parts[0]!.risk! };
  };
  const underCeiling = (f: () => unknown) => {
    watchRunMemory(1e6);
    try {
      return f();
    } finally {
      watchRunMemory(Infinity);
    }
  };

  it('on the check grid, by each estimator, and in the run that counts excursions: RiskMemoryError with the meter\'s reason', () => {
    const cases: Json[] = [
      { particles: 4, repetitions: 2 },
      { method: 'fixed', levels: [5, 10], particles: 4, repetitions: 2 },
      { particles: undefined, repetitions: undefined, method: 'monte-carlo', runs: 2 },
    ];
    for (const risk of cases) {
      const { scenario, risk: section } = growing(risk);
      expect(() => underCeiling(() => estimateCellRisk(scenario, section, 1)), JSON.stringify(risk)).toThrow(RiskMemoryError);
    }
    // The run that counts excursions (one per rise of the queue from 0 to 1) goes on as the queue grows.
    const { scenario, risk } = growing({ particles: 4, repetitions: 2, absorbBelow: 1, excursions: { countOverMs: 60_000 } });
    expect(() => underCeiling(() => countExcursions(scenario, risk, 1))).toThrow(/^a trajectory stopped at the memory ceiling \(its tables grew to 1\.\d MB, over the 1\.0 MB each copy of the run may hold: risk --memory-limit\) at \d+\.\d ms$/);
    // Without a ceiling the same runs end: plain Monte Carlo sees no collapse, the count is made.
    const mc = growing({ particles: undefined, repetitions: undefined, method: 'monte-carlo', runs: 1 });
    expect(estimateCellRisk(mc.scenario, mc.risk, 1).probability).toBe(0);
    expect(countExcursions(scenario, risk, 1).overMs).toBe(60_000);
  });
});
