import { describeValue, listNames } from '../policy/schema/describeValue.js';
import { nearestName } from '../policy/schema/nearestName.js';
import type { PolicyInput } from '../policy/presets.js';
import type { RetryOnClass } from '../policy/types.js';
import { isObject, type JsonObject, type Segment } from './FieldReader.js';
import { lostNote, type ImportedLayer } from './ImportedLayer.js';
import { MeshReader } from './MeshReader.js';
import { annotationsOf, apiGroup, readResources, type Resource } from './readResources.js';

/** Which Ingress of a file to import. */
export interface IngressNginxImportOptions {
  /** The Ingress's `metadata.name`. */
  route?: string;
}

/** The ingress-nginx annotation prefix (kubernetes/ingress-nginx: docs/user-guide/nginx-configuration/annotations.md). */
export const NGINX_ANNOTATION_PREFIX = 'nginx.ingress.kubernetes.io/';

/** The three settings read, as ConfigMap keys (the annotations add the prefix). */
export const NGINX_KEYS = ['proxy-next-upstream', 'proxy-next-upstream-tries', 'proxy-next-upstream-timeout'] as const;

/**
 * ingress-nginx's defaults (kubernetes/ingress-nginx:internal/ingress/controller/config/config.go,
 * `defaults.Backend`, v1.12, 2025): proxy-next-upstream "error timeout", proxy-next-upstream-tries 3
 * (tries, the first included; 0 = unlimited), proxy-next-upstream-timeout 0 (no limit),
 * proxy-read-timeout 60 s (the timeout of each try, as nginx's `timeout` condition sees it).
 */
export const INGRESS_NGINX_DEFAULTS = {
  nextUpstream: ['error', 'timeout'],
  tries: 3,
  timeoutS: 0,
  readTimeoutMs: 60_000,
} as const;

/**
 * nginx `proxy_next_upstream` conditions (nginx.org/en/docs/http/ngx_http_proxy_module.html) and their
 * classes: `error` is "an error occurred while establishing a connection with the server, passing a
 * request to it, or reading the response header" (connection failures and resets).
 */
const CONDITIONS: Record<string, { classes: RetryOnClass[]; note?: string }> = {
  error: { classes: ['connect-failure', 'reset'] },
  timeout: { classes: ['timeout'] },
  invalid_header: { classes: [], note: 'invalid_header (an empty or invalid response) is not an outcome of the model.' },
  http_500: { classes: ['500'] },
  http_502: { classes: ['502'] },
  http_503: { classes: ['503'] },
  http_504: { classes: ['504'] },
  http_403: { classes: [], note: 'http_403 is never answered by a leaf of the model.' },
  http_404: { classes: ['404'] },
  http_429: { classes: ['429'] },
  non_idempotent: { classes: [] },
  off: { classes: [] },
};

function settingsOf(resource: Resource, prefix: string): JsonObject {
  if (prefix === '') return isObject(resource.value.data) ? resource.value.data : {};
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(annotationsOf(resource))) if (k.startsWith(prefix)) out[k.slice(prefix.length)] = v;
  return out;
}

/**
 * ingress-nginx's retries to the next upstream (YAML or JSON, several resources allowed) as one
 * layer: an Ingress's `nginx.ingress.kubernetes.io/proxy-next-upstream*` annotations over the
 * controller ConfigMap's keys of the same names, over the controller's defaults
 * ({@link INGRESS_NGINX_DEFAULTS}):
 * - `proxy-next-upstream` -> retryOn (`timeout` and `http_504` -> timeout, `http_500` -> 500,
 *   `http_502`/`http_503` -> 503, `http_429` -> 429, `http_404` -> 404, `http_403` -> 400;
 *   `error` and `invalid_header` are not modelled; `off` disables retries); without
 *   `non_idempotent`, nginx does not pass POST, LOCK or PATCH on (idempotency `http`);
 * - `proxy-next-upstream-tries` (tries, the first included; 0 = unlimited) -> maxAttempts;
 * - `proxy-next-upstream-timeout` (seconds; 0 = none) -> maxElapsedMs (no new try after it; the try
 *   in flight is not cut short);
 * - each try ends at the default proxy-read-timeout (60 s) -> perAttemptTimeoutMs.
 * nginx tries the next server at once (no backoff). Problems name the file, the resource and the key.
 */
