import { stringify } from 'yaml';
import { DEFAULT_RANDOMIZATION_FACTOR } from '../policy/backoff.js';
import { presetPolicy } from '../policy/presets.js';
import type { PolicySpec } from '../policy/types.js';
import { RESILIENCE4J_EXCEPTIONS, sayClasses } from './retryVocabulary.js';
import type { ExportedText } from './exportPolicy.js';


const ms = (v: number) => `${v}ms`;

/**
 * A policy as a resilience4j retry instance in a Spring Boot `application.yml`
 * (`resilience4j.retry.instances.<name>`): maxAttempts, waitDuration = the back-off base,
 * enableExponentialBackoff with its multiplier and exponentialMaxWaitDuration = the cap,
 * enableRandomizedWait with randomizedWaitFactor (IntervalFunction.java), and retryExceptions for
 * the retried classes (RESILIENCE4J_EXCEPTIONS, the importer's table too: the widest exceptions that
 * retry nothing more) (omitted when every failure is retried, resilience4j's default).
 */
export function exportResilience4j(policy: PolicySpec, name: string): ExportedText {
  const b = policy.backoff;
  const props: Record<string, unknown> = { maxAttempts: policy.maxAttempts === 'unlimited' ? 2 ** 31 - 1 : policy.maxAttempts, waitDuration: ms(b.baseMs) };
  const exponential = (b.kind === 'exponential' || b.kind === 'randomized') && b.multiplier !== 1;
  if (exponential) {
    props.enableExponentialBackoff = true;
    props.exponentialBackoffMultiplier = b.multiplier;
    if (Number.isFinite(b.capMs)) props.exponentialMaxWaitDuration = ms(b.capMs);
  }
  if (b.kind === 'randomized') {
    props.enableRandomizedWait = true;
    props.randomizedWaitFactor = b.randomizationFactor ?? DEFAULT_RANDOMIZATION_FACTOR;
  }
  const every = presetPolicy('resilience4j').retryOn ?? [];
  const all = every.every((c) => policy.retryOn.includes(c)) && policy.retryOn.length === every.length;
  if (!all) props.retryExceptions = sayClasses(policy.retryOn, RESILIENCE4J_EXCEPTIONS).terms;
  const doc = { resilience4j: { retry: { instances: { [name]: props } } } };
  return { text: stringify(doc), extension: 'yml', hints: [] };
}
