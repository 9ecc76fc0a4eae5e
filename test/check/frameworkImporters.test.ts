import { describe, expect, it } from 'vitest';
import { importAwsEnv, importIngressNginx, importPolly, importResilience4j, loadStacks } from '../../src/check/index.js';
import { springDurationMs } from '../../src/check/importResilience4j.js';
import { timeSpanMs } from '../../src/check/importPolly.js';
import { fixture, loadProblems, stackOf } from './helpers.js';
import { RETRY_ON_CLASSES } from '../../src/policy/classify.js';

const mesh = (name: string) => fixture(`mesh/${name}`);
const NO_BACKOFF = { kind: 'none', baseMs: 0, capMs: 0 };

describe('ingress-nginx proxy-next-upstream', () => {
  it('Ingress annotations override the controller ConfigMap key by key', () => {
    const layer = importIngressNginx(mesh('ingress-nginx.yaml'), 'ingress.yaml');
    expect(layer.policy).toEqual({
      idempotency: 'http',
      retryAfter: 'ignore',
      backoff: NO_BACKOFF,
      perAttemptTimeoutMs: 60_000,
      retryOn: ['connect-failure', 'reset', 'timeout', '502', '503', '429'],
      maxAttempts: 4,
      maxElapsedMs: 5000,
    });
    expect(layer.origin).toBe('ingress.yaml: Ingress "shop" (document 1) over ConfigMap "ingress-nginx-controller" (document 2) proxy-next-upstream');
    // error is connection failures and resets, classes of their own: nothing is lost.
    expect(layer.notes.filter((n) => n.startsWith('lost: '))).toEqual([]);
  });

  it("defaults: error timeout, 3 tries, no time limit; non_idempotent replays POST; off disables", () => {
    const ingress = (annotations: Record<string, string>) => JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'i', annotations } });
    const plain = importIngressNginx(ingress({}), 'i.json');
    expect([plain.policy.maxAttempts, plain.policy.retryOn, plain.policy.maxElapsedMs, plain.policy.idempotency]).toEqual([3, ['connect-failure', 'reset', 'timeout'], undefined, 'http']);
    const unsafe = importIngressNginx(ingress({ 'nginx.ingress.kubernetes.io/proxy-next-upstream': 'http_500 non_idempotent', 'nginx.ingress.kubernetes.io/proxy-next-upstream-tries': '0' }), 'i.json');
    expect([unsafe.policy.maxAttempts, unsafe.policy.retryOn, unsafe.policy.idempotency]).toEqual(['unlimited', ['500'], 'always']);
    const off = importIngressNginx(ingress({ 'nginx.ingress.kubernetes.io/proxy-next-upstream': 'off' }), 'i.json');
    expect(off.policy.maxAttempts).toBe(1);
  });

  it('malformed annotations give one message per problem', () => {
    expect(loadProblems(() => importIngressNginx(mesh('ingress-nginx-bad.yaml'), 'bad.yaml'))).toEqual([
      'bad.yaml: Ingress "bad" metadata.annotations.nginx.ingress.kubernetes.io/proxy-next-upstream-trys is not a known annotation (did you mean "nginx.ingress.kubernetes.io/proxy-next-upstream-tries"?)',
      'bad.yaml: Ingress "bad" metadata.annotations.nginx.ingress.kubernetes.io/proxy-next-upstream has an unknown condition "http_5xx" (did you mean "http_500"?)',
      'bad.yaml: Ingress "bad" metadata.annotations.nginx.ingress.kubernetes.io/proxy-next-upstream-tries must be a non-negative integer (tries, the first included; 0 = unlimited) (got "-1")',
      'bad.yaml: Ingress "bad" metadata.annotations.nginx.ingress.kubernetes.io/proxy-next-upstream-timeout must be a number of seconds >= 0 (0 = no limit) (got "5s")',
    ]);
  });
});

