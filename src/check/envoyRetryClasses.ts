import { nearestName } from '../policy/schema/nearestName.js';
import { presetPolicy, type PolicyInput } from '../policy/presets.js';
import type { RetryOnClass } from '../policy/types.js';
import type { FieldReader, Segment } from './FieldReader.js';
import { ENVOY_DEFAULTS, ENVOY_RETRY_ON, httpStatusClass } from './importEnvoyRoute.js';

/**
 * The outcome classes an Envoy-based proxy retries for a list of `retry_on` conditions and
 * `retriable_status_codes`, with Envoy's meaning of each condition (router_filter.rst, as the Envoy
 * importer reads it). Status codes count only when `retriable-status-codes` is listed (Envoy's rule).
 * Unknown conditions are problems at `path`; conditions and codes with no counterpart get a note.
 */
export function envoyRetryClasses(
  r: FieldReader,
  conditions: readonly string[],
  codes: readonly number[],
  path: readonly Segment[],
  notes: string[],
): RetryOnClass[] {
  const classes: RetryOnClass[] = [];
  const add = (c: RetryOnClass) => classes.includes(c) || classes.push(c);
  const statusCodes = conditions.includes('retriable-status-codes');
  for (const cond of conditions) {
    const known = ENVOY_RETRY_ON[cond];
    if (known === undefined) {
      const near = nearestName(cond, Object.keys(ENVOY_RETRY_ON));
      r.fail(path, `has an unknown condition ${JSON.stringify(cond)}${near !== undefined ? ` (did you mean ${JSON.stringify(near)}?)` : ''}`);
      continue;
    }
    known.classes.forEach(add);
    if (known.note !== undefined) notes.push(`retry on ${cond}: ${known.note}`);
  }
  if (statusCodes) {
    for (const code of codes) {
      const cls = httpStatusClass(code);
      if (cls === null) notes.push(`Status ${code} has no counterpart in the model and is left out.`);
      else add(cls);
    }
  } else if (codes.length > 0) {
    notes.push(`Status codes ${codes.join(', ')} are ignored: retriable-status-codes is not among the conditions.`);
  }
  return classes;
}

/**
 * Envoy's back-off for a base interval and a cap (default 10 x base, router_filter.rst), in the
 * form of the `envoy` preset, so a mesh built on Envoy draws its waits as Envoy itself does.
 */
export function envoyBackoff(baseMs: number = ENVOY_DEFAULTS.baseIntervalMs, capMs: number = baseMs * ENVOY_DEFAULTS.maxIntervalFactor): NonNullable<PolicyInput['backoff']> {
  return { ...presetPolicy('envoy').backoff, baseMs, capMs };
}

/**
 * The HTTP status an outcome class is written as in configurations that list status codes, the
 * inverse of httpStatusClass (504 is the timeout class: a per-try timeout is answered 504); null for
 * the local refusals of this model.
 */
export function statusOfClass(c: RetryOnClass): number | null {
  const table: Partial<Record<RetryOnClass, number>> = { '500': 500, '503': 503, timeout: 504, '429': 429, '400': 400, '404': 404, conflict: 409 };
  return table[c] ?? null;
}
