import { ENVOY_RETRY_BUDGET_DEFAULTS } from '../policy/budgets/EnvoyRetryBudget.js';
import type { BudgetInput, PolicyInput } from '../policy/presets.js';
import type { RetryOnClass } from '../policy/types.js';
import { describeValue, listItems } from '../policy/schema/describeValue.js';
import { nearestName } from '../policy/schema/nearestName.js';
import { MAX_NESTING } from '../experiment/parseJson.js';
import { FieldReader, isObject, protoDuration, type JsonObject, type Segment } from './FieldReader.js';
import { lostNote, type ImportedLayer } from './ImportedLayer.js';
import { chooseSite, describeSite, duplicateSiteNames, findSites, selectSites, type Site } from './envoyRouteSites.js';
import { readDocument } from './readDocument.js';
import { ENVOY_CONDITIONS, httpStatusClass } from './retryVocabulary.js';

/** Which route to import from a configuration with several retry policies. */
export interface EnvoyImportOptions {
  /** The `name` of the route entry (or of the virtual host) whose retry_policy to import. */
  route?: string;
}

/** Envoy's defaults (envoyproxy/envoy:api/envoy/config/route/v3/route_components.proto, router_filter.rst). */
export const ENVOY_DEFAULTS = {
  /** `num_retries` once a retry policy exists. */
  numRetries: 1,
  /** `retry_back_off.base_interval`. */
  baseIntervalMs: 25,
  /** `max_interval` defaults to 10 x base_interval. */
  maxIntervalFactor: 10,
  /** The route `timeout` (covers all retries). */
  routeTimeoutMs: 15_000,
  /** `rate_limited_retry_back_off.max_interval`. */
  rateLimitedMaxIntervalMs: 300_000,
  /** The cluster circuit breaker `max_retries`. */
  maxRetries: 3,
} as const;

const RETRY_POLICY_KEYS = [
  'retry_on',
  'num_retries',
  'per_try_timeout',
  'per_try_idle_timeout',
  'retry_priority',
  'retry_host_predicate',
  'retry_options_predicates',
  'host_selection_retry_max_attempts',
  'retriable_status_codes',
  'retry_back_off',
  'rate_limited_retry_back_off',
  'retriable_headers',
  'retriable_request_headers',
];

/**
 * Whether a document holds an Envoy `retry_policy` (or `retryPolicy`) at any depth up to
 * {@link MAX_NESTING}: a route, a list of routes, a route configuration, a bootstrap, a
 * config_dump.
 */
export function holdsEnvoyRetryPolicy(value: unknown, depth = 0): boolean {
  if (depth > MAX_NESTING) return false;
  if (Array.isArray(value)) return value.some((v) => holdsEnvoyRetryPolicy(v, depth + 1));
  if (!isObject(value)) return false;
  if (value.retry_policy !== undefined || value.retryPolicy !== undefined) return true;
  return Object.values(value).some((v) => holdsEnvoyRetryPolicy(v, depth + 1));
}

/** `numRetries` -> `num_retries`: protobuf JSON's lowerCamelCase name of a field, back to the proto name. */
function snakeOf(key: string): string {
  return /^[a-z][a-zA-Z0-9]*$/.test(key) && /[A-Z]/.test(key) ? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : key;
}

/** `num_retries` -> `numRetries`. */
function camelOf(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * The document with every lowerCamelCase key renamed to its proto field name (`retryPolicy` ->
 * `retry_policy`), as Envoy's protobuf JSON parser accepts both spellings; `camel` says whether any
 * key was renamed. The document nests at most {@link MAX_NESTING} levels (readDocument refuses deeper ones).
 */
function protoNames(value: unknown, state: { camel: boolean }): unknown {
  if (Array.isArray(value)) return value.map((v) => protoNames(v, state));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    const proto = snakeOf(key);
    if (proto !== key) state.camel = true;
    out[proto] = protoNames(v, state);
  }
  return out;
}

/** A FieldReader that names fields in lowerCamelCase, for a document written in protobuf JSON's camelCase. */
class CamelFieldReader extends FieldReader {
  protected override spelled(key: string): string {
    return camelOf(key);
  }
}

/** A cluster given in the document: its name, where it is, and the object. */
interface ClusterSite {
  name: string;
  path: Segment[];
  cluster: JsonObject;
}

