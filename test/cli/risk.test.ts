import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, cliInterrupted, tempDir, writeExperiment } from './helpers.js';

/** Service rate of the M/M/1 queue, per second (exponential service, mean 10 ms). */
const MU = 100;
/** The queue reaches this many in the system for a collapse (collapse: inFlight above N - 1). */
const N = 6;

/**
 * P(an M/M/1 queue started from 1 in the system reaches N before it empties): the gambler's ruin of
 * its embedded chain, up with p = lambda / (lambda + mu), down with q = 1 - p (Feller 1968, XIV.2).
 */
function ruin(lambda: number, n: number): number {
  const r = MU / lambda;
  return (1 - r) / (1 - r ** n);
}

/** M/M/1 (one attempt, open loop) swept over the arrival rate; a collapse is N in the system before it empties. */
function mm1(rates: number[], risk: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'mm1-ruin',
    seed: 11,
    scenario: {
      workload: { kind: 'open', rate: rates[0], durationMs: 600_000 },
      stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
      leaf: { kind: 'server', concurrency: 1, queueLimit: 'unlimited', serviceMs: { dist: 'exponential', mean: 1000 / MU } },
      horizonMs: 600_000,
    },
    sweep: { grid: { 'workload.rate': rates } },
    risk: {
      importance: { metric: 'inFlight' },
      collapse: { metric: 'inFlight', above: N - 1, forMs: 0 },
      checkEveryMs: 0,
      absorbBelow: 1,
      particles: 20,
      repetitions: 6,
      ...risk,
    },
  };
}

/** risk.json without what is measured rather than computed (each cell's CPU time). */
function computed(dir: string): unknown {
  const r = JSON.parse(readFileSync(join(dir, 'risk.json'), 'utf8')) as { cells: Array<{ risk?: { effort: { cpuMs?: number } } }> };
  for (const c of r.cells) delete c.risk?.effort.cpuMs;
  return r;
}

/** risk.csv: only computed numbers (no CPU time), so it is compared byte for byte. */
function csvBytes(dir: string): string {
  return readFileSync(join(dir, 'risk.csv'), 'utf8');
}

