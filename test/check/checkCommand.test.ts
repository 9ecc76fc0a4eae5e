import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCommand, type CheckFlags, type CheckJson } from '../../src/cli/checkCommand.js';
import { FIXTURES } from './helpers.js';

/** A temporary directory holding the fixtures, as the working directory of a `check` run. */
function workdir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'retrystorm-check-'));
  for (const f of ['three-layers.yaml', 'three-layers-fixed.yaml', 'aws-config.ini', 'envoy-route.yaml', 'envoy-route-bad.yaml', 'grpc-service-config.json']) {
    copyFileSync(join(FIXTURES, f), join(dir, f));
  }
  return dir;
}

function run(cwd: string, file: string, flags: CheckFlags = {}) {
  let out = '';
  let err = '';
  const code = checkCommand({ stdout: (s) => (out += s), stderr: (s) => (err += s), cwd }, file, flags);
  return { code, out, err };
}

describe('retrystorm check', () => {
  it('prints the layers, the worst cases, the closed form, the first waits and the findings; exit 1 on an error-level finding', () => {
    const r = run(workdir(), 'three-layers.yaml');
    expect(r.err).toBe('');
    expect(r.code).toBe(1);
    expect(r.out).toContain('three-layers.yaml: checkout (3 layers top to bottom, GET, no deadline)');
    expect(r.out).toMatch(/^503 +99 +11 x 3 x 3 +11, 33, 99 /m);
    expect(r.out).toContain('Expected leaf calls per operation when each leaf call fails with 503 with probability 10% (closed form):');
    expect(r.out).toMatch(/^stack +99x +33x +100%$/m);
    expect(r.out).toContain('  app: 1 s, 2 s, 4 s, 8 s, 16 s, ...');
    expect(r.out).toContain('error   RS001  app, sdk, proxy: retries at several layers');
  });

  it('the fixed stack: retries at one layer, one deadline, exit 0; only the SDK\'s own Retry-After clamp is left', () => {
    const r = run(workdir(), 'three-layers-fixed.yaml');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^503 +3 +1 x 3 x 1 +1, 3, 3 +300 ms /m);
    expect(r.out).toContain('Findings: 0 errors, 1 warning, 0 info\nwarning RS011  sdk: Retry-After ignored or shortened');
  });

  it('exit 0 without error-level findings', () => {
    const r = run(workdir(), 'grpc-service-config.json');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Findings: 0 errors, 1 warning, 0 info');
  });

  it('--json: every number of the report; unbounded values are null', () => {
    const dir = workdir();
    writeFileSync(join(dir, 'forever.json'), JSON.stringify({ layers: [{ name: 'loop', policy: { maxAttempts: 'unlimited', backoff: { kind: 'none', baseMs: 0, capMs: 0 } } }] }));
    const r = run(dir, 'three-layers.yaml', { json: true, failureRate: '0.5' });
    const json = JSON.parse(r.out) as CheckJson;
    expect(json.exitCode).toBe(1);
    expect(json.stacks).toHaveLength(1);
    const report = json.stacks[0]!;
    expect(report.worstCase.find((w) => w.failureClass === '503')!.leafCalls).toBe(99);
    expect(report.expected.map((e) => e.failureRate)).toEqual([0.5, 1]);
    expect(report.findings[0]).toMatchObject({ code: 'RS001', severity: 'error', layer: 'app, sdk, proxy', layers: [0, 1, 2] });
    expect(report.layers[1]!.policy.maxAttempts).toBe(3);
    const forever = JSON.parse(run(dir, 'forever.json', { json: true }).out) as CheckJson;
    expect(forever.stacks[0]!.worstCase[0]!.leafCalls).toBeNull();
    expect(forever.stacks[0]!.deadlineMs).toBeNull();
  });

  it('--simulate runs the standard storm and prints amplification and goodput beside the closed form', () => {
    // The service config retries UNAVAILABLE (and RESOURCE_EXHAUSTED): its leaf fails with UNAVAILABLE.
    const r = run(workdir(), 'grpc-service-config.json', { simulate: true, replications: '2', failureRate: '0.05', failureClass: 'unavailable' });
    expect(r.code).toBe(0);
    expect(r.out).toContain('Standard storm (2 runs per rate, seeds 1..2): 50 operations/s for 10 s from 100 clients');
    expect(r.out).toMatch(/^100% +\S+ \[\S+, \S+\] +4x +4x +1x +0\/s \[0\/s, 0\/s\] +0% \[0%, 0%\]$/m);
    expect(r.out).toMatch(/^5% +1\.0\d+x /m);
    // Goodput by the results' one rule: successes per second of the 10 s of arrivals, and the table says so.
    expect(r.out).toContain('  goodput: operations that succeeded per second of the 10 s the operations arrived (not of the drain after it; at 100% success it is the arrival rate).\n');
    expect(r.out).toContain('  The intervals rest on 2 runs per rate, fewer than 5 (--replications): read them as rough.\n');
    // Each interval within what its quantity can take: goodput at least 0 and at most the 50/s offered, a share within [0%, 100%].
    for (const m of r.out.matchAll(/(\S+)\/s \[(\S+)\/s, (\S+)\/s\] +(\S+)% \[(\S+)%, (\S+)%\]/g)) {
      const [lo, hi, plo, phi] = [m[2], m[3], m[5], m[6]].map(Number) as [number, number, number, number];
      expect(lo).toBeGreaterThanOrEqual(0);
      expect(hi).toBeLessThanOrEqual(50);
      expect(plo).toBeGreaterThanOrEqual(0);
      expect(phi).toBeLessThanOrEqual(100);
    }
    const json = JSON.parse(run(workdir(), 'grpc-service-config.json', { simulate: true, replications: '2', json: true }).out) as CheckJson;
    expect(json.stacks[0]!.simulation!.runs.map((x) => x.failureRate)).toEqual([1, 0.1]);
  });

  it('--simulate on a stack that stops at the event cap says so and marks the simulated multiple as a lower bound', () => {
    const dir = workdir();
    const layers = Array.from({ length: 10 }, (_, i) => ({ name: `l${i}`, policy: { maxAttempts: 10, backoff: { kind: 'none' } } }));
    writeFileSync(join(dir, 'deep.json'), JSON.stringify({ layers }));
    const r = run(dir, 'deep.json', { simulate: true, replications: '1' });
    expect(r.out).toMatch(/^100% +>= 2000000x +10000000000x /m);
    expect(r.out).toMatch(/^10% +1\.\d+x /m);
    expect(r.out).toContain(
      '  1 run stopped at the event cap (2000000 events) with operations unfinished (more retries than one run can follow); where marked >=, the simulated multiple is a lower bound.',
    );
    expect(r.out).not.toContain('horizon');
    const json = JSON.parse(run(dir, 'deep.json', { simulate: true, replications: '1', json: true }).out) as CheckJson;
    expect(json.stacks[0]!.simulation!.runs.map((x) => x.truncatedBy)).toEqual([
      { horizon: 0, 'event-cap': 1, 'in-flight-cap': 0 },
      { horizon: 0, 'event-cap': 0, 'in-flight-cap': 0 },
    ]);
  });

  it('bad input: one error line per problem naming the file and the field, exit 2', () => {
    const dir = workdir();
    writeFileSync(join(dir, 'stack.yaml'), 'layers:\n  - import: { format: envoy-route, file: envoy-route-bad.yaml }\n');
    const r = run(dir, 'stack.yaml');
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.split('\n')[0]).toBe('error: envoy-route-bad.yaml: retry_policy.num_retries must be a non-negative integer (got "three")');
    expect(run(dir, 'nowhere.yaml').err).toBe('error: nowhere.yaml: cannot read (no such file)\n');
    const flags = run(dir, 'three-layers.yaml', { failureRate: '2', failureClass: '5xx', method: 'PATCH', sdk: 'go', grpcImpl: 'cpp' });
    expect(flags.code).toBe(2);
    expect(flags.err).toBe(
      [
        'error: --failure-rate must be between 0 and 1 (got "2")',
        'error: --failure-class must be one of 503, 500, 429, timeout, 400, 404, conflict, 502, 504, reset, connect-failure, refused-stream, cancelled, unavailable, resource-exhausted, deadline-exceeded, aborted, internal, unknown (got "5xx")',
        'error: --method must be one of GET, HEAD, PUT, DELETE, POST (got "PATCH")',
        'error: --sdk must be one of js, python (got "go")',
        'error: --grpc-impl must be one of go, java, js (got "cpp")',
        '',
      ].join('\n'),
    );
  });

  it('imports are read relative to the stack file', () => {
    const dir = workdir();
    const r = run(join(dir, '..'), join(dir.split('/').pop()!, 'three-layers.yaml'));
    expect(r.code).toBe(1);
    expect(r.out).toContain(`sdk: ${dir.split('/').pop()}/aws-config.ini: [default]`);
  });
});