/** Fields only a cluster (envoy.config.cluster.v3.Cluster) has, to tell one from a route or a listener. */
const CLUSTER_FIELDS = ['circuit_breakers', 'connect_timeout', 'load_assignment', 'lb_policy', 'eds_cluster_config', 'cluster_type', 'dns_lookup_family'];

/** Every cluster in the document (a bootstrap's static_resources.clusters, a config_dump's clusters ...), in document order. */
function findClusters(value: unknown, path: Segment[], out: ClusterSite[], depth = 0): void {
  if (depth > MAX_NESTING) return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => findClusters(v, [...path, i], out, depth + 1));
    return;
  }
  if (!isObject(value)) return;
  if (typeof value.name === 'string' && CLUSTER_FIELDS.some((k) => value[k] !== undefined)) out.push({ name: value.name, path, cluster: value });
  for (const [key, v] of Object.entries(value)) findClusters(v, [...path, key], out, depth + 1);
}

function readRetryOn(r: FieldReader, rp: JsonObject, path: readonly Segment[], notes: string[]): { classes: RetryOnClass[]; statusCodes: boolean } {
  const classes: RetryOnClass[] = [];
  const add = (cs: readonly RetryOnClass[]) => cs.forEach((c) => classes.includes(c) || classes.push(c));
  const text = r.string(rp.retry_on, [...path, 'retry_on'], 'a comma-separated string of retry conditions');
  if (text === undefined) {
    if (rp.retry_on === undefined) notes.push(`${r.name(path)} has no retry_on: Envoy retries nothing.`);
    return { classes, statusCodes: false };
  }
  let statusCodes = false;
  for (const raw of text.split(',')) {
    const cond = raw.trim();
    if (cond === '') continue;
    const known = ENVOY_CONDITIONS.find((t) => t.term === cond);
    if (known === undefined) {
      const names = ENVOY_CONDITIONS.map((t) => t.term);
      const near = nearestName(cond, names);
      r.fail([...path, 'retry_on'], `has an unknown condition ${r.quote(cond)}${near !== undefined ? ` (did you mean ${describeValue(near)}?)` : ` (known: ${names.join(', ')})`}`);
      continue;
    }
    add(known.classes);
    if (cond === 'retriable-status-codes') statusCodes = true;
    if (known.note !== undefined) notes.push(lostNote(`retry_on ${cond}: ${known.note}`));
  }
  return { classes, statusCodes };
}

/**
 * An Envoy route's `retry_policy` (YAML or JSON) as one layer. The document may be the retry
 * policy's holder itself (a route action: `{ retry_policy, timeout }`), a route entry
 * (`{ match, route: { ... } }`), a virtual host or a whole route configuration; with several
 * retry policies, `options.route` names the route entry. Mapping (envoyproxy/envoy:
 * api/envoy/config/route/v3/route_components.proto, router_filter.rst,
 * source/common/common/backoff_strategy.cc):
 * - `num_retries` (default 1) -> maxAttempts num_retries + 1;
 * - `per_try_timeout` -> perAttemptTimeoutMs; the route `timeout` (default 15 s, "0s" = none),
 *   which "includes all retries" -> totalTimeoutMs;
 * - `retry_on` -> retryOn, each condition as ENVOY_CONDITIONS (retryVocabulary.ts) says (5xx ->
 *   500, 502, 503, 504, per-try timeouts, resets, connect failures and refused streams;
 *   gateway-error -> the same but 500; reset -> resets, connect failures and refused streams;
 *   retriable-4xx -> 409 conflicts; the gRPC conditions -> their gRPC classes;
 *   retriable-status-codes -> `retriable_status_codes`, each status its own class);
 * - `retry_back_off` base_interval / max_interval (default 25 ms / 10 x base) -> backoff `envoy`
 *   (an integer uniform on [0, min(base x 2^(n-1), max)), Envoy's current
 *   JitteredExponentialBackOffStrategy);
 * - `rate_limited_retry_back_off` -> the server's reset header replaces the backoff
 *   (retryAfter `replace`); without it Envoy ignores Retry-After;
 * - Envoy retries any method (idempotency `always`);
 * - the cluster's retry limits: the `circuit_breakers` (`retry_budget` or `max_retries`) of the
 *   cluster in the same document that the route's `cluster` names, else the default max_retries
 *   circuit breaker (3 at once).
 * Field names may be the proto names or protobuf JSON's lowerCamelCase (`retryPolicy`,
 * `numRetries`); the document may be a list of routes, a full bootstrap or `config_dump` output,
 * nested up to {@link MAX_NESTING} levels.
 * `retry_host_predicate` and `retry_priority` get notes (the model has one leaf). Every problem
 * names the file and the field.
 */
