import { describeValue, listNames } from '../policy/schema/describeValue.js';
import { nearestName } from '../policy/schema/nearestName.js';
import type { PolicyInput } from '../policy/presets.js';
import type { RetryOnClass } from '../policy/types.js';
import type { JsonObject, Segment } from './FieldReader.js';
import { httpStatusClass, LINKERD_GRPC_TERMS, LINKERD_HTTP_TERMS } from './retryVocabulary.js';
import { LINKERD_ANNOTATION_FIXES, SERVICE_PROFILE_FIXES } from './formatFixes.js';
import type { ImportedLayer } from './ImportedLayer.js';
import { formatGoDuration, MeshReader } from './MeshReader.js';
import { annotationsOf, apiGroup, readResources, type Resource } from './readResources.js';

/** Which route of a Linkerd configuration to import. */
export interface LinkerdImportOptions {
  /** A ServiceProfile route's `name`, or the name of the HTTPRoute, GRPCRoute or Service whose annotations to read. */
  route?: string;
}

/** The retry annotations of Linkerd 2.16+ (linkerd.io/2/reference/retries, 2024-08). */
export const LINKERD_ANNOTATIONS = {
  http: 'retry.linkerd.io/http',
  grpc: 'retry.linkerd.io/grpc',
  limit: 'retry.linkerd.io/limit',
  timeout: 'retry.linkerd.io/timeout',
  requestTimeout: 'timeout.linkerd.io/request',
  responseTimeout: 'timeout.linkerd.io/response',
} as const;

/**
 * Linkerd's defaults:
 * - annotations (linkerd.io/2/reference/retries, Linkerd 2.16, 2024-08): `retry.linkerd.io/limit`
 *   defaults to 1 retry; no retry timeout; no budget; no backoff field;
 * - ServiceProfile (linkerd.io/2/features/retries-and-timeouts, linkerd.io/2/reference/service-profiles):
 *   `retryBudget` retryRatio 0.2, minRetriesPerSecond 10, ttl 10 s ("at most an additional 20% ...
 *   plus 10 free retries per second"); a route's `timeout` 10 s, covering all retries; retryable
 *   routes retry "until either the timeout is reached or the retry budget is exceeded" (no count).
 */
export const LINKERD_DEFAULTS = {
  retryLimit: 1,
  retryRatio: 0.2,
  minRetriesPerSecond: 10,
  ttlMs: 10_000,
  routeTimeoutMs: 10_000,
} as const;

/** `retry.linkerd.io/grpc` conditions and the classes they retry (LINKERD_GRPC_TERMS, which the exporter reads too). */
const GRPC_CONDITIONS: Record<string, readonly RetryOnClass[]> = Object.fromEntries(LINKERD_GRPC_TERMS.map((t) => [t.term, t.classes]));

const ROUTE_KINDS = ['HTTPRoute', 'GRPCRoute'];

/** The classes of HTTP statuses lo..hi (each through httpStatusClass). */
function classesOfRange(lo: number, hi: number): RetryOnClass[] {
  const out: RetryOnClass[] = [];
  for (let code = lo; code <= hi; code++) {
    const c = httpStatusClass(code);
    if (c !== null && !out.includes(c)) out.push(c);
  }
  return out;
}

/** `retry.linkerd.io/http`: codes (`504`), ranges (`500-504`), `gateway-error` (502-504) and `5xx`. */
function readHttpConditions(r: MeshReader, text: string, path: Segment[]): RetryOnClass[] {
  const out: RetryOnClass[] = [];
  const add = (cs: readonly RetryOnClass[]) => cs.forEach((c) => out.includes(c) || out.push(c));
  for (const raw of text.split(',')) {
    const part = raw.trim().toLowerCase();
    if (part === '') continue;
    const word = LINKERD_HTTP_TERMS.find((t) => t.term === part);
    if (word !== undefined) add(word.classes);
    else {
      const m = /^(\d{3})(?:-(\d{3}))?$/.exec(part);
      const lo = m === null ? NaN : Number(m[1]);
      const hi = m === null ? NaN : Number(m[2] ?? m[1]);
      if (m === null || lo < 100 || hi > 599 || hi < lo) {
        r.fail(path, `has an unknown entry ${r.quote(raw.trim())} (give status codes like "504", ranges like "500-504", "gateway-error" or "5xx")`);
        continue;
      }
      add(classesOfRange(lo, hi));
    }
  }
  return out;
}

