import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStacks } from '../../src/check/index.js';
import { checkCommand } from '../../src/cli/checkCommand.js';
import { exportCommand } from '../../src/cli/exportCommand.js';
import { sayClasses, ENVOY_CONDITIONS, HTTP_STATUS_TERMS } from '../../src/check/retryVocabulary.js';
import { isRetryable, retryOnMask, RETRY_ON_CLASSES, RETRY_ON_CLASS_INFO } from '../../src/policy/classify.js';
import { ANSWER_OUTCOMES, Outcome } from '../../src/policy/outcome.js';
import type { ScriptEntry } from '../../src/model/scenario.js';
import { traceOperation } from '../../src/model/traceOperation.js';
import type { PolicySpec } from '../../src/policy/types.js';
import { layer, scenario } from '../helpers/scenario.js';

/** The policy of the only layer a configuration file reads as. */
function imported(text: string, source: string): PolicySpec {
  const stacks = loadStacks(text, source);
  expect(stacks).toHaveLength(1);
  return stacks[0]!.layers[0]!.policy;
}

/** One GET through one layer with `policy` against a leaf that answers `script` in turn. */
function run(policy: PolicySpec, script: ScriptEntry[]) {
  const r = traceOperation(
    scenario({
      workload: { kind: 'burst', clients: 1, startMs: { dist: 'constant', value: 0 }, method: 'GET', permanentErrorFraction: 0 },
      stack: [layer('proxy', policy)],
      leaf: { kind: 'script', script },
    }),
    { seed: 1, fixedDraw: 0.5 },
  );
  return { attempts: r.attempts, reason: r.outcome, last: r.lastOutcome, answers: r.timeline.flatMap((e) => (e.event === 'outcome' && e.layer === 0 ? [e.outcome] : [])) };
}

const istio = (retryOn: string) => `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: { name: inventory }
spec:
  hosts: [inventory]
  http:
  - route: [{ destination: { host: inventory } }]
    retries: { attempts: 3, retryOn: "${retryOn}" }
`;
const envoy = (retryOn: string) => `route:
  cluster: backend
  retry_policy:
    retry_on: ${retryOn}
    num_retries: 3
`;
const grpc = (codes: string[]) => JSON.stringify({ methodConfig: [{ name: [{}], retryPolicy: { maxAttempts: 4, initialBackoff: '0.01s', maxBackoff: '0.1s', backoffMultiplier: 2, retryableStatusCodes: codes } }] });

const GATEWAY_FAILURES: ScriptEntry[] = [
  { status: 502, durationMs: 5 },
  { status: 504, durationMs: 5 },
  { status: 200, durationMs: 5 },
];

