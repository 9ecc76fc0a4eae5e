/** Keys that would reach an object's prototype instead of a field. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'prototype', 'constructor']);
/**
 * Fields that tell apart the shapes of a discriminated object (`kind` of workloads, leaves,
 * schedules, backoffs, budgets; `dist` of distributions).
 */
const DISCRIMINATORS = ['kind', 'dist'] as const;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A deep copy of a JSON value (objects and arrays are copied, everything else is shared). A key
 * `__proto__` (which JSON.parse makes an ordinary field) stays an ordinary field, so validation
 * sees it and refuses it as an unknown field instead of it silently becoming the copy's prototype.
 */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => cloneJson(v) as unknown) as T;
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === '__proto__') Object.defineProperty(out, k, { value: cloneJson(v), enumerable: true, writable: true, configurable: true });
      else out[k] = cloneJson(v);
    }
    return out as T;
  }
  return value;
}

/** True when both are objects of different shapes (`kind` or `dist` differ): the new one replaces the old. */
function differentShapes(target: JsonObject, patch: JsonObject): boolean {
  return DISCRIMINATORS.some((d) => typeof target[d] === 'string' && typeof patch[d] === 'string' && target[d] !== patch[d]);
}

/**
 * The merge of overrides and presets (docs/experiments.md, "Experiment files"): when both are objects, each key
 * of the patch is merged into the target's (recursively; the target is modified); otherwise
 * (arrays, scalars, or objects of different shapes, i.e. a different `kind` or `dist`) a copy of
 * the patch replaces the target. A key in {@link FORBIDDEN_KEYS} calls `refuse`, which throws.
 */
export function mergeJson(target: unknown, patch: unknown, refuse: (key: string) => never): unknown {
  if (!isObject(target) || !isObject(patch) || differentShapes(target, patch)) return cloneJson(patch);
  for (const [key, value] of Object.entries(patch)) {
    if (FORBIDDEN_KEYS.has(key)) refuse(key);
    target[key] = mergeJson(target[key], value, refuse);
  }
  return target;
}