function readGrpcConditions(r: MeshReader, text: string, path: Segment[]): RetryOnClass[] {
  const out: RetryOnClass[] = [];
  for (const raw of text.split(',')) {
    const part = raw.trim().toLowerCase();
    if (part === '') continue;
    const classes = GRPC_CONDITIONS[part];
    if (classes === undefined) {
      const near = nearestName(part, Object.keys(GRPC_CONDITIONS));
      r.fail(path, `has an unknown gRPC status ${r.quote(raw.trim())}${near !== undefined ? ` (did you mean ${describeValue(near)}?)` : ` (known: ${Object.keys(GRPC_CONDITIONS).join(', ')})`}`);
      continue;
    }
    classes.forEach((c) => out.includes(c) || out.push(c));
  }
  return out;
}

/** The methods RFC 9110 (section 9.2.2) calls idempotent, as a ServiceProfile `condition.method` names them. */
const IDEMPOTENT_METHODS = ['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE'];

/**
 * Whether a ServiceProfile request match (linkerd.io/2/reference/service-profiles, "Request
 * Match": method, pathRegex, all, any, not) can match only idempotent methods: a `method` among
 * them, an `all` with such a member, or an `any` whose members all are.
 */
function idempotentOnly(condition: unknown): boolean {
  if (typeof condition !== 'object' || condition === null || Array.isArray(condition)) return false;
  const c = condition as JsonObject;
  if (typeof c.method === 'string' && IDEMPOTENT_METHODS.includes(c.method.toUpperCase())) return true;
  if (Array.isArray(c.all) && c.all.some(idempotentOnly)) return true;
  return Array.isArray(c.any) && c.any.length > 0 && c.any.every(idempotentOnly);
}

function hasRetryAnnotations(resource: Resource): boolean {
  return Object.keys(annotationsOf(resource)).some((k) => k.startsWith('retry.linkerd.io/') || k.startsWith('timeout.linkerd.io/'));
}

/** Whether the resources hold Linkerd retry configuration (a ServiceProfile, or retry.linkerd.io annotations). */
export function hasLinkerdRetries(resources: Resource[]): boolean {
  return resources.some((d) => d.kind === 'ServiceProfile' || hasRetryAnnotations(d));
}

