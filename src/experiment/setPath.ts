import { cloneJson, FORBIDDEN_KEYS as FORBIDDEN, mergeJson } from '../policy/schema/mergeJson.js';
import type { PathSegment } from './Problem.js';
import { ValidationError } from './ValidationError.js';

export { cloneJson };

/** A path into a JSON document: dotted (`stack.0.policy.backoff.kind`) or already split. */
export type PathInput = string | readonly PathSegment[];

const INDEX = /^(0|[1-9]\d*)$/;
type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Splits a dotted path: segments that are array indices (`0`, `12`) become numbers.
 * Throws a ValidationError for an empty path or an empty segment (`a..b`).
 */
export function splitPath(path: string): PathSegment[] {
  if (path === '') throw new ValidationError(['the path is empty']);
  const segments = path.split('.');
  if (segments.some((s) => s === '')) throw new ValidationError([`${JSON.stringify(path)} is not a valid path (empty segment)`]);
  return segments.map((s) => (INDEX.test(s) ? Number(s) : s));
}

/**
 * Splits a path from the root of an experiment file, keeping the keys of overrides and sweep
 * axes whole, since those keys are themselves dotted paths:
 * `sweep.grid.workload.clients` -> `['sweep', 'grid', 'workload.clients']`,
 * `variants.none.stack.0.policy.backoff.kind` -> `['variants', 'none', 'stack.0.policy.backoff.kind']`,
 * and the same under `parts.<i>.`.
 */
export function splitExperimentPath(path: string): PathSegment[] {
  const segments = splitPath(path);
  const start = segments[0] === 'parts' && typeof segments[1] === 'number' ? 2 : 0;
  const head = segments[start];
  const keyAt = head === 'variants' || (head === 'sweep' && (segments[start + 1] === 'grid' || segments[start + 1] === 'zip')) ? start + 2 : -1;
  if (keyAt < 0 || segments.length <= keyAt + 1) return segments;
  return [...segments.slice(0, keyAt), segments.slice(keyAt).join('.')];
}

/**
 * A path relative to the scenario, as variants, sweep axes and `--set` write it: a leading
 * `scenario` segment is accepted and means the same (`scenario.stack.0.name` = `stack.0.name`).
 */
export function scenarioRelative(segments: readonly PathSegment[]): PathSegment[] {
  return segments[0] === 'scenario' ? segments.slice(1) : [...segments];
}

/**
 * Merges `patch` into `target` and returns the result, as overrides and presets merge
 * (`mergeJson`: objects merge key by key, the target modified; arrays, scalars and objects of
 * another `kind` or `dist` are replaced by a copy of the patch). A `__proto__`-like key throws a
 * ValidationError.
 */
export function mergeValue(target: unknown, patch: unknown): unknown {
  return mergeJson(target, patch, (key) => {
    throw new ValidationError([`${JSON.stringify(key)} is not allowed as a key`]);
  });
}

/**
 * Sets `value` at `path` inside `target` (which is modified and returned), as overrides do
 * (docs/experiments.md, "Experiment files"): numeric segments index existing entries of arrays (an index past
 * the end is an error, never a new entry); missing intermediate objects are created; an
 * object value deep-merges into an object already there (`mergeValue`); arrays and scalars
 * replace. Throws a ValidationError when the path goes through a scalar, names a non-index
 * segment of an array, indexes past the end of an array, or uses `__proto__`-like keys.
 */
export function setPath<T extends object>(target: T, path: PathInput, value: unknown): T {
  const segments = typeof path === 'string' ? splitPath(path) : [...path];
  if (segments.length === 0) throw new ValidationError(['the path is empty']);
  const shown = segments.join('.');
  let container: unknown = target;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as PathSegment;
    const where = segments.slice(0, i).join('.') || 'the document';
    if (typeof segment === 'string' && FORBIDDEN.has(segment)) {
      throw new ValidationError([`cannot set ${shown}: ${JSON.stringify(segment)} is not allowed in a path`]);
    }
    const last = i === segments.length - 1;
    let next: unknown;
    if (Array.isArray(container)) {
      if (typeof segment !== 'number') {
        throw new ValidationError([`cannot set ${shown}: ${where} is an array, so the next segment must be an index (got ${JSON.stringify(segment)})`]);
      }
      if (segment >= container.length) {
        throw new ValidationError([
          container.length === 0
            ? `cannot set ${shown}: ${where} has no entries, so there is no index ${segment} (an index past the end of a list is an error, not a new entry)`
            : `cannot set ${shown}: ${where} has ${container.length} ${container.length === 1 ? 'entry' : 'entries'}, so the index must be less than ${container.length} (got ${segment}; an index past the end of a list is an error, not a new entry)`,
        ]);
      }
      if (last) {
        container[segment] = mergeValue(container[segment], value);
        return target;
      }
      next = container[segment];
      if (next === undefined) {
        next = typeof segments[i + 1] === 'number' ? [] : {};
        container[segment] = next;
      }
    } else if (isObject(container)) {
      const key = String(segment);
      if (last) {
        container[key] = mergeValue(container[key], value);
        return target;
      }
      next = container[key];
      if (next === undefined) {
        next = typeof segments[i + 1] === 'number' ? [] : {};
        container[key] = next;
      }
    } else {
      throw new ValidationError([`cannot set ${shown}: ${where} is ${describeType(container)}, not an object or an array`]);
    }
    container = next;
  }
  return target;
}
