import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckInputError, checkStack, FINDING_CODES, formatCheckReport, loadStacks, type CheckStack, type FindingCode } from '../../src/check/index.js';
import { FORMAT_FIXES, LINKERD_ANNOTATION_FIXES, SERVICE_PROFILE_FIXES, type FormatFixes } from '../../src/check/formatFixes.js';
import { fixture, FIXTURES, fixtureReader, stackOf } from './helpers.js';
import { RETRY_ON_CLASS_INFO } from '../../src/policy/classify.js';

/** The findings of a file checked on its own, as `retrystorm check <file>` reads it. */
function findingsOfFile(text: string, source: string, method: 'GET' | 'POST' = 'GET') {
  const stacks = loadStacks(text, source, { method });
  expect(stacks).toHaveLength(1);
  return checkStack(stacks[0] as CheckStack).findings.map(({ code, severity, layer, risk, fix }) => ({ code, severity, layer, risk, fix }));
}

const SP_NO_BACKOFF = SERVICE_PROFILE_FIXES.RS003;
const SP_NO_CAP = SERVICE_PROFILE_FIXES.RS005;
const SP_NO_RETRY_AFTER = SERVICE_PROFILE_FIXES.RS011;

describe('a Linkerd ServiceProfile, in its own terms', () => {
  it('a GET route: no replay finding, the route timeout and the budget\'s cap bound the uncapped retries, fixes a ServiceProfile can write', () => {
    expect(findingsOfFile(fixture('mesh/linkerd-serviceprofile.yaml'), 'sp.yaml')).toEqual([
      {
        code: 'RS003',
        severity: 'warning',
        layer: 'linkerd',
        risk: 'linkerd retries at once, with no wait: a dependency that just failed gets the retries in the same instant, with no time to recover.',
        fix: SP_NO_BACKOFF,
      },
      {
        code: 'RS005',
        severity: 'warning',
        layer: 'linkerd',
        risk: 'linkerd retries without an attempt cap: its total timeout (2 s) ends each call and its budget caps a long failure (finagle: retries <= 10% of requests (1.1 attempts per call), plus a reserve of 5 retries/s per instance); until then it makes as many attempts as fit.',
        fix: SP_NO_CAP,
      },
      {
        code: 'RS011',
        severity: 'warning',
        layer: 'linkerd',
        risk: 'linkerd ignores Retry-After on 503: when an overloaded server asks its callers to come back later, they come back after their own backoff.',
        fix: SP_NO_RETRY_AFTER,
      },
    ]);
  });

  it("a route matching any method, with Linkerd's defaults (10 s timeout, 20% and 10/s budget), checked for a POST", () => {
    const text = 'apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata: { name: s }\nspec:\n  routes:\n    - { name: r, condition: { pathRegex: /a }, isRetryable: true }\n';
    expect(findingsOfFile(text, 'sp.yaml', 'POST').map((f) => [f.code, f.severity, f.risk, f.fix])).toEqual([
      [
        'RS010',
        'error',
        'linkerd replays requests whatever their method after a 500, a 502, a 503 and a 504: a POST (this operation) may already have taken effect when its attempt failed, and the retry does it again.',
        'Set "isRetryable: true" only on routes whose condition matches idempotent requests (e.g. "condition: { method: GET, pathRegex: ... }"), and remove it from the others.',
      ],
      ['RS003', 'warning', 'linkerd retries at once, with no wait: a dependency that just failed gets the retries in the same instant, with no time to recover.', SP_NO_BACKOFF],
      [
        'RS005',
        'warning',
        'linkerd retries without an attempt cap: its total timeout (10 s) ends each call and its budget caps a long failure (finagle: retries <= 20% of requests (1.2 attempts per call), plus a reserve of 10 retries/s per instance); until then it makes as many attempts as fit.',
        SP_NO_CAP,
      ],
      ['RS011', 'warning', 'linkerd ignores Retry-After on 503: when an overloaded server asks its callers to come back later, they come back after their own backoff.', SP_NO_RETRY_AFTER],
    ]);
  });

  it('the closed form names the uncapped attempts the budget caps, with no empty slot', () => {
    const [stack] = loadStacks(fixture('mesh/linkerd-serviceprofile.yaml'), 'sp.yaml');
    const text = formatCheckReport(checkStack(stack as CheckStack));
    expect(text).toContain('here it caps unlimited attempts per call at 1.1');
    expect(text).not.toContain('no cap attempts');
  });
});