describe('retrystorm risk', () => {
  it('estimates the gambler\'s ruin probability of an M/M/1 queue within its interval, and writes risk.jsonl, risk.json, risk.csv and the report', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'mm1.json', mm1([80]));
    const r = await cli(['risk', file, '--out', join(dir, 'out'), '--workers', '1']);
    expect(r.err).not.toContain('error');
    expect(r.code).toBe(0);
    const out = join(dir, 'out', 'mm1-ruin');
    expect(readdirSync(out).sort()).toEqual(['index.html', 'report.json', 'risk.csv', 'risk.json', 'risk.jsonl', 'run.json']);
    const result = JSON.parse(readFileSync(join(out, 'risk.json'), 'utf8'));
    const cell = result.cells[0];
    const exact = ruin(80, N);
    expect(exact).toBeCloseTo(0.0888, 3);
    expect(cell.state).toBe('ok');
    expect(cell.risk.ci95[0]).toBeLessThanOrEqual(exact);
    expect(cell.risk.ci95[1]).toBeGreaterThanOrEqual(exact);
    expect(cell.risk.repetitions).toHaveLength(6);
    expect(result.parts).toEqual([{ name: 'main', risk: expect.objectContaining({ collapse: { metric: 'inFlight', above: N - 1, forMs: 0 } }) }]);
    expect(readFileSync(join(out, 'risk.csv'), 'utf8').split('\n')[0]).toBe('part,variant,workload.rate,state,method,probability,ci95_low,ci95_high,relative_error,mc_runs,runs,events,snapshots,per_excursion,per_excursion_ci95_low,per_excursion_ci95_high,excursions_per_hour');
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    expect(html).toContain('P(collapse within 10 min)');
    expect(html).toContain('id="chart-risk-probability"');
    expect(r.out).toMatch(/\nP\(collapse within 10 min\): ~0\.\d+\.\n/);
    // report rebuilds the page from risk.json, and refuses a risk.json that is not one, naming the field.
    rmSync(join(out, 'index.html'));
    const rebuilt = await cli(['report', out]);
    expect([rebuilt.code, rebuilt.err]).toEqual([0, '']);
    expect(readFileSync(join(out, 'index.html'), 'utf8').replace(/<footer>.*<\/footer>/, '')).toBe(html.replace(/<footer>.*<\/footer>/, ''));
    writeFileSync(join(out, 'risk.json'), JSON.stringify({ ...result, cells: [{ ...cell, risk: { ...cell.risk, probability: 2 } }] }));
    const bad = await cli(['report', out]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('risk.json: cells.0: risk.probability must be a number from 0 to 1');
  });

  it('refuses a file without a risk section, a bad risk field, and a probe the scenario cannot give: exit 2, the file and the field named, nothing written', async () => {
    const dir = tempDir();
    const none = mm1([80]);
    delete none.risk;
    const cases: Array<[Record<string, unknown>, string]> = [
      [none, 'none.json: has no risk section'],
      [mm1([80], { method: 'fixed' }), 'risk.levels is required by method fixed'],
      [mm1([80], { importance: { metric: 'inFlight', service: 'nowhere' } }), 'risk.importance.service'],
    ];
    for (const [body, message] of cases) {
      const name = message.startsWith('none') ? 'none.json' : 'bad.json';
      const file = writeExperiment(dir, name, body);
      const r = await cli(['risk', file, '--out', join(dir, 'out')]);
      expect(r.code, message).toBe(2);
      expect(r.err, message).toContain(message);
      expect(r.err, message).toContain(name);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('refuses to write over a run\'s results, and run refuses to write over risk estimates', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'mm1.json', mm1([80], { repetitions: 2, particles: 4 }));
    const risk = await cli(['risk', file, '--out', join(dir, 'out'), '--workers', '1', '--quiet']);
    expect(risk.code).toBe(0);
    const run = await cli(['run', file, '--out', join(dir, 'out'), '--quiet', '--set', 'horizonMs=1000', '--replace']);
    expect(run.code).toBe(2);
    expect(run.err).toContain("holds risk estimates, not a run's results: choose another --out");
    expect(readdirSync(join(dir, 'out', 'mm1-ruin')).sort()).toEqual(['index.html', 'report.json', 'risk.csv', 'risk.json', 'risk.jsonl', 'run.json']);
  });

  it('two shards merged give the estimates of the unsharded run', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'mm1.json', mm1([60, 80], { repetitions: 3, particles: 10 }));
    const whole = await cli(['risk', file, '--out', join(dir, 'whole'), '--workers', '2', '--quiet']);
    expect(whole.code).toBe(0);
    for (const k of [0, 1]) {
      const r = await cli(['risk', file, '--out', join(dir, `shard${k}`), '--shard', `${k}/2`, '--workers', '1', '--quiet']);
      expect(r.code).toBe(0);
      expect(existsSync(join(dir, `shard${k}`, 'mm1-ruin', 'index.html'))).toBe(false);
    }
    const merged = await cli(['merge', join(dir, 'shard0', 'mm1-ruin'), join(dir, 'shard1', 'mm1-ruin'), '--out', join(dir, 'merged')]);
    expect(merged.err).toBe('');
    expect(merged.out).toContain('merged 2 shards of mm1-ruin: 2 cells');
    expect(readdirSync(join(dir, 'merged', 'mm1-ruin')).sort()).toEqual(['index.html', 'report.json', 'risk.csv', 'risk.json', 'risk.jsonl', 'run.json']);
    expect(computed(join(dir, 'merged', 'mm1-ruin'))).toEqual(computed(join(dir, 'whole', 'mm1-ruin')));
    expect(csvBytes(join(dir, 'merged', 'mm1-ruin'))).toEqual(csvBytes(join(dir, 'whole', 'mm1-ruin')));
    const half = await cli(['merge', join(dir, 'shard0', 'mm1-ruin'), '--out', join(dir, 'half')]);
    expect([half.code, half.err]).toEqual([2, 'error: missing shard 1/2\n']);
  });

  it('an interrupt stops the run (exit 130, the finished cells kept, no result), and --resume gives the files of an uninterrupted run', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'mm1.json', mm1([50, 60, 70, 80], { repetitions: 3, particles: 10 }));
    const lines = join(dir, 'out', 'mm1-ruin', 'risk.jsonl');
    const { code, err } = await cliInterrupted(['risk', file, '--out', join(dir, 'out'), '--workers', '1', '--quiet'], dir, lines, 1);
    expect(code).toBe(130);
    const kept = readFileSync(lines, 'utf8').trim().split('\n');
    expect(kept.length).toBeGreaterThanOrEqual(1);
    expect(kept.length).toBeLessThan(4);
    expect(err).toBe(`interrupted: ${kept.length} of 4 cells are in ${join('out', 'mm1-ruin', 'risk.jsonl')}; run again with --resume to finish\n`);
    expect(readdirSync(join(dir, 'out', 'mm1-ruin')).sort()).toEqual(['risk.jsonl', 'run.json']);
    const resumed = await cli(['risk', file, '--out', join(dir, 'out'), '--workers', '1', '--quiet', '--resume']);
    expect(resumed.code).toBe(0);
    const whole = await cli(['risk', file, '--out', join(dir, 'whole'), '--workers', '2', '--quiet']);
    expect(whole.code).toBe(0);
    expect(computed(join(dir, 'out', 'mm1-ruin'))).toEqual(computed(join(dir, 'whole', 'mm1-ruin')));
    expect(csvBytes(join(dir, 'out', 'mm1-ruin'))).toEqual(csvBytes(join(dir, 'whole', 'mm1-ruin')));
  });

  it('validate prints the risk section in brief', async () => {
    const dir = tempDir();
    const r = await cli(['validate', writeExperiment(dir, 'mm1.json', mm1([60, 80]))]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('  risk: P(inFlight > 5, checked after every event) within each cell\'s horizon, by adaptive splitting on inFlight, 20 particles, 6 repetitions\n');
  });
});