describe('resilience4j (Spring Boot)', () => {
  it('an instance inherits configs.default; randomized exponential waits are capped before the jitter', () => {
    const layer = importResilience4j(mesh('resilience4j.yml'), 'application.yml', { instance: 'inventory' });
    expect(layer.policy).toEqual({
      maxAttempts: 5,
      backoff: { kind: 'randomized', baseMs: 200, capMs: 5000, multiplier: 2, exponentOffset: 0, randomizationFactor: 0.3 },
      retryAfter: 'ignore',
      retryOn: ['502', '503', '504', 'timeout'],
      idempotency: 'always',
    });
    expect(layer.origin).toBe('application.yml: resilience4j.retry.instances.inventory (base configs.default)');
    expect(layer.notes).toContain("lost: retryExceptions: com.example.InventoryBusyException does not say which failure it is; map it with retryOn in the layer's policy.");
  });

  it('baseConfig, an ISO-8601 waitDuration, and a fixed wait', () => {
    const layer = importResilience4j(mesh('resilience4j.yml'), 'application.yml', { instance: 'pricing' });
    expect([layer.policy.maxAttempts, layer.policy.backoff]).toEqual([2, { kind: 'constant', baseMs: 1000, capMs: 'none' }]);
  });

  it('application.properties with indexed lists; exponential backoff takes the 1.5 multiplier by default', () => {
    const layer = importResilience4j(mesh('resilience4j.properties'), 'application.properties');
    expect(layer.policy).toEqual({
      maxAttempts: 4,
      backoff: { kind: 'exponential', baseMs: 750, capMs: 'none', multiplier: 1.5, exponentOffset: 0 },
      retryAfter: 'ignore',
      retryOn: ['connect-failure', 'reset', 'timeout', '429'],
      idempotency: 'always',
    });
  });

  it("an empty instance gets resilience4j's defaults: 3 attempts, 500 ms fixed, every failure", () => {
    const layer = importResilience4j('resilience4j.retry.instances.a.failAfterMaxAttempts=true\n', 'a.properties');
    expect([layer.policy.maxAttempts, layer.policy.backoff]).toEqual([3, { kind: 'constant', baseMs: 500, capMs: 'none' }]);
    expect(layer.policy.retryOn).toEqual([...RETRY_ON_CLASSES]);
  });

  it('Spring durations', () => {
    expect([springDurationMs('500ms'), springDurationMs('2s'), springDurationMs('1m'), springDurationMs('PT0.5S'), springDurationMs('PT1M30S'), springDurationMs(250), springDurationMs('250')]).toEqual([500, 2000, 60_000, 500, 90_000, 250, 250]);
    expect([springDurationMs('5 seconds'), springDurationMs('PT'), springDurationMs(-1)]).toEqual([undefined, undefined, undefined]);
  });

  it('malformed properties give one message per problem', () => {
    expect(loadProblems(() => importResilience4j(mesh('resilience4j-bad.yml'), 'bad.yml'))).toEqual([
      'bad.yml: resilience4j.retry.instances.bad.maxAttemps is not a known retry property (did you mean "maxAttempts"?)',
      'bad.yml: resilience4j.retry.instances.bad.maxAttempts must be a positive integer (attempts, the first included) (got 0)',
      'bad.yml: resilience4j.retry.instances.bad.waitDuration must be a duration like "500ms", "2s" or "PT0.5S" (got "5 seconds")',
      'bad.yml: resilience4j.retry.instances.bad.enableExponentialBackoff must be true or false (got "yes please")',
      'bad.yml: resilience4j.retry.instances.bad.exponentialBackoffMultiplier must be a number >= 1 (got 0.5)',
      'bad.yml: resilience4j.retry.instances.bad.randomizedWaitFactor must be a number >= 0 and < 1 (got 1.5)',
    ]);
    expect(loadProblems(() => importResilience4j(mesh('resilience4j.yml'), 'application.yml'))).toEqual(['application.yml: has 2 retry instances; choose one by name: inventory, pricing']);
  });
});