describe("an Istio route on Istio's default retry policy", () => {
  it('since Istio 1.24 the default retries no HTTP status, only connection failures and refused streams: the missing time limit and the missing budget are found', () => {
    const text = 'apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: { name: ratings }\nspec:\n  hosts: [ratings]\n  http:\n    - route: [{ destination: { host: ratings } }]\n';
    expect(findingsOfFile(text, 'vs.yaml')).toEqual([
      {
        code: 'RS006',
        severity: 'error',
        layer: 'stack',
        risk: "Nothing bounds an operation's time: no deadline, and istio has no per-attempt timeout, so an attempt against a server that never answers waits forever.",
        fix: 'Give the route a timeout and each attempt one: "timeout: 10s" and "retries: { perTryTimeout: 2s }".',
      },
      // The default retries connection failures and refused streams (connect-failure, refused-stream), with no budget.
      {
        code: 'RS012',
        severity: 'warning',
        layer: 'stack',
        risk: 'No layer has a retry budget: while the dependency fails, the stack keeps sending several times the load on it, for as long as the failure lasts.',
        fix: 'Limit the retries in flight with a DestinationRule: "trafficPolicy: { connectionPool: { http: { maxRetries: 3 } } }".',
      },
    ]);
  });
});

/** The instance to read of the fixtures with several. */
const INSTANCES: Record<string, string> = { 'mesh/resilience4j.yml': 'inventory', 'mesh/polly-appsettings.json': 'HttpClients:Payments' };

describe('a layer imported from a configuration takes its format\'s fixes', () => {
  it('on its own, and through a stack file\'s imports', () => {
    const files: Array<[string, FormatFixes | undefined]> = [
      ['mesh/istio-virtualservice.yaml', FORMAT_FIXES.istio],
      ['mesh/linkerd-serviceprofile.yaml', SERVICE_PROFILE_FIXES],
      ['mesh/linkerd-annotations.yaml', LINKERD_ANNOTATION_FIXES],
      ['mesh/gateway-api-httproute.yaml', FORMAT_FIXES['gateway-api']],
      ['mesh/envoy-gateway-btp.yaml', FORMAT_FIXES['envoy-gateway']],
      ['mesh/ingress-nginx.yaml', FORMAT_FIXES['ingress-nginx']],
      ['mesh/resilience4j.yml', FORMAT_FIXES.resilience4j],
      ['mesh/polly-appsettings.json', FORMAT_FIXES.polly],
      ['mesh/aws.env', FORMAT_FIXES['aws-env']],
      ['aws-config.ini', FORMAT_FIXES['aws-config']],
      ['envoy-route.yaml', FORMAT_FIXES['envoy-route']],
      ['grpc-service-config.json', FORMAT_FIXES['grpc-service-config']],
    ];
    for (const [file, fixes] of files) {
      expect(fixes, file).toBeDefined();
      const stacks = loadStacks(fixture(file), file, { readImport: fixtureReader, ...(INSTANCES[file] !== undefined ? { instance: INSTANCES[file] } : {}) });
      for (const stack of stacks) expect(stack.layers.map((l) => l.fixes), file).toEqual(stack.layers.map(() => fixes));
    }
    const [three] = loadStacks(fixture('three-layers.yaml'), 'three-layers.yaml', { readImport: fixtureReader });
    expect(three!.layers.map((l) => l.fixes)).toEqual([undefined, FORMAT_FIXES['aws-config'], FORMAT_FIXES['envoy-route']]);
  });

  it('ingress-nginx has no wait between tries: its RS003 fix says so instead of naming a backoff', () => {
    const [stack] = loadStacks(fixture('mesh/ingress-nginx.yaml'), 'ingress.yaml');
    const rs003 = checkStack(stack as CheckStack).findings.find((f) => f.code === 'RS003');
    expect(rs003?.fix).toBe(`nginx tries the next server at once, so the format cannot express this fix: keep "nginx.ingress.kubernetes.io/proxy-next-upstream-tries: '2'".`);
  });
});

