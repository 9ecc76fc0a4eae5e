import { describeValue } from '../policy/schema/describeValue.js';
import { CheckInputError } from './CheckInputError.js';
import type { ImportedLayer } from './ImportedLayer.js';
import { LineProblems } from './LineProblems.js';
import { AWS_RETRY_MODES, importAwsConfig, type AwsSdk } from './importAwsConfig.js';

/** The environment variables the AWS SDKs read for retries (AWS SDKs and Tools reference guide, "Retry behavior"). */
export const AWS_RETRY_ENV = { mode: 'AWS_RETRY_MODE', maxAttempts: 'AWS_MAX_ATTEMPTS' } as const;

/** How to read AWS environment variables. */
export interface AwsEnvImportOptions {
  /** `js` (the default) or `python`. */
  sdk?: AwsSdk;
  /** The shared config file the variables override, and its profile (default `default`). */
  config?: { text: string; source: string; profile?: string };
}

/** Parse `KEY=value` lines (`export KEY=value`, quotes and `#` comments allowed, as .env files write them). */
export function readEnvLines(text: string, source: string): Map<string, { value: string; line: number }> {
  const out = new Map<string, { value: string; line: number }>();
  const problems = new LineProblems(source);
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (m === null) {
      problems.bad(i + 1, 'must be a KEY=value setting', line);
      return;
    }
    let value = (m[2] as string).trim();
    const quoted = /^(["'])(.*)\1$/.exec(value);
    if (quoted !== null) value = quoted[2] as string;
    else value = value.replace(/\s+#.*$/, '');
    out.set(m[1] as string, { value, line: i + 1 });
  });
  problems.throwIfAny();
  return out;
}

/** The `key = value` settings of the section of `profile` (the same headers importAwsConfig accepts). */
function profileSettings(text: string, profile: string): Map<string, string> {
  const out = new Map<string, string>();
  const headers = profile === 'default' ? ['default'] : [`profile ${profile}`, profile];
  for (const header of headers) {
    let inside = false;
    for (const raw of text.split(/\r?\n/)) {
      const h = /^\s*\[\s*([^\]]+?)\s*\]/.exec(raw);
      if (h !== null) {
        inside = (h[1] ?? '').replace(/\s+/g, ' ') === header;
        continue;
      }
      const kv = /^([^=\s][^=]*?)\s*=\s*(.*)$/.exec(raw);
      if (inside && kv !== null) out.set((kv[1] ?? '').trim().toLowerCase(), (kv[2] ?? '').trim());
    }
    if (out.size > 0) return out;
  }
  return out;
}

/**
 * The AWS SDKs' retry environment variables, `AWS_RETRY_MODE` and `AWS_MAX_ATTEMPTS` (`KEY=value`
 * lines, or given one by one), as one layer: each variable overrides the shared config profile's
 * `retry_mode` / `max_attempts`, as the SDKs resolve them (environment, then profile, then the
 * SDK's default). The policy is the AWS config importer's for the resulting settings, so both
 * read a mode alike. Other variables are ignored.
 */
export function importAwsEnv(text: string, source: string, options: AwsEnvImportOptions = {}): ImportedLayer {
  const env = readEnvLines(text, source);
  const problems: string[] = [];
  const mode = env.get(AWS_RETRY_ENV.mode);
  const attempts = env.get(AWS_RETRY_ENV.maxAttempts);
  if (mode !== undefined && !(AWS_RETRY_MODES as readonly string[]).includes(mode.value.toLowerCase())) {
    problems.push(`${source}: line ${mode.line} ${AWS_RETRY_ENV.mode} must be one of ${AWS_RETRY_MODES.join(', ')} (got ${describeValue(mode.value)})`);
  }
  if (attempts !== undefined && !(/^\d+$/.test(attempts.value) && Number(attempts.value) >= 1 && Number.isSafeInteger(Number(attempts.value)))) {
    problems.push(`${source}: line ${attempts.line} ${AWS_RETRY_ENV.maxAttempts} must be a positive integer (got ${describeValue(attempts.value)})`);
  }
  if (mode === undefined && attempts === undefined && options.config === undefined) problems.push(`${source}: sets neither ${AWS_RETRY_ENV.mode} nor ${AWS_RETRY_ENV.maxAttempts}`);
  if (problems.length > 0) throw new CheckInputError(problems);
  const sdk = options.sdk ?? 'js';
  const profile = options.config?.profile ?? 'default';
  // The profile is read first as it is, so its own problems (and a missing profile) are reported with their lines.
  const fromProfile = options.config === undefined ? undefined : importAwsConfig(options.config.text, options.config.source, { profile, sdk });
  const settings = options.config === undefined ? new Map<string, string>() : profileSettings(options.config.text, profile);
  const finalMode = mode?.value.toLowerCase() ?? settings.get('retry_mode');
  const finalAttempts = attempts?.value ?? settings.get('max_attempts');
  const ini = ['[default]', ...(finalMode !== undefined ? [`retry_mode = ${finalMode}`] : []), ...(finalAttempts !== undefined ? [`max_attempts = ${finalAttempts}`] : [])].join('\n');
  const layer = importAwsConfig(ini, source, { sdk });
  const set = [mode !== undefined ? `${AWS_RETRY_ENV.mode}=${mode.value}` : '', attempts !== undefined ? `${AWS_RETRY_ENV.maxAttempts}=${attempts.value}` : ''].filter((s) => s !== '');
  const notes = layer.notes.map((n) => n.replace(/^\[default\] sets no/, 'Neither the environment nor the profile sets'));
  if (fromProfile !== undefined && set.length > 0) notes.unshift(`${set.join(' and ')} override${set.length === 1 ? 's' : ''} the profile, as the SDKs resolve them (environment first).`);
  const origin = `${layer.origin.replace(/^[^:]*: \[default\]/, `${source}:${set.length > 0 ? ` ${set.join(' ')}` : ''}`)}${fromProfile !== undefined ? ` over ${options.config?.source} [${profile === 'default' ? 'default' : `profile ${profile}`}]` : ''}`;
  return { policy: layer.policy, origin, notes, defaultName: 'aws-sdk', ...(fromProfile?.warnings !== undefined ? { warnings: fromProfile.warnings } : {}) };
}
