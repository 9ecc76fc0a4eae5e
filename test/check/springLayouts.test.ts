import { describe, expect, it } from 'vitest';
import { IMPORT_FORMATS, importResilience4j, loadStacks } from '../../src/check/index.js';
import { CHECK_FORMATS } from '../../src/check/checkFormats.js';
import { MAX_SPRING_LIST_INDEX } from '../../src/check/springConfig.js';
import { MAX_LISTED_NAMES } from '../../src/policy/schema/describeValue.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, tempDir } from '../cli/helpers.js';
import { fixture, loadProblems } from './helpers.js';

const spring = (name: string) => fixture(`spring/${name}`);
const DEMO = 'resilience4j-spring-boot2-demo-application.yml';
/** What the demo's and the layouts' configs.default retry: HttpServerErrorException, TimeoutException and IOException as the importer maps them. */
const SERVER_ERRORS_AND_TIMEOUTS = ['500', '502', '503', '504', 'timeout', 'connect-failure', 'reset'];

describe("resilience4j's Spring Boot 2 demo application.yml (flat dotted keys)", () => {
  it('check reads it, and each instance gets its policy through baseConfig', () => {
    for (const instance of ['backendA', 'backendB']) {
      const stacks = loadStacks(spring(DEMO), 'application.yml', { instance });
      expect(stacks).toHaveLength(1);
      const layer = stacks[0]?.layers[0];
      expect(layer?.name).toBe('resilience4j');
      expect(layer?.policy.maxAttempts).toBe(3);
      expect(layer?.policy.backoff).toMatchObject({ kind: 'constant', baseMs: 100 });
      expect(layer?.policy.retryOn).toEqual(SERVER_ERRORS_AND_TIMEOUTS);
      // resilience4j.timelimiter.configs.default.timeoutDuration: 2s, through the TimeLimiter instance's baseConfig.
      expect(layer?.policy.perAttemptTimeoutMs).toBe(2000);
      expect(layer?.origin).toBe(`application.yml: resilience4j.retry.instances.${instance} (base configs.default)`);
      expect(layer?.notes).toContain('ignoreExceptions: io.github.robwin.exception.BusinessException does not say which failure it is and is not applied.');
      expect(layer?.notes.some((n) => n.startsWith(`resilience4j.circuitbreaker.instances.${instance}`))).toBe(true);
      expect(layer?.notes.some((n) => n.startsWith(`resilience4j.bulkhead.instances.${instance}`))).toBe(true);
    }
  });
});

describe('retrystorm check on the demo file', () => {
  it('reads the instance it is given and exits 0; a file of no format exits 2 naming every format', async () => {
    const ok = await cli(['check', `test/check/fixtures/spring/${DEMO}`, '--instance', 'backendA', '--json']);
    expect([ok.code, ok.err]).toEqual([0, '']);
    const report = JSON.parse(ok.out) as { stacks: Array<{ layers: Array<{ policy: { maxAttempts: number; perAttemptTimeoutMs: number } }> }> };
    expect(report.stacks[0]?.layers[0]?.policy).toMatchObject({ maxAttempts: 3, perAttemptTimeoutMs: 2000 });
    const other = join(tempDir(), 'application.yml');
    writeFileSync(other, 'server:\n  port: 9080\n');
    const bad = await cli(['check', other]);
    expect(bad.code).toBe(2);
    for (const description of Object.values(CHECK_FORMATS)) expect(bad.err).toContain(description);
    expect(bad.err).not.toMatch(/\n\s+at /);
  });
});

describe('one resilience4j configuration as nested YAML, dotted YAML keys and application.properties', () => {
  const files = [
    ['layouts-nested.yml', 'application.yml'],
    ['layouts-flat.yml', 'application.yml'],
    ['layouts.properties', 'application.properties'],
  ] as const;
  const EXPECTED = {
    // baseConfig: default.
    backendA: { maxAttempts: 3, backoff: { kind: 'constant', baseMs: 100, capMs: 'none' }, retryAfter: 'ignore', retryOn: SERVER_ERRORS_AND_TIMEOUTS, idempotency: 'always' },
    // baseConfig: slow, which names none and so inherits configs.default; the instance's own fields win.
    backendB: {
      maxAttempts: 5,
      backoff: { kind: 'randomized', baseMs: 2000, capMs: 10_000, multiplier: 3, exponentOffset: 0, randomizationFactor: 0.25 },
      retryAfter: 'ignore',
      retryOn: SERVER_ERRORS_AND_TIMEOUTS,
      idempotency: 'always',
      perAttemptTimeoutMs: 3000,
    },
    // No baseConfig: configs.default, its retryExceptions replaced by the instance's own.
    backendC: { maxAttempts: 4, backoff: { kind: 'constant', baseMs: 500, capMs: 'none' }, retryAfter: 'ignore', retryOn: ['429'], idempotency: 'always' },
  };
  const ORIGINS = { backendA: ' (base configs.default)', backendB: ' (base configs.slow, configs.default)', backendC: ' (base configs.default)' };

  for (const [file, source] of files) {
    it(`${file}: every instance's policy`, () => {
      for (const [instance, policy] of Object.entries(EXPECTED)) {
        const layer = importResilience4j(spring(file), source, { instance });
        expect(layer.policy).toEqual(policy);
        expect(layer.origin).toBe(`${source}: resilience4j.retry.instances.${instance}${ORIGINS[instance as keyof typeof ORIGINS]}`);
      }
    });
  }

  it('check recognises each layout on its own', () => {
    for (const [file, source] of files) expect(loadStacks(spring(file), source, { instance: 'backendB' })[0]?.layers[0]?.policy.maxAttempts).toBe(5);
  });
});

