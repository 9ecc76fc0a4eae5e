import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { importEnvoyRoute, loadStacks } from '../../src/check/index.js';
import { fixture, loadProblems } from './helpers.js';

/** The imported layer of a file `check` is given on its own. */
function layerOf(text: string, source: string, options: { route?: string } = {}) {
  const stacks = loadStacks(text, source, options);
  expect(stacks).toHaveLength(1);
  return stacks[0]!.layers[0]!;
}

const DEFAULT_BREAKER = [{ kind: 'envoy-max-retries', maxRetries: 3 }];

describe('Envoy files in the forms Envoy accepts', () => {
  it('protobuf JSON camelCase names (retryPolicy, numRetries, perTryTimeout) read as the proto names', () => {
    const layer = layerOf(fixture('envoy-camel.json'), 'envoy-camel.json');
    expect(layer.origin).toBe('envoy-camel.json: route "checkout-api" virtualHosts.0.routes.0.route.retryPolicy');
    expect(layer.policy).toMatchObject({
      maxAttempts: 4,
      perAttemptTimeoutMs: 400,
      totalTimeoutMs: 2000,
      retryOn: ['500', '502', '503', '504', 'timeout', 'reset', 'connect-failure', 'refused-stream'],
      backoff: { kind: 'envoy', baseMs: 20, capMs: 300 },
      retryAfter: 'ignore',
      idempotency: 'always',
      budget: DEFAULT_BREAKER,
    });
    expect(layer.notes).toContain('Cluster "checkout" is not in the file: the default max_retries 3 applies (at most 3 retries in flight at once).');
    expect(layer.notes).toContain("Field names in protobuf JSON's lowerCamelCase (retryPolicy, numRetries ...) are read as their proto names, as Envoy accepts both.");
  });

  it('camelCase problems are named in camelCase', () => {
    const text = JSON.stringify({ route: { cluster: 'c', retryPolicy: { numRetries: 'three', numRetrys: 2, retryBackOff: { baseInterval: '1s', maxInterval: '0.5s' } } } });
    expect(loadProblems(() => importEnvoyRoute(text, 'r.json'))).toEqual([
      'r.json: route.retryPolicy.numRetrys is not a known field (did you mean "numRetries"?)',
      'r.json: route.retryPolicy.numRetries must be a non-negative integer (got "three")',
      'r.json: route.retryPolicy.retryBackOff.maxInterval must be >= base_interval (got 0.5s < 1s)',
    ]);
  });

  it('a file that is a list of routes', () => {
    const layer = layerOf(fixture('envoy-routes-list.yaml'), 'envoy-routes-list.yaml');
    expect(layer.origin).toBe('envoy-routes-list.yaml: route "orders" 0.route.retry_policy');
    expect(layer.policy).toMatchObject({ maxAttempts: 3, totalTimeoutMs: 15_000, retryOn: ['502', '503', '504', 'timeout', 'reset', 'connect-failure', 'refused-stream'], backoff: { kind: 'envoy', baseMs: 25, capMs: 250 }, budget: DEFAULT_BREAKER });
  });

  it('a full bootstrap: the circuit breakers of the route\'s own cluster, DEFAULT priority, never another cluster\'s', () => {
    const layer = layerOf(fixture('envoy-bootstrap.yaml'), 'envoy-bootstrap.yaml');
    expect(layer.origin).toBe(
      'envoy-bootstrap.yaml: route "pay" static_resources.listeners.0.filter_chains.0.filters.0.typed_config.route_config.virtual_hosts.0.routes.0.route.retry_policy',
    );
    expect(layer.policy).toMatchObject({ maxAttempts: 4, perAttemptTimeoutMs: 1000, totalTimeoutMs: 5000, retryOn: ['500', '502', '503', '504', 'timeout', 'reset', 'connect-failure', 'refused-stream'] });
    expect(layer.policy.budget).toEqual([{ kind: 'envoy-retry-budget', budgetPercent: 10, minRetryConcurrency: 2 }]);
    expect(layer.notes).toContain(
      'static_resources.clusters.1.circuit_breakers.thresholds.1.retry_budget: concurrent retries <= 10% of active requests, at least 2 (it replaces max_retries).',
    );
  });

  it('config_dump output: the route and its cluster found among the dump\'s configs', () => {
    const layer = layerOf(fixture('envoy-config-dump.json'), 'envoy-config-dump.json');
    expect(layer.origin).toBe('envoy-config-dump.json: route "query" configs.1.dynamic_route_configs.0.route_config.virtual_hosts.0.routes.0.route.retry_policy');
    expect(layer.policy).toMatchObject({ maxAttempts: 2, totalTimeoutMs: 1000 });
    expect(layer.policy.budget).toEqual([{ kind: 'envoy-max-retries', maxRetries: 7 }]);
  });

  it('a bootstrap nested 20 levels deep is found (the retry policy 34 levels down)', () => {
    let doc: unknown = parseYaml(fixture('envoy-bootstrap.yaml')) as unknown;
    for (let i = 0; i < 20; i++) doc = [doc];
    const layer = layerOf(JSON.stringify(doc), 'nested.json');
    expect(layer.policy.budget).toEqual([{ kind: 'envoy-retry-budget', budgetPercent: 10, minRetryConcurrency: 2 }]);
    expect(layer.origin).toMatch(/^nested\.json: route "pay" (0\.){20}static_resources\./);
  });

  it('two clusters with different breakers: each route gets its own cluster\'s', () => {
    const doc = {
      virtual_hosts: [
        {
          name: 'vh',
          domains: ['*'],
          routes: [
            { name: 'a', match: { prefix: '/a' }, route: { cluster: 'alpha', retry_policy: { retry_on: '5xx' } } },
            { name: 'b', match: { prefix: '/b' }, route: { cluster: 'beta', retry_policy: { retry_on: '5xx' } } },
            { name: 'c', match: { prefix: '/c' }, route: { cluster: 'gamma', retry_policy: { retry_on: '5xx' } } },
          ],
        },
      ],
      clusters: [
        { name: 'alpha', connect_timeout: '1s', circuit_breakers: { thresholds: [{ max_retries: 11 }] } },
        { name: 'beta', connect_timeout: '1s', circuit_breakers: { thresholds: [{ priority: 'DEFAULT', retry_budget: {} }] } },
        { name: 'gamma', connect_timeout: '1s' },
      ],
    };
    const text = JSON.stringify(doc);
    expect(layerOf(text, 'two.json', { route: 'a' }).policy.budget).toEqual([{ kind: 'envoy-max-retries', maxRetries: 11 }]);
    expect(layerOf(text, 'two.json', { route: 'b' }).policy.budget).toEqual([{ kind: 'envoy-retry-budget', budgetPercent: 20, minRetryConcurrency: 3 }]);
    const c = layerOf(text, 'two.json', { route: 'c' });
    expect(c.policy.budget).toEqual(DEFAULT_BREAKER);
    expect(c.notes).toContain('Cluster "gamma" (clusters.2) sets no circuit_breakers: the default max_retries 3 applies (at most 3 retries in flight at once).');
  });

  it('a document nested deeper than the limit is refused with its reason; one just within it is read', () => {
    let deep: unknown = { route: { retry_policy: { retry_on: '5xx' } } };
    for (let i = 0; i < 1000; i++) deep = { nested: deep };
    expect(loadProblems(() => importEnvoyRoute(JSON.stringify(deep), 'deep.json'))).toEqual([
      'deep.json: nested too deep at line 1, column 10001: arrays and objects may nest at most 1000 levels',
    ]);
    let within: unknown = { route: { retry_policy: { retry_on: '5xx' } } };
    for (let i = 0; i < 990; i++) within = { nested: within };
    expect(layerOf(JSON.stringify(within), 'within.json').policy.maxAttempts).toBe(2);
  });
});

