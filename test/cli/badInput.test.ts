import { describe, expect, it } from 'vitest';
import { cli, tempDir, writeExperiment } from './helpers.js';

const valid = {
  name: 'ok',
  scenario: {
    workload: { kind: 'burst', clients: 2 },
    stack: [{ name: 'client', policy: { maxAttempts: 2 } }],
    leaf: { kind: 'server', serviceMs: 5 },
  },
};

function withScenario(patch: (s: Record<string, any>) => void): unknown {
  const e = JSON.parse(JSON.stringify(valid));
  patch(e.scenario);
  return e;
}

/** Invalid experiment files and the exact messages `retrystorm run` prints for them. */
const files: Array<[string, unknown, string[]]> = [
  ['cap below base', withScenario((s) => (s.stack[0].policy.backoff = { baseMs: 50, capMs: 10 })), ['scenario.stack.0.policy.backoff.capMs must be >= baseMs (got 10 < 50)']],
  ['zero clients', withScenario((s) => (s.workload.clients = 0)), ['scenario.workload.clients must be a positive integer (got 0)']],
  ['zero attempts', withScenario((s) => (s.stack[0].policy.maxAttempts = 0)), ['scenario.stack.0.policy.maxAttempts must be a positive integer or "unlimited" (got 0)']],
  ['missing leaf', withScenario((s) => delete s.leaf), ['scenario.leaf is required']],
  ['misspelt field', withScenario((s) => ((s.stack[0].polcy = s.stack[0].policy), delete s.stack[0].policy)), ['scenario.stack.0.polcy is not a known field (did you mean "policy"?)']],
  ['unknown backoff', withScenario((s) => (s.stack[0].policy.backoff = { kind: 'jitter' })), ['scenario.stack.0.policy.backoff.kind must be one of none, constant, exponential, full-jitter, equal-jitter, decorrelated-jitter, linear, aws-sdk-js, envoy, polly-decorrelated-v2, randomized, node-retry, random-exponential (got "jitter")']],
  ['seed not an integer', { ...valid, seed: 'abc' }, ['seed must be an integer (got "abc")']],
  ['probability above 1', withScenario((s) => (s.leaf.faults = [{ probability: 1.5 }])), ['scenario.leaf.faults.0.probability must be between 0 and 1 (got 1.5)']],
  ['negative tick', withScenario((s) => (s.stack[0].policy.tickMs = -1)), ['scenario.stack.0.policy.tickMs must be >= 0 (got -1)']],
  ['rate of 0', withScenario((s) => (s.workload = { kind: 'open', rate: 0, durationMs: 1000 })), ['scenario.workload.rate must be > 0 (got 0)']],
  ['negative duration', withScenario((s) => (s.workload = { kind: 'open', rate: 5, durationMs: -5 })), ['scenario.workload.durationMs must be > 0 (got -5)']],
  ['unsupported schema version', { ...valid, schemaVersion: 2 }, ['schemaVersion 2 is not supported (this version reads 1)']],
  ['several problems at once', withScenario((s) => ((s.workload.clients = -1), (s.leaf.concurrency = 0))), ['scenario.workload.clients must be a positive integer (got -1)', 'scenario.leaf.concurrency must be a positive integer or "unlimited" (got 0)']],
  ['histogram bounds out of order', withScenario((s) => (s.leaf.serviceMs = { dist: 'histogram', le: [5, 2, '+Inf'], counts: [1, 2, 3] })), ['scenario.leaf.serviceMs.le.1 must be > le.0 (bounds strictly increase; got 2 <= 5)']],
  ['histogram counts not cumulative', withScenario((s) => (s.leaf.serviceMs = { dist: 'histogram', le: [5, 10], counts: [4, 1] })), ["scenario.leaf.serviceMs.counts.1 must be >= counts.0 (counts are cumulative, as Prometheus's le buckets; got 1 < 4)"]],
  ['histogram without observations', withScenario((s) => (s.stack[0].hopMs = { dist: 'histogram', le: [5, '+Inf'], counts: [0, 0] })), ['scenario.stack.0.hopMs.counts must not all be 0 (no observations to draw from)']],
  ['no samples', withScenario((s) => (s.workload = { kind: 'closed', clients: 2, durationMs: 1000, thinkMs: { dist: 'samples', values: [] } })), ['scenario.workload.thinkMs.values must have 1 to 100000 values (got 0)']],
  ['variant and sweep set the same path', { ...valid, variants: { a: { 'workload.clients': 3 } }, sweep: { grid: { 'workload.clients': [1, 2] } } }, ['variants.a.workload.clients is also a sweep axis (sweep.grid)']],
];

