import type { RetryOnClass } from '../policy/types.js';
import { isObject, type JsonObject, type Segment } from './FieldReader.js';
import { envoyBackoff } from './envoyRetryClasses.js';
import { httpStatusClass } from './retryVocabulary.js';
import { lostNote, type ImportedLayer } from './ImportedLayer.js';
import { MeshReader } from './MeshReader.js';
import { apiGroup, type Resource } from './readResources.js';
import { describeRouteSite, openRoute, openRoutes, withRoute, type OpenedRoute, type RouteKind } from './routeSites.js';

/** Which rule of the HTTPRoutes in a file to import. */
export interface GatewayApiImportOptions {
  /** A rule's `name`, or the HTTPRoute's name when it has one rule. */
  route?: string;
}

/** The API group of Gateway API resources, and of its experimental (x-k8s) ones. */
export const GATEWAY_API_GROUP = 'gateway.networking.k8s.io';
export const GATEWAY_API_X_GROUP = 'gateway.networking.x-k8s.io';

/**
 * Gateway API defaults (kubernetes-sigs/gateway-api v1.3.0):
 * - HTTPRoute `rules[].retry` (experimental channel, GEP-1731): `attempts` is the number of
 *   retries and its default is implementation-specific: 2 here, Envoy Gateway's `numRetries`
 *   default (envoyproxy/gateway:api/v1alpha1/retry_types.go); `backoff` is the minimum wait, drawn
 *   by Envoy-based implementations as Envoy's back-off with that base;
 * - XBackendTrafficPolicy `retryConstraint` (GEP-3388, gateway.networking.x-k8s.io/v1alpha1):
 *   `budget.percent` 20, `budget.interval` 10 s, `minRetryRate.count` 10, `minRetryRate.interval` 1 s.
 */
export const GATEWAY_API_DEFAULTS = {
  attempts: 2,
  budgetPercent: 20,
  budgetIntervalMs: 10_000,
  minRetryCount: 10,
  minRetryIntervalMs: 1000,
} as const;

/** The rules of Gateway API HTTPRoutes; without a name, the only rule with a retry is chosen. */
const HTTP_ROUTE_RULES: RouteKind = {
  kind: 'HTTPRoute',
  group: GATEWAY_API_GROUP,
  list: 'rules',
  none: 'Gateway API HTTPRoute with rules (apiVersion gateway.networking.k8s.io/v1, kind HTTPRoute)',
  noun: 'rule',
  plural: 'HTTPRoute rules',
  prefer: (rule) => rule.retry !== undefined,
};

/** The names of the backends a rule sends to (`backendRefs[].name`). */
function backendsOf(rule: JsonObject): string[] {
  const refs = Array.isArray(rule.backendRefs) ? rule.backendRefs : [];
  return refs.flatMap((b) => (isObject(b) && typeof b.name === 'string' ? [b.name] : []));
}

function targetsOf(policy: Resource): string[] {
  const spec = isObject(policy.value.spec) ? policy.value.spec : {};
  const refs = Array.isArray(spec.targetRefs) ? spec.targetRefs : [];
  return refs.flatMap((t) => (isObject(t) && typeof t.name === 'string' ? [t.name] : []));
}

/**
 * A Gateway API HTTPRoute rule's retry (YAML or JSON, several resources allowed) as one layer:
 * - `retry.attempts` counts retries (default {@link GATEWAY_API_DEFAULTS}.attempts) -> maxAttempts + 1;
 * - `retry.codes` (HTTP status codes) -> retryOn; none listed, nothing is retried;
 * - `retry.backoff` -> Envoy's back-off with that base (cap 10 x base), the way Envoy-based
 *   implementations draw it (the algorithm is implementation-specific);
 * - `timeouts.request` -> totalTimeoutMs, `timeouts.backendRequest` -> perAttemptTimeoutMs;
 * - the `XBackendTrafficPolicy` that targets the rule's backend: `retryConstraint` as a windowed
 *   ratio budget (`finagle`: percent of the requests over `interval`, plus `minRetryRate`).
 * A rule without `retry` does not retry. Every problem names the file, the resource and the field.
 */
export function importGatewayApi(text: string, source: string, options: GatewayApiImportOptions = {}): ImportedLayer {
  return gatewayRule(openRoute(text, source, HTTP_ROUTE_RULES, options.route));
}

/** Every HTTPRoute rule with a retry (else every rule) of a file, or the one `options.route` names, in file order, each read as {@link importGatewayApi} reads one. */
export function importGatewayApiRoutes(text: string, source: string, options: GatewayApiImportOptions = {}): ImportedLayer[] {
  const { routes, warnings } = openRoutes(text, source, HTTP_ROUTE_RULES, options.route);
  return routes.map((o) => withRoute(gatewayRule(o), o, warnings));
}

