import { describe, expect, it } from 'vitest';
import { importEnvoyGateway, importGatewayApi, importIstio, importLinkerd, loadStacks } from '../../src/check/index.js';
import { fixture, fixtureReader, loadProblems, stackOf } from './helpers.js';

const mesh = (name: string) => fixture(`mesh/${name}`);
const ENVOY_BACKOFF = (baseMs: number, capMs = baseMs * 10) => ({ kind: 'envoy', baseMs, capMs, multiplier: 2, exponentOffset: 0 });

describe('Istio VirtualService', () => {
  it('reads every retries field, the route timeout and the DestinationRule of the route host', () => {
    const layer = importIstio(mesh('istio-virtualservice.yaml'), 'vs.yaml', { route: 'reviews-v2' });
    expect(layer.policy).toEqual({
      idempotency: 'always',
      retryAfter: 'ignore',
      totalTimeoutMs: 3000,
      maxAttempts: 5,
      perAttemptTimeoutMs: 500,
      retryOn: ['502', '503', '504', 'timeout', 'reset', 'connect-failure', 'refused-stream', '429', 'conflict'],
      backoff: ENVOY_BACKOFF(50),
      budget: { kind: 'envoy-max-retries', maxRetries: 10 },
    });
    expect(layer.origin).toBe('vs.yaml: VirtualService "reviews" (document 1) spec.http.0 ("reviews-v2") (5 attempts, timeout 3s)');
    expect(layer.notes).toContain('retryRemoteLocalities: retries may go to other localities; the model has one leaf, so a retry meets the same failure.');
    expect(layer.notes).toContain('retryIgnorePreviousHosts false: retries may go back to the host that failed.');
    // connect-failure is a class of its own now: nothing of the conditions is lost.
    expect(layer.notes.filter((n) => n.startsWith('lost: '))).toEqual([]);
    expect(layer.defaultName).toBe('istio');
  });

  it("a route without retries gets Istio's default since 1.24: 2 retries on no HTTP status the model knows; the older 503 default is noted", () => {
    const layer = importIstio(mesh('istio-virtualservice.yaml'), 'vs.yaml', { route: 'reviews-default' });
    expect(layer.policy).toEqual({
      idempotency: 'always',
      retryAfter: 'ignore',
      maxAttempts: 3,
      retryOn: ['connect-failure', 'refused-stream'],
      backoff: ENVOY_BACKOFF(25),
      budget: { kind: 'envoy-max-retries', maxRetries: 10 },
    });
    expect(layer.notes).toContain(
      "No retries block: Istio's default since 1.24, 2 retries on connect-failure, refused-stream, unavailable, cancelled, retriable-status-codes with no status code listed, so an HTTP 503 is not retried; unavailable and cancelled match gRPC statuses only (a gRPC UNAVAILABLE is retried). Before 1.24, or with EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY=false in istiod, the default also retries 503: check that as \"retries: { attempts: 2, retryOn: connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes,503 }\".",
    );
    expect(layer.notes).toContain('The route sets no timeout: Istio disables the route timeout, so nothing bounds all attempts together.');
  });

  it('a retries block without retryOn keeps the default conditions; without attempts it disables retries', () => {
    const vs = (retries: object) => JSON.stringify({ apiVersion: 'networking.istio.io/v1', kind: 'VirtualService', metadata: { name: 'a' }, spec: { http: [{ route: [{ destination: { host: 'a' } }], retries }] } });
    const kept = importIstio(vs({ attempts: 1, perTryTimeout: '2s' }), 'vs.json');
    expect(kept.policy.maxAttempts).toBe(2);
    expect(kept.policy.retryOn).toEqual(['connect-failure', 'refused-stream']);
    expect(kept.notes).toContain(
      'retries.retryOn is not set: Istio keeps its default conditions (connect-failure, refused-stream, unavailable, cancelled, retriable-status-codes) with no status code since 1.24 (503 before); unavailable and cancelled match gRPC statuses only.',
    );
    expect(kept.policy.budget).toBeUndefined();
    const off = importIstio(vs({ perTryTimeout: '2s' }), 'vs.json');
    expect(off.policy.maxAttempts).toBe(1);
    expect(off.notes).toContain('retries.attempts is not set: Istio reads it as 0, which disables retries.');
    expect(importIstio(vs({ attempts: 0 }), 'vs.json').policy.maxAttempts).toBe(1);
    expect(importIstio(vs({ attempts: 2, retryOn: '503' }), 'vs.json').policy.retryOn).toEqual(['503']);
  });

  it('several routes need a choice, and a malformed resource gives one message per problem', () => {
    expect(loadProblems(() => importIstio(mesh('istio-virtualservice.yaml'), 'vs.yaml'))).toEqual([
      'vs.yaml: has 2 http routes; choose one by name: VirtualService "reviews" (document 1) spec.http.0 ("reviews-v2"), VirtualService "reviews" (document 1) spec.http.1 ("reviews-default")',
    ]);
    expect(loadProblems(() => importIstio(mesh('istio-bad.yaml'), 'istio-bad.yaml'))).toEqual([
      'istio-bad.yaml: VirtualService "broken" spec.http.0.timeout must be a duration like "250ms" or "1.5s" (got "3 seconds")',
      'istio-bad.yaml: VirtualService "broken" spec.http.0.retries.backof is not a known field (did you mean "backoff"?)',
      'istio-bad.yaml: VirtualService "broken" spec.http.0.retries.attempts must be a non-negative integer (the number of retries) (got -1)',
      'istio-bad.yaml: VirtualService "broken" spec.http.0.retries.perTryTimeout must be a duration > 0 like "250ms" or "1.5s" (got "0s")',
      'istio-bad.yaml: VirtualService "broken" spec.http.0.retries.retryRemoteLocalities must be true or false (got "maybe")',
      'istio-bad.yaml: VirtualService "broken" spec.http.0.retries.retryOn has an unknown condition "gateway-eror" (did you mean "gateway-error"?)',
    ]);
  });

  it('invalid YAML in a later document names the line of the whole file', () => {
    const text = `${mesh('istio-virtualservice.yaml')}---\nkind: [\n`;
    expect(loadProblems(() => importIstio(text, 'vs.yaml'))[0]).toMatch(/^vs\.yaml: invalid YAML at line 4[0-9]/);
  });
});