describe('what Spring reads besides', () => {
  it('.properties as java.util.Properties reads it: continued lines, a blank or ":" separator, escapes', () => {
    const text = [
      'resilience4j.retry.instances.a.retryExceptions = java.io.IOException,\\',
      '    org.springframework.web.client.HttpClientErrorException$TooManyRequests',
      'resilience4j.retry.instances.a.maxAttempts 4',
      'resilience4j.retry.instances.a.wait\\-duration: 2s',
      '',
    ].join('\n');
    const layer = importResilience4j(text, 'application.properties');
    expect([layer.policy.maxAttempts, layer.policy.backoff, layer.policy.retryOn]).toEqual([4, { kind: 'constant', baseMs: 2000, capMs: 'none' }, ['connect-failure', 'reset', 'timeout', '429']]);
  });

  it('an instance written with nothing of its own inherits configs.default', () => {
    const text = 'resilience4j.retry:\n  configs:\n    default: { maxAttempts: 7 }\n  instances:\n    a:\n';
    const layer = importResilience4j(text, 'application.yml');
    expect([layer.policy.maxAttempts, layer.origin]).toEqual([7, 'application.yml: resilience4j.retry.instances.a (base configs.default)']);
  });

  it('a multi-document application.yml: documents without a profile are read, the later winning; profile documents are noted', () => {
    const text = [
      'resilience4j.retry.instances.a.maxAttempts: 3',
      'resilience4j.retry.instances.a.waitDuration: 1s',
      '---',
      'resilience4j.retry.instances.a.maxAttempts: 4',
      '---',
      'spring.config.activate.on-profile: prod',
      'resilience4j.retry.instances.a.maxAttempts: 9',
      '',
    ].join('\n');
    const layer = importResilience4j(text, 'application.yml');
    expect([layer.policy.maxAttempts, layer.policy.backoff]).toEqual([4, { kind: 'constant', baseMs: 1000, capMs: 'none' }]);
    expect(layer.notes).toContain(
      'resilience4j.retry.instances.a.maxAttempts is given twice (document 1: resilience4j.retry.instances.a.maxAttempts and document 2: resilience4j.retry.instances.a.maxAttempts): Spring keeps the last one (document 2: resilience4j.retry.instances.a.maxAttempts).',
    );
    expect(layer.notes).toContain('document 3 (spring.config.activate.on-profile: "prod") applies only with that profile or platform active and is not read; the documents without a condition are, the later winning, as Spring merges them.');
  });

  it('a key given twice keeps the last value, as Spring does, and says so', () => {
    const text = 'resilience4j.retry.instances.a.maxAttempts=2\nresilience4j.retry.instances.a.maxAttempts=6\n';
    const layer = importResilience4j(text, 'application.properties');
    expect(layer.policy.maxAttempts).toBe(6);
    expect(layer.notes).toContain('resilience4j.retry.instances.a.maxAttempts is given twice (line 1 and line 2): Spring keeps the last one (line 2).');
    const items = importResilience4j('resilience4j.retry.instances.a.retryExceptions[0]=java.io.IOException\nresilience4j.retry.instances.a.retryExceptions[1]=x.Y\nresilience4j.retry.instances.a.retryExceptions[0]=java.util.concurrent.TimeoutException\n', 'a.properties');
    expect(items.notes).toContain('resilience4j.retry.instances.a.retryExceptions[0] is given twice (line 1 and line 3): Spring keeps the last one (line 3).');
  });

  it('keys given twice are noted one by one up to a limit, the rest counted', () => {
    const known = Array.from({ length: MAX_LISTED_NAMES + 5 }, (_, i) => `resilience4j.retry.instances.a${i}.maxAttempts=2\nresilience4j.retry.instances.a${i}.maxAttempts=3`).join('\n');
    const notes = importResilience4j(known, 'a.properties', { instance: 'a0' }).notes.filter((n) => n.includes('given twice'));
    expect(notes).toHaveLength(MAX_LISTED_NAMES + 1);
    expect(notes[MAX_LISTED_NAMES]).toBe('5 more keys are given twice; Spring keeps the last of each.');
  });
});

