import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importAwsConfig, importGrpcServiceConfig, loadStacks } from '../../src/check/index.js';
import { envoyBackoff } from '../../src/check/envoyRetryClasses.js';
import { exportPolicy, readBack, type ExportFormat } from '../../src/check/exportPolicy.js';
import { ENVOY_CONDITIONS, GRPC_STATUS_TERMS, HTTP_STATUS_TERMS, LINKERD_HTTP_TERMS, RESILIENCE4J_EXCEPTIONS, type RetryTerm } from '../../src/check/retryVocabulary.js';
import type { PolicyInput } from '../../src/policy/presets.js';
import type { PolicySpec, RetryOnClass } from '../../src/policy/types.js';

/** A policy as written in an experiment file, resolved with every default. */
function resolve(policy: PolicyInput): PolicySpec {
  return loadStacks(JSON.stringify({ layers: [{ policy }] }), 'p.json')[0]!.layers[0]!.policy;
}

/** The classes a format can say: any union of its words' classes (retryVocabulary.ts, the table its importer and exporter read). */
const sayable = (terms: readonly RetryTerm[], minLength = 0) =>
  fc.subarray(terms.filter((t) => t.classes.length > 0 && t.note === undefined), { minLength }).map((ts) => [...new Set(ts.flatMap((t) => t.classes))] as RetryOnClass[]);
const ENVOY_WORDS = [...ENVOY_CONDITIONS, ...HTTP_STATUS_TERMS];
const classes = (minLength = 0) => sayable(HTTP_STATUS_TERMS, minLength);
const ms = (min: number, max: number) => fc.integer({ min, max });
const optional = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as PolicyInput;
const envoyBackoffOf = fc.tuple(ms(1, 2000), ms(0, 20_000)).map(([base, extra]) => envoyBackoff(base, base + extra));

/** The policies each format can express, one arbitrary per format. */
const EXPRESSIBLE: Record<ExportFormat, fc.Arbitrary<PolicyInput>> = {
  'envoy-route': fc.record({
    maxAttempts: ms(1, 10),
    perAttemptTimeoutMs: optional(ms(1, 10_000)),
    totalTimeoutMs: optional(ms(1, 60_000)),
    retryOn: sayable(ENVOY_WORDS),
    backoff: envoyBackoffOf,
    retryAfter: fc.constantFrom('ignore' as const, 'replace' as const),
  }).map((p) => defined({ ...p, idempotency: 'always', budget: { kind: 'envoy-max-retries', maxRetries: 3 } })),
  'grpc-service-config': fc.record({
    maxAttempts: ms(2, 5),
    initialMs: ms(1, 5000),
    extraMs: ms(0, 30_000),
    multiplier: fc.integer({ min: 100, max: 400 }).map((x) => x / 100),
    retryOn: sayable(GRPC_STATUS_TERMS, 1),
    perAttemptTimeoutMs: optional(ms(1, 10_000)),
    totalTimeoutMs: optional(ms(1, 60_000)),
    throttle: optional(fc.record({ maxTokens: ms(1, 1000), tokenRatio: fc.integer({ min: 1, max: 1000 }).map((x) => x / 1000) })),
  }).map(({ initialMs, extraMs, multiplier, throttle, ...p }) => {
    // The back-off exactly as the gRPC importer reads these three fields (its formula, whichever it is).
    const probe = { methodConfig: [{ name: [{}], retryPolicy: { maxAttempts: 2, initialBackoff: `${initialMs / 1000}s`, maxBackoff: `${(initialMs + extraMs) / 1000}s`, backoffMultiplier: multiplier, retryableStatusCodes: ['UNAVAILABLE'] } }] };
    const backoff = importGrpcServiceConfig(JSON.stringify(probe), 'probe.json').policy.backoff;
    return defined({ ...p, backoff, idempotency: 'always', retryAfter: 'pushback', ...(throttle !== undefined ? { budget: { kind: 'grpc-throttle', ...throttle } } : {}) });
  }),
  istio: fc.record({
    maxAttempts: ms(1, 10),
    perAttemptTimeoutMs: optional(ms(1, 10_000)),
    totalTimeoutMs: optional(ms(1, 60_000)),
    retryOn: sayable(ENVOY_WORDS, 1),
    backoff: ms(1, 2000).map((b) => envoyBackoff(b)),
    maxRetries: optional(ms(0, 1000)),
  }).map(({ maxRetries, ...p }) => defined({ ...p, idempotency: 'always', retryAfter: 'ignore', ...(maxRetries !== undefined ? { budget: { kind: 'envoy-max-retries', maxRetries } } : {}) })),
  linkerd: fc.record({
    maxAttempts: ms(1, 10),
    perAttemptTimeoutMs: optional(ms(1, 10_000)),
    totalTimeoutMs: optional(ms(1, 60_000)),
    retryOn: sayable(LINKERD_HTTP_TERMS),
  }).map((p) => defined({ ...p, retryOn: p.perAttemptTimeoutMs !== undefined && !p.retryOn.includes('timeout') ? [...p.retryOn, 'timeout'] : p.retryOn, backoff: { kind: 'none', baseMs: 0, capMs: 0 }, idempotency: 'always', retryAfter: 'ignore' })),
  'gateway-api': fc.record({
    maxAttempts: ms(2, 10),
    perAttemptTimeoutMs: optional(ms(1, 10_000)),
    totalTimeoutMs: optional(ms(1, 60_000)),
    retryOn: classes(),
    backoff: ms(1, 2000).map((b) => envoyBackoff(b)),
    budget: optional(fc.record({ percent: ms(0, 100), ttlS: ms(1, 60), count: ms(0, 100) })),
  }).map(({ budget, ...p }) =>
    defined({ ...p, idempotency: 'always', retryAfter: 'ignore', ...(budget !== undefined ? { budget: { kind: 'finagle', percentCanRetry: budget.percent / 100, ttlMs: budget.ttlS * 1000, minRetriesPerSec: budget.count } } : {}) }),
  ),
  'aws-config': fc.record({ mode: fc.constantFrom('standard', 'adaptive'), attempts: ms(1, 10) }).map(({ mode, attempts }) => importAwsConfig(`[default]\nretry_mode = ${mode}\nmax_attempts = ${attempts}\n`, 'c.ini').policy),
  resilience4j: fc.record({
    maxAttempts: ms(1, 10),
    base: ms(0, 5000),
    kind: fc.constantFrom('constant', 'exponential', 'randomized', 'randomized-exponential'),
    multiplier: fc.constantFrom(1.5, 2, 3),
    cap: optional(ms(0, 60_000)),
    factor: fc.integer({ min: 0, max: 99 }).map((x) => x / 100),
    retryOn: fc.option(sayable(RESILIENCE4J_EXCEPTIONS, 1), { nil: undefined }),
  }).map(({ maxAttempts, base, kind, multiplier, cap, factor, retryOn }) => {
    const capMs = cap === undefined ? ('none' as const) : base + cap;
    const backoff =
      kind === 'constant'
        ? { kind: 'constant' as const, baseMs: base, capMs: 'none' as const }
        : kind === 'exponential'
          ? { kind: 'exponential' as const, baseMs: base, capMs, multiplier, exponentOffset: 0 }
          : kind === 'randomized'
            ? { kind: 'randomized' as const, baseMs: base, capMs: 'none' as const, multiplier: 1, exponentOffset: 0, randomizationFactor: factor }
            : { kind: 'randomized' as const, baseMs: base, capMs, multiplier, exponentOffset: 0, randomizationFactor: factor };
    return defined({ maxAttempts, backoff, ...(retryOn !== undefined ? { retryOn } : { preset: 'resilience4j' }), idempotency: 'always', retryAfter: 'ignore' });
  }),
};