export function importEnvoyRoute(text: string, source: string, options: EnvoyImportOptions = {}): ImportedLayer {
  const doc = openDocument(text, source);
  const site = chooseSite(doc.r, doc.sites, options.route);
  doc.r.throwIfAny();
  if (site === undefined) throw new Error('unreachable');
  return readSite(doc, site);
}

/** A document's retry policies, in document order, read in the proto names. */
interface EnvoyDocument {
  source: string;
  root: unknown;
  r: FieldReader;
  camel: boolean;
  sites: Site[];
}

function openDocument(text: string, source: string): EnvoyDocument {
  const state = { camel: false };
  const root = protoNames(readDocument(text, source), state);
  const r = state.camel ? new CamelFieldReader(source) : new FieldReader(source);
  const sites: Site[] = [];
  findSites(root, [], undefined, sites);
  return { source, root, r, camel: state.camel, sites };
}

/**
 * Every retry policy of an Envoy document (routes and virtual hosts), or the one `options.route`
 * names, in document order, each read as {@link importEnvoyRoute} reads one; with several, each
 * layer's `route` is its route name, or where it is when it has none (or shares it). A name given
 * to several routes is a warning (each is still read) or, named by `options.route`, a problem.
 */
export function importEnvoyRoutes(text: string, source: string, options: EnvoyImportOptions = {}): ImportedLayer[] {
  const doc = openDocument(text, source);
  const sites = selectSites(doc.r, doc.sites, options.route);
  doc.r.throwIfAny();
  const duplicates = duplicateSiteNames(doc.sites);
  const warnings = [...duplicates].map(
    ([name, list]) =>
      `${source}: ${list.length} retry policies are named ${JSON.stringify(name)} (${listItems(list.map(describeSite))}); each is read on its own, named by where it is, and --route ${JSON.stringify(name)} is refused because it cannot tell them apart`,
  );
  return sites.map((site) => {
    const layer = readSite(doc, site);
    const route = site.name !== undefined && !duplicates.has(site.name) ? site.name : site.path.join('.');
    return { ...layer, ...(sites.length > 1 ? { route } : {}), ...(warnings.length > 0 ? { warnings } : {}) };
  });
}

/** One route entry's retry_policy, read into a policy with notes on what the model does differently. */
function readSite(doc: EnvoyDocument, site: Site): ImportedLayer {
  const { source, root, r } = doc;
  const notes: string[] = [];
  const path: Segment[] = [...site.path, 'retry_policy'];
  const rp = r.object(site.holder.retry_policy, path) ?? {};
  r.knownKeys(rp, path, RETRY_POLICY_KEYS);

  const policy: PolicyInput = { idempotency: 'always', retryAfter: 'ignore' };
  readAttempts(r, rp, path, policy, notes);
  readRouteTimeout(r, site, policy, notes);
  policy.retryOn = readRetryClasses(r, rp, path, notes);
  policy.backoff = readBackOff(r, rp, path);
  readRateLimitedBackOff(r, rp, path, policy, notes);
  readHostSelection(r, rp, path, notes);

  const clusters: ClusterSite[] = [];
  findClusters(root, [], clusters);
  const budget = clusterBudget(r, site, clusters, notes);
  if (budget !== undefined) policy.budget = budget;
  notes.push('Envoy retries any method, POST included, on the listed conditions (idempotency "always").');
  if (doc.camel) notes.push('Field names in protobuf JSON\'s lowerCamelCase (retryPolicy, numRetries ...) are read as their proto names, as Envoy accepts both.');
  r.throwIfAny();
  const name = site.name === undefined ? '' : ` route ${describeValue(site.name)}`;
  return { policy, origin: `${source}:${name} ${r.name(path)}`, notes, defaultName: 'envoy' };
}

