// The places of an Envoy document that hold a retry_policy, and which of them an import reads.
import { describeValue, listItems, listNames } from '../policy/schema/describeValue.js';
import { nearestName } from '../policy/schema/nearestName.js';
import { MAX_NESTING } from '../experiment/parseJson.js';
import { isObject, type FieldReader, type JsonObject, type Segment } from './FieldReader.js';

/** A place in an Envoy document that holds a `retry_policy`. */
export interface Site {
  path: Segment[];
  /** The object holding `retry_policy` (a route action or a virtual host). */
  holder: JsonObject;
  /** The route entry's or virtual host's `name`, when there is one. */
  name: string | undefined;
  virtualHost: boolean;
}

/** Every object holding a `retry_policy` (proto names), in document order, with the name that identifies it. */
export function findSites(value: unknown, path: Segment[], parent: JsonObject | undefined, out: Site[], depth = 0): void {
  if (depth > MAX_NESTING) return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => findSites(v, [...path, i], undefined, out, depth + 1));
    return;
  }
  if (!isObject(value)) return;
  if (value.retry_policy !== undefined) {
    const virtualHost = Array.isArray(value.routes) || Array.isArray(value.domains);
    const own = typeof value.name === 'string' ? value.name : undefined;
    const fromParent = parent !== undefined && typeof parent.name === 'string' ? parent.name : undefined;
    out.push({ path, holder: value, name: virtualHost ? own : (fromParent ?? own), virtualHost });
  }
  for (const [key, v] of Object.entries(value)) {
    if (key === 'retry_policy') continue;
    findSites(v, [...path, key], value, out, depth + 1);
  }
}


/** A site as messages name it: `"name" (path)`, or its path. */
export function describeSite(s: Site): string {
  const where = s.path.length === 0 ? 'the document' : s.path.join('.');
  return s.name === undefined ? where : `${describeValue(s.name)} (${where})`;
}

/** The names given to more than one site. */
export function duplicateSiteNames(sites: Site[]): Map<string, Site[]> {
  const byName = new Map<string, Site[]>();
  for (const s of sites) if (s.name !== undefined) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
  return new Map([...byName].filter(([, list]) => list.length > 1));
}

/** The sites to read: the one `route` names (a name given to several is a problem listing each), else every one, in document order. */
export function selectSites(r: FieldReader, sites: Site[], route: string | undefined): Site[] {
  if (sites.length === 0) {
    r.failFile('has no retry_policy (give an Envoy route, route action, virtual host or route configuration that sets one)');
    return [];
  }
  if (route !== undefined) {
    const found = sites.filter((s) => s.name === route);
    if (found.length > 1) {
      r.failFile(`has ${found.length} retry policies named ${JSON.stringify(route)} (${listItems(found.map(describeSite))}); --route cannot tell them apart: give each route its own name`);
      return [];
    }
    if (found.length === 1) return found;
    const names = sites.map((s) => s.name).filter((n): n is string => n !== undefined);
    const near = nearestName(route, names);
    r.failFile(
      `has no route named ${JSON.stringify(route)} with a retry_policy (${names.length > 0 ? `named: ${listNames(names)}` : 'none is named'}${
        near !== undefined ? `; did you mean ${JSON.stringify(near)}?` : ''
      })`,
    );
    return [];
  }
  return sites;
}

/** The one site a single import reads: the one named, else the only route, else the only site. */
export function chooseSite(r: FieldReader, sites: Site[], route: string | undefined): Site | undefined {
  const selected = selectSites(r, sites, route);
  if (selected.length <= 1) return selected[0];
  const routes = selected.filter((s) => !s.virtualHost);
  if (routes.length === 1) return routes[0];
  r.failFile(`has ${sites.length} retry policies; choose one by route name: ${listItems(sites.map(describeSite))}`);
  return undefined;
}

