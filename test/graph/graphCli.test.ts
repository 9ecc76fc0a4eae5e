import { describe, expect, it } from 'vitest';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';

const server = { kind: 'server', serviceMs: 1 };

describe('retrystorm and service graphs', () => {
  it('validate prints a warning for a service nothing reaches, and the plan', async () => {
    const file = writeExperiment(tempDir(), 'g.json', {
      name: 'graph',
      scenario: {
        workload: { kind: 'burst', clients: 2, entry: { service: 'api' } },
        stack: [{}],
        services: { api: { fleet: server, endpoints: { get: {} } }, cache: { fleet: server, endpoints: { get: {} } } },
      },
    });
    const r = await cli(['validate', file]);
    expect(r.code).toBe(0);
    expect(r.err).toBe(`warning: ${file}: scenario.services.cache is never called (no entry reaches it, directly or through calls)\n`);
    expect(r.out.split('\n')[0]).toBe('graph: valid');
  });

  it('exits 2 on a cycle, naming it, with no stack trace', async () => {
    const file = writeExperiment(tempDir(), 'g.json', {
      name: 'graph',
      scenario: {
        workload: { kind: 'burst', clients: 2, entry: { service: 'a' } },
        stack: [{}],
        services: {
          a: { fleet: server, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'b' }] }] } } },
          b: { fleet: server, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'a' }] }] } } },
        },
      },
    });
    const r = await cli(['validate', file]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`error: ${file}: scenario.services.b.endpoints.get.steps.0.calls.0 closes a cycle: a.get -> b.get -> a.get\n`);
  });
});