function fromServiceProfile(profile: Resource, source: string, options: LinkerdImportOptions, annotated: Resource[]): ImportedLayer {
  const r = new MeshReader(source, profile.label);
  const notes: string[] = [];
  const spec = r.object(profile.value.spec, ['spec']) ?? {};
  const routes = (r.array(spec.routes, ['spec', 'routes'], 'a list of routes') ?? []).map((route, i) => ({ i, route: r.object(route, ['spec', 'routes', i]) ?? {} }));
  const nameOf = (x: { route: JsonObject }) => (typeof x.route.name === 'string' ? x.route.name : undefined);
  let chosen = routes.filter((x) => r.boolean(x.route.isRetryable, ['spec', 'routes', x.i, 'isRetryable']) === true);
  if (options.route !== undefined) {
    chosen = routes.filter((x) => nameOf(x) === options.route);
    if (chosen.length > 1) {
      r.failFile(`has ${chosen.length} ServiceProfile routes named ${JSON.stringify(options.route)} (${chosen.map((x) => `spec.routes.${x.i}`).join(', ')}); --route cannot tell them apart: give each its own name`);
    }
    if (chosen.length === 0) {
      const names = routes.flatMap((x) => nameOf(x) ?? []);
      const near = nearestName(options.route, names);
      r.failFile(`has no ServiceProfile route named ${JSON.stringify(options.route)} (routes: ${listNames(names) || 'none'}${near !== undefined ? `; did you mean ${describeValue(near)}?` : ''})`);
    }
  }
  const timeouts = chosen.map((x) => (x.route.timeout === undefined ? LINKERD_DEFAULTS.routeTimeoutMs : r.goDuration(x.route.timeout, ['spec', 'routes', x.i, 'timeout'])));
  if (options.route === undefined && new Set(timeouts).size > 1) {
    r.failFile(`has ${chosen.length} retryable routes with different timeouts; choose one by name: ${chosen.map((x) => nameOf(x) ?? `spec.routes.${x.i}`).join(', ')}`);
  }
  const budget = r.object(spec.retryBudget, ['spec', 'retryBudget']);
  const bp: Segment[] = ['spec', 'retryBudget'];
  if (budget !== undefined) r.knownKeys(budget, bp, ['retryRatio', 'minRetriesPerSecond', 'ttl']);
  const ratio = budget?.retryRatio === undefined ? LINKERD_DEFAULTS.retryRatio : r.number(budget.retryRatio, [...bp, 'retryRatio'], (n) => n >= 0, 'a number >= 0');
  const minRate = budget?.minRetriesPerSecond === undefined ? LINKERD_DEFAULTS.minRetriesPerSecond : r.integer(budget.minRetriesPerSecond, [...bp, 'minRetriesPerSecond'], 0, 'a non-negative integer');
  const ttlMs = budget?.ttl === undefined ? LINKERD_DEFAULTS.ttlMs : r.goDuration(budget.ttl, [...bp, 'ttl']);
  r.throwIfAny();
  const policy: PolicyInput = { idempotency: 'always', retryAfter: 'ignore', backoff: { kind: 'none', baseMs: 0, capMs: 0 } };
  const retryable = chosen.filter((x) => x.route.isRetryable === true || x.route.isRetryable === 'true');
  if (retryable.length === 0) {
    policy.maxAttempts = 1;
    notes.push(`No route of ${profile.label} is retryable (isRetryable): Linkerd does not retry.`);
  } else {
    policy.maxAttempts = 'unlimited';
    policy.retryOn = [...(LINKERD_HTTP_TERMS.find((t) => t.term === '5xx')?.classes ?? [])];
    policy.budget = { kind: 'finagle', percentCanRetry: ratio ?? LINKERD_DEFAULTS.retryRatio, minRetriesPerSec: minRate ?? LINKERD_DEFAULTS.minRetriesPerSecond, ttlMs: ttlMs ?? LINKERD_DEFAULTS.ttlMs };
    notes.push('Retryable routes are retried until the route timeout or the retry budget stops them (no attempt limit), at once (no backoff).');
    notes.push(`retryBudget: retries stay within ${(policy.budget.percentCanRetry ?? 0) * 100}% of requests plus ${String(policy.budget.minRetriesPerSec)} per second over ${formatGoDuration(policy.budget.ttlMs ?? 0)} (the Finagle-style budget Linkerd's is modelled on)${budget === undefined ? "; the ServiceProfile sets none, so Linkerd's default applies" : ''}.`);
    notes.push('A failure is a 5xx response unless responseClasses say otherwise.');
    if (retryable.every((x) => idempotentOnly(x.route.condition))) {
      policy.idempotency = 'http';
      notes.push('isRetryable marks a route "always safe to retry"; these routes match only idempotent methods, so a POST is never retried (idempotency "http").');
    } else {
      notes.push('isRetryable marks a route "always safe to retry": Linkerd retries every request it matches, whatever its method and with a body of up to 64 KiB (idempotency "always"), so a POST the route matches is replayed.');
    }
    if (chosen.some((x) => x.route.responseClasses !== undefined)) notes.push('responseClasses are not read: 5xx responses are taken as the failures.');
  }
  const timeout = timeouts[0] ?? LINKERD_DEFAULTS.routeTimeoutMs;
  policy.totalTimeoutMs = timeout;
  if (chosen.every((x) => x.route.timeout === undefined)) notes.push(`The route sets no timeout: Linkerd's default ${LINKERD_DEFAULTS.routeTimeoutMs / 1000} s covers all retries.`);
  if (annotated.length > 0) {
    notes.push(`${annotated.map((d) => d.label).join(', ')} ${annotated.length > 1 ? 'have' : 'has'} retry annotations; they are ignored because a ServiceProfile exists (Linkerd uses the ServiceProfile's retries, never both).`);
  }
  const names = chosen.map((x) => nameOf(x) ?? `spec.routes.${x.i}`).join(', ');
  return { policy, origin: `${source}: ${profile.label}${names !== '' ? ` routes ${names}` : ''}`, notes, defaultName: 'linkerd', fixes: SERVICE_PROFILE_FIXES };
}

