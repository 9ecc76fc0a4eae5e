import { isObject, type JsonObject, type Segment } from './FieldReader.js';
import { envoyBackoff, envoyRetryClasses } from './envoyRetryClasses.js';
import type { ImportedLayer } from './ImportedLayer.js';
import { formatGoDuration, MeshReader } from './MeshReader.js';
import { apiGroup } from './readResources.js';
import { listAnd } from './text.js';
import { describeRouteSite, openRoute, openRoutes, withRoute, type OpenedRoute, type RouteKind } from './routeSites.js';

/** Which HTTP route of the VirtualServices in a file to import. */
export interface IstioImportOptions {
  /** The `name` of an `http` route, or of the VirtualService when it has one route. */
  route?: string;
}

/**
 * Istio's retry defaults (istio/istio:pilot/pkg/networking/core/route/retry/retry.go, `defaultPolicy`,
 * as of commit 126806ab73d1ad1eb185b1d73d9cb92961efb142; pilot/pkg/features/pilot.go for the 503 switch):
 * - without `retries`, 2 retries on connect-failure, refused-stream, unavailable, cancelled and
 *   retriable-status-codes, to another host (previous_hosts) when one is available;
 * - the default's retriable status codes: none since Istio 1.24 (EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY,
 *   true by default; 1.24.0 change notes, istio/istio#50506), 503 before it, or with that switch
 *   false (as the `compatibilityVersion: 1.23` profile sets it);
 * - `unavailable` and `cancelled` are gRPC conditions (Envoy's x-envoy-retry-grpc-on): they match a
 *   gRPC status only, never an HTTP status;
 * - a `retries` block keeps the default `retryOn` when it gives none; `attempts` 0 (or absent, Go's
 *   zero value) disables retries;
 * - the route `timeout` is disabled unless set (istio/api:networking/v1alpha3/virtual_service.proto);
 * - DestinationRule `connectionPool.http.maxRetries` (retries in flight to a cluster) defaults to 2^32 - 1.
 */
export const ISTIO_DEFAULTS = {
  numRetries: 2,
  retryOn: ['connect-failure', 'refused-stream', 'unavailable', 'cancelled', 'retriable-status-codes'],
  /** The default's retriable status codes before Istio 1.24. */
  legacyStatusCodes: [503],
  statusCodes: [] as number[],
  /** The Istio release whose default stopped retrying 503. */
  statusCodesChangedIn: '1.24',
  /** The default's conditions that match gRPC statuses only. */
  grpcOnly: ['unavailable', 'cancelled'],
  maxRetries: 2 ** 32 - 1,
} as const;

/** The API groups of Istio networking resources. */
export const ISTIO_GROUP = 'networking.istio.io';

const RETRY_KEYS = ['attempts', 'perTryTimeout', 'retryOn', 'retryRemoteLocalities', 'retryIgnorePreviousHosts', 'backoff'];

/** The http routes of VirtualServices. */
const ISTIO_ROUTES: RouteKind = {
  kind: 'VirtualService',
  group: ISTIO_GROUP,
  list: 'http',
  none: 'VirtualService with an http route (apiVersion networking.istio.io/v1, kind VirtualService, spec.http)',
  noun: 'http route',
  plural: 'http routes',
};

/** The destination hosts of an http route (`route[].destination.host`). */
function hostsOf(http: JsonObject): string[] {
  const routes = Array.isArray(http.route) ? http.route : [];
  return routes.flatMap((d) => (isObject(d) && isObject(d.destination) && typeof d.destination.host === 'string' ? [d.destination.host] : []));
}

/** Whether a DestinationRule host names the same service as a route host (short names match their FQDN). */
function sameHost(a: string, b: string): boolean {
  return a === b || a.split('.')[0] === b.split('.')[0];
}

