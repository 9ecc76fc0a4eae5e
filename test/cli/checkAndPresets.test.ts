import { describe, expect, it } from 'vitest';
import { PRESET_NAMES } from '../../src/policy/presets.js';
import { cli } from './helpers.js';

describe('retrystorm presets', () => {
  it('lists every preset with its parameters and source', async () => {
    const r = await cli(['presets']);
    expect(r.code).toBe(0);
    for (const name of PRESET_NAMES) expect(r.out).toMatch(new RegExp(`^${name}\\n  .+\\n  describes: .+\\n  source: .+$`, 'm'));
    const json = JSON.parse((await cli(['presets', '--json'])).out) as Array<{ name: string }>;
    expect(json.map((p) => p.name)).toEqual([...PRESET_NAMES]);
  });
});

describe('retrystorm check', () => {
  it('exits 1 on an error-level finding and 0 when the stack is fixed', async () => {
    const bad = await cli(['check', 'test/check/fixtures/three-layers.yaml', '--json']);
    expect(bad.code).toBe(1);
    const report = JSON.parse(bad.out);
    expect(report.exitCode).toBe(1);
    const fixed = await cli(['check', 'test/check/fixtures/three-layers-fixed.yaml']);
    expect(fixed.code).toBe(0);
  });

  it('names the file and the field of a malformed import, with exit code 2', async () => {
    const r = await cli(['check', 'test/check/fixtures/envoy-route-bad.yaml']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('envoy-route-bad.yaml: retry_policy.num_retries must be a non-negative integer (got "three")');
  });
});