function fromAnnotations(resources: Resource[], source: string, options: LinkerdImportOptions): ImportedLayer {
  const annotated = resources.filter(hasRetryAnnotations);
  const r0 = new MeshReader(source);
  let resource: Resource | undefined;
  if (options.route !== undefined) {
    // A route's annotations replace its Service's (Linkerd reads one set), so a route of that name comes first.
    const named = annotated.filter((d) => d.name === options.route);
    const routes = named.filter((d) => ROUTE_KINDS.includes(d.kind));
    const same = routes.length > 0 ? routes : named;
    if (same.length > 1) r0.failFile(`has ${same.length} resources named ${JSON.stringify(options.route)} with Linkerd retry annotations (${same.map((d) => d.label).join(', ')}); --route cannot tell them apart: give each its own name`);
    else resource = same[0];
    if (named.length === 0) {
      const names = annotated.map((d) => d.name).filter((n) => n !== '');
      const near = nearestName(options.route, names);
      r0.failFile(`has no resource named ${JSON.stringify(options.route)} with Linkerd retry annotations (named: ${listNames(names) || 'none'}${near !== undefined ? `; did you mean ${describeValue(near)}?` : ''})`);
    }
  } else {
    const routes = annotated.filter((d) => ROUTE_KINDS.includes(d.kind));
    const candidates = routes.length > 0 ? routes : annotated;
    if (candidates.length === 1) resource = candidates[0];
    else r0.failFile(`has ${candidates.length} resources with Linkerd retry annotations; choose one by name: ${candidates.map((d) => d.label).join(', ')}`);
  }
  r0.throwIfAny();
  if (resource === undefined) throw new Error('unreachable');
  const r = new MeshReader(source, resource.label);
  const notes: string[] = [];
  const annotations = annotationsOf(resource);
  const ap = (key: string): Segment[] => ['metadata', 'annotations', key];
  const read = (key: string): string | undefined => r.string(annotations[key], ap(key), 'a string (annotation values are strings)');
  for (const key of Object.keys(annotations)) {
    if (!key.startsWith('retry.linkerd.io/') && !key.startsWith('timeout.linkerd.io/')) continue;
    if (!(Object.values(LINKERD_ANNOTATIONS) as string[]).includes(key)) {
      const near = nearestName(key, Object.values(LINKERD_ANNOTATIONS));
      r.fail(ap(key), `is not a known Linkerd annotation${near !== undefined ? ` (did you mean "${near}"?)` : ''}`);
    }
  }
  const http = read(LINKERD_ANNOTATIONS.http);
  const grpc = read(LINKERD_ANNOTATIONS.grpc);
  if (http !== undefined && resource.kind === 'GRPCRoute') r.fail(ap(LINKERD_ANNOTATIONS.http), 'is not valid on a GRPCRoute (use retry.linkerd.io/grpc)');
  if (grpc !== undefined && resource.kind === 'HTTPRoute') r.fail(ap(LINKERD_ANNOTATIONS.grpc), 'is not valid on an HTTPRoute (use retry.linkerd.io/http)');
  const classes: RetryOnClass[] = [];
  const add = (cs: RetryOnClass[]) => cs.forEach((c) => classes.includes(c) || classes.push(c));
  if (http !== undefined) add(readHttpConditions(r, http, ap(LINKERD_ANNOTATIONS.http)));
  if (grpc !== undefined) add(readGrpcConditions(r, grpc, ap(LINKERD_ANNOTATIONS.grpc)));
  const limitText = read(LINKERD_ANNOTATIONS.limit);
  const limit = limitText === undefined ? LINKERD_DEFAULTS.retryLimit : r.integer(limitText, ap(LINKERD_ANNOTATIONS.limit), 0, 'a non-negative integer (the number of retries)');
  const timeoutText = read(LINKERD_ANNOTATIONS.timeout);
  const perTry = timeoutText === undefined ? undefined : r.goDuration(timeoutText, ap(LINKERD_ANNOTATIONS.timeout));
  const requestText = read(LINKERD_ANNOTATIONS.requestTimeout);
  const request = requestText === undefined ? undefined : r.goDuration(requestText, ap(LINKERD_ANNOTATIONS.requestTimeout));
  const responseText = read(LINKERD_ANNOTATIONS.responseTimeout);
  if (responseText !== undefined) r.goDuration(responseText, ap(LINKERD_ANNOTATIONS.responseTimeout));
  r.throwIfAny();
  const policy: PolicyInput = { idempotency: 'always', retryAfter: 'ignore', backoff: { kind: 'none', baseMs: 0, capMs: 0 } };
  if (perTry !== undefined) {
    policy.perAttemptTimeoutMs = perTry;
    add(['timeout']);
    notes.push(`${LINKERD_ANNOTATIONS.timeout}: an attempt that takes longer is cancelled and retried (the timeout class).`);
  }
  policy.retryOn = classes;
  policy.maxAttempts = (limit ?? LINKERD_DEFAULTS.retryLimit) + 1;
  if (limitText === undefined) notes.push(`${LINKERD_ANNOTATIONS.limit} is not set: Linkerd's default is ${LINKERD_DEFAULTS.retryLimit} retry.`);
  if (http === undefined && grpc === undefined && perTry === undefined) notes.push('No retry.linkerd.io/http or /grpc condition: nothing is retried.');
  if (request !== undefined) policy.totalTimeoutMs = request;
  if (responseText !== undefined) notes.push(`${LINKERD_ANNOTATIONS.responseTimeout} (the time to the response headers) is not modelled.`);
  const service = resources.find((d) => d.kind === 'Service' && d !== resource && hasRetryAnnotations(d));
  if (service !== undefined && ROUTE_KINDS.includes(resource.kind)) notes.push(`${service.label} also has retry annotations; the route's replace them all (Linkerd reads one set).`);
  notes.push('Linkerd retries at once (the annotations have no backoff) and has no retry budget for annotation retries; a request body over 64 KiB is never retried.');
  notes.push('Linkerd retries any method on the listed statuses (idempotency "always").');
  return { policy, origin: `${source}: ${resource.label} retry annotations (${String(policy.maxAttempts)} attempts)`, notes, defaultName: 'linkerd', fixes: LINKERD_ANNOTATION_FIXES };
}