describe('Linkerd', () => {
  it('a ServiceProfile: retryable routes within the retry budget, its annotations ignored with a note', () => {
    const layer = importLinkerd(mesh('linkerd-serviceprofile.yaml'), 'sp.yaml');
    expect(layer.policy).toEqual({
      idempotency: 'http',
      retryAfter: 'ignore',
      backoff: { kind: 'none', baseMs: 0, capMs: 0 },
      maxAttempts: 'unlimited',
      retryOn: ['500', '502', '503', '504'],
      budget: { kind: 'finagle', percentCanRetry: 0.1, minRetriesPerSec: 5, ttlMs: 20_000 },
      totalTimeoutMs: 2000,
    });
    expect(layer.origin).toBe('sp.yaml: ServiceProfile "books.default.svc.cluster.local" (document 1) routes GET /books/{id}');
    expect(layer.notes).toContain(
      'HTTPRoute "books" (document 2) has retry annotations; they are ignored because a ServiceProfile exists (Linkerd uses the ServiceProfile\'s retries, never both).',
    );
  });

  it('a ServiceProfile route is retried whatever its method unless its condition matches idempotent methods only', () => {
    const profile = (condition: string) =>
      `apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata: { name: s }\nspec:\n  routes:\n    - { name: r, condition: ${condition}, isRetryable: true }\n`;
    for (const condition of ['{ method: GET }', '{ all: [{ pathRegex: /a }, { method: head }] }', '{ any: [{ method: GET }, { method: PUT }] }']) {
      expect(importLinkerd(profile(condition), 'sp.yaml').policy.idempotency).toBe('http');
    }
    for (const condition of ['{ pathRegex: /a }', '{ method: POST }', '{ any: [{ method: GET }, { method: POST }] }', '{ not: { method: GET } }']) {
      const layer = importLinkerd(profile(condition), 'sp.yaml');
      expect(layer.policy.idempotency).toBe('always');
      expect(layer.notes).toContain(
        'isRetryable marks a route "always safe to retry": Linkerd retries every request it matches, whatever its method and with a body of up to 64 KiB (idempotency "always"), so a POST the route matches is replayed.',
      );
    }
  });

  it("a ServiceProfile without retryBudget or timeouts gets Linkerd's defaults: 20%, 10/s, 10 s", () => {
    const text = 'apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata: { name: s }\nspec:\n  routes:\n    - { name: r, condition: { method: GET }, isRetryable: true }\n';
    const layer = importLinkerd(text, 'sp.yaml');
    expect(layer.policy.budget).toEqual({ kind: 'finagle', percentCanRetry: 0.2, minRetriesPerSec: 10, ttlMs: 10_000 });
    expect(layer.policy.totalTimeoutMs).toBe(10_000);
    const none = importLinkerd(text.replace('isRetryable: true', 'isRetryable: false'), 'sp.yaml');
    expect(none.policy.maxAttempts).toBe(1);
  });

  it('annotations on an HTTPRoute: codes and ranges, the limit, the per-attempt and request timeouts', () => {
    const layer = importLinkerd(mesh('linkerd-annotations.yaml'), 'a.yaml');
    expect(layer.policy).toEqual({
      idempotency: 'always',
      retryAfter: 'ignore',
      backoff: { kind: 'none', baseMs: 0, capMs: 0 },
      perAttemptTimeoutMs: 300,
      retryOn: ['502', '503', '504', '429', 'timeout'],
      maxAttempts: 3,
      totalTimeoutMs: 2000,
    });
    expect(layer.notes).toContain('Service "authors" (document 2) also has retry annotations; the route\'s replace them all (Linkerd reads one set).');
  });

  it('the limit defaults to 1 retry; 5xx and gRPC statuses map to classes', () => {
    const svc = (annotations: Record<string, string>) => JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', annotations } });
    const http = importLinkerd(svc({ 'retry.linkerd.io/http': '5xx' }), 's.json');
    expect(http.policy.maxAttempts).toBe(2);
    expect(http.policy.retryOn).toEqual(['500', '502', '503', '504']);
    expect(http.notes).toContain("retry.linkerd.io/limit is not set: Linkerd's default is 1 retry.");
    const grpc = importLinkerd(svc({ 'retry.linkerd.io/grpc': 'unavailable,deadline-exceeded,internal,resource-exhausted,cancelled', 'retry.linkerd.io/limit': '4' }), 's.json');
    expect(grpc.policy.maxAttempts).toBe(5);
    expect(grpc.policy.retryOn).toEqual(['unavailable', 'deadline-exceeded', 'internal', 'resource-exhausted', 'cancelled']);
  });

  it('malformed annotations give one message per problem', () => {
    expect(loadProblems(() => importLinkerd(mesh('linkerd-bad.yaml'), 'linkerd-bad.yaml'))).toEqual([
      'linkerd-bad.yaml: GRPCRoute "bad" metadata.annotations.retry.linkerd.io/limt is not a known Linkerd annotation (did you mean "retry.linkerd.io/limit"?)',
      'linkerd-bad.yaml: GRPCRoute "bad" metadata.annotations.retry.linkerd.io/http is not valid on a GRPCRoute (use retry.linkerd.io/grpc)',
      'linkerd-bad.yaml: GRPCRoute "bad" metadata.annotations.retry.linkerd.io/grpc has an unknown gRPC status "unavialable" (did you mean "unavailable"?)',
      'linkerd-bad.yaml: GRPCRoute "bad" metadata.annotations.retry.linkerd.io/limit must be a non-negative integer (the number of retries) (got "two")',
      'linkerd-bad.yaml: GRPCRoute "bad" metadata.annotations.retry.linkerd.io/timeout must be a duration > 0 like "250ms" or "1.5s" (got "300")',
    ]);
  });
});

