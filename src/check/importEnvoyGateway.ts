import { describeValue, listNames } from '../policy/schema/describeValue.js';
import { nearestName } from '../policy/schema/nearestName.js';
import type { PolicyInput } from '../policy/presets.js';
import { type Segment } from './FieldReader.js';
import { envoyBackoff, envoyRetryClasses } from './envoyRetryClasses.js';
import { ENVOY_DEFAULTS } from './importEnvoyRoute.js';
import type { ImportedLayer } from './ImportedLayer.js';
import { MeshReader } from './MeshReader.js';
import { apiGroup, readResources, type Resource } from './readResources.js';

/** Which BackendTrafficPolicy of a file to import. */
export interface EnvoyGatewayImportOptions {
  /** The BackendTrafficPolicy's `metadata.name`. */
  route?: string;
}

/** The API group of Envoy Gateway resources. */
export const ENVOY_GATEWAY_GROUP = 'gateway.envoyproxy.io';

/**
 * Envoy Gateway's defaults (envoyproxy/gateway:api/v1alpha1/retry_types.go and
 * circuitbreaker_types.go, v1.5, 2025): `numRetries` 2; `retryOn` connect-failure, refused-stream,
 * unavailable, cancelled and retriable-status-codes with status 503; back-off base 25 ms, max
 * 10 x base (Envoy's); `circuitBreaker.maxParallelRetries` 1024 (retries in flight to the backend).
 */
export const ENVOY_GATEWAY_DEFAULTS = {
  numRetries: 2,
  triggers: ['connect-failure', 'refused-stream', 'unavailable', 'cancelled', 'retriable-status-codes'],
  httpStatusCodes: [503],
  maxParallelRetries: 1024,
} as const;

/** The `retryOn.triggers` Envoy Gateway accepts (its TriggerEnum). */
const TRIGGERS = ['5xx', 'gateway-error', 'reset', 'connect-failure', 'retriable-4xx', 'refused-stream', 'retriable-status-codes', 'cancelled', 'deadline-exceeded', 'internal', 'resource-exhausted', 'unavailable'];

/**
 * An Envoy Gateway `BackendTrafficPolicy` (gateway.envoyproxy.io/v1alpha1; YAML or JSON, several
 * resources allowed) as one layer, the way Envoy Gateway configures Envoy:
 * - `retry.numRetries` (default 2) -> maxAttempts numRetries + 1;
 * - `retry.retryOn.triggers` and `httpStatusCodes` -> retryOn, with Envoy's meaning of each trigger
 *   (default: connect-failure, refused-stream, unavailable, cancelled, retriable-status-codes 503);
 * - `retry.perRetry.timeout` -> perAttemptTimeoutMs; `perRetry.backOff` baseInterval / maxInterval
 *   -> Envoy's back-off (default 25 ms, max 10 x base);
 * - `timeout.http.requestTimeout` -> totalTimeoutMs;
 * - `circuitBreaker.maxParallelRetries` (default 1024) -> envoy-max-retries.
 * A policy without `retry` does not retry. This is not the Gateway API's XBackendTrafficPolicy
 * (see importGatewayApi). Every problem names the file, the resource and the field.
 */
export function importEnvoyGateway(text: string, source: string, options: EnvoyGatewayImportOptions = {}): ImportedLayer {
  const r0 = new MeshReader(source);
  const chosen = selectPolicies(r0, readResources(text, source), options);
  if (chosen.length > 1) r0.failFile(`has ${chosen.length} BackendTrafficPolicies; choose one by name: ${chosen.map((p) => p.label).join(', ')}`);
  r0.throwIfAny();
  return readPolicy(source, chosen[0] as Resource);
}

/**
 * The BackendTrafficPolicies to read: the one `options.route` names (a name given to several is a
 * problem listing each), else those with a retry, else every one, in file order.
 */