function gatewayRule(opened: OpenedRoute): ImportedLayer {
  const { source, resources, site, r, base, notes, policy } = opened;
  const rule = site.entry;
  const timeouts = r.object(rule.timeouts, [...base, 'timeouts']);
  if (timeouts !== undefined) {
    r.knownKeys(timeouts, [...base, 'timeouts'], ['request', 'backendRequest']);
    const request = r.goDuration(timeouts.request, [...base, 'timeouts', 'request'], true);
    const backend = r.goDuration(timeouts.backendRequest, [...base, 'timeouts', 'backendRequest'], true);
    if (request !== undefined && request > 0) policy.totalTimeoutMs = request;
    if (backend !== undefined && backend > 0) policy.perAttemptTimeoutMs = backend;
  }
  if (policy.totalTimeoutMs === undefined) notes.push('timeouts.request is not set: its default is implementation-specific; none is taken here.');
  const retry = r.object(rule.retry, [...base, 'retry']);
  const rp: Segment[] = [...base, 'retry'];
  if (retry === undefined) {
    policy.maxAttempts = 1;
    notes.push('The rule has no retry: Gateway API routes do not retry unless the implementation adds its own retries.');
  } else {
    r.knownKeys(retry, rp, ['attempts', 'backoff', 'codes']);
    const attempts = retry.attempts === undefined ? GATEWAY_API_DEFAULTS.attempts : r.integer(retry.attempts, [...rp, 'attempts'], 0, 'a non-negative integer (the number of retries)');
    if (retry.attempts === undefined) notes.push(`retry.attempts is not set: its default is implementation-specific; ${GATEWAY_API_DEFAULTS.attempts} retries (Envoy Gateway's default) are taken.`);
    if (attempts !== undefined) policy.maxAttempts = attempts + 1;
    const classes: RetryOnClass[] = [];
    const codes = r.array(retry.codes, [...rp, 'codes'], 'a list of HTTP status codes') ?? [];
    codes.forEach((code, i) => {
      const n = r.integer(code, [...rp, 'codes', i], 400, 'an HTTP status code from 400 to 599');
      if (n === undefined) return;
      if (n > 599) {
        r.fail([...rp, 'codes', i], `must be an HTTP status code from 400 to 599 (got ${n})`);
        return;
      }
      const c = httpStatusClass(n);
      if (c === null) notes.push(lostNote(`retry.codes: ${n} is never answered by a leaf of the model and is left out.`));
      else if (!classes.includes(c)) classes.push(c);
    });
    if (codes.length === 0) notes.push('retry.codes is empty: no status is retried (implementations may still retry connection errors, which are not modelled).');
    policy.retryOn = classes;
    const backoff = r.goDuration(retry.backoff, [...rp, 'backoff']);
    policy.backoff = envoyBackoff(backoff);
    notes.push(
      backoff === undefined
        ? "retry.backoff is not set: Envoy's default base interval of 25 ms (cap 250 ms), as Envoy-based implementations use."
        : 'retry.backoff is the minimum wait; the algorithm is implementation-specific: Envoy-based implementations use it as the base of Envoy\'s back-off (cap 10 x base).',
    );
  }
  const backends = backendsOf(rule);
  const policies = resources.filter((d) => d.kind === 'XBackendTrafficPolicy' && apiGroup(d.apiVersion) === GATEWAY_API_X_GROUP);
  const btp = policies.find((p) => targetsOf(p).some((t) => backends.includes(t)));
  if (btp !== undefined) {
    const br = new MeshReader(source, btp.label);
    const spec = br.object(btp.value.spec, ['spec']) ?? {};
    const rc = br.object(spec.retryConstraint, ['spec', 'retryConstraint']);
    if (rc !== undefined) {
      const cp: Segment[] = ['spec', 'retryConstraint'];
      br.knownKeys(rc, cp, ['budget', 'minRetryRate']);
      const budget = br.object(rc.budget, [...cp, 'budget']) ?? {};
      const min = br.object(rc.minRetryRate, [...cp, 'minRetryRate']) ?? {};
      br.knownKeys(budget, [...cp, 'budget'], ['percent', 'interval']);
      br.knownKeys(min, [...cp, 'minRetryRate'], ['count', 'interval']);
      const percent = budget.percent === undefined ? GATEWAY_API_DEFAULTS.budgetPercent : br.integer(budget.percent, [...cp, 'budget', 'percent'], 0, 'an integer percentage from 0 to 100');
      if (percent !== undefined && percent > 100) br.fail([...cp, 'budget', 'percent'], `must be an integer percentage from 0 to 100 (got ${percent})`);
      const interval = budget.interval === undefined ? GATEWAY_API_DEFAULTS.budgetIntervalMs : br.goDuration(budget.interval, [...cp, 'budget', 'interval']);
      const count = min.count === undefined ? GATEWAY_API_DEFAULTS.minRetryCount : br.integer(min.count, [...cp, 'minRetryRate', 'count'], 0, 'a non-negative integer');
      const per = min.interval === undefined ? GATEWAY_API_DEFAULTS.minRetryIntervalMs : br.goDuration(min.interval, [...cp, 'minRetryRate', 'interval']);
      if (percent !== undefined && interval !== undefined && count !== undefined && per !== undefined && percent <= 100) {
        policy.budget = { kind: 'finagle', percentCanRetry: percent / 100, ttlMs: interval, minRetriesPerSec: (count * 1000) / per };
        notes.push(
          `${btp.label} retryConstraint: retries within ${percent}% of the requests over ${interval / 1000} s, and at least ${count} per ${per / 1000} s (a windowed ratio budget, "finagle" here).`,
        );
      }
    }
    r.problems.push(...br.problems);
  } else if (policies.length > 0) {
    notes.push(`No XBackendTrafficPolicy targets the rule's backends (${backends.join(', ') || 'none'}); ${policies.map((p) => p.label).join(', ')} ${policies.length > 1 ? 'are' : 'is'} not applied.`);
  }
  notes.push('Gateway API retries apply to any method (idempotency "always").');
  r.throwIfAny();
  return { policy, origin: `${source}: ${describeRouteSite(site, HTTP_ROUTE_RULES)} retry`, notes, defaultName: 'gateway' };
}
