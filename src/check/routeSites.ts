import { describeValue, listItems, listNames } from '../policy/schema/describeValue.js';
import { nearestName } from '../policy/schema/nearestName.js';
import type { PolicyInput } from '../policy/presets.js';
import type { ImportedLayer } from './ImportedLayer.js';
import { isObject, type JsonObject, type Segment } from './FieldReader.js';
import { MeshReader } from './MeshReader.js';
import { apiGroup, readResources, type Resource } from './readResources.js';

/** One route entry of a Kubernetes route resource: an Istio VirtualService's `http[i]`, a Gateway API HTTPRoute's `rules[i]`. */
export interface RouteSite {
  resource: Resource;
  index: number;
  entry: JsonObject;
  name: string | undefined;
}

/** Which route entries a format reads, and how its messages call them. */
export interface RouteKind {
  kind: string;
  group: string;
  /** The list under `spec` (`http`, `rules`). */
  list: string;
  /** The message when the file holds no such entry (after `has no`). */
  none: string;
  /** What one entry is called (`http route`, `rule`) and several (`http routes`, `HTTPRoute rules`). */
  noun: string;
  plural: string;
  /** Entries preferred when none is named (those with a retry); without it, only a single entry is chosen alone. */
  prefer?: (entry: JsonObject) => boolean;
}

/** `<resource> spec.<list>.<i> ("name")`, as messages and origins name an entry. */
export function describeRouteSite(s: RouteSite, kind: RouteKind): string {
  return `${s.resource.label} spec.${kind.list}.${s.index}${s.name !== undefined ? ` (${describeValue(s.name)})` : ''}`;
}

function sitesOf(resources: Resource[], kind: RouteKind): RouteSite[] {
  const sites: RouteSite[] = [];
  for (const resource of resources) {
    if (resource.kind !== kind.kind || apiGroup(resource.apiVersion) !== kind.group) continue;
    const spec = isObject(resource.value.spec) ? resource.value.spec : {};
    const entries = Array.isArray(spec[kind.list]) ? (spec[kind.list] as unknown[]) : [];
    entries.forEach((entry, index) => {
      if (isObject(entry)) sites.push({ resource, index, entry, name: typeof entry.name === 'string' ? entry.name : undefined });
    });
  }
  return sites;
}

/** The names given to more than one entry, each with its entries in file order. */
function duplicateNames(sites: RouteSite[]): Map<string, RouteSite[]> {
  const byName = new Map<string, RouteSite[]>();
  for (const s of sites) if (s.name !== undefined) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
  return new Map([...byName].filter(([, list]) => list.length > 1));
}

/**
 * The entries to read: the one `route` names (an entry's `name`, or a resource's name when it has one
 * entry; a name given to several entries is a problem listing each, since nothing tells them apart),
 * else the preferred ones when the kind prefers some, else every one, in file order.
 */
function selectSites(r: MeshReader, sites: RouteSite[], kind: RouteKind, route: string | undefined): RouteSite[] {
  if (sites.length === 0) {
    r.failFile(`has no ${kind.none}`);
    return [];
  }
  if (route !== undefined) {
    const named = sites.filter((s) => s.name === route);
    if (named.length > 1) {
      r.failFile(`has ${named.length} ${kind.plural} named ${JSON.stringify(route)} (${listItems(named.map((s) => describeRouteSite(s, kind)))}); --route cannot tell them apart: give each its own name`);
      return [];
    }
    const found = named[0] ?? sites.find((s) => s.resource.name === route && sites.filter((t) => t.resource === s.resource).length === 1);
    if (found !== undefined) return [found];
    const names = [...new Set([...sites.flatMap((s) => s.name ?? []), ...sites.map((s) => s.resource.name)])].filter((n) => n !== '');
    const near = nearestName(route, names);
    r.failFile(`has no ${kind.noun} named ${JSON.stringify(route)} (named: ${listNames(names) || 'none'}${near !== undefined ? `; did you mean ${describeValue(near)}?` : ''})`);
    return [];
  }
  const preferred = kind.prefer === undefined ? [] : sites.filter((s) => (kind.prefer as (e: JsonObject) => boolean)(s.entry));
  return preferred.length > 0 ? preferred : sites;
}

