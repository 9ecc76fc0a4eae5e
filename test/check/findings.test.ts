import { describe, expect, it } from 'vitest';
import { checkStack, FINDING_CODES, type Finding, type FindingCode } from '../../src/check/index.js';
import { stackOf } from './helpers.js';

/** A layer that does everything right: 3 attempts, full jitter capped, a per-attempt timeout, HTTP idempotency, Retry-After honoured, a 10% budget. */
const GOOD = {
  maxAttempts: 3,
  perAttemptTimeoutMs: 1000,
  backoff: { kind: 'full-jitter', baseMs: 100, capMs: 2000 },
  retryAfter: 'honor',
  idempotency: 'http',
  budget: { kind: 'sre-ratio', ratio: 0.1 },
};

/** A stack file document: one layer per policy override (merged over GOOD), an operation deadline of 5 s unless given. */
function doc(layers: Array<Record<string, unknown>>, top: Record<string, unknown> = { deadlineMs: 5000 }) {
  return { ...top, layers: layers.map((over, i) => ({ name: `l${i}`, policy: { ...GOOD, ...over } })) };
}

function findings(d: object): Finding[] {
  return checkStack(stackOf(d)).findings;
}

function codes(d: object): FindingCode[] {
  return findings(d).map((f) => f.code);
}

function only(d: object, code: FindingCode): Finding {
  const found = findings(d).filter((f) => f.code === code);
  expect(found, `${code} once in ${JSON.stringify(findings(d).map((f) => f.code))}`).toHaveLength(1);
  return found[0]!;
}

describe('a well-configured stack has no findings', () => {
  it('one layer', () => {
    expect(codes(doc([{}]))).toEqual([]);
  });
  it('two layers where only the bottom one retries, each with a budget and timeouts that nest', () => {
    expect(codes(doc([{ maxAttempts: 1, perAttemptTimeoutMs: 4000 }, {}]))).toEqual([]);
  });
});

describe('finding codes are stable', () => {
  it('RS001 to RS015, each with a title', () => {
    expect(Object.keys(FINDING_CODES)).toEqual(Array.from({ length: 15 }, (_, i) => `RS${String(i + 1).padStart(3, '0')}`));
  });
  it('every finding has a severity, a layer, one sentence on the risk and one on the fix', () => {
    const d = { layers: [{ name: 'app', preset: 'p-retry' }, { name: 'sdk', policy: { preset: 'aws-sdk-js-standard' } }, { name: 'proxy', preset: 'envoy' }] };
    const all = findings(d);
    expect(all.length).toBeGreaterThan(5);
    for (const f of all) {
      expect(['error', 'warning', 'info']).toContain(f.severity);
      expect(f.title).toBe(FINDING_CODES[f.code]);
      expect(f.layer).not.toBe('');
      expect(f.risk).toMatch(/^[A-Za-z0-9].*\.$/);
      expect(f.fix).toMatch(/^[A-Z].*\.$/);
    }
    const rank = { error: 0, warning: 1, info: 2 };
    expect(all.map((f) => rank[f.severity])).toEqual([...all.map((f) => rank[f.severity])].sort());
  });
});

