import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importAwsConfig, importGrpcServiceConfig, loadStacks } from '../../src/check/index.js';
import { checkCommand, type CheckFlags, type CheckJson } from '../../src/cli/checkCommand.js';
import { exportCommand, type ExportFlags } from '../../src/cli/exportCommand.js';
import { FIXTURES, loadProblems } from './helpers.js';

/** Envoy Gateway's translator output with three routes (see fixtures/README.md). */
const EG_ROUTES = 'envoy-gateway-retry.routes.yaml';

/** An Istio VirtualService with two routes: `api` (3 attempts) and a second one named `second` with `attempts` retries. */
const istio = (second: string, attempts: number) => `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: { name: shop }
spec:
  hosts: [shop]
  http:
    - name: api
      route: [{ destination: { host: shop } }]
      retries: { attempts: 2, retryOn: 5xx }
    - name: ${second}
      route: [{ destination: { host: shop } }]
      retries: { attempts: ${attempts}, retryOn: 5xx }
`;
const ISTIO_TWO = istio('static', 4);
/** Two routes of one name. */
const ISTIO_DUPLICATE = istio('api', 6);

const GATEWAY_API = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: store }
spec:
  rules:
    - name: read
      backendRefs: [{ name: store, port: 8080 }]
      retry: { attempts: 3, codes: [503] }
    - name: write
      backendRefs: [{ name: store, port: 8080 }]
      retry: { attempts: 1, codes: [503] }
`;

const ENVOY_GATEWAY = `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: { name: payments }
spec:
  retry: { numRetries: 4 }
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: { name: ledger }
spec:
  retry: { numRetries: 1 }
`;

const LINKERD = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: authors-get
  annotations: { retry.linkerd.io/http: "5xx", retry.linkerd.io/limit: "3" }
spec: { parentRefs: [{ name: authors, kind: Service, group: core, port: 7001 }] }
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: authors-post
  annotations: { retry.linkerd.io/http: "503", retry.linkerd.io/limit: "1" }
spec: { parentRefs: [{ name: authors, kind: Service, group: core, port: 7001 }] }
`;

const retryPolicy = (maxAttempts: number) => ({ maxAttempts, initialBackoff: '0.1s', maxBackoff: '1s', backoffMultiplier: 2, retryableStatusCodes: ['UNAVAILABLE'] });
const GRPC = JSON.stringify({
  methodConfig: [
    { name: [{ service: 'shop.v1.Inventory' }], retryPolicy: retryPolicy(4) },
    { name: [{ service: 'shop.v1.Orders', method: 'Get' }], retryPolicy: retryPolicy(2) },
  ],
});

/** A working directory holding the Envoy Gateway fixture and the given files. */
function workdir(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'retrystorm-routes-'));
  copyFileSync(join(FIXTURES, EG_ROUTES), join(dir, EG_ROUTES));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function check(cwd: string, file: string, flags: CheckFlags = {}) {
  let out = '';
  let err = '';
  const code = checkCommand({ stdout: (s) => (out += s), stderr: (s) => (err += s), cwd }, file, flags);
  return { code, out, err };
}

function exportTo(cwd: string, format: string, file: string, flags: ExportFlags = {}) {
  let out = '';
  let err = '';
  const code = exportCommand({ stdout: (s) => (out += s), stderr: (s) => (err += s), cwd }, format, file, flags);
  return { code, out, err };
}

/** The stacks of a check --json run: route and attempts of the one layer of each. */
function routesOf(r: { out: string }): Array<[string | undefined, unknown]> {
  const json = JSON.parse(r.out) as CheckJson;
  return json.stacks.map((s) => [s.route, s.layers[0]?.policy.maxAttempts]);
}