export function importIngressNginx(text: string, source: string, options: IngressNginxImportOptions = {}): ImportedLayer {
  const resources = readResources(text, source);
  const { ingress, map } = chooseResources(resources, source, options.route);
  const notes: string[] = [];
  const layers = settingLayers(source, map, ingress);
  /** The value of a key: the last layer (the Ingress) that sets it wins. */
  const setting = (key: string): Setting | undefined => {
    for (let i = layers.length - 1; i >= 0; i--) {
      const l = layers[i];
      if (l !== undefined && l.settings[key] !== undefined) return { value: l.settings[key], path: l.path(key), r: l.r, from: l.resource.label };
    }
    return undefined;
  };
  const policy: PolicyInput = { idempotency: 'http', retryAfter: 'ignore', backoff: { kind: 'none', baseMs: 0, capMs: 0 }, perAttemptTimeoutMs: INGRESS_NGINX_DEFAULTS.readTimeoutMs };
  const conditions = readConditions(setting('proxy-next-upstream'), notes);
  const triesSetting = setting('proxy-next-upstream-tries');
  const tries = triesSetting === undefined ? INGRESS_NGINX_DEFAULTS.tries : triesSetting.r.integer(triesSetting.value, triesSetting.path, 0, 'a non-negative integer (tries, the first included; 0 = unlimited)');
  if (triesSetting === undefined) notes.push(`proxy-next-upstream-tries is not set: ingress-nginx's default is ${INGRESS_NGINX_DEFAULTS.tries} tries.`);
  const timeoutSetting = setting('proxy-next-upstream-timeout');
  const timeoutS = timeoutSetting === undefined ? INGRESS_NGINX_DEFAULTS.timeoutS : timeoutSetting.r.number(timeoutSetting.value, timeoutSetting.path, (n) => n >= 0, 'a number of seconds >= 0 (0 = no limit)');
  for (const l of layers) l.r.throwIfAny();
  applyConditions(policy, conditions, tries, notes);
  if (timeoutS !== undefined && timeoutS > 0) policy.maxElapsedMs = timeoutS * 1000;
  notes.push(`Each try ends at the proxy-read-timeout default, ${INGRESS_NGINX_DEFAULTS.readTimeoutMs / 1000} s; nginx tries the next server at once (no backoff), and the model has one leaf, so the next try meets the same failure.`);
  const origin = [ingress?.label, map?.label].filter((x) => x !== undefined).join(' over ');
  return { policy, origin: `${source}: ${origin} proxy-next-upstream`, notes, defaultName: 'ingress-nginx' };
}

/** A resource's settings, as a layer of the configuration (the ConfigMap under the Ingress). */
interface SettingLayer {
  resource: Resource;
  settings: JsonObject;
  path: (k: string) => Segment[];
  r: MeshReader;
}

/** A key's value, where it is written, and the reader of its resource. */
interface Setting {
  value: unknown;
  path: Segment[];
  r: MeshReader;
  from: string;
}

/** The Ingress (the one named, the only one, or the only one with retry settings) and the ConfigMap with proxy-next-upstream settings; at least one of them. */
function chooseResources(resources: readonly Resource[], source: string, route: string | undefined): { ingress: Resource | undefined; map: Resource | undefined } {
  const ingresses = resources.filter((d) => d.kind === 'Ingress' && (apiGroup(d.apiVersion) === 'networking.k8s.io' || apiGroup(d.apiVersion) === 'extensions'));
  const maps = resources.filter((d) => d.kind === 'ConfigMap' && NGINX_KEYS.some((k) => k in settingsOf(d, '')));
  const r0 = new MeshReader(source);
  let ingress: Resource | undefined;
  if (route !== undefined) {
    ingress = ingresses.find((d) => d.name === route);
    if (ingress === undefined) {
      const names = ingresses.map((d) => d.name);
      const near = nearestName(route, names);
      r0.failFile(`has no Ingress named ${JSON.stringify(route)} (named: ${listNames(names) || 'none'}${near !== undefined ? `; did you mean ${describeValue(near)}?` : ''})`);
    }
  } else if (ingresses.length > 1) {
    const withRetries = ingresses.filter((d) => Object.keys(settingsOf(d, NGINX_ANNOTATION_PREFIX)).some((k) => (NGINX_KEYS as readonly string[]).includes(k)));
    if (withRetries.length === 1) ingress = withRetries[0];
    else r0.failFile(`has ${ingresses.length} Ingresses; choose one by name: ${ingresses.map((d) => d.label).join(', ')}`);
  } else ingress = ingresses[0];
  if (ingress === undefined && maps.length === 0 && r0.problems.length === 0) r0.failFile('has no Ingress and no ConfigMap with proxy-next-upstream settings');
  if (maps.length > 1) r0.failFile(`has ${maps.length} ConfigMaps with proxy-next-upstream settings; give one (${maps.map((d) => d.label).join(', ')})`);
  r0.throwIfAny();
  return { ingress, map: maps[0] };
}