describe('each finding: a stack that triggers it and one that does not', () => {
  it('RS001 retries at several layers, with the product; an error from 10 leaf calls per operation', () => {
    const f = only(doc([{ perAttemptTimeoutMs: 4000 }, {}]), 'RS001');
    expect(f.severity).toBe('warning');
    expect(f.layers).toEqual([0, 1]);
    expect(f.risk).toContain('up to 9 leaf calls (3 x 3)');
    const e = only(doc([{ maxAttempts: 4, perAttemptTimeoutMs: 4000 }, {}]), 'RS001');
    expect(e.severity).toBe('error');
    expect(e.risk).toContain('up to 12 leaf calls (4 x 3)');
    expect(codes(doc([{ maxAttempts: 1, perAttemptTimeoutMs: 4000 }, {}]))).not.toContain('RS001');
    // Different classes at different layers do not multiply.
    expect(codes(doc([{ retryOn: ['429'], perAttemptTimeoutMs: 4000 }, { retryOn: ['503'] }]))).not.toContain('RS001');
  });

  it('RS001 names the deadline-bounded count beside the nominal product', () => {
    const f = only(doc([{ maxAttempts: 5, perAttemptTimeoutMs: 4000, backoff: { kind: 'exponential', baseMs: 1000, capMs: 1000 } }, { maxAttempts: 5, backoff: { kind: 'constant', baseMs: 1000 } }], { deadlineMs: 2500 }), 'RS001');
    expect(f.risk).toContain('up to 3 leaf calls (5 x 5 = 25 without the deadlines)');
  });

  it('RS002 no jitter', () => {
    const f = only(doc([{ backoff: { kind: 'exponential', baseMs: 100, capMs: 2000 } }]), 'RS002');
    expect(f.risk).toBe('l0 waits the same 100 ms, 200 ms on every client: clients that failed together retry together, in synchronized waves.');
    expect(codes(doc([{ backoff: { kind: 'node-retry', baseMs: 100, capMs: 2000, randomize: true } }]))).not.toContain('RS002');
    expect(codes(doc([{}]))).not.toContain('RS002');
  });

  it('RS003 no backoff', () => {
    expect(only(doc([{ backoff: { kind: 'none', baseMs: 0, capMs: 0 } }]), 'RS003').severity).toBe('warning');
    expect(codes(doc([{ backoff: { kind: 'none', baseMs: 0, capMs: 0 } }]))).not.toContain('RS002');
    expect(codes(doc([{}]))).not.toContain('RS003');
  });

  it('RS004 exponential without a cap: a warning when the last wait passes a minute, else info', () => {
    const f = only(doc([{ maxAttempts: 12, backoff: { kind: 'full-jitter', baseMs: 100, capMs: 'none' } }], { deadlineMs: 600_000 }), 'RS004');
    expect(f.severity).toBe('warning');
    expect(f.risk).toContain('the last retry waits up to 102 s');
    expect(only(doc([{ backoff: { kind: 'full-jitter', baseMs: 100, capMs: 'none' } }]), 'RS004').severity).toBe('info');
    expect(codes(doc([{ backoff: { kind: 'constant', baseMs: 100, capMs: 'none' } }]))).not.toContain('RS004');
    expect(codes(doc([{}]))).not.toContain('RS004');
  });

  it('RS004 also for the kinds that grow without a multiplier: linear and Envoy, uncapped', () => {
    const linear = only(doc([{ maxAttempts: 5, backoff: { kind: 'linear', baseMs: 100, capMs: 'none' } }]), 'RS004');
    expect(linear.severity).toBe('info');
    expect(linear.risk).toContain('the last retry waits up to 400 ms');
    const envoy = only(doc([{ maxAttempts: 14, backoff: { kind: 'envoy', baseMs: 25, capMs: 'none' } }], { deadlineMs: 600_000 }), 'RS004');
    expect(envoy.severity).toBe('warning');
    expect(envoy.risk).toContain('the last retry waits up to 102 s');
    expect(codes(doc([{ maxAttempts: 5, backoff: { kind: 'linear', baseMs: 100, capMs: 1000 } }]))).not.toContain('RS004');
    expect(codes(doc([{ maxAttempts: 5, backoff: { kind: 'linear', baseMs: 0, capMs: 'none' } }]))).not.toContain('RS004');
  });

  it('RS005 no attempt cap: an error when nothing stops the retries, a warning naming the time limit and the budget\'s cap when they do', () => {
    const forever = only({ layers: [{ name: 'l0', policy: { ...GOOD, maxAttempts: 'unlimited', perAttemptTimeoutMs: undefined, budget: [] } }] }, 'RS005');
    expect(forever.severity).toBe('error');
    expect(forever.risk).toContain('retries forever');
    const budgeted = only({ layers: [{ name: 'l0', policy: { ...GOOD, maxAttempts: 'unlimited', perAttemptTimeoutMs: undefined } }] }, 'RS005');
    expect(budgeted.severity).toBe('warning');
    expect(budgeted.risk).toBe(
      'l0 retries without an attempt cap: its budget caps a long failure (sre-ratio: retries stay under 10% of first tries, at most 1.1 attempts per call); until then it makes as many attempts as fit, and no time limit ends a call.',
    );
    const timed = only(doc([{ maxAttempts: 'unlimited', budget: [] }]), 'RS005');
    expect(timed.severity).toBe('warning');
    expect(timed.risk).toBe('l0 retries without an attempt cap: the operation deadline (5 s) ends each call; until then it makes as many attempts as fit.');
    expect(codes(doc([{}]))).not.toContain('RS005');
  });

  it('RS006 no total time limit: an error when an operation can hang forever, else a warning', () => {
    const hang = only({ layers: [{ name: 'l0', policy: { ...GOOD, perAttemptTimeoutMs: undefined } }] }, 'RS006');
    expect(hang.severity).toBe('error');
    expect(hang.layer).toBe('stack');
    expect(hang.risk).toContain('l0 has no per-attempt timeout');
    const slow = only(doc([{}], {}), 'RS006');
    expect(slow.severity).toBe('warning');
    expect(slow.risk).toContain('at worst it lasts 3.3 s');
    expect(codes(doc([{}]))).not.toContain('RS006');
    expect(codes(doc([{ totalTimeoutMs: 5000 }], {}))).not.toContain('RS006');
  });

  it('RS007 a fresh timeout per attempt, or a deadline ignored', () => {
    expect(only(doc([{ deadlineMode: 'fresh' }]), 'RS007').risk).toContain('fresh 1 s timeout');
    expect(only(doc([{}, { deadlineMode: 'none' }]), 'RS007').layers).toEqual([1]);
    expect(codes(doc([{}]))).not.toContain('RS007');
    // Without any deadline reaching it, "none" changes nothing.
    expect(codes(doc([{ perAttemptTimeoutMs: undefined, deadlineMode: 'none' }], {}))).not.toContain('RS007');
  });

  it("RS008 a deadline shorter than one attempt's timeout (the operation's, or the layer above's per-attempt timeout)", () => {
    const f = only(doc([{}], { deadlineMs: 800 }), 'RS008');
    expect(f.risk).toBe(
      "l0's per-attempt timeout (1 s) is longer than the 800 ms it is given (the operation deadline): a hung attempt uses up the whole time, so a retry after a timeout never happens.",
    );
    const nested = only(doc([{ maxAttempts: 1, perAttemptTimeoutMs: 500 }, {}]), 'RS008');
    expect(nested.layers).toEqual([1]);
    expect(nested.risk).toContain("(l0's per-attempt timeout)");
    expect(codes(doc([{}]))).not.toContain('RS008');
  });

  it('RS009 retrying permanent errors', () => {
    const f = only(doc([{ retryOn: ['503', '400', '404'] }]), 'RS009');
    expect(f.risk).toContain('l0 retries 400 and 404');
    expect(f.risk).toContain('(3 leaf calls per bad request at worst)');
    expect(codes(doc([{}]))).not.toContain('RS009');
  });

  it('RS010 replaying non-idempotent requests: a warning, an error when the operation is a POST', () => {
    expect(only(doc([{ idempotency: 'always' }]), 'RS010').severity).toBe('warning');
    expect(only(doc([{ idempotency: 'always' }], { deadlineMs: 5000, method: 'POST' }), 'RS010').severity).toBe('error');
    expect(codes(doc([{}], { deadlineMs: 5000, method: 'POST' }))).not.toContain('RS010');
    // Replaying only refusals (429) is safe for every method.
    expect(codes(doc([{ idempotency: 'always', retryOn: ['429'] }]))).not.toContain('RS010');
  });

  it('RS011 Retry-After ignored or shortened', () => {
    expect(only(doc([{ retryAfter: 'ignore' }]), 'RS011').risk).toContain('ignores Retry-After on 503 and 429');
    expect(only(doc([{ retryAfter: 'clamp' }]), 'RS011').risk).toContain('shortens Retry-After');
    expect(codes(doc([{}]))).not.toContain('RS011');
    expect(codes(doc([{ retryAfter: 'ignore', retryOn: ['timeout', '500'] }]))).not.toContain('RS011');
  });

  it('RS012 no retry budget anywhere in the stack', () => {
    const f = only(doc([{ budget: [] }]), 'RS012');
    expect(f.layer).toBe('stack');
    expect(f.risk).toContain('up to 3x the load');
    expect(codes(doc([{}]))).not.toContain('RS012');
    expect(codes(doc([{ maxAttempts: 1, budget: [] }]))).not.toContain('RS012');
  });

  it('RS013 a timer tick coarser than the jitter range', () => {
    const f = only(doc([{ tickMs: 100, backoff: { kind: 'full-jitter', baseMs: 50, capMs: 2000 } }]), 'RS013');
    expect(f.risk).toContain('0 ms to 50 ms');
    expect(codes(doc([{ tickMs: 1 }]))).not.toContain('RS013');
    expect(codes(doc([{}]))).not.toContain('RS013');
  });

  it('RS014 per-request limits only: a retrying layer without a budget when another has one', () => {
    const f = only(doc([{ budget: [], perAttemptTimeoutMs: 4000 }, {}]), 'RS014');
    expect(f.layers).toEqual([0]);
    expect(codes(doc([{ perAttemptTimeoutMs: 4000 }, {}]))).not.toContain('RS014');
    expect(codes(doc([{ budget: [], maxAttempts: 1, perAttemptTimeoutMs: 4000 }, {}]))).not.toContain('RS014');
    // With no budget anywhere, RS012 says it once for the stack.
    expect(codes(doc([{ budget: [] }]))).not.toContain('RS014');
  });

  it('RS015 retrying the refusals of an admission control below', () => {
    const f = only(doc([{ retryOn: ['503', 'throttled'], perAttemptTimeoutMs: 4000 }, { admission: { kind: 'sre-adaptive' } }]), 'RS015');
    expect(f.layers).toEqual([0, 1]);
    expect(codes(doc([{ perAttemptTimeoutMs: 4000 }, { admission: { kind: 'sre-adaptive' } }]))).not.toContain('RS015');
    expect(codes(doc([{ retryOn: ['503', 'throttled'] }]))).not.toContain('RS015');
  });
});