function selectPolicies(r0: MeshReader, resources: Resource[], options: EnvoyGatewayImportOptions): Resource[] {
  const policies = resources.filter((d) => d.kind === 'BackendTrafficPolicy' && apiGroup(d.apiVersion) === ENVOY_GATEWAY_GROUP);
  if (policies.length === 0) {
    r0.failFile('has no Envoy Gateway BackendTrafficPolicy (apiVersion gateway.envoyproxy.io/v1alpha1)');
    return [];
  }
  if (options.route !== undefined) {
    const named = policies.filter((p) => p.name === options.route);
    if (named.length > 1) r0.failFile(`has ${named.length} BackendTrafficPolicies named ${JSON.stringify(options.route)} (${named.map((p) => p.label).join(', ')}); --route cannot tell them apart: give each its own name`);
    if (named.length === 0) {
      const names = policies.map((p) => p.name);
      const near = nearestName(options.route, names);
      r0.failFile(`has no BackendTrafficPolicy named ${JSON.stringify(options.route)} (named: ${listNames(names)}${near !== undefined ? `; did you mean ${describeValue(near)}?` : ''})`);
    }
    return named.length === 1 ? named : [];
  }
  const retrying = policies.filter((p) => typeof p.value.spec === 'object' && p.value.spec !== null && 'retry' in p.value.spec);
  return retrying.length > 0 ? retrying : policies;
}

/**
 * Every BackendTrafficPolicy with a retry (else every one) of a file, or the one `options.route`
 * names, in file order, each read as {@link importEnvoyGateway} reads one; with several, each
 * layer's `route` is the policy's name (its label when it has none or shares it). Two policies of
 * one name are a warning (each is still read) or, named by `options.route`, a problem.
 */
export function importEnvoyGatewayRoutes(text: string, source: string, options: EnvoyGatewayImportOptions = {}): ImportedLayer[] {
  const r0 = new MeshReader(source);
  const resources = readResources(text, source);
  const chosen = selectPolicies(r0, resources, options);
  r0.throwIfAny();
  const all = resources.filter((d) => d.kind === 'BackendTrafficPolicy' && apiGroup(d.apiVersion) === ENVOY_GATEWAY_GROUP);
  const duplicates = new Set(all.filter((p, i) => p.name !== '' && all.findIndex((q) => q.name === p.name) !== i).map((p) => p.name));
  const warnings = [...duplicates].map((name) => {
    const same = all.filter((p) => p.name === name);
    return `${source}: ${same.length} BackendTrafficPolicies are named ${JSON.stringify(name)} (${same.map((p) => p.label).join(', ')}); each is read on its own, named by where it is, and --route ${JSON.stringify(name)} is refused because it cannot tell them apart`;
  });
  const route = (p: Resource) => (p.name !== '' && !duplicates.has(p.name) ? p.name : p.label);
  return chosen.map((p) => ({ ...readPolicy(source, p), ...(chosen.length > 1 ? { route: route(p) } : {}), ...(warnings.length > 0 ? { warnings } : {}) }));
}