/** The ConfigMap's data, then the Ingress's annotations (an unknown proxy-next-upstream annotation refused). */
function settingLayers(source: string, map: Resource | undefined, ingress: Resource | undefined): SettingLayer[] {
  const layers: SettingLayer[] = [];
  if (map !== undefined) layers.push({ resource: map, settings: settingsOf(map, ''), path: (k) => ['data', k], r: new MeshReader(source, map.label) });
  if (ingress !== undefined) {
    const ing = ingress;
    layers.push({ resource: ing, settings: settingsOf(ing, NGINX_ANNOTATION_PREFIX), path: (k) => ['metadata', 'annotations', `${NGINX_ANNOTATION_PREFIX}${k}`], r: new MeshReader(source, ing.label) });
    for (const k of Object.keys(settingsOf(ing, NGINX_ANNOTATION_PREFIX))) {
      if (!k.startsWith('proxy-next-upstream') || (NGINX_KEYS as readonly string[]).includes(k)) continue;
      const near = nearestName(k, NGINX_KEYS);
      layers[layers.length - 1]?.r.fail(['metadata', 'annotations', `${NGINX_ANNOTATION_PREFIX}${k}`], `is not a known annotation${near !== undefined ? ` (did you mean "${NGINX_ANNOTATION_PREFIX}${near}"?)` : ''}`);
    }
  }
  return layers;
}

/** The conditions of `proxy-next-upstream` (ingress-nginx's default when it is not set; an unknown one refused). */
function readConditions(next: Setting | undefined, notes: string[]): string[] {
  if (next === undefined) {
    notes.push(`proxy-next-upstream is not set: ingress-nginx's default "${INGRESS_NGINX_DEFAULTS.nextUpstream.join(' ')}".`);
    return [...INGRESS_NGINX_DEFAULTS.nextUpstream];
  }
  const text = next.r.string(next.value, next.path, 'a space-separated list of conditions');
  if (text === undefined) return [...INGRESS_NGINX_DEFAULTS.nextUpstream];
  const conditions = text.split(/[\s,]+/).filter((c) => c !== '');
  for (const c of conditions) {
    if (CONDITIONS[c] !== undefined) continue;
    const near = nearestName(c, Object.keys(CONDITIONS));
    next.r.fail(next.path, `has an unknown condition ${next.r.quote(c)}${near !== undefined ? ` (did you mean ${describeValue(near)}?)` : ''}`);
  }
  return conditions;
}

/** The outcome classes, attempts and idempotency the conditions and tries give. */
function applyConditions(policy: PolicyInput, conditions: readonly string[], tries: number | undefined, notes: string[]): void {
  const classes: RetryOnClass[] = [];
  for (const c of conditions) {
    const known = CONDITIONS[c];
    if (known === undefined) continue;
    known.classes.forEach((k) => classes.includes(k) || classes.push(k));
    if (known.note !== undefined) notes.push(lostNote(`proxy-next-upstream ${known.note}`));
  }
  if (conditions.includes('off')) {
    policy.maxAttempts = 1;
    policy.retryOn = [];
    notes.push('proxy-next-upstream off: nginx never passes a request to the next server.');
  } else {
    policy.retryOn = classes;
    policy.maxAttempts = tries === 0 ? 'unlimited' : (tries ?? INGRESS_NGINX_DEFAULTS.tries);
  }
  if (conditions.includes('non_idempotent')) {
    policy.idempotency = 'always';
    notes.push('non_idempotent: POST, LOCK and PATCH requests are passed on too (idempotency "always").');
  } else notes.push('Without non_idempotent, nginx does not pass POST, LOCK or PATCH requests to the next server (idempotency "http").');
}