/**
 * Linkerd's retries (YAML or JSON, several resources allowed) as one layer:
 * - a `ServiceProfile` (linkerd.io/v1alpha2): its retryable routes (`isRetryable`), retried until
 *   the route `timeout` (default 10 s) within the `retryBudget` (retryRatio, minRetriesPerSecond,
 *   ttl; defaults 0.2, 10, 10 s), the Finagle-style budget Linkerd's is modelled on
 *   (budget `finagle`; twitter/finagle RetryBudget, linkerd.io/2019/02/22/how-we-designed-retries-in-linkerd-2-2);
 *   `isRetryable` marks a route "always safe to retry" and Linkerd retries any request it matches
 *   (bodies up to 64 KiB since 2.11, linkerd.io/2.11/tasks/configuring-retries), so the idempotency
 *   is `http` when every retryable route's condition matches only idempotent methods, else `always`;
 * - otherwise the `retry.linkerd.io/*` annotations of an HTTPRoute, GRPCRoute or Service (Linkerd
 *   2.16+): `http` / `grpc` conditions, `limit` (default 1 retry), `timeout` per attempt, and
 *   `timeout.linkerd.io/request` over all attempts; no budget.
 * A ServiceProfile wins over annotations, as in Linkerd: the two are never merged, and a note says
 * which applies. See {@link LINKERD_DEFAULTS}.
 */