/** `num_retries` (Envoy's default when absent), `per_try_timeout` and `per_try_idle_timeout`. */
function readAttempts(r: FieldReader, rp: JsonObject, path: readonly Segment[], policy: PolicyInput, notes: string[]): void {
  const numRetries = rp.num_retries === undefined ? ENVOY_DEFAULTS.numRetries : r.integer(rp.num_retries, [...path, 'num_retries'], 0, 'a non-negative integer');
  if (numRetries !== undefined) policy.maxAttempts = numRetries + 1;
  if (rp.num_retries === undefined) notes.push(`num_retries is not set: Envoy's default is ${ENVOY_DEFAULTS.numRetries} retry.`);

  const perTry = r.duration(rp.per_try_timeout, [...path, 'per_try_timeout'], true);
  if (perTry !== undefined && perTry > 0) policy.perAttemptTimeoutMs = perTry;
  if (rp.per_try_idle_timeout !== undefined) {
    r.duration(rp.per_try_idle_timeout, [...path, 'per_try_idle_timeout'], true);
    notes.push('per_try_idle_timeout (a timeout on silence within a response) is not modelled.');
  }
}

/** The route's `timeout`, the time of all attempts together (a virtual host's routes: Envoy's default). */
function readRouteTimeout(r: FieldReader, site: Site, policy: PolicyInput, notes: string[]): void {
  if (site.virtualHost) {
    policy.totalTimeoutMs = ENVOY_DEFAULTS.routeTimeoutMs;
    notes.push(`A virtual host's retry_policy applies to its routes; their route timeout is taken as Envoy's default ${ENVOY_DEFAULTS.routeTimeoutMs / 1000} s.`);
    return;
  }
  const timeoutPath = [...site.path, 'timeout'];
  const routeTimeout = site.holder.timeout === undefined ? ENVOY_DEFAULTS.routeTimeoutMs : r.duration(site.holder.timeout, timeoutPath, true);
  if (routeTimeout !== undefined && routeTimeout > 0) policy.totalTimeoutMs = routeTimeout;
  if (routeTimeout === 0) notes.push('The route timeout is 0s (disabled): nothing bounds the time of all attempts together.');
  if (site.holder.timeout === undefined) notes.push(`The route sets no timeout: Envoy's default ${ENVOY_DEFAULTS.routeTimeoutMs / 1000} s covers all attempts.`);
}

/** The outcome classes retried: `retry_on`'s conditions and, when it lists retriable-status-codes, `retriable_status_codes`. */
function readRetryClasses(r: FieldReader, rp: JsonObject, path: readonly Segment[], notes: string[]): RetryOnClass[] {
  const { classes, statusCodes } = readRetryOn(r, rp, path, notes);
  const codes = r.array(rp.retriable_status_codes, [...path, 'retriable_status_codes'], 'a list of HTTP status codes');
  if (codes !== undefined) {
    if (!statusCodes) notes.push('retriable_status_codes is ignored: retry_on does not list retriable-status-codes.');
    codes.forEach((code, i) => {
      const n = r.integer(code, [...path, 'retriable_status_codes', i], 100, 'an HTTP status code');
      if (n === undefined || n > 599) {
        if (n !== undefined) r.fail([...path, 'retriable_status_codes', i], `must be an HTTP status code (got ${n})`);
        return;
      }
      if (!statusCodes) return;
      const cls = httpStatusClass(n);
      if (cls === null) notes.push(lostNote(`retriable_status_codes: ${n} is never answered by a leaf of the model and is left out.`));
      else if (!classes.includes(cls)) classes.push(cls);
    });
  } else if (statusCodes) {
    notes.push('retry_on lists retriable-status-codes but retriable_status_codes is empty.');
  }
  return classes;
}

/** `retry_back_off` (Envoy's defaults when absent): base and max interval, doubling. */
function readBackOff(r: FieldReader, rp: JsonObject, path: readonly Segment[]): NonNullable<PolicyInput['backoff']> {
  const backOff = r.object(rp.retry_back_off, [...path, 'retry_back_off']);
  let baseMs: number = ENVOY_DEFAULTS.baseIntervalMs;
  let capMs: number = ENVOY_DEFAULTS.baseIntervalMs * ENVOY_DEFAULTS.maxIntervalFactor;
  if (backOff !== undefined) {
    const bp = [...path, 'retry_back_off'];
    r.knownKeys(backOff, bp, ['base_interval', 'max_interval']);
    if (backOff.base_interval === undefined) r.fail([...bp, 'base_interval'], 'is required');
    const base = r.duration(backOff.base_interval, [...bp, 'base_interval']);
    const max = r.duration(backOff.max_interval, [...bp, 'max_interval']);
    if (base !== undefined) {
      baseMs = base;
      capMs = max ?? base * ENVOY_DEFAULTS.maxIntervalFactor;
      if (max !== undefined && max < base) {
        r.fail([...bp, 'max_interval'], `must be >= base_interval (got ${protoDuration(max)} < ${protoDuration(base)})`);
      }
    }
  }
  return { kind: 'envoy', baseMs, capMs, multiplier: 2, exponentOffset: 0 };
}