describe('import(export(policy)) gives the policy back for every field the format can express', () => {
  for (const [format, arbitrary] of Object.entries(EXPRESSIBLE) as Array<[ExportFormat, fc.Arbitrary<PolicyInput>]>) {
    it(format, () => {
      fc.assert(
        fc.property(arbitrary, (input) => {
          const policy = resolve(input);
          const result = exportPolicy(policy, format, { name: 'svc' });
          expect(result.warnings).toEqual([]);
          const back = readBack(result.text, format, result.extension, format === 'aws-config' ? { profile: 'svc' } : {});
          // retryOn is a set: its order is not a field of the configuration.
          expect({ ...back, retryOn: [...back.retryOn].sort() }).toEqual({ ...policy, retryOn: [...policy.retryOn].sort() });
        }),
        { numRuns: 40, seed: 22 },
      );
    });
  }
});

describe('what a format cannot express is a warning', () => {
  it('full jitter, a fresh deadline, HTTP idempotency, Retry-After and a gRPC throttle in Istio', () => {
    const policy = resolve({ maxAttempts: 3, backoff: { kind: 'full-jitter', baseMs: 100, capMs: 2000 }, deadlineMode: 'fresh', perAttemptTimeoutMs: 500, budget: { kind: 'grpc-throttle', maxTokens: 10, tokenRatio: 0.1 } });
    expect(exportPolicy(policy, 'istio', { name: 'svc' }).warnings).toEqual([
      'deadlineMode: fresh cannot be expressed in istio; it reads back as propagate',
      'backoff: full-jitter 100 ms..2 s cannot be expressed in istio; it reads back as envoy U[0, min(100 ms x 2^(r-1), 1 s)) whole ms',
      // A per-try timeout is retried only under 5xx or gateway-error, which would retry 502, 504 and resets too.
      'retryOn: istio cannot say timeout: the written configuration does not retry timeout (no answer before the per-attempt timeout); it reads back as conflict 429 500 503',
      'idempotency: http cannot be expressed in istio; it reads back as always',
      'retryAfter: honor cannot be expressed in istio; it reads back as ignore',
      'budget: grpc-throttle 10/0.1 cannot be expressed in istio; it reads back as none',
    ]);
  });

  it('a deadline where Linkerd has a total timeout, a budget where resilience4j has none', () => {
    const policy = resolve({ maxAttempts: 2, totalTimeoutMs: 1000, budget: { kind: 'sre-ratio', ratio: 0.1 }, backoff: { kind: 'constant', baseMs: 100 }, idempotency: 'always' });
    const warnings = exportPolicy(policy, 'resilience4j', { name: 'svc' }).warnings;
    expect(warnings.some((w) => w.startsWith('totalTimeoutMs: 1000 cannot be expressed in resilience4j'))).toBe(true);
    expect(warnings.some((w) => w.startsWith('budget: '))).toBe(true);
  });

  it('a longest Retry-After other than the default, which no format writes, is a warning in every format', () => {
    const policy = resolve({ maxAttempts: 2, maxRetryAfterMs: 600_000, idempotency: 'always' });
    for (const format of Object.keys(EXPRESSIBLE) as ExportFormat[]) {
      const warnings = exportPolicy(policy, format, { name: 'svc' }).warnings;
      expect({ format, warned: warnings.some((w) => w.startsWith('maxRetryAfterMs: 600000 cannot be expressed in ' + format)) }).toEqual({ format, warned: true });
    }
  });
});