describe('check on a file of several routes', () => {
  it("checks each of the three routes of Envoy Gateway's retry.routes.yaml, in file order, each section headed by its route; --route narrows it to one", () => {
    const r = check(workdir(), EG_ROUTES);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const headers = r.out.split('\n').filter((l) => l.startsWith(EG_ROUTES));
    expect(headers).toEqual([
      `${EG_ROUTES}: first-route (1 layer top to bottom, GET, no deadline)`,
      `${EG_ROUTES}: second-route-defaults (1 layer top to bottom, GET, no deadline)`,
      `${EG_ROUTES}: third-route-only-triggers (1 layer top to bottom, GET, no deadline)`,
    ]);
    const json = check(workdir(), EG_ROUTES, { json: true });
    expect(json.code).toBe(0);
    expect((JSON.parse(json.out) as CheckJson).warnings).toEqual([]);
    // numRetries 3, 2 and 5.
    expect(routesOf(json)).toEqual([
      ['first-route', 4],
      ['second-route-defaults', 3],
      ['third-route-only-triggers', 6],
    ]);
    const one = check(workdir(), EG_ROUTES, { json: true, route: 'second-route-defaults' });
    expect(one.code).toBe(0);
    expect((JSON.parse(one.out) as CheckJson).stacks.map((s) => s.layers[0]?.origin)).toEqual([`${EG_ROUTES}: route "second-route-defaults" 0.virtualHosts.1.routes.0.route.retryPolicy`]);
  });

  it('the exit code is the worst of the routes: a POST replayed by one route of two is an error', () => {
    const routes = [
      { name: 'safe', match: { prefix: '/a' }, route: { cluster: 'c', retry_policy: { retry_on: '5xx', num_retries: 0 } } },
      { name: 'replays', match: { prefix: '/b' }, route: { cluster: 'c', retry_policy: { retry_on: '5xx', num_retries: 2 } } },
    ];
    const r = check(workdir({ 'routes.json': JSON.stringify(routes) }), 'routes.json', { json: true, method: 'POST' });
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out) as CheckJson;
    expect(json.exitCode).toBe(1);
    expect(json.stacks.map((s) => [s.route, s.counts.error])).toEqual([
      ['safe', 0],
      ['replays', 1],
    ]);
  });

  it('every route of Istio, Gateway API, Envoy Gateway, Linkerd and gRPC files without --route, and the one --route names', () => {
    const files = { 'vs.yaml': ISTIO_TWO, 'route.yaml': GATEWAY_API, 'btp.yaml': ENVOY_GATEWAY, 'linkerd.yaml': LINKERD, 'sc.json': GRPC };
    const dir = workdir(files);
    const cases: Array<[string, Array<[string, number]>, string]> = [
      ['vs.yaml', [['api', 3], ['static', 5]], 'static'],
      ['route.yaml', [['read', 4], ['write', 2]], 'write'],
      ['btp.yaml', [['payments', 5], ['ledger', 2]], 'ledger'],
      ['linkerd.yaml', [['authors-get', 4], ['authors-post', 2]], 'authors-post'],
      ['sc.json', [['shop.v1.Inventory', 4], ['shop.v1.Orders/Get', 2]], 'shop.v1.Orders/Get'],
    ];
    for (const [file, all, chosen] of cases) {
      const every = check(dir, file, { json: true });
      expect(every.err, file).toBe('');
      expect(routesOf(every), file).toEqual(all);
      const one = check(dir, file, { json: true, route: chosen });
      expect(one.err, file).toBe('');
      expect((JSON.parse(one.out) as CheckJson).stacks.map((s) => s.layers[0]?.policy.maxAttempts), file).toEqual([all[1]?.[1]]);
    }
    expect(loadProblems(() => loadStacks(GRPC, 'sc.json', { route: 'shop.v1.Orders/Get', service: 'shop.v1.Inventory' }))).toEqual([
      'sc.json: --route "shop.v1.Orders/Get" and --service "shop.v1.Inventory" name different methods of the service config; give one',
    ]);
  });

  it('export takes --route, and without it names the routes to choose from', () => {
    const dir = workdir();
    const one = exportTo(dir, 'envoy-route', EG_ROUTES, { route: 'third-route-only-triggers' });
    expect(one.code).toBe(0);
    expect(one.out).toContain('    num_retries: 5\n');
    expect(exportTo(dir, 'envoy-route', EG_ROUTES, { route: 'first-route' }).out).toContain('    num_retries: 3\n');
    const none = exportTo(dir, 'envoy-route', EG_ROUTES);
    expect(none.code).toBe(2);
    expect(none.err).toBe(`error: ${EG_ROUTES}: has 3 routes; choose one with --route: first-route, second-route-defaults, third-route-only-triggers\n`);
  });
});

