/**
 * A call's `probability`: the call is made with that chance each time its step runs, drawn from a
 * stream of its own; the join waits only for the calls made; validation names the field and the rule.
 */
import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import type { SimulationResults } from '../../src/model/results.js';
import type { Scenario } from '../../src/model/scenario.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';

type Json = Record<string, any>;

function resolved(raw: Json): Scenario {
  const r = resolveScenario(raw);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.scenario;
}

function run(raw: Json, seed = 1): SimulationResults {
  return new Model(resolved(raw), { seed }).run();
}

function edgeCalls(r: SimulationResults, caller: string, callee: string): number {
  const e = (r.edges ?? []).find((x) => x.caller === caller && x.callee === callee);
  if (e === undefined) throw new Error(`no edge ${caller} -> ${callee}`);
  return e.calls;
}

const P = 0.3;
const OPS = 4000;

/** fe works, then calls always `users` and, with probability `p`, `audit`; both leaves always succeed. */
function graph(p: number | undefined, join: unknown = 'all'): Json {
  return {
    workload: { kind: 'open', rate: 1000, durationMs: OPS, entry: { service: 'fe' } },
    stack: [{ name: 'app', policy: { maxAttempts: 1 } }],
    network: { hopMs: 0 },
    services: {
      fe: {
        fleet: { kind: 'server', serviceMs: 0.1 },
        endpoints: {
          page: {
            steps: [
              { kind: 'work' },
              { kind: 'call', join, calls: [{ service: 'users' }, { service: 'audit', ...(p === undefined ? {} : { probability: p }) }] },
            ],
          },
        },
      },
      users: { fleet: { kind: 'server', serviceMs: 0.2 }, endpoints: { get: {} } },
      audit: { fleet: { kind: 'server', serviceMs: 0.2 }, endpoints: { log: {} } },
    },
  };
}

describe('a call with a probability', () => {
  it('reaches its callee at probability x the caller\'s rate, within the binomial 99.9% interval', () => {
    const r = run(graph(P));
    const requests = edgeCalls(r, 'workload', 'fe');
    expect(requests).toBeGreaterThan(3000);
    expect(edgeCalls(r, 'fe', 'users')).toBe(requests);
    const audit = edgeCalls(r, 'fe', 'audit');
    const half = 3.29 * Math.sqrt(requests * P * (1 - P));
    expect(Math.abs(audit - requests * P), `${audit} audit calls for ${requests} requests`).toBeLessThanOrEqual(half);
    // A call not made neither succeeds nor fails: every operation succeeds, none degraded.
    expect(r.operations.succeeded).toBe(r.operations.offered);
    expect(r.operations.degraded ?? 0).toBe(0);
  });

  it('a step whose every call is skipped succeeds at once, and the handler goes on', () => {
    const raw = graph(0.5);
    raw.services.fe.endpoints.page.steps[1].calls = [{ service: 'audit', probability: 0.5 }, { service: 'users', probability: 0.5 }];
    const r = run(raw, 3);
    const requests = edgeCalls(r, 'workload', 'fe');
    expect(r.operations.succeeded).toBe(r.operations.offered);
    for (const callee of ['users', 'audit']) {
      const n = edgeCalls(r, 'fe', callee);
      expect(Math.abs(n - requests / 2)).toBeLessThanOrEqual(3.29 * Math.sqrt(requests / 4));
    }
  });

  it('draws from a stream of its own: the other calls and the caller\'s results are those of the run without it, and a call without probability draws nothing', () => {
    // Probability 1 written or left out: byte-identical results.
    expect(JSON.stringify(run(graph(1), 7))).toBe(JSON.stringify(run(graph(undefined), 7)));
    // With a probability below 1, the arrivals at fe and the calls to users are those of the run with it always made.
    const always = run(graph(undefined), 7);
    const sometimes = run(graph(P), 7);
    expect(edgeCalls(sometimes, 'workload', 'fe')).toBe(edgeCalls(always, 'workload', 'fe'));
    expect(edgeCalls(sometimes, 'fe', 'users')).toBe(edgeCalls(always, 'fe', 'users'));
  });

  it('is checked: in (0, 1], and below 1 only with join "all"', () => {
    const problems = (raw: Json): string[] => {
      const r = resolveScenario(raw);
      return r.ok ? [] : r.errors;
    };
    const at = 'services.fe.endpoints.page.steps.1';
    for (const bad of [0, -0.1, 1.5]) {
      expect(problems(graph(bad))).toEqual([expect.stringContaining(`${at}.calls.1.probability must be > 0 and <= 1 (got ${bad})`)]);
    }
    expect(problems(graph('half' as unknown as number))).toEqual([expect.stringContaining(`${at}.calls.1.probability must be a number > 0 and <= 1 (got "half")`)]);
    expect(problems(graph(P, 'any'))).toEqual([expect.stringContaining(`${at}.calls.1.probability below 1 is allowed only with join "all" (got 0.3 with join "any")`)]);
    expect(problems(graph(1, 'any'))).toEqual([]);
  });

  it('a file with a probability out of range: validate names the file and the field, exit code 2, no stack trace', async () => {
    const file = writeExperiment(tempDir(), 'p.json', { name: 'p', scenario: graph(0) });
    const r = await cli(['validate', file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`p.json: scenario.services.fe.endpoints.page.steps.1.calls.1.probability must be > 0 and <= 1 (got 0)`);
    expect(r.err).not.toMatch(/\bat .+:\d+:\d+/);
  });
});