/** The route entry an import reads, with what every such import starts from. */
export interface OpenedRoute {
  /** The file, as messages name it. */
  source: string;
  resources: Resource[];
  site: RouteSite;
  /** Reads the entry's resource (messages name it). */
  r: MeshReader;
  /** The entry's path in its resource (`spec.http.<i>`). */
  base: Segment[];
  notes: string[];
  /** A proxy's retries: any method, no Retry-After. */
  policy: PolicyInput;
  /** The entry's name as `--route` chooses it (or where it is), when the file has several. */
  route?: string;
}

function opened(source: string, resources: Resource[], site: RouteSite, kind: RouteKind, route?: string): OpenedRoute {
  return {
    source,
    resources,
    site,
    r: new MeshReader(source, site.resource.label),
    base: ['spec', kind.list, site.index],
    notes: [],
    policy: { idempotency: 'always', retryAfter: 'ignore' },
    ...(route !== undefined ? { route } : {}),
  };
}

/**
 * Read the resources of a file and choose the route entry to import: the one named `route` (an
 * entry's `name`, or a resource's name when it has one entry), else the only one (or the only
 * preferred one). Throws a CheckInputError naming the file when there is none or several.
 */
export function openRoute(text: string, source: string, kind: RouteKind, route: string | undefined): OpenedRoute {
  const resources = readResources(text, source);
  const r0 = new MeshReader(source);
  const all = sitesOf(resources, kind);
  const sites = selectSites(r0, all, kind, route);
  if (sites.length > 1) {
    const prefer = kind.prefer;
    const preferred = prefer !== undefined && sites.every((s) => prefer(s.entry));
    r0.failFile(`has ${sites.length} ${kind.plural}${preferred ? ' with a retry' : ''}; choose one by name: ${listItems(sites.map((s) => describeRouteSite(s, kind)))}`);
  }
  r0.throwIfAny();
  const site = sites[0];
  if (site === undefined) throw new Error('unreachable');
  return opened(source, resources, site, kind);
}

/**
 * Every route entry of a file an import reads, in file order, one import each (`retrystorm check`
 * on a file of several routes): the one `route` names, else the preferred ones, else all. Each
 * gets the name `--route` chooses it by (`route`), or where it is when it has no name of its own.
 * A name given to several entries is a warning (each is still read) or, named by `route`, a
 * problem. Throws a CheckInputError naming the file when there is none.
 */
export function openRoutes(text: string, source: string, kind: RouteKind, route: string | undefined): { routes: OpenedRoute[]; warnings: string[] } {
  const resources = readResources(text, source);
  const r0 = new MeshReader(source);
  const all = sitesOf(resources, kind);
  const sites = selectSites(r0, all, kind, route);
  r0.throwIfAny();
  const duplicates = duplicateNames(all);
  const warnings = [...duplicates].map(
    ([name, list]) =>
      `${source}: ${list.length} ${kind.plural} are named ${JSON.stringify(name)} (${listItems(list.map((s) => describeRouteSite(s, kind)))}); each is read on its own, named by where it is, and --route ${JSON.stringify(name)} is refused because it cannot tell them apart`,
  );
  const label = (s: RouteSite) => (s.name !== undefined && !duplicates.has(s.name) ? s.name : describeRouteSite(s, kind));
  return { routes: sites.map((s) => opened(source, resources, s, kind, sites.length > 1 ? label(s) : undefined)), warnings };
}

/** An imported layer with the route it was read from (when the file has several) and the file's warnings. */
export function withRoute(layer: ImportedLayer, opened: { route?: string }, warnings: string[]): ImportedLayer {
  return { ...layer, ...(opened.route !== undefined ? { route: opened.route } : {}), ...(warnings.length > 0 ? { warnings: [...(layer.warnings ?? []), ...warnings] } : {}) };
}