/** `rate_limited_retry_back_off`: the server's reset header replaces the back-off (what differs is noted). */
function readRateLimitedBackOff(r: FieldReader, rp: JsonObject, path: readonly Segment[], policy: PolicyInput, notes: string[]): void {
  const rateLimited = r.object(rp.rate_limited_retry_back_off, [...path, 'rate_limited_retry_back_off']);
  if (rateLimited === undefined) {
    notes.push('Without rate_limited_retry_back_off Envoy does not read Retry-After.');
    return;
  }
  const rl = [...path, 'rate_limited_retry_back_off'];
  r.knownKeys(rateLimited, rl, ['reset_headers', 'max_interval']);
  const headers = r.array(rateLimited.reset_headers, [...rl, 'reset_headers'], 'a list of reset headers');
  if (headers === undefined || headers.length === 0) r.fail([...rl, 'reset_headers'], 'must list at least one header (Envoy requires it)');
  const names: string[] = [];
  (headers ?? []).forEach((h, i) => {
    const header = r.object(h, [...rl, 'reset_headers', i], 'an object with "name" and "format"');
    if (header === undefined) return;
    r.knownKeys(header, [...rl, 'reset_headers', i], ['name', 'format']);
    const name = r.string(header.name, [...rl, 'reset_headers', i, 'name']);
    if (header.name === undefined) r.fail([...rl, 'reset_headers', i, 'name'], 'is required');
    if (header.format !== undefined && header.format !== 'SECONDS' && header.format !== 'UNIX_TIMESTAMP') {
      r.fail([...rl, 'reset_headers', i, 'format'], `must be SECONDS or UNIX_TIMESTAMP (got ${r.quote(header.format)})`);
    }
    if (name !== undefined) names.push(name);
  });
  const maxInterval = r.duration(rateLimited.max_interval, [...rl, 'max_interval']) ?? ENVOY_DEFAULTS.rateLimitedMaxIntervalMs;
  policy.retryAfter = 'replace';
  notes.push(
    `rate_limited_retry_back_off: after a rate-limited answer Envoy waits the server's ${names.join(' or ') || 'reset header'} i plus a jitter, random(i, 1.5 x i) (JitteredLowerBoundBackOffStrategy), discarding values above ${protoDuration(maxInterval)}; the model waits i exactly (retryAfter "replace"), keeps values above ${protoDuration(maxInterval)}, and otherwise the regular back-off.`,
  );
}

/** Which hosts retries go to (`retry_host_predicate`, `retry_priority`): noted, not modelled. */
function readHostSelection(r: FieldReader, rp: JsonObject, path: readonly Segment[], notes: string[]): void {
  if (rp.retry_host_predicate !== undefined) {
    const predicates = r.array(rp.retry_host_predicate, [...path, 'retry_host_predicate'], 'a list of predicates') ?? [];
    const names = predicates.map((p) => (isObject(p) && typeof p.name === 'string' ? p.name : '?'));
    notes.push(
      `retry_host_predicate (${names.join(', ')}): retries go to other hosts; the model has one leaf, so a retry meets the same failure (the worst case, as when every host fails).`,
    );
  }
  if (rp.retry_priority !== undefined) notes.push('retry_priority (which priority levels retries go to) is not modelled.');
  if (rp.host_selection_retry_max_attempts !== undefined) {
    r.integer(rp.host_selection_retry_max_attempts, [...path, 'host_selection_retry_max_attempts'], 1, 'a positive integer');
  }
}

/**
 * The retry limits of the cluster the route sends to: the `circuit_breakers` of the cluster in the
 * document whose `name` is the route action's `cluster` (a breaker of another cluster never
 * applies), else Envoy's default max_retries circuit breaker, with a note saying why.
 */
