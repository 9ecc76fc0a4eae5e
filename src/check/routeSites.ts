import { describeValue, listItems, listNames } from '../policy/schema/describeValue.js';
import { nearestName } from '../policy/schema/nearestName.js';
import type { PolicyInput } from '../policy/presets.js';
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

function chooseSite(r: MeshReader, sites: RouteSite[], kind: RouteKind, route: string | undefined): RouteSite | undefined {
  if (sites.length === 0) return r.failFile(`has no ${kind.none}`);
  if (route !== undefined) {
    const found = sites.find((s) => s.name === route) ?? sites.find((s) => s.resource.name === route && sites.filter((t) => t.resource === s.resource).length === 1);
    if (found !== undefined) return found;
    const names = [...new Set([...sites.flatMap((s) => s.name ?? []), ...sites.map((s) => s.resource.name)])].filter((n) => n !== '');
    const near = nearestName(route, names);
    return r.failFile(`has no ${kind.noun} named ${JSON.stringify(route)} (named: ${listNames(names) || 'none'}${near !== undefined ? `; did you mean ${describeValue(near)}?` : ''})`);
  }
  const preferred = kind.prefer === undefined ? [] : sites.filter((s) => (kind.prefer as (e: JsonObject) => boolean)(s.entry));
  if (preferred.length === 1) return preferred[0];
  if (preferred.length === 0 && sites.length === 1) return sites[0];
  const list = preferred.length > 0 ? preferred : sites;
  return r.failFile(`has ${list.length} ${kind.plural}${preferred.length > 0 ? ' with a retry' : ''}; choose one by name: ${listItems(list.map((s) => describeRouteSite(s, kind)))}`);
}

/** The route entry an import reads, with what every such import starts from. */
export interface OpenedRoute {
  resources: Resource[];
  site: RouteSite;
  /** Reads the entry's resource (messages name it). */
  r: MeshReader;
  /** The entry's path in its resource (`spec.http.<i>`). */
  base: Segment[];
  notes: string[];
  /** A proxy's retries: any method, no Retry-After. */
  policy: PolicyInput;
}

/**
 * Read the resources of a file and choose the route entry to import: the one named `route` (an
 * entry's `name`, or a resource's name when it has one entry), else the only one (or the only
 * preferred one). Throws a CheckInputError naming the file when there is none or several.
 */
export function openRoute(text: string, source: string, kind: RouteKind, route: string | undefined): OpenedRoute {
  const resources = readResources(text, source);
  const r0 = new MeshReader(source);
  const site = chooseSite(r0, sitesOf(resources, kind), kind, route);
  r0.throwIfAny();
  if (site === undefined) throw new Error('unreachable');
  return {
    resources,
    site,
    r: new MeshReader(source, site.resource.label),
    base: ['spec', kind.list, site.index],
    notes: [],
    policy: { idempotency: 'always', retryAfter: 'ignore' },
  };
}
