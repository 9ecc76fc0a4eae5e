import { describe, expect, it } from 'vitest';
import { checkStack, formatCheckReport, importAwsConfig, importEnvoyRoute, importGrpcServiceConfig, loadStacks } from '../../src/check/index.js';
import { presetPolicy } from '../../src/policy/presets.js';
import { fixture, loadProblems } from './helpers.js';

/** An imported layer's policy, resolved with every default as the simulator would run it. */
function resolvedOf(text: string, source: string, options: Record<string, string> = {}) {
  const stacks = loadStacks(text, source, options);
  return stacks[0]!.layers[0]!;
}

describe('gRPC service config (gRPC A6)', () => {
  it('imports the retryPolicy, the call timeout and retryThrottling of the service-wide methodConfig', () => {
    const layer = importGrpcServiceConfig(fixture('grpc-service-config.json'), 'grpc-service-config.json');
    expect(layer.policy).toEqual({
      idempotency: 'always',
      retryAfter: 'pushback',
      totalTimeoutMs: 2000,
      maxAttempts: 4,
      backoff: { kind: 'randomized', baseMs: 100, capMs: 1000, multiplier: 2, exponentOffset: 0, randomizationFactor: 0.2 },
      retryOn: ['unavailable', 'resource-exhausted'],
      budget: { kind: 'grpc-throttle', maxTokens: 10, tokenRatio: 0.1 },
    });
    expect(layer.origin).toBe('grpc-service-config.json: methodConfig.0 (shop.v1.Inventory)');
    expect(layer.defaultName).toBe('grpc');
  });

  it('resolves to a complete policy (defaults filled in as in experiment files)', () => {
    const layer = resolvedOf(fixture('grpc-service-config.json'), 'grpc-service-config.json');
    expect(layer.policy).toEqual({
      maxAttempts: 4,
      deadlineMode: 'propagate',
      backoff: { kind: 'randomized', baseMs: 100, capMs: 1000, multiplier: 2, exponentOffset: 0, randomizationFactor: 0.2 },
      tickMs: 0,
      retryOn: ['unavailable', 'resource-exhausted'],
      idempotency: 'always',
      retryAfter: 'pushback',
      totalTimeoutMs: 2000,
      budget: [{ kind: 'grpc-throttle', maxTokens: 10, tokenRatio: 0.1 }],
    });
  });

  it('a method without a retryPolicy does not retry; the throttling still applies', () => {
    const layer = importGrpcServiceConfig(fixture('grpc-service-config.json'), 'sc.json', { service: 'shop.v1.Orders', method: 'PlaceOrder' });
    expect(layer.policy.maxAttempts).toBe(1);
    expect(layer.policy.totalTimeoutMs).toBe(5000);
    expect(layer.notes).toContain('methodConfig.1 has no retryPolicy: gRPC does not retry this method.');
  });

  it('a method of a service falls back to the service-wide entry', () => {
    const layer = importGrpcServiceConfig(fixture('grpc-service-config.json'), 'sc.json', { service: 'shop.v1.Inventory', method: 'Reserve' });
    expect(layer.policy.maxAttempts).toBe(4);
  });

  it('maxAttempts above 5 is clamped to 5 with a note, as gRPC clients do', () => {
    const text = JSON.stringify({
      methodConfig: [
        {
          name: [{}],
          retryPolicy: { maxAttempts: 7, initialBackoff: '0.5s', maxBackoff: '30s', backoffMultiplier: 1.5, retryableStatusCodes: ['unavailable', 4, 'DEADLINE_EXCEEDED', 'INTERNAL', 'CANCELLED'], perAttemptRecvTimeout: '1.5s' },
        },
      ],
    });
    const layer = importGrpcServiceConfig(text, 'sc.json');
    expect(layer.policy.maxAttempts).toBe(5);
    expect(layer.policy.retryOn).toEqual(['unavailable', 'deadline-exceeded', 'internal', 'cancelled']);
    expect(layer.policy.perAttemptTimeoutMs).toBe(1500);
    expect(layer.policy.backoff).toEqual({ kind: 'randomized', baseMs: 500, capMs: 30_000, multiplier: 1.5, exponentOffset: 0, randomizationFactor: 0.2 });
    expect(importGrpcServiceConfig(text, 'sc.json', { impl: 'js' }).policy.backoff).toEqual({
      kind: 'full-jitter',
      baseMs: 500,
      capMs: 30_000,
      multiplier: 1.5,
      exponentOffset: 0,
    });
    expect(layer.policy.budget).toBeUndefined();
    expect(layer.notes).toContain('methodConfig.0.retryPolicy.maxAttempts 7 is clamped to 5, as gRPC clients do (gRPC A6).');
    // CANCELLED is a class of its own: nothing of the list is lost.
    expect(layer.notes.filter((n) => n.includes('CANCELLED'))).toEqual([]);
  });

  it('maps a hedgingPolicy onto hedging', () => {
    const text = JSON.stringify({
      methodConfig: [{ name: [{ service: 's' }], hedgingPolicy: { maxAttempts: 3, hedgingDelay: '0.05s', nonFatalStatusCodes: ['UNAVAILABLE'] } }],
    });
    expect(importGrpcServiceConfig(text, 'sc.json').policy.hedging).toEqual({ maxAttempts: 3, hedgingDelayMs: 50, nonFatal: ['unavailable'] });
  });

  it('reads Go-style field names and durations without an integer part, as grpc-go accepts them', () => {
    const layer = importGrpcServiceConfig(fixture('grpc-go-style.json'), 'grpc-go-style.json');
    expect(layer.policy).toEqual({
      idempotency: 'always',
      retryAfter: 'pushback',
      totalTimeoutMs: 1500,
      maxAttempts: 3,
      backoff: { kind: 'randomized', baseMs: 10, capMs: 500, multiplier: 3, exponentOffset: 0, randomizationFactor: 0.2 },
      retryOn: ['unavailable'],
      budget: { kind: 'grpc-throttle', maxTokens: 20, tokenRatio: 0.5 },
    });
    expect(layer.origin).toBe('grpc-go-style.json: methodConfig.0 (shop.v1.Inventory)');
    expect(layer.notes).toEqual([
      'methodConfig.0.waitForReady true: a call waits for a ready connection instead of failing at once with UNAVAILABLE; the model has no connections, so those waits (bounded by the timeout) are not modelled.',
      'Delay of gRPC A6 as amended in August 2024 (grpc/proposal#452), which grpc-go and grpc-java implement: the n-th retry waits min(initialBackoff x multiplier^(n - 1), maxBackoff) x U(0.8, 1.2), up to 1.2 x maxBackoff; --grpc-impl js for the original random(0, ...) of grpc-js.',
      'Field names matched regardless of case, as grpc-go reads them (MethodConfig, RetryThrottling, Name, WaitForReady, Timeout, RetryPolicy, Service, MaxAttempts, InitialBackoff, MaxBackoff, BackoffMultiplier, RetryableStatusCodes, MaxTokens, TokenRatio); other implementations may want the exact names of gRPC A6.',
      'gRPC has no notion of idempotency: every listed status is retried whatever the method (idempotency "always").',
    ]);
    expect(loadStacks(fixture('grpc-go-style.json'), 'grpc-go-style.json')[0]!.layers[0]!.policy.maxAttempts).toBe(3);
  });

  it('takes the delay of the implementation it is told: grpc-js draws random(0, interval), grpc-go and grpc-java interval x U(0.8, 1.2)', () => {
    const js = importGrpcServiceConfig(fixture('grpc-service-config.json'), 'sc.json', { impl: 'js' });
    expect(js.policy.backoff).toEqual({ kind: 'full-jitter', baseMs: 100, capMs: 1000, multiplier: 2, exponentOffset: 0 });
    expect(js.notes).toContain(
      'Delay of grpc-js (--grpc-impl js), the original A6 formula: the n-th retry waits random(0, min(initialBackoff x multiplier^(n - 1), maxBackoff)).',
    );
    const java = importGrpcServiceConfig(fixture('grpc-service-config.json'), 'sc.json', { impl: 'java' });
    expect(java.policy.backoff).toEqual({ kind: 'randomized', baseMs: 100, capMs: 1000, multiplier: 2, exponentOffset: 0, randomizationFactor: 0.2 });
    expect(java.notes).toContain(
      'Delay of gRPC A6 as amended in August 2024 (grpc/proposal#452), which grpc-java implement: the n-th retry waits min(initialBackoff x multiplier^(n - 1), maxBackoff) x U(0.8, 1.2), up to 1.2 x maxBackoff.',
    );
    const stack = loadStacks(fixture('grpc-service-config.json'), 'sc.json', { grpcImpl: 'js' })[0]!;
    expect(stack.layers[0]!.policy.backoff.kind).toBe('full-jitter');
  });

  it('a mixed-case key still meets the rules of its field, named as gRPC A6 spells it', () => {
    const text = JSON.stringify({ methodConfig: [{ name: [{}], retryPolicy: { MaxAttempts: 1, InitialBackoff: '-1s', maxbackoff: '1s', BackoffMultiplier: 2, RetryableStatusCodes: ['UNAVAILABLE'], Jitter: 0.2 } }] });
    expect(loadProblems(() => importGrpcServiceConfig(text, 'sc.json'))).toEqual([
      'sc.json: methodConfig.0.retryPolicy.Jitter is not a known field',
      'sc.json: methodConfig.0.retryPolicy.maxAttempts must be an integer >= 2 (got 1)',
      'sc.json: methodConfig.0.retryPolicy.initialBackoff must be a duration > 0 like "0.25s" (got "-1s")',
    ]);
    expect(loadProblems(() => importGrpcServiceConfig(JSON.stringify({ methodConfig: [{ name: [{}], waitForReady: 'yes' }] }), 'sc.json'))).toEqual([
      'sc.json: methodConfig.0.waitForReady must be true or false (got "yes")',
    ]);
    expect(loadProblems(() => importGrpcServiceConfig(JSON.stringify({ methodConfig: [{ name: [{}], timeout: '.s' }] }), 'sc.json'))).toEqual([
      'sc.json: methodConfig.0.timeout must be a duration > 0 like "0.25s" (got ".s")',
    ]);
  });

  it('a malformed config gives one message per problem, naming the file and the field', () => {
    expect(loadProblems(() => importGrpcServiceConfig(fixture('grpc-bad.json'), 'grpc-bad.json'))).toEqual([
      'grpc-bad.json: methodConfig.0.retryPolicy.maxBackoff is required (gRPC A6: every field of a retryPolicy is)',
      'grpc-bad.json: methodConfig.0.retryPolicy.maxAttempts must be an integer >= 2 (got 1)',
      'grpc-bad.json: methodConfig.0.retryPolicy.initialBackoff must be a duration > 0 like "0.25s" (got "100ms")',
      'grpc-bad.json: methodConfig.0.retryPolicy.retryableStatusCodes.1 must be a gRPC status code such as "UNAVAILABLE" or 14 (got "NOT_A_CODE")',
      'grpc-bad.json: retryThrottling.maxTokens must be a number > 0 and <= 1000 (got 0)',
    ]);
  });

  it('invalid JSON names the file, the line and the column', () => {
    expect(loadProblems(() => importGrpcServiceConfig('{\n  "methodConfig": [,]\n}', 'sc.json'))).toEqual([
      'sc.json: invalid JSON at line 2, column 20: unexpected "," (expected a value)',
    ]);
  });

  it('several retrying method configs need a choice', () => {
    const text = JSON.stringify({
      methodConfig: [
        { name: [{ service: 'a' }], retryPolicy: { maxAttempts: 2, initialBackoff: '1s', maxBackoff: '1s', backoffMultiplier: 1, retryableStatusCodes: [14] } },
        { name: [{ service: 'b', method: 'M' }], retryPolicy: { maxAttempts: 3, initialBackoff: '1s', maxBackoff: '1s', backoffMultiplier: 1, retryableStatusCodes: [14] } },
      ],
    });
    expect(loadProblems(() => importGrpcServiceConfig(text, 'sc.json'))).toEqual([
      'sc.json: has 2 methodConfig entries with a retry or hedging policy; choose one with a service (and method): methodConfig.0 (a); methodConfig.1 (b/M)',
    ]);
    expect(importGrpcServiceConfig(text, 'sc.json', { service: 'b', method: 'M' }).policy.maxAttempts).toBe(3);
  });
});

