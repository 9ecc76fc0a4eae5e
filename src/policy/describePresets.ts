import { RETRY_ON_CLASSES } from './classify.js';
import { ADMISSION_TEXT, describeBackoff, describeBudget, formatDurationOrCap } from './describePolicy.js';
import { PRESET_NAMES, PRESETS, type PolicyInput, type PresetName } from './presets.js';

/** A preset's duration as `retrystorm presets` prints it ({@link formatDurationOrCap}). */
const ms = formatDurationOrCap;

/** A short text of a preset's parameters, e.g. `4 attempts; full-jitter 100 ms..1 s; retry on 503; ...`. */
export function describePresetPolicy(policy: PolicyInput): string {
  const parts: string[] = [];
  const attempts = policy.maxAttempts;
  if (attempts !== undefined) parts.push(attempts === 'unlimited' ? 'unlimited attempts' : `${attempts} attempts`);
  if (policy.backoff !== undefined) parts.push(describeBackoff(policy.backoff));
  if (policy.retryOn !== undefined) {
    parts.push(policy.retryOn.length === RETRY_ON_CLASSES.length ? 'retry on every failure' : `retry on ${policy.retryOn.join(', ')}`);
  }
  if (policy.retryAfter !== undefined && policy.retryAfter !== 'ignore') parts.push(`Retry-After: ${policy.retryAfter}`);
  if (policy.totalTimeoutMs !== undefined) parts.push(`total timeout ${ms(policy.totalTimeoutMs)}`);
  if (policy.maxElapsedMs !== undefined) parts.push(`max elapsed ${ms(policy.maxElapsedMs)}`);
  const budgets = policy.budget === undefined ? [] : Array.isArray(policy.budget) ? policy.budget : [policy.budget];
  for (const b of budgets) parts.push(describeBudget(b));
  if (policy.admission !== undefined) parts.push(ADMISSION_TEXT[policy.admission.kind]);
  return parts.join('; ');
}

/** One row of `retrystorm presets`. */
export interface PresetRow {
  name: PresetName;
  parameters: string;
  /** The library version the preset describes. */
  version: string;
  source: string;
}

/** The presets as rows for `retrystorm presets`: name, a short text of the parameters, the version described, the source. */
export function describePresets(): PresetRow[] {
  return PRESET_NAMES.map((name) => ({
    name,
    parameters: describePresetPolicy(PRESETS[name].policy),
    version: PRESETS[name].version,
    source: PRESETS[name].source,
  }));
}