describe('bad experiment files: exit code 2, one message per problem, no stack trace', () => {
  const dir = tempDir();
  for (const [name, body, messages] of files) {
    it(name, async () => {
      const file = writeExperiment(dir, `${name.replace(/\W+/g, '-')}.json`, body);
      const r = await cli(['run', file, '--out', dir]);
      expect(r.code).toBe(2);
      expect(r.err).toBe(messages.map((m) => `error: ${file}: ${m}\n`).join(''));
      expect(r.err).not.toMatch(/\n\s+at /);
    });
  }

  it('invalid JSON names the line and column', async () => {
    const file = writeExperiment(dir, 'broken.json', '{\n  "name": "x",\n  "seed": 1,,\n}');
    const r = await cli(['run', file]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^error: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: invalid JSON at line 3, column 13: unexpected "," `));
  });

  it('a missing file is a clear error', async () => {
    const r = await cli(['run', '/nonexistent/experiment.json']);
    expect(r).toMatchObject({ code: 2, err: 'error: /nonexistent/experiment.json: cannot read (no such file)\n' });
  });
});

/** Invalid trace flags and their exact messages. */
const traceCases: Array<[string[], string[]]> = [
  [['--script', '503:x'], ['--script: script entry 1 "503:x": durationMs must be a number of ms from 0 to 1,000,000,000,000 (got "x")']],
  [['--script', '503:0:ra=1e308'], ['--script: script entry 1 "503:0:ra=1e308": ra= (retryAfterMs) must be a number of ms from 0 to 1,000,000,000,000 (got "1e308")']],
  [['--script', '503:100000000000000000000'], ['--script: script entry 1 "503:100000000000000000000": durationMs must be a number of ms from 0 to 1,000,000,000,000 (got "100000000000000000000")']],
  [['--script', '200', '--draw', '1.5'], ['--draw must be between 0 and 1 (got "1.5")']],
  [['--script', '200', '--attempts', '0'], ['--attempts must be a positive integer or "unlimited" (got 0)']],
  [['--script', '200', '--backoff', 'jitter'], ['--backoff must be one of none, constant, exponential, full-jitter, equal-jitter, decorrelated-jitter, linear, aws-sdk-js, envoy, polly-decorrelated-v2, randomized, node-retry, random-exponential (got "jitter")']],
  [['--script', '200', '--base-ms', '50', '--cap-ms', '10'], ['--cap-ms must be >= baseMs (got 10 < 50)']],
  [['--script', '200', '--timeout-ms', '-3'], ['--timeout-ms must be > 0 (got -3)']],
  [['--script', '200', '--deadline-ms', 'soon'], ['--deadline-ms must be a number >= 0 (got "soon")']],
  [['--script', '200', '--tick-ms', '-1'], ['--tick-ms must be >= 0 (got -1)']],
  [['--script', '200', '--retry-after', 'always'], ['--retry-after must be one of ignore, honor, honor-plus-jitter, replace, clamp, pushback (got "always")']],
  [['--script', '200', '--deadline-mode', 'shared'], ['--deadline-mode must be one of propagate, fresh, none (got "shared")']],
  [['--script', 'hang'], ['--script has "hang" (or "timeout" without a duration), which never answers: set --timeout-ms or --deadline-ms']],
  [[], ['--script is required without an experiment file (e.g. --script "503:250,503:250,200:250")']],
  [['--script', '503:x', '--draw', '2', '--attempts', '0'], ['--script: script entry 1 "503:x": durationMs must be a number of ms from 0 to 1,000,000,000,000 (got "x")', '--draw must be between 0 and 1 (got "2")', '--attempts must be a positive integer or "unlimited" (got 0)']],
];

describe('bad trace flags: exit code 2 with a message naming the flag', () => {
  for (const [args, messages] of traceCases) {
    it(args.join(' ') || '(no flags)', async () => {
      const r = await cli(['trace', ...args]);
      expect(r.err).toBe(messages.map((m) => `error: ${m}\n`).join(''));
      expect(r.code).toBe(2);
    });
  }

  it('an unknown option is refused with exit code 2', async () => {
    const r = await cli(['trace', '--script', '200', '--atempts', '3']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown option '--atempts'/);
  });
});