describe('Envoy route retry_policy', () => {
  it('imports the named route of a route configuration', () => {
    const layer = importEnvoyRoute(fixture('envoy-route.yaml'), 'envoy-route.yaml', { route: 'checkout-api' });
    expect(layer.policy).toEqual({
      idempotency: 'always',
      retryAfter: 'ignore',
      maxAttempts: 3,
      perAttemptTimeoutMs: 500,
      totalTimeoutMs: 3000,
      retryOn: ['500', '502', '503', '504', 'timeout', 'reset', 'connect-failure', 'refused-stream', 'conflict'],
      backoff: { kind: 'envoy', baseMs: 50, capMs: 500, multiplier: 2, exponentOffset: 0 },
      budget: { kind: 'envoy-max-retries', maxRetries: 3 },
    });
    expect(layer.origin).toBe('envoy-route.yaml: route "checkout-api" virtual_hosts.0.routes.0.route.retry_policy');
    expect(layer.notes.some((n) => n.startsWith('retry_host_predicate (envoy.retry_host_predicates.previous_hosts)'))).toBe(true);
  });

  it('finds the only retrying route without a name', () => {
    expect(importEnvoyRoute(fixture('envoy-route.yaml'), 'envoy-route.yaml').policy.maxAttempts).toBe(3);
  });

  it("a bare retry_policy takes Envoy's defaults: 1 retry, 25 ms .. 250 ms, 15 s route timeout", () => {
    const layer = resolvedOf('retry_policy:\n  retry_on: gateway-error\n', 'route.yaml');
    expect(layer.policy).toMatchObject({
      maxAttempts: 2,
      totalTimeoutMs: 15_000,
      retryOn: ['502', '503', '504', 'timeout', 'reset', 'connect-failure', 'refused-stream'],
      backoff: { kind: 'envoy', baseMs: 25, capMs: 250 },
      retryAfter: 'ignore',
      idempotency: 'always',
      budget: [{ kind: 'envoy-max-retries', maxRetries: 3 }],
    });
    expect(layer.policy.perAttemptTimeoutMs).toBeUndefined();
  });

  it('retriable-status-codes, rate-limited back-off and the route cluster\'s retry budget in the same file', () => {
    const yaml = [
      'route:',
      '  cluster: payments',
      '  timeout: 0s',
      '  retry_policy:',
      '    retry_on: retriable-status-codes,envoy-ratelimited',
      '    retriable_status_codes: [503, 504, 429, 400, 418]',
      '    num_retries: "4"',
      '    rate_limited_retry_back_off:',
      '      reset_headers: [{ name: Retry-After, format: SECONDS }]',
      '      max_interval: 60s',
      'cluster:',
      '  name: payments',
      '  connect_timeout: 1s',
      '  circuit_breakers:',
      '    thresholds:',
      '      - priority: DEFAULT',
      '        retry_budget: { budget_percent: { value: 25.0 }, min_retry_concurrency: 5 }',
    ].join('\n');
    const layer = importEnvoyRoute(yaml, 'route.yaml');
    expect(layer.policy.maxAttempts).toBe(5);
    expect(layer.policy.totalTimeoutMs).toBeUndefined();
    expect(layer.policy.retryOn).toEqual(['429', '503', '504', '400']);
    expect(layer.policy.retryAfter).toBe('replace');
    expect(layer.policy.budget).toEqual({ kind: 'envoy-retry-budget', budgetPercent: 25, minRetryConcurrency: 5 });
    expect(layer.notes).toContain('lost: retriable_status_codes: 418 is never answered by a leaf of the model and is left out.');
  });

  it('a malformed retry_policy gives one message per problem, naming the file and the field', () => {
    expect(loadProblems(() => importEnvoyRoute(fixture('envoy-route-bad.yaml'), 'envoy-route.yaml'))).toEqual([
      'envoy-route.yaml: retry_policy.num_retries must be a non-negative integer (got "three")',
      'envoy-route.yaml: retry_policy.per_try_timeout must be a duration like "0.25s" (got "250ms")',
      'envoy-route.yaml: retry_policy.retry_on has an unknown condition "gateway-eror" (did you mean "gateway-error"?)',
      'envoy-route.yaml: retry_policy.retry_back_off.max_interval must be >= base_interval (got 0.5s < 1s)',
    ]);
  });

  it('unknown fields, invalid YAML and a missing route are named', () => {
    expect(loadProblems(() => importEnvoyRoute('retry_policy:\n  num_retry: 3\n', 'r.yaml'))).toEqual([
      'r.yaml: retry_policy.num_retry is not a known field (did you mean "num_retries"?)',
    ]);
    expect(loadProblems(() => importEnvoyRoute('retry_policy: [1, 2\nx: 1\n', 'r.yaml'))[0]).toMatch(/^r\.yaml: invalid YAML at line \d+, column \d+: /);
    expect(loadProblems(() => importEnvoyRoute(fixture('envoy-route.yaml'), 'envoy-route.yaml', { route: 'checkout' }))).toEqual([
      'envoy-route.yaml: has no route named "checkout" with a retry_policy (named: checkout-api)',
    ]);
    expect(loadProblems(() => importEnvoyRoute('route: { cluster: x }\n', 'r.yaml'))).toEqual([
      'r.yaml: has no retry_policy (give an Envoy route, route action, virtual host or route configuration that sets one)',
    ]);
  });
});