function readPolicy(source: string, chosen: Resource): ImportedLayer {
  const r = new MeshReader(source, chosen.label);
  const notes: string[] = [];
  const spec = r.object(chosen.value.spec, ['spec']) ?? {};
  const policy: PolicyInput = { idempotency: 'always', retryAfter: 'ignore' };
  const retry = r.object(spec.retry, ['spec', 'retry']);
  const rp: Segment[] = ['spec', 'retry'];
  if (retry === undefined) {
    policy.maxAttempts = 1;
    notes.push(`${chosen.label} has no retry: Envoy Gateway does not retry.`);
  } else {
    r.knownKeys(retry, rp, ['numRetries', 'retryOn', 'perRetry']);
    const n = retry.numRetries === undefined ? ENVOY_GATEWAY_DEFAULTS.numRetries : r.integer(retry.numRetries, [...rp, 'numRetries'], 0, 'a non-negative integer');
    if (n !== undefined) policy.maxAttempts = n + 1;
    if (retry.numRetries === undefined) notes.push(`retry.numRetries is not set: Envoy Gateway's default is ${ENVOY_GATEWAY_DEFAULTS.numRetries}.`);
    let triggers: string[] = [...ENVOY_GATEWAY_DEFAULTS.triggers];
    let codes: number[] = [...ENVOY_GATEWAY_DEFAULTS.httpStatusCodes];
    const on = r.object(retry.retryOn, [...rp, 'retryOn']);
    if (on !== undefined) {
      r.knownKeys(on, [...rp, 'retryOn'], ['triggers', 'httpStatusCodes']);
      const list = r.array(on.triggers, [...rp, 'retryOn', 'triggers'], 'a list of triggers') ?? [];
      triggers = [];
      list.forEach((t, i) => {
        const s = r.string(t, [...rp, 'retryOn', 'triggers', i]);
        if (s === undefined) return;
        if (!TRIGGERS.includes(s)) {
          const near = nearestName(s, TRIGGERS);
          r.fail([...rp, 'retryOn', 'triggers', i], `must be one of ${TRIGGERS.join(', ')} (got ${r.quote(s)}${near !== undefined ? `; did you mean ${describeValue(near)}?` : ''})`);
        } else triggers.push(s);
      });
      const cl = r.array(on.httpStatusCodes, [...rp, 'retryOn', 'httpStatusCodes'], 'a list of HTTP status codes') ?? [];
      codes = [];
      cl.forEach((c, i) => {
        const v = r.integer(c, [...rp, 'retryOn', 'httpStatusCodes', i], 100, 'an HTTP status code');
        if (v !== undefined && v > 599) r.fail([...rp, 'retryOn', 'httpStatusCodes', i], `must be an HTTP status code (got ${v})`);
        else if (v !== undefined) codes.push(v);
      });
      if (codes.length > 0 && on.triggers === undefined) triggers = ['retriable-status-codes'];
    } else {
      notes.push(`retry.retryOn is not set: Envoy Gateway's default triggers ${ENVOY_GATEWAY_DEFAULTS.triggers.join(', ')} with status ${ENVOY_GATEWAY_DEFAULTS.httpStatusCodes.join(', ')}.`);
    }
    policy.retryOn = envoyRetryClasses(r, triggers, codes, [...rp, 'retryOn'], notes);
    const per = r.object(retry.perRetry, [...rp, 'perRetry']);
    let baseMs: number | undefined;
    let capMs: number | undefined;
    if (per !== undefined) {
      r.knownKeys(per, [...rp, 'perRetry'], ['timeout', 'backOff']);
      const t = r.goDuration(per.timeout, [...rp, 'perRetry', 'timeout']);
      if (t !== undefined) policy.perAttemptTimeoutMs = t;
      const bo = r.object(per.backOff, [...rp, 'perRetry', 'backOff']);
      if (bo !== undefined) {
        const bp: Segment[] = [...rp, 'perRetry', 'backOff'];
        r.knownKeys(bo, bp, ['baseInterval', 'maxInterval']);
        baseMs = r.goDuration(bo.baseInterval, [...bp, 'baseInterval']);
        capMs = r.goDuration(bo.maxInterval, [...bp, 'maxInterval']);
        const b = baseMs ?? ENVOY_DEFAULTS.baseIntervalMs;
        if (capMs !== undefined && capMs < b) r.fail([...bp, 'maxInterval'], `must be >= baseInterval (got ${capMs} ms < ${b} ms)`);
      }
    }
    policy.backoff = envoyBackoff(baseMs, capMs);
  }
  const timeout = spec.timeout;
  const http = typeof timeout === 'object' && timeout !== null && 'http' in timeout ? (timeout as { http: unknown }).http : undefined;
  const requestTimeout = typeof http === 'object' && http !== null && 'requestTimeout' in http ? (http as { requestTimeout: unknown }).requestTimeout : undefined;
  const total = r.goDuration(requestTimeout, ['spec', 'timeout', 'http', 'requestTimeout'], true);
  if (total !== undefined && total > 0) policy.totalTimeoutMs = total;
  else notes.push('timeout.http.requestTimeout is not set: Envoy Gateway sets no route timeout by default here; nothing bounds all attempts together.');
  const cb = r.object(spec.circuitBreaker, ['spec', 'circuitBreaker']);
  const parallel = cb?.maxParallelRetries === undefined ? ENVOY_GATEWAY_DEFAULTS.maxParallelRetries : r.integer(cb.maxParallelRetries, ['spec', 'circuitBreaker', 'maxParallelRetries'], 0, 'a non-negative integer');
  if (parallel !== undefined) {
    policy.budget = { kind: 'envoy-max-retries', maxRetries: parallel };
    notes.push(`circuitBreaker.maxParallelRetries${cb?.maxParallelRetries === undefined ? ' is not set (Envoy Gateway\'s default)' : ''}: at most ${parallel} retries in flight at once.`);
  }
  notes.push('Envoy Gateway retries any method on the listed conditions (idempotency "always"); Retry-After is not read.');
  r.throwIfAny();
  return { policy, origin: `${source}: ${chosen.label} spec.retry`, notes, defaultName: 'envoy-gateway' };
}
