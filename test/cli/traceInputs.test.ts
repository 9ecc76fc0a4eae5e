import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { cli, tempDir, writeExperiment } from './helpers.js';

/** The longest function a traced module may hold, in lines. */
const MAX_FUNCTION_LINES = 80;

/** Every function of a source file (declarations, methods, arrow functions) longer than `max` lines, with its length. */
function longFunctions(path: string, max: number): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
  const long: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = (node as { name?: ts.Node }).name?.getText(source) ?? `function at line ${first + 1}`;
      if (last - first + 1 > max) long.push(`${name}: ${last - first + 1} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return long;
}

/** A graph of two services (fe calls users through sdk), entered by one workload or by two. */
function graph(workloads: boolean): unknown {
  const entry = { kind: 'burst', clients: 1, entry: { service: 'fe' } };
  const stack = [{ name: 'app', policy: { maxAttempts: 2, backoff: { kind: 'constant', baseMs: 10 } } }];
  const services = {
    fe: {
      fleet: { kind: 'server', serviceMs: 3 },
      endpoints: { page: { steps: [{ kind: 'call', calls: [{ service: 'users', stack: [{ name: 'sdk', policy: { maxAttempts: 3 } }] }] }] } },
    },
    users: { fleet: { kind: 'script', script: ['503:2', '200:2'] }, endpoints: { get: {} } },
  };
  return {
    name: 'trace-inputs',
    scenario: workloads ? { workloads: { web: { ...entry, stack }, batch: { ...entry, stack } }, services } : { workload: entry, stack, services },
  };
}

/** The `error:` lines of a run. */
function errors(err: string): string[] {
  return err.split('\n').filter((l) => l !== '');
}

describe('trace: what a graph file and a scripted timeout mean', () => {
  it('--script on a service graph is one message naming the graph\'s services, not a leaf the file never wrote', async () => {
    const file = writeExperiment(tempDir(), 'g.json', graph(false));
    const r = await cli(['trace', file, '--script', '503:10']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    const lines = errors(r.err);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: --script /);
    expect(lines[0]).toContain('services fe, users');
    expect(lines[0]).not.toContain('leaf');
  });

  it('a flag\'s bad value on a graph with several workloads names the flag, not a path the file does not have', async () => {
    const file = writeExperiment(tempDir(), 'g.json', graph(true));
    const r = await cli(['trace', file, '--workload', 'batch', '--attempts', '0']);
    expect(r.code).toBe(2);
    expect(errors(r.err)).toEqual(['error: --attempts must be a positive integer or "unlimited" (got 0)']);
  });

  it('the same graph traces through the workload it names', async () => {
    const file = writeExperiment(tempDir(), 'g.json', graph(true));
    const r = await cli(['trace', file, '--workload', 'batch', '--json']);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toMatchObject({ outcome: 'success', attempts: 1, layers: [{ layer: 'app' }] });
  });

  it('"timeout" without a duration ends the attempt at its per-attempt timeout', async () => {
    const r = await cli(['trace', '--script', 'timeout,200:5', '--timeout-ms', '300', '--backoff', 'constant', '--base-ms', '10', '--json']);
    expect(r.err).toBe('');
    const t = JSON.parse(r.out) as { outcome: string; attempts: number; endMs: number; layers: Array<{ outcomes: string[] }> };
    // Attempt 1 times out at 300, the retry waits 10 and its answer takes 5.
    expect(t).toMatchObject({ outcome: 'success', attempts: 2, endMs: 315 });
    expect(t.layers[0]?.outcomes).toEqual(['timeout', '200']);
  });

  it('"timeout" without a duration ends at the deadline when that comes first', async () => {
    const r = await cli(['trace', '--script', 'timeout', '--timeout-ms', '300', '--deadline-ms', '120', '--json']);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toMatchObject({ outcome: 'deadline', attempts: 1, endMs: 120, lastOutcome: 'timeout' });
  });

  it('"timeout" with a duration still answers a timeout after that duration', async () => {
    const r = await cli(['trace', '--script', 'timeout:50,200:5', '--timeout-ms', '300', '--backoff', 'none', '--json']);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toMatchObject({ outcome: 'success', attempts: 2, endMs: 55 });
  });

  it('"timeout" without a duration and nothing to end the attempt is refused, naming the flags that would', async () => {
    const r = await cli(['trace', '--script', 'timeout']);
    expect(r.code).toBe(2);
    const lines = errors(r.err);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"timeout" without a duration');
    expect(lines[0]).toContain('--timeout-ms or --deadline-ms');
  });

  it('trace is built in named steps: no function of its modules is longer than 80 lines', () => {
    for (const path of ['src/cli/trace.ts', 'src/model/traceOperation.ts', 'src/model/traceOtlp.ts', 'src/sweep/cellTraces.ts']) expect(longFunctions(path, MAX_FUNCTION_LINES), path).toEqual([]);
  });
});