export function importLinkerd(text: string, source: string, options: LinkerdImportOptions = {}): ImportedLayer {
  const resources = readResources(text, source);
  const profiles = resources.filter((d) => d.kind === 'ServiceProfile' && apiGroup(d.apiVersion) === 'linkerd.io');
  const annotated = resources.filter(hasRetryAnnotations);
  if (profiles.length > 0) {
    if (profiles.length > 1) {
      const r = new MeshReader(source);
      r.failFile(`has ${profiles.length} ServiceProfiles; give one per file (${profiles.map((d) => d.label).join(', ')})`);
      r.throwIfAny();
    }
    return fromServiceProfile(profiles[0] as Resource, source, options, annotated);
  }
  if (annotated.length === 0) {
    const r = new MeshReader(source);
    r.failFile(`has no ServiceProfile and no resource with ${LINKERD_ANNOTATIONS.http}, ${LINKERD_ANNOTATIONS.grpc} or other retry.linkerd.io annotations (got ${describeValue(resources.map((d) => d.kind || '?'))})`);
    r.throwIfAny();
  }
  return fromAnnotations(resources, source, options);
}


/**
 * The names of the routes a file's Linkerd configuration holds apart, when they differ and each
 * has a name of its own: a ServiceProfile's retryable routes with different timeouts (one layer
 * each, as the route timeout bounds its retries), or the resources with retry annotations (one set
 * of annotations each). Undefined when the file reads as one layer.
 */
function separateRoutes(resources: Resource[]): string[] | undefined {
  const profiles = resources.filter((d) => d.kind === 'ServiceProfile' && apiGroup(d.apiVersion) === 'linkerd.io');
  let names: Array<string | undefined>;
  if (profiles.length === 1) {
    const spec = (profiles[0] as Resource).value.spec;
    const routes = (typeof spec === 'object' && spec !== null && Array.isArray((spec as JsonObject).routes) ? ((spec as JsonObject).routes as unknown[]) : []).filter(
      (x): x is JsonObject => typeof x === 'object' && x !== null && ((x as JsonObject).isRetryable === true || (x as JsonObject).isRetryable === 'true'),
    );
    if (new Set(routes.map((x) => JSON.stringify(x.timeout ?? null))).size < 2) return undefined;
    names = routes.map((x) => (typeof x.name === 'string' ? x.name : undefined));
  } else if (profiles.length === 0) {
    const annotated = resources.filter(hasRetryAnnotations);
    const routes = annotated.filter((d) => ROUTE_KINDS.includes(d.kind));
    const candidates = routes.length > 0 ? routes : annotated;
    if (candidates.length < 2) return undefined;
    names = candidates.map((d) => (d.name !== '' ? d.name : undefined));
  } else return undefined;
  const given = names.filter((n): n is string => n !== undefined);
  return given.length === names.length && new Set(given).size === given.length ? given : undefined;
}

/**
 * Linkerd's retries in a file as one layer per route where they differ (see separateRoutes), in
 * file order, each read as {@link importLinkerd} reads the route `--route` names; else the one
 * layer {@link importLinkerd} reads (which asks for a name when the routes cannot be told apart).
 */
export function importLinkerdRoutes(text: string, source: string, options: LinkerdImportOptions = {}): ImportedLayer[] {
  const names = options.route === undefined ? separateRoutes(readResources(text, source)) : undefined;
  if (names === undefined) return [importLinkerd(text, source, options)];
  return names.map((route) => ({ ...importLinkerd(text, source, { route }), route }));
}
