import { describe, expect, it } from 'vitest';
import { cli, tempDir, writeExperiment } from '../helpers/reliability.js';

function openLoop(rate: unknown) {
  return {
    name: 'rate',
    scenario: {
      workload: { kind: 'open', rate, durationMs: 5000 },
      stack: [{ name: 'client', policy: { maxAttempts: 2 } }],
      leaf: { kind: 'server', concurrency: 4, serviceMs: 1 },
    },
  };
}

describe('an arrival rate beyond anything a run can simulate is refused, and the estimates stay finite', () => {
  it('a rate of 1e308 is refused by validate and run, naming the field and the bound', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'e.json', openLoop(1e308));
    for (const args of [['validate', 'e.json'], ['run', 'e.json', '--out', 'out', '--quiet']]) {
      const r = await cli(args, dir);
      expect(r.err).toBe(`error: ${dir}/e.json: scenario.workload.rate must be at most 1,000,000,000 (got 1e+308)\n`);
      expect(r.code).toBe(2);
    }
  });

  it('a schedule\'s rates are bounded alike', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'e.json', openLoop({ kind: 'spike', ratePerSec: 10, atMs: 100, durationMs: 100, spikeRatePerSec: 1e12 }));
    const r = await cli(['validate', 'e.json'], dir);
    expect(r.err).toBe(`error: ${dir}/e.json: scenario.workload.rate.spikeRatePerSec must be at most 1,000,000,000 (got 1000000000000)\n`);
    expect(r.code).toBe(2);
  });

  it('at the bound, validate prints finite work, output and memory', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'e.json', openLoop(1e9));
    const r = await cli(['validate', 'e.json'], dir);
    expect(r.code).toBe(0);
    expect(r.out).toContain('work: about 5.0G operations, at most 10.0G leaf calls');
    expect(r.out + r.err).not.toMatch(/Infinity|NaN|unbounded/);
  });
});