/**
 * The retry configuration of an Istio `VirtualService` http route (YAML or JSON, several resources
 * allowed) as one layer, as istiod translates it into an Envoy retry policy
 * (istio/istio:pilot/pkg/networking/core/route/retry/retry.go, `ConvertPolicy`):
 * - `retries.attempts` counts retries: maxAttempts attempts + 1; 0 disables retries;
 * - `perTryTimeout` -> perAttemptTimeoutMs; the route `timeout` -> totalTimeoutMs (none by default);
 * - `retryOn`: Envoy conditions, and HTTP status codes as numbers (they add retriable-status-codes);
 *   absent, Istio's default conditions;
 * - `backoff` -> Envoy's back-off with that base interval (default 25 ms, cap 10 x base);
 * - `retryRemoteLocalities`, `retryIgnorePreviousHosts` get notes (the model has one leaf);
 * - a DestinationRule for the route's host with `connectionPool.http.maxRetries` -> the
 *   envoy-max-retries limit (Istio's default, 2^32 - 1, is no limit).
 * Without `retries`, Istio's default policy ({@link ISTIO_DEFAULTS}). Every problem names the file,
 * the resource and the field.
 */
export function importIstio(text: string, source: string, options: IstioImportOptions = {}): ImportedLayer {
  return istioRoute(openRoute(text, source, ISTIO_ROUTES, options.route));
}

/** Every http route of the VirtualServices in a file (or the one `options.route` names), in file order, each read as {@link importIstio} reads one. */
export function importIstioRoutes(text: string, source: string, options: IstioImportOptions = {}): ImportedLayer[] {
  const { routes, warnings } = openRoutes(text, source, ISTIO_ROUTES, options.route);
  return routes.map((o) => withRoute(istioRoute(o), o, warnings));
}

