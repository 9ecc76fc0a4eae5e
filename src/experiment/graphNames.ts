import { nearestName } from '../policy/schema/nearestName.js';

/** Names of services, endpoints, workloads and caches: a letter, then letters, digits, "_" and "-" (they appear in dotted paths and edge names). */
export const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** A name of `names` for `word`, or the list of them: `did you mean "db"?` / `the services are a, b`. */
export function hint(word: string, names: readonly string[], listed: string): string {
  const near = nearestName(word, names);
  return near !== undefined ? `did you mean ${JSON.stringify(near)}?` : `${listed} ${names.join(', ')}`;
}