function clusterBudget(r: FieldReader, site: Site, clusters: ClusterSite[], notes: string[]): BudgetInput | undefined {
  const fallback: BudgetInput = { kind: 'envoy-max-retries', maxRetries: ENVOY_DEFAULTS.maxRetries };
  const limit = `the default max_retries ${ENVOY_DEFAULTS.maxRetries} applies (at most ${ENVOY_DEFAULTS.maxRetries} retries in flight at once)`;
  const target = site.virtualHost ? undefined : site.holder.cluster;
  if (typeof target !== 'string') {
    const why = site.virtualHost
      ? 'A virtual host\'s routes may send to several clusters'
      : site.holder.weighted_clusters !== undefined
        ? 'The route splits its traffic over weighted_clusters'
        : 'The route names no cluster (cluster_header or a cluster specifier)';
    notes.push(`${why}: no one cluster's circuit_breakers is known, so ${limit}.`);
    return fallback;
  }
  const own = clusters.find((c) => c.name === target);
  if (own === undefined) {
    notes.push(`Cluster ${describeValue(target)} is not in the file: ${limit}.`);
    return fallback;
  }
  if (own.cluster.circuit_breakers === undefined) {
    notes.push(`Cluster ${describeValue(target)} (${r.name(own.path)}) sets no circuit_breakers: ${limit}.`);
    return fallback;
  }
  return readCircuitBreakers(r, own.cluster.circuit_breakers, [...own.path, 'circuit_breakers'], notes);
}

/** The cluster retry limits of `circuit_breakers.thresholds` (the DEFAULT priority entry). */
function readCircuitBreakers(r: FieldReader, value: unknown, path: Segment[], notes: string[]): BudgetInput | undefined {
  const cb = r.object(value, path);
  if (cb === undefined) return undefined;
  const thresholds = r.array(cb.thresholds, [...path, 'thresholds'], 'a list of thresholds') ?? [];
  const index = thresholds.findIndex((t) => isObject(t) && (t.priority === undefined || t.priority === 'DEFAULT'));
  const t = index < 0 ? undefined : r.object(thresholds[index], [...path, 'thresholds', index]);
  const tp: Segment[] = [...path, 'thresholds', index];
  if (t === undefined) {
    notes.push(`circuit_breakers has no DEFAULT-priority thresholds: the default max_retries ${ENVOY_DEFAULTS.maxRetries} applies.`);
    return { kind: 'envoy-max-retries', maxRetries: ENVOY_DEFAULTS.maxRetries };
  }
  const rb = r.object(t.retry_budget, [...tp, 'retry_budget']);
  if (rb !== undefined) {
    const pctValue = isObject(rb.budget_percent) ? rb.budget_percent.value : rb.budget_percent;
    const pct = pctValue === undefined ? ENVOY_RETRY_BUDGET_DEFAULTS.budgetPercent : r.number(pctValue, [...tp, 'retry_budget', 'budget_percent'], (n) => n >= 0 && n <= 100, 'a percentage between 0 and 100');
    const minValue = isObject(rb.min_retry_concurrency) ? rb.min_retry_concurrency.value : rb.min_retry_concurrency;
    const min = minValue === undefined ? ENVOY_RETRY_BUDGET_DEFAULTS.minRetryConcurrency : r.integer(minValue, [...tp, 'retry_budget', 'min_retry_concurrency'], 0, 'a non-negative integer');
    notes.push(`${r.name([...tp, 'retry_budget'])}: concurrent retries <= ${pct ?? ENVOY_RETRY_BUDGET_DEFAULTS.budgetPercent}% of active requests, at least ${min ?? ENVOY_RETRY_BUDGET_DEFAULTS.minRetryConcurrency} (it replaces max_retries).`);
    if (pct === undefined || min === undefined) return undefined;
    return { kind: 'envoy-retry-budget', budgetPercent: pct, minRetryConcurrency: min };
  }
  const maxRetriesValue = isObject(t.max_retries) ? t.max_retries.value : t.max_retries;
  const maxRetries = maxRetriesValue === undefined ? ENVOY_DEFAULTS.maxRetries : r.integer(maxRetriesValue, [...tp, 'max_retries'], 0, 'a non-negative integer');
  if (maxRetries === undefined) return undefined;
  notes.push(`${r.name([...tp, 'max_retries'])}: at most ${maxRetries} retries in flight at once.`);
  return { kind: 'envoy-max-retries', maxRetries };
}