describe('repeated names, sections and methods', () => {
  it('two Istio http routes of one name: a warning, each checked under where it is; --route naming them is refused, listing both', () => {
    const dir = workdir({ 'vs.yaml': ISTIO_DUPLICATE });
    const r = check(dir, 'vs.yaml', { json: true });
    const where = 'VirtualService "shop" spec.http.0 ("api"), VirtualService "shop" spec.http.1 ("api")';
    const warning = `vs.yaml: 2 http routes are named "api" (${where}); each is read on its own, named by where it is, and --route "api" is refused because it cannot tell them apart`;
    expect(r.err).toBe(`warning: ${warning}\n`);
    expect((JSON.parse(r.out) as CheckJson).warnings).toEqual([warning]);
    expect(routesOf(r)).toEqual([
      ['VirtualService "shop" spec.http.0 ("api")', 3],
      ['VirtualService "shop" spec.http.1 ("api")', 7],
    ]);
    const named = check(dir, 'vs.yaml', { route: 'api' });
    expect(named.code).toBe(2);
    expect(named.err).toBe(`error: vs.yaml: has 2 http routes named "api" (${where}); --route cannot tell them apart: give each its own name\n`);
  });

  it('two Envoy routes of one name: a warning, and an error when --route names them', () => {
    const routes = [
      { name: 'api', match: { prefix: '/a' }, route: { cluster: 'c', retry_policy: { retry_on: '5xx', num_retries: 1 } } },
      { name: 'api', match: { prefix: '/b' }, route: { cluster: 'c', retry_policy: { retry_on: '5xx', num_retries: 4 } } },
    ];
    const dir = workdir({ 'routes.json': JSON.stringify(routes) });
    const r = check(dir, 'routes.json', { json: true });
    expect(r.err).toBe(
      'warning: routes.json: 2 retry policies are named "api" ("api" (0.route), "api" (1.route)); each is read on its own, named by where it is, and --route "api" is refused because it cannot tell them apart\n',
    );
    expect(routesOf(r)).toEqual([
      ['0.route', 2],
      ['1.route', 5],
    ]);
    const named = check(dir, 'routes.json', { route: 'api' });
    expect(named.code).toBe(2);
    expect(named.err).toBe('error: routes.json: has 2 retry policies named "api" ("api" (0.route), "api" (1.route)); --route cannot tell them apart: give each route its own name\n');
  });

  it('two Linkerd ServiceProfile routes or two annotated routes of one name: --route naming them is refused, listing both', () => {
    const profile = `apiVersion: linkerd.io/v1alpha2
kind: ServiceProfile
metadata: { name: books.default.svc.cluster.local }
spec:
  routes:
    - { name: books, condition: { method: GET, pathRegex: /a }, isRetryable: true, timeout: 1s }
    - { name: books, condition: { method: GET, pathRegex: /b }, isRetryable: true, timeout: 5s }
`;
    expect(loadProblems(() => loadStacks(profile, 'sp.yaml', { route: 'books' }))).toEqual([
      'sp.yaml: has 2 ServiceProfile routes named "books" (spec.routes.0, spec.routes.1); --route cannot tell them apart: give each its own name',
    ]);
    const annotated = LINKERD.replace('name: authors-post', 'name: authors-get');
    expect(loadProblems(() => loadStacks(annotated, 'routes.yaml', { route: 'authors-get' }))).toEqual([
      'routes.yaml: has 2 resources named "authors-get" with Linkerd retry annotations (HTTPRoute "authors-get" (document 1), HTTPRoute "authors-get" (document 2)); --route cannot tell them apart: give each its own name',
    ]);
  });

  it('two [default] sections: merged as the JS SDK merges them (a later max_attempts wins), with a warning; botocore refuses the file', () => {
    const ini = '[default]\nretry_mode = standard\nmax_attempts = 3\n\n[profile other]\nmax_attempts = 2\n\n[default]\nmax_attempts = 7\n';
    const js = importAwsConfig(ini, 'config');
    expect(js.policy.maxAttempts).toBe(7);
    expect(js.warnings).toEqual([
      'config: [default] is given 2 times (lines 1, 8): the AWS SDK for JavaScript v3 reads them as one section, a later setting replacing an earlier one (max_attempts "7" (line 9) replaces "3" (line 3)); botocore (--sdk python) refuses such a file',
    ]);
    expect(loadProblems(() => importAwsConfig(ini, 'config', { sdk: 'python' }))).toEqual([
      "config: [default] is given 2 times (lines 1, 8): botocore refuses the file (Python's configparser raises DuplicateSectionError, which botocore reports as ConfigParseError), so boto3 reads no profile from it; merge them into one section",
    ]);
    const [stack] = loadStacks(ini, 'config');
    expect(stack?.layers[0]?.warnings).toEqual(js.warnings);
  });

  it('a key set twice in a profile: the JS SDK takes the last, with a warning; botocore refuses a repeated key or section anywhere in the file', () => {
    const ini = '[default]\nmax_attempts = 3\nmax_attempts = 5\n';
    const js = importAwsConfig(ini, 'config');
    expect(js.policy.maxAttempts).toBe(5);
    expect(js.warnings).toEqual([
      'config: [default] sets a retry setting more than once: the AWS SDK for JavaScript v3 reads the section, a later setting replacing an earlier one (max_attempts "5" (line 3) replaces "3" (line 2)); botocore (--sdk python) refuses such a file',
    ]);
    expect(loadProblems(() => importAwsConfig(ini, 'config', { sdk: 'python' }))).toEqual([
      "config: [default] sets max_attempts 2 times (lines 2, 3): botocore refuses the file (Python's configparser raises DuplicateOptionError, which botocore reports as ConfigParseError), so boto3 reads no profile from it; keep one",
    ]);
    const other = '[default]\nmax_attempts = 3\n[profile batch]\nretry_mode = adaptive\n[profile batch]\nmax_attempts = 2\n';
    expect(importAwsConfig(other, 'config').warnings).toBeUndefined();
    expect(loadProblems(() => importAwsConfig(other, 'config', { sdk: 'python' }))).toEqual([
      "config: [profile batch] is given 2 times (lines 3, 5): botocore refuses the file (Python's configparser raises DuplicateSectionError, which botocore reports as ConfigParseError), so boto3 reads no profile from it; merge them into one section",
    ]);
  });

  it('two methodConfig entries for one method: an error naming both, as gRPC refuses the service config', () => {
    const sc = JSON.stringify({
      methodConfig: [
        { name: [{ service: 'shop.v1.Orders', method: 'Get' }], retryPolicy: retryPolicy(3) },
        { name: [{ service: 'shop.v1.Orders', method: 'Get' }], retryPolicy: retryPolicy(5) },
      ],
    });
    const problem =
      'sc.json: methodConfig.1.name.0 names shop.v1.Orders/Get again (methodConfig.0.name.0 names it first): gRPC refuses a service config that names a method twice (grpc-go: "duplicated name") and keeps its previous or default config, so neither entry applies; keep one';
    expect(loadProblems(() => importGrpcServiceConfig(sc, 'sc.json'))).toEqual([problem]);
    expect(loadProblems(() => loadStacks(sc, 'sc.json', { route: 'shop.v1.Orders/Get' }))).toEqual([problem]);
  });
});
