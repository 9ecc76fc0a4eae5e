import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';

const SHIPPED = fileURLToPath(new URL('../../experiments/microservice-cascade.json', import.meta.url));
/** The variants as written before selectors, one path per layer. */
const EXPLICIT = JSON.parse(readFileSync(new URL('./fixtures/microservice-cascade-explicit-variants.json', import.meta.url), 'utf8')) as Record<string, Record<string, unknown>>;

describe('retrystorm validate and layer selectors', () => {
  it('prints how many layers each selector matched: as many as the explicit paths it replaces', async () => {
    const r = await cli(['validate', SHIPPED]);
    expect(r.code).toBe(0);
    const count = (variant: string, keep: (key: string) => boolean) => Object.keys(EXPLICIT[variant] ?? {}).filter(keep).length;
    const frontendSidecar = (k: string) => k.startsWith('services.frontend.') && k.includes('.stack.2.');
    const lines = [
      `  layers[app,client].policy.maxAttempts (parts.0.variants.one-tier): ${count('one-tier', (k) => !frontendSidecar(k))} layers`,
      `  services.frontend.layers[sidecar].policy.maxAttempts (parts.0.variants.one-tier): ${count('one-tier', frontendSidecar)} layers`,
      `  layers[app,client,sidecar].policy.maxAttempts (parts.0.variants.no-retries): ${count('no-retries', () => true)} layers`,
      `  layers[app,client,sidecar].policy.budget (parts.0.variants.budgets): ${count('budgets', () => true)} layers`,
    ];
    for (const line of lines) expect(r.out.split('\n')).toContain(line);
  });

  it('exits 2 on a selector that matches nothing, naming the layers that exist, without a stack trace', async () => {
    const file = writeExperiment(tempDir(), 'x.json', {
      name: 'x',
      scenario: { workload: { kind: 'burst', clients: 2 }, stack: [{ name: 'app' }, { name: 'proxy' }], leaf: { kind: 'server', serviceMs: 1 } },
      variants: { budgets: { 'layers[sdk].policy.budget': { kind: 'sre-ratio' } } },
    });
    const r = await cli(['validate', file]);
    expect(r).toEqual({ code: 2, out: '', err: `error: ${file}: variants.budgets.layers[sdk].policy.budget matches no layer named "sdk" (layers in the scenario: app, proxy)\n` });
    const fine = writeExperiment(tempDir(), 'y.json', { name: 'y', scenario: { workload: { kind: 'burst', clients: 2 }, stack: [{ name: 'app' }, { name: 'proxy' }], leaf: { kind: 'server', serviceMs: 1 } } });
    const set = await cli(['validate', fine, '--set', 'layers[proxy,app].policy.maxAttempts=1']);
    expect(set.code).toBe(0);
    expect(set.out.split('\n')).toContain('  layers[proxy,app].policy.maxAttempts (--set): 2 layers');
    const none = await cli(['validate', fine, '--set', 'layers[sdk].policy.maxAttempts=1']);
    expect(none).toEqual({ code: 2, out: '', err: `error: ${fine}: --set layers[sdk].policy.maxAttempts: layers[sdk].policy.maxAttempts matches no layer named "sdk" (layers in the scenario: app, proxy)\n` });
  });
});