describe('the outcome vocabulary in the simulator', () => {
  it('an imported Istio 5xx policy retries a 502 and a 504; a 500,503 one does not', () => {
    const fiveXx = run(imported(istio('5xx'), 'vs.yaml'), GATEWAY_FAILURES);
    expect(fiveXx).toEqual({ attempts: 3, reason: 'success', last: '200', answers: ['502', '504', '200'] });
    const listed = run(imported(istio('500,503'), 'vs.yaml'), GATEWAY_FAILURES);
    expect(listed).toEqual({ attempts: 1, reason: 'not-retryable', last: '502', answers: ['502'] });
  });

  it('an imported Envoy gateway-error policy retries 502 and 504 but not 500', () => {
    const policy = imported(envoy('gateway-error'), 'route.yaml');
    expect(run(policy, GATEWAY_FAILURES)).toEqual({ attempts: 3, reason: 'success', last: '200', answers: ['502', '504', '200'] });
    expect(run(policy, [{ status: 500, durationMs: 5 }, { status: 200, durationMs: 5 }])).toEqual({ attempts: 1, reason: 'not-retryable', last: '500', answers: ['500'] });
  });

  it('a gRPC policy retrying UNAVAILABLE retries unavailable but not internal (nor an HTTP 503)', () => {
    const policy = imported(grpc(['UNAVAILABLE']), 'service-config.json');
    expect(policy.retryOn).toEqual(['unavailable']);
    expect(run(policy, [{ status: 'unavailable', durationMs: 5 }, { status: 200, durationMs: 5 }])).toEqual({ attempts: 2, reason: 'success', last: '200', answers: ['unavailable', '200'] });
    expect(run(policy, [{ status: 'internal', durationMs: 5 }, { status: 200, durationMs: 5 }])).toEqual({ attempts: 1, reason: 'not-retryable', last: 'internal', answers: ['internal'] });
    expect(run(policy, [{ status: 503, durationMs: 5 }, { status: 200, durationMs: 5 }]).attempts).toBe(1);
  });

  it('connection-level failures: a reset is replayed only for idempotent operations, a connect failure for every method', () => {
    const mask = retryOnMask(['reset', 'connect-failure', 'refused-stream', '502', 'resource-exhausted', 'aborted']);
    expect(isRetryable(Outcome.RESET, true, mask)).toBe(true);
    expect(isRetryable(Outcome.RESET, false, mask)).toBe(false);
    expect(isRetryable(Outcome.CONNECT_FAILURE, false, mask)).toBe(true);
    expect(isRetryable(Outcome.REFUSED_STREAM, false, mask)).toBe(true);
    expect(isRetryable(Outcome.S502, false, mask)).toBe(false);
    expect(isRetryable(Outcome.RESOURCE_EXHAUSTED, false, mask)).toBe(true);
    expect(isRetryable(Outcome.ABORTED, false, mask)).toBe(true);
    expect(isRetryable(Outcome.S504, true, mask)).toBe(false);
  });

  it('every answer has an outcome retried under exactly its own class (deadline-exceeded also under timeout)', () => {
    for (const [answer, outcome] of Object.entries(ANSWER_OUTCOMES)) {
      if (outcome === Outcome.SUCCESS) continue;
      const retriedBy = RETRY_ON_CLASSES.filter((c) => isRetryable(outcome, true, retryOnMask([c])));
      expect(retriedBy, answer).toEqual(answer === 'deadline-exceeded' ? ['timeout', 'deadline-exceeded'] : [expect.any(String)]);
      for (const c of retriedBy) expect(isRetryable(outcome, false, retryOnMask([c])), `${answer} under ${c}`).toBe(RETRY_ON_CLASS_INFO[c].idempotency === 'any');
    }
  });

  it('a fault and a policy in an experiment file can name the new classes and groups', () => {
    const [stack] = loadStacks(JSON.stringify({ layers: [{ name: 'a', policy: { retryOn: ['gateway-error', 'unavailable'] } }] }), 'stack.json');
    expect([...stack!.layers[0]!.policy.retryOn].sort()).toEqual(['502', '503', '504', 'connect-failure', 'refused-stream', 'reset', 'timeout', 'unavailable'].sort());
  });
});

describe('saying classes in a format', () => {
  it('uses the widest word that retries nothing more, and names what it cannot say', () => {
    expect(sayClasses(['500', '502', '503', '504', 'timeout', 'reset', 'connect-failure', 'refused-stream'], ENVOY_CONDITIONS)).toEqual({ terms: ['5xx'], unsaid: [] });
    expect(sayClasses(['500', '503', 'timeout'], ENVOY_CONDITIONS)).toEqual({ terms: [], unsaid: ['500', '503', 'timeout'] });
    expect(sayClasses(['500', '503', 'unavailable'], HTTP_STATUS_TERMS)).toEqual({ terms: ['500', '503'], unsaid: ['unavailable'] });
  });
});

describe('--strict on a class the model cannot retry', () => {
  const dir = mkdtempSync(join(tmpdir(), 'retrystorm-strict-'));
  writeFileSync(join(dir, 'route.yaml'), envoy('gateway-error,retriable-headers'));
  writeFileSync(join(dir, 'plain.yaml'), envoy('gateway-error'));
  const io = () => {
    const o = { out: '', err: '' };
    return { o, io: { stdout: (t: string) => (o.out += t), stderr: (t: string) => (o.err += t), cwd: dir } };
  };

  it('check --strict exits 1 naming what the file lists and the model lost; without it, the same check exits 0', () => {
    const lax = io();
    expect(checkCommand(lax.io, join(dir, 'route.yaml'), {})).toBe(0);
    expect(lax.o.err).toBe('');
    const strict = io();
    expect(checkCommand(strict.io, join(dir, 'route.yaml'), { strict: true })).toBe(1);
    expect(strict.o.err).toBe('error: retry_on retriable-headers: retries decided by response headers are not modelled. (--strict)\n');
    const clean = io();
    expect(checkCommand(clean.io, join(dir, 'plain.yaml'), { strict: true })).toBe(0);
  });

  it('export warns about the lost class, and --strict makes it an error (exit 1, nothing written)', () => {
    const lax = io();
    expect(exportCommand(lax.io, 'envoy-route', 'route.yaml', {})).toBe(0);
    expect(lax.o.err).toContain('warning: retry_on retriable-headers: retries decided by response headers are not modelled. The export cannot write it.\n');
    expect(lax.o.out).toContain('retry_on: gateway-error');
    const strict = io();
    expect(exportCommand(strict.io, 'envoy-route', 'route.yaml', { strict: true })).toBe(1);
    expect(strict.o.out).toBe('');
    expect(strict.o.err).toContain('error: retry_on retriable-headers');
  });
});
