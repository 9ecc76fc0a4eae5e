import type { PathSegment } from './Problem.js';
import { listSome } from './listSome.js';

/**
 * The maps of a scenario (as written) whose keys are names of things: `services`, a service's
 * `endpoints`, a graph's `workloads`. Each is given by where it sits (`*` stands for any key) and
 * what its entries are called in messages.
 */
const NAMED_MAPS: ReadonlyArray<{ at: readonly string[]; what: string; plural: string }> = [
  { at: ['services'], what: 'service', plural: 'services' },
  { at: ['services', '*', 'endpoints'], what: 'endpoint', plural: 'endpoints' },
  { at: ['workloads'], what: 'workload', plural: 'workloads' },
];

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function matches(pattern: readonly string[], segments: readonly PathSegment[]): boolean {
  return pattern.every((p, i) => p === '*' || p === segments[i]);
}

/**
 * Why a path (relative to the scenario) cannot be set, when it goes through an entry of a named
 * map that does not exist (`services.nope.fleet.concurrency`): setting it would create a service
 * (or endpoint, or workload) of that one field, which the schema then reports as a service missing
 * its other fields. Names those that exist (`listSome`); null when the path is fine. A path that
 * ends at the name (`services.cache`, a whole new service) is fine.
 */
export function missingNamedEntry(scenario: Readonly<Record<string, unknown>>, segments: readonly PathSegment[]): string | null {
  for (const map of NAMED_MAPS) {
    const depth = map.at.length;
    if (segments.length <= depth + 1 || !matches(map.at, segments)) continue;
    let holder: unknown = scenario;
    for (const s of segments.slice(0, depth)) holder = isObject(holder) ? holder[String(s)] : undefined;
    const name = String(segments[depth]);
    if (isObject(holder) && Object.hasOwn(holder, name)) continue;
    const owner = depth === 1 ? 'the scenario' : `service ${JSON.stringify(String(segments[1]))}`;
    const known = isObject(holder) ? Object.keys(holder) : [];
    const has =
      known.length > 0
        ? `${map.plural}: ${listSome(known)}; to add one, set ${segments.slice(0, depth + 1).join('.')} to the whole ${map.what}`
        : `${owner} has no ${map.plural}`;
    return `there is no ${map.what} ${JSON.stringify(name)}${depth === 1 ? '' : ` in ${owner}`} (${has})`;
  }
  return null;
}
