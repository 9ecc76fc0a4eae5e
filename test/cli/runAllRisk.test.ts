import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/report/escape.js';
import { cli, tempDir, writeExperiment } from './helpers.js';

type Json = Record<string, unknown>;

/** An M/M/1 queue at 80/s (service 100/s, one attempt) for 2 s. */
const SCENARIO: Json = {
  workload: { kind: 'open', rate: 80, durationMs: 2000 },
  stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
  leaf: { kind: 'server', concurrency: 1, queueLimit: 'unlimited', serviceMs: { dist: 'exponential', mean: 10 } },
  horizonMs: 2000,
};

/** The queue reaching 6 before it empties; quick mode makes the estimate smaller. */
const RISK: Json = { importance: { metric: 'inFlight' }, collapse: { metric: 'inFlight', above: 5, forMs: 0 }, checkEveryMs: 0, absorbBelow: 1, particles: 20, repetitions: 3 };

/** A directory of two experiments: one to run, one (with a risk section in its part) to estimate. */
function experimentsDir(risk: Json = RISK): { root: string; dir: string } {
  const root = tempDir();
  const dir = join(root, 'experiments');
  mkdirSync(dir);
  writeExperiment(dir, 'plain.json', { name: 'plain-run', scenario: SCENARIO, replications: 2 });
  writeExperiment(dir, 'estimate.json', { name: 'queue-risk', parts: [{ name: 'queue', scenario: SCENARIO, risk, quick: { risk: { particles: 6 } } }] });
  return { root, dir };
}

describe('run-all with an experiment that has a risk section', () => {
  it('estimates it with risk (quick mode) and runs the other, and the index lists both, the risk report with its finding', async () => {
    const { root, dir } = experimentsDir();
    const out = join(root, 'reports');
    const r = await cli(['run-all', '--dir', dir, '--out', out, '--workers', '1', '--quiet']);
    expect([r.code, r.err]).toEqual([0, '']);
    expect(readdirSync(join(out, 'plain-run'))).toContain('summary.csv');
    const riskDir = join(out, 'queue-risk');
    expect(readdirSync(riskDir).sort()).toEqual(['index.html', 'report.json', 'risk.csv', 'risk.json', 'risk.jsonl', 'run.json']);
    const result = JSON.parse(readFileSync(join(riskDir, 'risk.json'), 'utf8')) as { parts: Array<{ risk: { particles: number } }> };
    expect(result.parts[0]?.risk.particles).toBe(6);
    const page = readFileSync(join(riskDir, 'index.html'), 'utf8');
    expect(page).toContain('src="../assets/vega.min.js"');
    expect(page).toContain(escapeHtml("Quick mode (the file's quick overrides)"));
    const { finding } = JSON.parse(readFileSync(join(riskDir, 'report.json'), 'utf8')) as { finding: string };
    expect(finding).toMatch(/^P\(collapse within 2 s\): /);
    const index = readFileSync(join(out, 'index.html'), 'utf8');
    expect(index).toContain('href="plain-run/index.html"');
    expect(index).toContain('href="queue-risk/index.html"');
    expect(index).toContain(escapeHtml(finding));
    // The estimates are those of `risk --quick`: risk.csv byte for byte (what CI compares).
    const direct = await cli(['risk', join(dir, 'estimate.json'), '--quick', '--out', join(root, 'direct'), '--workers', '1', '--quiet']);
    expect(direct.code).toBe(0);
    expect(readFileSync(join(riskDir, 'risk.csv'), 'utf8')).toBe(readFileSync(join(root, 'direct', 'queue-risk', 'risk.csv'), 'utf8'));
    // report rebuilds the index from the saved results, the risk directory included, dated as before.
    const rebuilt = await cli(['report', out, '--shared-assets']);
    expect(rebuilt.code).toBe(0);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toBe(index);
    expect(readFileSync(join(riskDir, 'index.html'), 'utf8')).toBe(page);
  });

  it('refuses, before anything runs, a risk file and a run file of the same name: exit 2, both files named', async () => {
    const { root, dir } = experimentsDir();
    writeExperiment(dir, 'plain.json', { name: 'queue-risk', scenario: SCENARIO, replications: 2 });
    const out = join(root, 'reports');
    const r = await cli(['run-all', '--dir', 'experiments', '--out', out, '--workers', '1', '--quiet'], root);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${join('experiments', 'plain.json')} and ${join('experiments', 'estimate.json')} are both named "queue-risk": their results would overwrite each other`);
    expect(() => readdirSync(out)).toThrow();
  });

  it('refuses, before anything runs, a risk section that does not fit its scenario: exit 2, the file and the field named', async () => {
    const { root, dir } = experimentsDir({ ...RISK, importance: { metric: 'inFlight', service: 'nowhere' } });
    const r = await cli(['run-all', '--dir', dir, '--out', join(root, 'reports'), '--workers', '1', '--quiet']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/estimate\.json: parts\.0\.risk\.importance\.service/);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(readdirSync(root)).toEqual(['experiments']);
  });
});