function istioRoute(opened: OpenedRoute): ImportedLayer {
  const { source, resources, site, r, base, notes, policy } = opened;
  const http = site.entry;

  const timeout = r.goDuration(http.timeout, [...base, 'timeout'], true);
  if (timeout !== undefined && timeout > 0) policy.totalTimeoutMs = timeout;
  else notes.push('The route sets no timeout: Istio disables the route timeout, so nothing bounds all attempts together.');

  const retries = r.object(http.retries, [...base, 'retries']);
  const rp: Segment[] = [...base, 'retries'];
  let conditions: string[] = [...ISTIO_DEFAULTS.retryOn];
  let codes: number[] = [...ISTIO_DEFAULTS.statusCodes];
  let retryOnPath: Segment[] = rp;
  let baseMs: number | undefined;
  let ignorePrevious: boolean | undefined;
  if (retries === undefined) {
    policy.maxAttempts = ISTIO_DEFAULTS.numRetries + 1;
    notes.push(
      `No retries block: Istio's default since ${ISTIO_DEFAULTS.statusCodesChangedIn}, ${ISTIO_DEFAULTS.numRetries} retries on ${ISTIO_DEFAULTS.retryOn.join(', ')} with no status code listed, so an HTTP 503 is not retried; ${listAnd([...ISTIO_DEFAULTS.grpcOnly])} match gRPC statuses only (a gRPC UNAVAILABLE is retried). Before ${ISTIO_DEFAULTS.statusCodesChangedIn}, or with EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY=false in istiod, the default also retries 503: check that as "retries: { attempts: ${ISTIO_DEFAULTS.numRetries}, retryOn: ${[...ISTIO_DEFAULTS.retryOn, ...ISTIO_DEFAULTS.legacyStatusCodes].join(',')} }".`,
    );
  } else {
    r.knownKeys(retries, rp, RETRY_KEYS);
    const attempts = retries.attempts === undefined ? 0 : r.integer(retries.attempts, [...rp, 'attempts'], 0, 'a non-negative integer (the number of retries)');
    if (retries.attempts === undefined) notes.push('retries.attempts is not set: Istio reads it as 0, which disables retries.');
    if (attempts !== undefined) policy.maxAttempts = attempts + 1;
    const perTry = r.goDuration(retries.perTryTimeout, [...rp, 'perTryTimeout']);
    if (perTry !== undefined) policy.perAttemptTimeoutMs = perTry;
    const retryOn = r.string(retries.retryOn, [...rp, 'retryOn'], 'a comma-separated string of retry conditions');
    if (retryOn !== undefined && retryOn.trim() !== '') {
      conditions = [];
      codes = [];
      retryOnPath = [...rp, 'retryOn'];
      for (const raw of retryOn.split(',')) {
        const part = raw.trim();
        if (part === '') continue;
        if (/^\d+$/.test(part) && Number(part) >= 100 && Number(part) <= 599) codes.push(Number(part));
        else conditions.push(part);
      }
      if (codes.length > 0 && !conditions.includes('retriable-status-codes')) conditions.push('retriable-status-codes');
    } else if (retries.retryOn === undefined) {
      notes.push(`retries.retryOn is not set: Istio keeps its default conditions (${ISTIO_DEFAULTS.retryOn.join(', ')}) with no status code since ${ISTIO_DEFAULTS.statusCodesChangedIn} (503 before); ${listAnd([...ISTIO_DEFAULTS.grpcOnly])} match gRPC statuses only.`);
    }
    baseMs = r.goDuration(retries.backoff, [...rp, 'backoff']);
    const remote = r.boolean(retries.retryRemoteLocalities, [...rp, 'retryRemoteLocalities']);
    if (remote === true) notes.push('retryRemoteLocalities: retries may go to other localities; the model has one leaf, so a retry meets the same failure.');
    ignorePrevious = r.boolean(retries.retryIgnorePreviousHosts, [...rp, 'retryIgnorePreviousHosts']);
    if (ignorePrevious === false) notes.push('retryIgnorePreviousHosts false: retries may go back to the host that failed.');
  }
  if (ignorePrevious !== false) {
    notes.push('Retries go to other hosts when there are any (previous_hosts); the model has one leaf, so a retry meets the same failure (the worst case, as when every host fails).');
  }
  // Istio's default conditions on an HTTP stack: the gRPC-only ones never match an HTTP response.
  if (retryOnPath === rp) conditions = conditions.filter((c) => !(ISTIO_DEFAULTS.grpcOnly as readonly string[]).includes(c));
  policy.retryOn = envoyRetryClasses(r, conditions, codes, retryOnPath, notes);
  policy.backoff = envoyBackoff(baseMs);
  if (baseMs === undefined) notes.push("No backoff: Envoy's default base interval of 25 ms (capped at 250 ms).");

  const hosts = hostsOf(http);
  const rules = resources.filter((d) => d.kind === 'DestinationRule' && apiGroup(d.apiVersion) === ISTIO_GROUP);
  const rule = rules.find((d) => isObject(d.value.spec) && typeof d.value.spec.host === 'string' && hosts.some((h) => sameHost(h, (d.value.spec as JsonObject).host as string)));
  const ruleReader = rule === undefined ? undefined : new MeshReader(source, rule.label);
  const pool = rule === undefined ? undefined : (rule.value.spec as JsonObject).trafficPolicy;
  const maxRetriesValue = isObject(pool) && isObject(pool.connectionPool) && isObject(pool.connectionPool.http) ? pool.connectionPool.http.maxRetries : undefined;
  const maxRetries = ruleReader?.integer(maxRetriesValue, ['spec', 'trafficPolicy', 'connectionPool', 'http', 'maxRetries'], 0, 'a non-negative integer');
  if (maxRetries !== undefined && maxRetries < ISTIO_DEFAULTS.maxRetries) {
    policy.budget = { kind: 'envoy-max-retries', maxRetries };
    notes.push(`${rule?.label} connectionPool.http.maxRetries: at most ${maxRetries} retries in flight at once to the cluster.`);
  } else {
    notes.push('No DestinationRule limits the retries in flight (Istio sets the Envoy circuit breaker max_retries to 2^32 - 1).');
  }
  notes.push('Istio retries any method, POST included, on the listed conditions (idempotency "always").');
  r.problems.push(...(ruleReader?.problems ?? []));
  r.throwIfAny();
  const attemptsText = policy.maxAttempts === 1 ? 'no retries' : `${String(policy.maxAttempts)} attempts`;
  const timeoutText = policy.totalTimeoutMs !== undefined ? `, timeout ${formatGoDuration(policy.totalTimeoutMs)}` : '';
  return { policy, origin: `${source}: ${describeRouteSite(site, ISTIO_ROUTES)} (${attemptsText}${timeoutText})`, notes, defaultName: 'istio' };
}