describe('baseConfig errors and list indexes', () => {
  it('a baseConfig naming no config is an error naming it', () => {
    const text = 'resilience4j.retry.configs.default.maxAttempts=2\nresilience4j.retry.instances.a.baseConfig=missing\n';
    expect(loadProblems(() => importResilience4j(text, 'app.properties'))).toEqual([
      'app.properties: resilience4j.retry.instances.a.baseConfig names the base config "missing", which resilience4j.retry.configs does not have (configs: default)',
    ]);
    // A config's missing base, met from two instances and the chosen one: once.
    const viaConfig = ['resilience4j.retry.configs.slow.baseConfig=gone', 'resilience4j.retry.instances.a.baseConfig=slow', 'resilience4j.retry.instances.b.baseConfig=slow'].join('\n');
    expect(loadProblems(() => importResilience4j(viaConfig, 'app.properties', { instance: 'a' }))).toEqual([
      'app.properties: resilience4j.retry.configs.slow.baseConfig names the base config "gone", which resilience4j.retry.configs does not have (configs: slow)',
    ]);
  });

  it('a cycle of baseConfigs is an error, once however many instances lead into it', () => {
    const lines = ['resilience4j.retry.configs.one.baseConfig=two', 'resilience4j.retry.configs.two.baseConfig=one', 'resilience4j.retry.instances.a.baseConfig=one', 'resilience4j.retry.instances.b.baseConfig=two'];
    expect(loadProblems(() => importResilience4j(lines.join('\n'), 'app.properties', { instance: 'a' }))).toEqual([
      'app.properties: resilience4j.retry.configs.one.baseConfig makes a cycle of base configs (configs.one -> configs.two -> configs.one): resilience4j cannot resolve it',
    ]);
    const self = 'resilience4j.retry.configs.default.baseConfig=default\nresilience4j.retry.instances.a.maxAttempts=2\n';
    expect(loadProblems(() => importResilience4j(self, 'app.properties'))).toEqual([
      'app.properties: resilience4j.retry.configs.default.baseConfig makes a cycle of base configs (configs.default -> configs.default): resilience4j cannot resolve it',
    ]);
  });

  it('a list index above the limit is refused without building the list', () => {
    const huge = 'resilience4j.retry.instances.a.retryExceptions[999999999]=java.io.IOException\n';
    expect(loadProblems(() => importResilience4j(huge, 'app.properties'))).toEqual([
      `app.properties: line 1 has a list index above ${MAX_SPRING_LIST_INDEX} (the highest a list here may have) (got "resilience4j.retry.instances.a.retryExceptions[999999999]")`,
    ]);
    const yaml = `resilience4j.retry.instances.a.retryExceptions[${MAX_SPRING_LIST_INDEX + 1}]: java.io.IOException\n`;
    expect(loadProblems(() => importResilience4j(yaml, 'app.yml'))).toEqual([
      'app.yml: resilience4j.retry.instances.a.retryExceptions[1000] has a list index above 999 (the highest a list here may have) (got [1000])',
    ]);
    const top = `resilience4j.retry.instances.a.retryExceptions[${MAX_SPRING_LIST_INDEX}]=java.io.IOException\n`;
    expect(importResilience4j(top, 'app.properties').policy.retryOn).toEqual(['connect-failure', 'reset', 'timeout']);
  });
});

describe('a file check cannot read', () => {
  it('gets an error listing every format check reads', () => {
    const formats = Object.keys(CHECK_FORMATS);
    expect(formats).toEqual(expect.arrayContaining([...IMPORT_FORMATS, 'stack-file', 'experiment']));
    for (const [text, source] of [['{ "hello": 1 }', 's.json'], ['just some words', 'notes.txt']] as const) {
      const [message] = loadProblems(() => loadStacks(text, source));
      for (const description of Object.values(CHECK_FORMATS)) expect(message).toContain(description);
      for (const named of ['resilience4j', 'Istio', 'Linkerd', 'Polly', 'gRPC', 'Envoy Gateway', 'ingress-nginx', 'AWS shared config']) expect(message).toContain(named);
    }
  });
});