describe('Polly / Microsoft.Extensions.Http.Resilience appsettings.json', () => {
  it('the standard pipeline: Retry, AttemptTimeout and TotalRequestTimeout', () => {
    const layer = importPolly(mesh('polly-appsettings.json'), 'appsettings.json', { instance: 'HttpClients:Catalog:Resilience' });
    expect(layer.policy).toEqual({
      maxAttempts: 6,
      backoff: { kind: 'polly-decorrelated-v2', baseMs: 200, capMs: 5000, multiplier: 2, exponentOffset: 0 },
      retryAfter: 'ignore',
      retryOn: ['timeout', '500', '503', '429'],
      idempotency: 'always',
      perAttemptTimeoutMs: 2000,
      totalTimeoutMs: 15_000,
    });
    expect(layer.notes).toContain('CircuitBreaker (a breaker on the failure ratio of all calls) is not modelled.');
  });

  it('case-insensitive keys; a constant delay with jitter is +-25%; the pipeline timeouts default to 10 s and 30 s', () => {
    const layer = importPolly(mesh('polly-appsettings.json'), 'appsettings.json', { instance: 'Payments' });
    expect(layer.policy).toMatchObject({
      maxAttempts: 3,
      backoff: { kind: 'randomized', baseMs: 1000, capMs: 'none', multiplier: 1, exponentOffset: 0, randomizationFactor: 0.25 },
      retryAfter: 'replace',
      perAttemptTimeoutMs: 10_000,
      totalTimeoutMs: 30_000,
    });
  });

  it('retry options on their own take the HTTP strategy defaults: 3 retries, 2 s, exponential with jitter; no timeouts', () => {
    const layer = importPolly('{ "Retry": { "MaxRetryAttempts": 3 }, "Other": {} }'.replace('"Retry": { "MaxRetryAttempts": 3 }', '"MyRetry": { "MaxRetryAttempts": 3 }'), 'a.json');
    expect(layer.policy.maxAttempts).toBe(4);
    expect(layer.policy.backoff).toEqual({ kind: 'polly-decorrelated-v2', baseMs: 2000, capMs: 'none', multiplier: 2, exponentOffset: 0 });
    expect(layer.policy.perAttemptTimeoutMs).toBeUndefined();
    const linear = importPolly('{ "R": { "BackoffType": "Linear", "UseJitter": false, "Delay": "00:00:01" } }', 'a.json');
    expect(linear.policy.backoff).toEqual({ kind: 'linear', baseMs: 1000, capMs: 'none' });
    const exp = importPolly('{ "R": { "BackoffType": "Exponential", "UseJitter": false, "MaxDelay": "00:01:00" } }', 'a.json');
    expect(exp.policy.backoff).toEqual({ kind: 'exponential', baseMs: 2000, capMs: 60_000, multiplier: 2, exponentOffset: 0 });
  });

  it('TimeSpans', () => {
    expect([timeSpanMs('00:00:02'), timeSpanMs('00:00:00.500'), timeSpanMs('1.00:00:00'), timeSpanMs('00:01:30.25')]).toEqual([2000, 500, 86_400_000, 90_250]);
    expect([timeSpanMs('2s'), timeSpanMs('00:61:00'), timeSpanMs(2)]).toEqual([undefined, undefined, undefined]);
  });

  it('malformed options give one message per problem', () => {
    expect(loadProblems(() => importPolly(mesh('polly-bad.json'), 'bad.json'))).toEqual([
      'bad.json: Retry.MaxDelays is not a known field (did you mean "MaxDelay"?)',
      'bad.json: Retry.MaxRetryAttempts must be a non-negative integer (retries) (got -1)',
      'bad.json: Retry.Delay must be a TimeSpan like "00:00:02" or "00:00:00.500" (got "2s")',
      'bad.json: Retry.BackoffType must be one of Constant, Linear, Exponential (got "Exponentail")',
      'bad.json: Retry.UseJitter must be true or false (got "sometimes")',
    ]);
  });
});

