import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { estimateRisk } from '../../src/estimateRisk.js';
import { riskCellSeed } from '../../src/sweep/riskCell.js';
import { cli, tempDir, writeExperiment } from './helpers.js';

type Json = Record<string, unknown>;

/** An M/M/1 queue at 80/s (service 100/s, one attempt). */
const SCENARIO: Json = {
  workload: { kind: 'open', rate: 80, durationMs: 60_000 },
  stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
  leaf: { kind: 'server', concurrency: 1, queueLimit: 'unlimited', serviceMs: { dist: 'exponential', mean: 10 } },
  horizonMs: 60_000,
};

/** The queue reaching `above` + 1 before it empties, watched on `metric`. */
function section(metric: 'inFlight' | 'queued', above: number): Json {
  return { importance: { metric }, collapse: { metric, above, forMs: 0 }, checkEveryMs: 0, absorbBelow: 1, particles: 10, repetitions: 3 };
}

/** Two parts of the same queue, each with the risk section given (none: no field). */
function twoParts(a: Json | undefined, b: Json | undefined): Json {
  const part = (name: string, risk: Json | undefined): Json => ({ name, scenario: SCENARIO, ...(risk ? { risk } : {}) });
  return { name: 'two-watches', seed: 5, parts: [part('inflight', a), part('queue', b)] };
}

describe('retrystorm risk with a risk section per part', () => {
  it("estimates each part's cells with its own section, and risk.json lists each part's section", async () => {
    const dir = tempDir();
    const [a, b] = [section('inFlight', 5), section('queued', 2)];
    const file = writeExperiment(dir, 'parts.json', twoParts(a, b));
    const r = await cli(['risk', file, '--out', join(dir, 'out'), '--workers', '1']);
    expect([r.code, r.err.includes('error')]).toEqual([0, false]);
    // The sections differ, so each part's is printed.
    expect(r.err).toContain('two-watches: part inflight: risk: P(inFlight > 5, checked after every event)');
    expect(r.err).toContain('two-watches: part queue: risk: P(queued > 2, checked after every event)');
    const result = JSON.parse(readFileSync(join(dir, 'out', 'two-watches', 'risk.json'), 'utf8')) as { parts: Array<{ name: string; risk: Json }>; cells: Array<{ part: string; seed: number; risk: { probability: number; ci95: number[]; effort: { runs: number } } }> };
    expect(result.parts).toEqual([{ name: 'inflight', risk: a }, { name: 'queue', risk: b }]);
    for (const c of result.cells) {
      const own = estimateRisk(SCENARIO, c.part === 'queue' ? b : a, { seed: c.seed });
      expect([c.part, c.risk.probability, c.risk.ci95, c.risk.effort.runs]).toEqual([c.part, own.probability, own.ci95, own.effort.runs]);
    }
    expect(result.cells.map((c) => c.seed)).toEqual(result.cells.map((c) => riskCellSeed(5, { part: c.part, params: {} } as Parameters<typeof riskCellSeed>[1])));
    const html = readFileSync(join(dir, 'out', 'two-watches', 'index.html'), 'utf8');
    expect(html).toContain('In part inflight: The probability that inFlight above 5');
    expect(html).toContain('In part queue: The probability that queued above 2');
  });

  it('refuses a plan where a part has no section while another has one, naming the part: exit 2, nothing written', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'gap.json', twoParts(section('inFlight', 5), undefined));
    for (const command of ['risk', 'validate']) {
      const r = await cli(command === 'risk' ? ['risk', file, '--out', join(dir, 'out')] : ['validate', file]);
      expect(r.code, command).toBe(2);
      expect(r.err, command).toContain('gap.json: parts.1 ("queue") has no risk section while parts.0 ("inflight") has one');
      expect(r.err).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(join(dir, 'out'))).toBe(false);
    // run ignores the risk sections.
    const run = await cli(['run', file, '--out', join(dir, 'runs'), '--quiet', '--set', 'horizonMs=1000', '--set', 'workload.durationMs=1000']);
    expect(run.code).toBe(0);
  });

  it("names a part's section where it is written when its probe does not fit the scenario", async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'probe.json', twoParts(section('inFlight', 5), { ...section('queued', 2), importance: { metric: 'queued', service: 'nowhere' } }));
    const r = await cli(['risk', file, '--out', join(dir, 'out')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/probe\.json: parts\.1\.risk\.importance\.service/);
  });
});
