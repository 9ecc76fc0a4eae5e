import type { PolicySpec } from '../policy/types.js';
import { policyDifferences, readBack, type ExportedText } from './exportPolicy.js';
import { AWS_RETRY_MODES } from './importAwsConfig.js';

/**
 * A policy as an AWS shared config profile (INI): `max_attempts`, and the `retry_mode` (standard,
 * adaptive or legacy) of the chosen SDK whose behaviour is nearest the policy (the fewest fields
 * reading back differently), since a profile sets nothing else.
 */
export function exportAwsConfig(policy: PolicySpec, name: string, sdk: 'js' | 'python'): ExportedText {
  const header = name === 'default' ? '[default]' : `[profile ${name}]`;
  const attempts = policy.maxAttempts === 'unlimited' ? 1000 : policy.maxAttempts;
  let best: { text: string; misses: number } | undefined;
  for (const mode of AWS_RETRY_MODES) {
    if (sdk === 'js' && mode === 'legacy') continue;
    const text = `${header}\nretry_mode = ${mode}\nmax_attempts = ${attempts}\n`;
    // readBack reads the profile named default; a named profile is written under its own header.
    const probe = `[default]\nretry_mode = ${mode}\nmax_attempts = ${attempts}\n`;
    const misses = policyDifferences(policy, readBack(probe, 'aws-config', 'ini', { sdk }), 'aws-config').length;
    if (best === undefined || misses < best.misses) best = { text, misses };
  }
  return { text: best?.text ?? '', extension: 'ini', hints: [] };
}