describe('AWS environment variables', () => {
  it('AWS_RETRY_MODE and AWS_MAX_ATTEMPTS alone', () => {
    const layer = importAwsEnv(mesh('aws.env'), 'aws.env');
    expect(layer.policy.maxAttempts).toBe(6);
    expect(layer.policy.admission?.kind).toBe('aws-adaptive');
    expect(layer.origin).toBe('aws.env: AWS_RETRY_MODE=adaptive AWS_MAX_ATTEMPTS=6 retry_mode adaptive, max_attempts 6 (AWS SDK for JavaScript v3)');
  });

  it('override the profile one setting at a time, as the SDKs resolve them', () => {
    const config = { text: fixture('aws-config.ini'), source: 'aws-config.ini', profile: 'batch' };
    const attemptsOnly = importAwsEnv('AWS_MAX_ATTEMPTS=2\n', '--env', { config });
    expect(attemptsOnly.policy.maxAttempts).toBe(2);
    expect(attemptsOnly.policy.admission?.kind).toBe('aws-adaptive');
    expect(attemptsOnly.notes[0]).toBe('AWS_MAX_ATTEMPTS=2 overrides the profile, as the SDKs resolve them (environment first).');
    const modeOnly = importAwsEnv('AWS_RETRY_MODE=standard\n', '--env', { config });
    expect([modeOnly.policy.maxAttempts, modeOnly.policy.admission]).toEqual([5, undefined]);
    const legacy = importAwsEnv('AWS_RETRY_MODE=legacy', '--env', { config: { ...config, profile: 'default' }, sdk: 'python' });
    expect([legacy.policy.maxAttempts, legacy.policy.budget]).toEqual([3, undefined]);
  });

  it('bad values name the line', () => {
    expect(loadProblems(() => importAwsEnv('AWS_RETRY_MODE=fast\nAWS_MAX_ATTEMPTS=0\n', 'aws.env'))).toEqual([
      'aws.env: line 1 AWS_RETRY_MODE must be one of standard, adaptive, legacy (got "fast")',
      'aws.env: line 2 AWS_MAX_ATTEMPTS must be a positive integer (got "0")',
    ]);
    expect(loadProblems(() => importAwsEnv('not a setting\n', 'aws.env'))).toEqual(['aws.env: line 1 must be a KEY=value setting (got "not a setting")']);
  });
});

describe('framework files in check', () => {
  it('files on their own are recognised: .properties, application.yml, appsettings.json, .env, an Ingress', () => {
    const layer = (text: string, source: string, options = {}) => loadStacks(text, source, options)[0]?.layers[0];
    expect(layer(mesh('resilience4j.properties'), 'application.properties')?.name).toBe('resilience4j');
    expect(layer(mesh('resilience4j.yml'), 'application.yml', { instance: 'pricing' })?.policy.maxAttempts).toBe(2);
    expect(layer(mesh('polly-appsettings.json'), 'appsettings.json', { instance: 'Payments' })?.name).toBe('polly');
    expect(layer(mesh('aws.env'), 'aws.env')?.policy.maxAttempts).toBe(6);
    expect(layer(mesh('ingress-nginx.yaml'), 'ingress.yaml')?.name).toBe('ingress-nginx');
    expect(layer(fixture('aws-config.ini'), 'aws-config.ini', { env: ['AWS_MAX_ATTEMPTS=7'] })?.policy.maxAttempts).toBe(7);
  });

  it('a stack file imports each of them, aws-env over a config file', () => {
    const stack = stackOf({
      layers: [
        { import: { format: 'resilience4j', file: 'mesh/resilience4j.yml', instance: 'inventory' } },
        { import: { format: 'polly', file: 'mesh/polly-appsettings.json', instance: 'HttpClients:Catalog:Resilience' } },
        { import: { format: 'aws-env', file: 'mesh/aws.env', config: 'aws-config.ini', profile: 'batch', sdk: 'python' } },
        { import: { format: 'ingress-nginx', file: 'mesh/ingress-nginx.yaml', route: 'shop' } },
      ],
    });
    expect(stack.layers.map((l) => [l.name, l.policy.maxAttempts])).toEqual([
      ['resilience4j', 5],
      ['polly', 6],
      ['aws-sdk', 6],
      ['ingress-nginx', 4],
    ]);
    expect(stack.layers[2]?.origin).toBe('mesh/aws.env: AWS_RETRY_MODE=adaptive AWS_MAX_ATTEMPTS=6 retry_mode adaptive, max_attempts 6 (botocore (boto3)) over aws-config.ini [profile batch]');
  });
});