describe('AWS SDK shared config profile', () => {
  it('standard mode for the AWS SDK for JavaScript v3: the aws-sdk-js-standard preset', () => {
    const layer = importAwsConfig(fixture('aws-config.ini'), 'aws-config.ini');
    expect(layer.policy).toEqual({
      maxAttempts: 3,
      backoff: { kind: 'aws-sdk-js', baseMs: 100, capMs: 20_000, multiplier: 2, exponentOffset: 0, throttledBaseMs: 500 },
      retryAfter: 'clamp',
      retryOn: ['timeout', '500', '503', '429'],
      idempotency: 'always',
      budget: { kind: 'token-bucket', capacity: 500, retryCost: 5, timeoutCost: 10, serverErrorCost: 10, throttlingCost: 5, noRetryIncrement: 1 },
    });
    expect(layer.origin).toBe('aws-config.ini: [default] retry_mode standard, max_attempts 3 (AWS SDK for JavaScript v3)');
  });

  it('adaptive mode with max_attempts 5 (nested s3 settings skipped)', () => {
    const layer = importAwsConfig(fixture('aws-config.ini'), 'aws-config.ini', { profile: 'batch' });
    expect(layer.policy.maxAttempts).toBe(5);
    expect(layer.policy.admission?.kind).toBe('aws-adaptive');
    expect(layer.policy.budget).toMatchObject({ kind: 'token-bucket', capacity: 500 });
  });

  it('botocore: standard is botocore-standard; legacy is botocore-legacy: 5 attempts, uncapped, no quota; each attempt 60 s at most', () => {
    const standard = importAwsConfig(fixture('aws-config.ini'), 'aws-config.ini', { sdk: 'python' });
    expect(standard.policy.backoff).toEqual({ kind: 'full-jitter', baseMs: 1000, capMs: 20_000, multiplier: 2, exponentOffset: 0 });
    expect(standard.policy.perAttemptTimeoutMs).toBe(60_000);
    const legacy = importAwsConfig(fixture('aws-config.ini'), 'aws-config.ini', { profile: 'legacy-tool', sdk: 'python' });
    expect(legacy.policy).toEqual({
      maxAttempts: 5,
      perAttemptTimeoutMs: 60_000,
      backoff: { kind: 'full-jitter', baseMs: 1000, capMs: 'none', multiplier: 2, exponentOffset: 0 },
      retryAfter: 'ignore',
      retryOn: ['timeout', '500', '503', '429'],
      idempotency: 'always',
    });
    expect(legacy.policy).toEqual(presetPolicy('botocore-legacy'));
    const adaptive = importAwsConfig(fixture('aws-config.ini'), 'aws-config.ini', { profile: 'batch', sdk: 'python' });
    expect(adaptive.policy.admission?.kind).toBe('aws-adaptive');
    expect(adaptive.policy.backoff?.kind).toBe('full-jitter');
  });

  it('without retry_mode the SDK default applies, with a note: standard for JS v3, botocore-legacy for botocore', () => {
    const layer = importAwsConfig('[profile p]\nregion = eu-west-1\n', 'config', { profile: 'p' });
    expect(layer.policy.maxAttempts).toBe(3);
    expect(layer.notes[0]).toBe('[profile p] sets no retry_mode: the AWS SDK for JavaScript v3 default is standard.');
    const python = importAwsConfig('[profile p]\nregion = eu-west-1\n', 'config', { profile: 'p', sdk: 'python' });
    expect(python.policy).toEqual(presetPolicy('botocore-legacy'));
    expect(python.origin).toBe('config: [profile p] retry_mode legacy, max_attempts 5 (botocore (boto3))');
    expect(python.notes[0]).toBe('[profile p] sets no retry_mode: the botocore (boto3) default is legacy.');
  });

  it('a malformed profile gives one message per setting, naming the file, the section and the setting', () => {
    expect(loadProblems(() => importAwsConfig(fixture('aws-config-bad.ini'), 'aws-config.ini', { profile: 'prod' }))).toEqual([
      'aws-config.ini: [profile prod] retry_mode must be one of standard, adaptive, legacy (got "fast")',
      'aws-config.ini: [profile prod] max_attempts must be a positive integer (got "three")',
    ]);
    expect(loadProblems(() => importAwsConfig(fixture('aws-config.ini'), 'aws-config.ini', { profile: 'bach' }))).toEqual([
      'aws-config.ini: has no profile "bach" (profiles: default, batch, legacy-tool; did you mean "batch"?)',
    ]);
    expect(loadProblems(() => importAwsConfig('[default]\nthis is not a setting\n', 'config'))).toEqual([
      'config: line 2 must be a [section] or a "key = value" setting (got "this is not a setting")',
    ]);
  });
});

describe('a gRPC hedging layer in the report', () => {
  it('is described as hedging, with no backoff, in the layer table and the first waits', () => {
    const [stack] = loadStacks(fixture('grpc-hedging.json'), 'grpc-hedging.json');
    expect(stack!.layers[0]!.policy.hedging).toEqual({ maxAttempts: 3, hedgingDelayMs: 50, nonFatal: ['unavailable'] });
    const text = formatCheckReport(checkStack(stack!));
    const row = text.split('\n').find((l) => l.startsWith('grpc '))!;
    expect(row).toMatch(/^grpc +3 hedged +.* hedging every 50 ms +pushback +always +none$/);
    expect(text).not.toContain('full-jitter');
    expect(text).toContain('  grpc: hedges every 50 ms');
  });
});