describe('Gateway API HTTPRoute retry and XBackendTrafficPolicy', () => {
  it('reads the retry, the timeouts and the retry budget of the backend', () => {
    const layer = importGatewayApi(mesh('gateway-api-httproute.yaml'), 'route.yaml');
    expect(layer.policy).toEqual({
      idempotency: 'always',
      retryAfter: 'ignore',
      totalTimeoutMs: 10_000,
      perAttemptTimeoutMs: 2000,
      maxAttempts: 4,
      retryOn: ['500', '502', '503', '504', '429'],
      backoff: ENVOY_BACKOFF(100),
      budget: { kind: 'finagle', percentCanRetry: 0.25, ttlMs: 5000, minRetriesPerSec: 3 },
    });
    expect(layer.origin).toBe('route.yaml: HTTPRoute "store" (document 1) spec.rules.0 ("read") retry');
    expect(layer.notes).toContain('lost: retry.codes: 418 is never answered by a leaf of the model and is left out.');
  });

  it('defaults: 2 retries, the budget 20% over 10 s with 10 per second; a rule without retry does not retry', () => {
    const text = mesh('gateway-api-httproute.yaml').replace('        attempts: 3\n', '').replace('    budget: { percent: 25, interval: 5s }\n    minRetryRate: { count: 3, interval: 1s }\n', '    budget: {}\n');
    const layer = importGatewayApi(text, 'route.yaml', { route: 'read' });
    expect(layer.policy.maxAttempts).toBe(3);
    expect(layer.policy.budget).toEqual({ kind: 'finagle', percentCanRetry: 0.2, ttlMs: 10_000, minRetriesPerSec: 10 });
    expect(importGatewayApi(text, 'route.yaml', { route: 'write' }).policy.maxAttempts).toBe(1);
  });

  it('malformed fields give one message per problem', () => {
    expect(loadProblems(() => importGatewayApi(mesh('gateway-api-bad.yaml'), 'gateway-api-bad.yaml'))).toEqual([
      'gateway-api-bad.yaml: HTTPRoute "bad" spec.rules.0.timeouts.request must be a duration like "250ms" or "1.5s" (got 10)',
      'gateway-api-bad.yaml: HTTPRoute "bad" spec.rules.0.retry.maxRetries is not a known field',
      'gateway-api-bad.yaml: HTTPRoute "bad" spec.rules.0.retry.attempts must be a non-negative integer (the number of retries) (got "three")',
      'gateway-api-bad.yaml: HTTPRoute "bad" spec.rules.0.retry.codes.0 must be an HTTP status code from 400 to 599 (got 200)',
      'gateway-api-bad.yaml: HTTPRoute "bad" spec.rules.0.retry.codes.2 must be an HTTP status code from 400 to 599 (got 700)',
      'gateway-api-bad.yaml: HTTPRoute "bad" spec.rules.0.retry.backoff must be a duration > 0 like "250ms" or "1.5s" (got "1 minute")',
    ]);
  });
});