/** Doubled words, empty slots and values that leaked into a sentence. */
const BAD_TEXT: Array<[string, RegExp]> = [
  ['a doubled word', /\b([A-Za-z]+) \1\b/i],
  ['an empty pair of brackets', /\(\s*\)|\[\s*\]|"\s*"/],
  ['a space before punctuation', / [,.;:](?=\s|$)/],
  ['two spaces in a sentence', /\S {2}\S/],
  ['undefined, NaN, null or an object', /\bundefined\b|\bNaN\b|\bnull\b|\[object /],
  ['a cap of nothing', /\bno cap attempts\b|\bcaps no cap\b|\bcaps? (?:unlimited|no cap) at\b(?! \d)/],
  ['a sentence ending in a preposition', /\b(?:at|of|on|to|after|from|by|with)[.;]/],
];

function badParts(text: string): string[] {
  return BAD_TEXT.filter(([, re]) => re.test(text)).map(([what]) => `${what} in ${JSON.stringify(text)}`);
}

/** Stacks that, together, fire every finding (each as the findings tests fire it). */
const GOOD = { maxAttempts: 3, perAttemptTimeoutMs: 1000, backoff: { kind: 'full-jitter', baseMs: 100, capMs: 2000 }, retryAfter: 'honor', idempotency: 'http', budget: { kind: 'sre-ratio', ratio: 0.1 } };
const doc = (layers: object[], top: object = { deadlineMs: 5000 }) => ({ ...top, layers: layers.map((over, i) => ({ name: `l${i}`, policy: { ...GOOD, ...over } })) });
const FIRING: object[] = [
  doc([{ maxAttempts: 4, perAttemptTimeoutMs: 4000, budget: [] }, {}]),
  doc([{ backoff: { kind: 'exponential', baseMs: 100, capMs: 2000 }, retryAfter: 'ignore', idempotency: 'always', retryOn: ['503', '400', '404'] }], { deadlineMs: 5000, method: 'POST' }),
  doc([{ backoff: { kind: 'none', baseMs: 0, capMs: 0 }, budget: [] }]),
  doc([{ maxAttempts: 12, backoff: { kind: 'full-jitter', baseMs: 100, capMs: 'none' }, retryAfter: 'clamp' }], { deadlineMs: 600_000 }),
  { layers: [{ name: 'l0', policy: { ...GOOD, maxAttempts: 'unlimited', perAttemptTimeoutMs: undefined, budget: [] } }] },
  { layers: [{ name: 'l0', policy: { ...GOOD, maxAttempts: 'unlimited', perAttemptTimeoutMs: undefined } }] },
  doc([{ maxAttempts: 'unlimited', budget: [] }]),
  doc([{}], {}),
  doc([{ deadlineMode: 'fresh' }], { deadlineMs: 800 }),
  doc([{}, { deadlineMode: 'none' }]),
  doc([{ tickMs: 100, backoff: { kind: 'full-jitter', baseMs: 50, capMs: 2000 } }]),
  doc([{ retryOn: ['503', 'throttled'], perAttemptTimeoutMs: 4000 }, { admission: { kind: 'sre-adaptive' } }]),
];

/** Every format's fixes, and none (the generic fixes). */
const FIXES: Array<[string, FormatFixes | undefined]> = [
  ['generic', undefined],
  ['linkerd ServiceProfile', SERVICE_PROFILE_FIXES],
  ['linkerd annotations', LINKERD_ANNOTATION_FIXES],
  ...Object.entries(FORMAT_FIXES),
];

/** Every configuration fixture `check` reads on its own (the malformed ones are refused and skipped). */
function fixtureStacks(): Array<[string, CheckStack[]]> {
  const files = ['', 'mesh', 'spring'].flatMap((dir) => readdirSync(join(FIXTURES, dir)).filter((f) => /\.(ya?ml|json|ini|properties|env)$/.test(f)).map((f) => (dir === '' ? f : `${dir}/${f}`)));
  return files.flatMap((file): Array<[string, CheckStack[]]> => {
    try {
      return [[file, loadStacks(fixture(file), file, { readImport: fixtureReader })]];
    } catch (e) {
      if (e instanceof CheckInputError) return [];
      throw e;
    }
  });
}

describe('every finding reads as a whole sentence', () => {
  it('every finding that can fire, with the fixes of every format, has no doubled word, empty slot or leaked value', () => {
    const fired = new Set<FindingCode>();
    const problems: string[] = [];
    for (const [format, fixes] of FIXES) {
      for (const d of FIRING) {
        const stack = stackOf(d);
        const report = checkStack({ ...stack, layers: stack.layers.map((l) => (fixes === undefined ? l : { ...l, fixes })) });
        for (const f of report.findings) {
          fired.add(f.code);
          problems.push(...badParts(f.risk).map((p) => `${format} ${f.code} risk: ${p}`), ...badParts(f.fix).map((p) => `${format} ${f.code} fix: ${p}`));
        }
      }
    }
    expect([...fired].sort()).toEqual(Object.keys(FINDING_CODES).sort());
    expect(problems).toEqual([]);
  });

  it('every fix a format writes names what to write or says the format cannot express it', () => {
    for (const [format, fixes] of FIXES) {
      for (const [code, fix] of Object.entries(fixes ?? {})) {
        expect(badParts(fix), `${format} ${code}`).toEqual([]);
        expect(fix, `${format} ${code}`).toMatch(/"[^"]+"|cannot express/);
        expect(fix, `${format} ${code} uses experiment-file words`).not.toMatch(/full-jitter|retryAfter|idempotency "|sre-ratio|capMs|deadlineMode/);
      }
    }
  });

  it('every fixture file checked on its own renders findings and notes with no empty slot', () => {
    const files = fixtureStacks();
    expect(files.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const [file, stacks] of files) {
      for (const stack of stacks) {
        const report = checkStack(stack);
        const sentences = [...report.findings.flatMap((f) => [f.risk, f.fix]), ...stack.layers.flatMap((l) => l.notes)];
        problems.push(...sentences.flatMap((s) => badParts(s).map((p) => `${file}: ${p}`)));
        const text = formatCheckReport(report);
        problems.push(...[/\bundefined\b/, /\bNaN\b/, /no cap attempts|caps no cap/].filter((re) => re.test(text)).map((re) => `${file}: report matches ${String(re)}`));
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('a fix never suggests what its own finding flags', () => {
  it("the gRPC RS010 fix suggests no retryable status that RS010 counts as a replay risk", () => {
    const fix = FORMAT_FIXES['grpc-service-config']?.RS010 ?? '';
    expect(fix).not.toBe('');
    const listed = [...fix.matchAll(/"retryableStatusCodes": \[([^\]]*)\]/g)].flatMap((m) => (m[1] as string).split(',').map((s) => s.trim().replace(/"/g, '')));
    const risky = listed.filter((status) => {
      const cls = status.toLowerCase().replace(/_/g, '-') as keyof typeof RETRY_ON_CLASS_INFO;
      return RETRY_ON_CLASS_INFO[cls]?.idempotency === 'idempotent';
    });
    expect(risky).toEqual([]);
  });
});
