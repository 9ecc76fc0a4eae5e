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

describe('retrystorm validate on a graph', () => {
  it('lists the calls per operation on every edge if every call failed', async () => {
    const file = writeExperiment(tempDir(), 'g.json', {
      name: 'fan-out',
      scenario: {
        workload: { kind: 'burst', clients: 10, entry: { service: 'frontend' } },
        stack: [{ policy: { maxAttempts: 2 } }],
        services: {
          frontend: { fleet: server, endpoints: { page: { steps: [{ kind: 'call', calls: [{ service: 'a', stack: [{ policy: { maxAttempts: 3 } }] }, { service: 'b' }] }] } } },
          a: { fleet: server, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{}, {}] }] }] } } },
          b: { fleet: server, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db' }] }] } } },
          db: { fleet: server, endpoints: { get: {} } },
        },
      },
    });
    const r = await cli(['validate', file]);
    expect(r).toMatchObject({
      code: 0,
      err: '',
      out:
        'fan-out: valid\n  part main: 1 cells x 1 replications\n' +
        '    calls per operation if every call failed (its first cell): workload -> frontend 2, frontend -> a 6, a -> db 54, frontend -> b 2, b -> db 2\n' +
        // Memory: 150 MB of base, and what the 10 operations can hold in flight if every call fails (66 calls each, src/model/graph/graphFootprint.ts).
        '  1 runs in all\n  work: about 10 operations, at most 20 leaf calls (if every attempt failed)\n  output: about 81 KB of results; memory: about 151 MB at peak\n',
    });
  });
});