describe('Envoy Gateway BackendTrafficPolicy', () => {
  it('reads numRetries, retryOn, perRetry, the request timeout and the circuit breaker', () => {
    const layer = importEnvoyGateway(mesh('envoy-gateway-btp.yaml'), 'btp.yaml');
    expect(layer.policy).toEqual({
      idempotency: 'always',
      retryAfter: 'ignore',
      maxAttempts: 4,
      retryOn: ['502', '503', '504', 'timeout', 'reset', 'connect-failure', 'refused-stream', '500', '429'],
      perAttemptTimeoutMs: 800,
      backoff: ENVOY_BACKOFF(100, 2000),
      totalTimeoutMs: 5000,
      budget: { kind: 'envoy-max-retries', maxRetries: 8 },
    });
    expect(layer.origin).toBe('btp.yaml: BackendTrafficPolicy "payments" spec.retry');
  });

  it("an empty retry gets Envoy Gateway's defaults: 2 retries on its default triggers with 503, 1024 retries in flight", () => {
    const text = 'apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: { name: p }\nspec:\n  retry: {}\n';
    expect(importEnvoyGateway(text, 'btp.yaml').policy).toEqual({
      idempotency: 'always',
      retryAfter: 'ignore',
      maxAttempts: 3,
      retryOn: ['connect-failure', 'refused-stream', 'unavailable', 'cancelled', '503'],
      backoff: ENVOY_BACKOFF(25),
      budget: { kind: 'envoy-max-retries', maxRetries: 1024 },
    });
  });

  it('malformed fields give one message per problem', () => {
    expect(loadProblems(() => importEnvoyGateway(mesh('envoy-gateway-bad.yaml'), 'envoy-gateway-bad.yaml'))).toEqual([
      'envoy-gateway-bad.yaml: BackendTrafficPolicy "bad" spec.retry.numRetries must be a non-negative integer (got -2)',
      'envoy-gateway-bad.yaml: BackendTrafficPolicy "bad" spec.retry.retryOn.triggers.1 must be one of 5xx, gateway-error, reset, connect-failure, retriable-4xx, refused-stream, retriable-status-codes, cancelled, deadline-exceeded, internal, resource-exhausted, unavailable (got "gateway_error"; did you mean "gateway-error"?)',
      'envoy-gateway-bad.yaml: BackendTrafficPolicy "bad" spec.retry.retryOn.httpStatusCodes.1 must be an HTTP status code (got 999)',
      'envoy-gateway-bad.yaml: BackendTrafficPolicy "bad" spec.retry.perRetry.timeout must be a duration > 0 like "250ms" or "1.5s" (got "1h30")',
      'envoy-gateway-bad.yaml: BackendTrafficPolicy "bad" spec.retry.perRetry.backOff.maxInterval must be >= baseInterval (got 1000 ms < 2000 ms)',
    ]);
  });
});

