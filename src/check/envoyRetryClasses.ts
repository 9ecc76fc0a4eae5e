import { nearestName } from '../policy/schema/nearestName.js';
import { presetPolicy, type PolicyInput } from '../policy/presets.js';
import type { RetryOnClass } from '../policy/types.js';
import type { FieldReader, Segment } from './FieldReader.js';
import { ENVOY_DEFAULTS } from './importEnvoyRoute.js';
import { lostNote } from './ImportedLayer.js';
import { ENVOY_CONDITIONS, httpStatusClass } from './retryVocabulary.js';

/**
 * The outcome classes an Envoy-based proxy retries for a list of `retry_on` conditions and
 * `retriable_status_codes`, with Envoy's meaning of each condition (ENVOY_CONDITIONS, retryVocabulary.ts,
 * which the Envoy importer and the exporters read too). Status codes count only when `retriable-status-codes` is listed (Envoy's rule).
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
    const known = ENVOY_CONDITIONS.find((t) => t.term === cond);
    if (known === undefined) {
      const near = nearestName(cond, ENVOY_CONDITIONS.map((t) => t.term));
      r.fail(path, `has an unknown condition ${JSON.stringify(cond)}${near !== undefined ? ` (did you mean ${JSON.stringify(near)}?)` : ''}`);
      continue;
    }
    known.classes.forEach(add);
    if (known.note !== undefined) notes.push(lostNote(`retry on ${cond}: ${known.note}`));
  }
  if (statusCodes) {
    for (const code of codes) {
      const cls = httpStatusClass(code);
      if (cls === null) notes.push(lostNote(`status ${code} is never answered by a leaf of the model and is left out.`));
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