describe('mesh files in check', () => {
  it('a file of resources on its own is dispatched on apiVersion and kind', () => {
    const [stack] = loadStacks(mesh('envoy-gateway-btp.yaml'), 'btp.yaml');
    expect(stack?.layers.map((l) => [l.name, l.policy.maxAttempts, l.origin])).toEqual([['envoy-gateway', 4, 'btp.yaml: BackendTrafficPolicy "payments" spec.retry']]);
    const [linkerd] = loadStacks(mesh('linkerd-serviceprofile.yaml'), 'sp.yaml');
    expect(linkerd?.layers[0]?.name).toBe('linkerd');
    expect(loadStacks(mesh('istio-virtualservice.yaml'), 'vs.yaml', { route: 'reviews-v2' })[0]?.layers[0]?.policy.maxAttempts).toBe(5);
    expect(loadProblems(() => loadStacks('apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n', 'cm.yaml'))).toEqual([
      'cm.yaml: holds no resource with retries that check reads (got v1 ConfigMap; known: an Istio VirtualService (networking.istio.io), a Linkerd ServiceProfile (linkerd.io) or an HTTPRoute with retry.linkerd.io annotations, an Envoy Gateway BackendTrafficPolicy (gateway.envoyproxy.io), a Gateway API HTTPRoute (gateway.networking.k8s.io), an ingress-nginx Ingress (networking.k8s.io) or a ConfigMap with proxy-next-upstream keys)',
    ]);
  });

  it('a stack file imports each format, and its policy overrides merge over the import', () => {
    const stack = stackOf({
      layers: [
        { name: 'mesh', import: { format: 'istio', file: 'mesh/istio-virtualservice.yaml', route: 'reviews-v2' }, policy: { idempotency: 'http' } },
        { import: { format: 'linkerd', file: 'mesh/linkerd-annotations.yaml' } },
        { import: { format: 'gateway-api', file: 'mesh/gateway-api-httproute.yaml', route: 'read' } },
        { import: { format: 'envoy-gateway', file: 'mesh/envoy-gateway-btp.yaml' } },
      ],
    });
    expect(stack.layers.map((l) => [l.name, l.policy.maxAttempts, l.policy.idempotency])).toEqual([
      ['mesh', 5, 'http'],
      ['linkerd', 3, 'always'],
      ['gateway', 4, 'always'],
      ['envoy-gateway', 4, 'always'],
    ]);
    expect(stack.layers[0]?.policy.backoff).toEqual(ENVOY_BACKOFF(50));
  });

  it('a stack file names an unknown format with the known ones', () => {
    const problems = loadProblems(() => loadStacks(JSON.stringify({ layers: [{ import: { format: 'istoi', file: 'x' } }] }), 'stack.json', { readImport: fixtureReader }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('istio');
  });
});
