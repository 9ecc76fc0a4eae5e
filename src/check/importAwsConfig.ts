import { describeValue, listNames } from '../policy/schema/describeValue.js';
import { nearestName } from '../policy/schema/nearestName.js';
import { presetPolicy, type PolicyInput } from '../policy/presets.js';
import { AWS_ADAPTIVE_DEFAULTS } from '../policy/budgets/AwsAdaptiveRateLimiter.js';
import { CheckInputError } from './CheckInputError.js';
import type { ImportedLayer } from './ImportedLayer.js';
import { LineProblems } from './LineProblems.js';

/** Which SDK reads the profile: its retry formulas and its default retry mode differ. */
export type AwsSdk = 'js' | 'python';

/** The SDKs `sdk` may name. */
export const AWS_SDKS: readonly AwsSdk[] = ['js', 'python'];

/** Which profile to read, and for which SDK. */
export interface AwsImportOptions {
  /** The profile name (default `default`): `[default]`, `[profile NAME]`, or `[NAME]` as in a credentials file. */
  profile?: string;
  /** `js` (AWS SDK for JavaScript v3, the default) or `python` (botocore: boto3). */
  sdk?: AwsSdk;
}

/** `retry_mode` values (AWS SDKs and Tools reference guide, "Retry behavior"). */
export const AWS_RETRY_MODES = ['standard', 'adaptive', 'legacy'] as const;

interface Section {
  header: string;
  line: number;
  values: Map<string, { value: string; line: number }>;
  /** Every `key = value` line of the section, in order (a key set twice is there twice). */
  settings: Array<{ key: string; value: string; line: number }>;
}

/**
 * The sections of an AWS shared config file (INI): `[section]` headers, `key = value` lines,
 * `#` and `;` comment lines, and indented sub-settings under a key with an empty value (such as
 * `s3 =`), which are skipped. A line that is none of these is a problem naming its number (and
 * quoting a short excerpt of it, for the first few such lines: LineProblems).
 */
function readIni(text: string, source: string): Section[] {
  const sections: Section[] = [];
  const problems = new LineProblems(source);
  let current: Section | undefined;
  let nested = false;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) return;
    const header = /^\[\s*([^\]]+?)\s*\]\s*(?:[#;].*)?$/.exec(trimmed);
    if (header !== null) {
      current = { header: (header[1] ?? '').replace(/\s+/g, ' '), line, values: new Map(), settings: [] };
      sections.push(current);
      nested = false;
      return;
    }
    const indented = /^\s/.test(raw);
    if (indented && nested) return;
    const kv = /^([^=]+?)\s*=\s*(.*)$/.exec(trimmed);
    if (kv === null) {
      problems.bad(line, 'must be a [section] or a "key = value" setting', trimmed);
      return;
    }
    if (current === undefined) {
      problems.bad(line, 'sets a key before any [section]', trimmed);
      return;
    }
    const key = (kv[1] ?? '').trim().toLowerCase();
    const value = (kv[2] ?? '').trim();
    nested = value === '';
    if (!indented) {
      current.values.set(key, { value, line });
      current.settings.push({ key, value, line });
    }
  });
  problems.throwIfAny();
  return sections;
}

/** The profile name of a section header (`default`, `profile NAME`, or `NAME`), or undefined for other sections. */
function profileOf(header: string): string | undefined {
  if (header === 'default') return 'default';
  const m = /^profile\s+(.+)$/.exec(header);
  if (m !== null) return m[1];
  if (/^(sso-session|services|plugins|preview)\b/.test(header)) return undefined;
  return header;
}

/** The retry settings a warning about a repeated section names when a later section replaces them. */
const RETRY_SETTINGS = ['retry_mode', 'max_attempts'];

/**
 * The settings of a profile's section as the AWS SDK for JavaScript v3 reads them when the section
 * is given more than once, or sets a key twice: as one section, a later `key = value` replacing an
 * earlier one (smithy-lang/smithy-typescript:packages/shared-ini-file-loader/src/parseIni.ts at
 * 1e36cf8582f4bf644c2714f8766cdf915f5e5815: `map[currentSection] = map[currentSection] || {}`, then
 * `map[currentSection][name] = value`), with a warning naming the retry settings replaced. botocore
 * refuses such a file (botocoreRefusal), so with `python` the first section is taken as it is (the
 * refusal is raised before).
 */
function repeatedSections(same: Section[], source: string, sdk: AwsSdk): { values: Section['values']; warnings: string[] } {
  const first = same[0] as Section;
  if (sdk === 'python') return { values: first.values, warnings: [] };
  const values: Section['values'] = new Map();
  const replaced: string[] = [];
  for (const { key, value, line } of same.flatMap((s) => s.settings)) {
    const before = values.get(key);
    if (before !== undefined && RETRY_SETTINGS.includes(key) && before.value !== value) {
      replaced.push(`${key} ${describeValue(value)} (line ${line}) replaces ${describeValue(before.value)} (line ${before.line})`);
    }
    values.set(key, { value, line });
  }
  if (same.length === 1 && replaced.length === 0) return { values, warnings: [] };
  const what = same.length > 1 ? `is given ${same.length} times (lines ${same.map((s) => s.line).join(', ')}): the AWS SDK for JavaScript v3 reads them as one section` : 'sets a retry setting more than once: the AWS SDK for JavaScript v3 reads the section';
  return {
    values,
    warnings: [`${source}: [${first.header}] ${what}, a later setting replacing an earlier one${replaced.length > 0 ? ` (${replaced.join('; ')})` : ''}; botocore (--sdk python) refuses such a file`],
  };
}

/**
 * Why botocore refuses a file, if it does: Python's configparser (strict by default) raises
 * DuplicateSectionError for a section given twice and DuplicateOptionError for a key set twice in
 * one section, anywhere in the file, and botocore reports either as ConfigParseError (see
 * repeatedSections), so no profile of the file is read.
 */
function botocoreRefusal(sections: Section[], source: string): string | undefined {
  for (const s of sections) {
    const same = sections.filter((t) => t.header === s.header);
    if (same.length > 1) {
      return `${source}: [${s.header}] is given ${same.length} times (lines ${same.map((t) => t.line).join(', ')}): botocore refuses the file (Python's configparser raises DuplicateSectionError, which botocore reports as ConfigParseError), so boto3 reads no profile from it; merge them into one section`;
    }
    const repeated = s.settings.find((x, i) => s.settings.findIndex((y) => y.key === x.key) !== i);
    if (repeated !== undefined) {
      const lines = s.settings.filter((x) => x.key === repeated.key).map((x) => x.line);
      return `${source}: [${s.header}] sets ${repeated.key} ${lines.length} times (lines ${lines.join(', ')}): botocore refuses the file (Python's configparser raises DuplicateOptionError, which botocore reports as ConfigParseError), so boto3 reads no profile from it; keep one`;
    }
  }
  return undefined;
}

/**
 * An AWS SDK shared config profile (`~/.aws/config`, INI) as one layer: `retry_mode` standard,
 * adaptive or legacy and `max_attempts` (AWS SDKs and Tools reference guide, "Retry behavior").
 * Standard and adaptive start from the presets of the chosen SDK (`aws-sdk-js-standard`,
 * `aws-sdk-adaptive`; `botocore-standard`, with the same CUBIC rate limiter for adaptive); legacy
 * is `botocore-legacy` (AWS SDK for JavaScript v3 has no legacy mode: standard, with a note).
 * Without `retry_mode` the SDK's default applies (JS v3: standard; boto3: legacy). Problems name
 * the file and the section and setting: `aws-config.ini: [profile prod] max_attempts must be a
 * positive integer (got "three")`.
 */
export function importAwsConfig(text: string, source: string, options: AwsImportOptions = {}): ImportedLayer {
  const sections = readIni(text, source);
  const profile = options.profile ?? 'default';
  const sdk = options.sdk ?? 'js';
  const refusal = sdk === 'python' ? botocoreRefusal(sections, source) : undefined;
  if (refusal !== undefined) throw new CheckInputError([refusal]);
  const candidates = sections.filter((s) => profileOf(s.header) === profile);
  const section = candidates.find((s) => s.header === (profile === 'default' ? 'default' : `profile ${profile}`)) ?? candidates[0];
  if (section === undefined) {
    const names = [...new Set(sections.map((s) => profileOf(s.header)).filter((n): n is string => n !== undefined))];
    const near = nearestName(profile, names);
    throw new CheckInputError([
      `${source}: has no profile ${JSON.stringify(profile)} (profiles: ${names.length > 0 ? listNames(names) : 'none'}${
        near !== undefined ? `; did you mean ${JSON.stringify(near)}?` : ''
      })`,
    ]);
  }
  const where = `[${section.header}]`;
  const { values, warnings } = repeatedSections(sections.filter((s) => s.header === section.header), source, sdk);
  const problems: string[] = [];
  const notes: string[] = [];
  const modeSetting = values.get('retry_mode');
  const attemptsSetting = values.get('max_attempts');
  let mode: (typeof AWS_RETRY_MODES)[number] | undefined;
  if (modeSetting !== undefined) {
    const v = modeSetting.value.toLowerCase();
    if ((AWS_RETRY_MODES as readonly string[]).includes(v)) mode = v as (typeof AWS_RETRY_MODES)[number];
    else problems.push(`${source}: ${where} retry_mode must be one of ${AWS_RETRY_MODES.join(', ')} (got ${describeValue(modeSetting.value)})`);
  }
  let attempts: number | undefined;
  if (attemptsSetting !== undefined) {
    const v = attemptsSetting.value;
    if (/^\d+$/.test(v) && Number(v) >= 1 && Number.isSafeInteger(Number(v))) attempts = Number(v);
    else problems.push(`${source}: ${where} max_attempts must be a positive integer (got ${describeValue(v)})`);
  }
  if (problems.length > 0) throw new CheckInputError(problems);

  const sdkName = sdk === 'js' ? 'AWS SDK for JavaScript v3' : 'botocore (boto3)';
  if (mode === undefined) {
    mode = sdk === 'js' ? 'standard' : 'legacy';
    notes.push(`${where} sets no retry_mode: the ${sdkName} default is ${mode}.`);
  }
  let policy: PolicyInput;
  if (mode === 'legacy' && sdk === 'js') {
    notes.push('The AWS SDK for JavaScript v3 has no legacy retry mode; standard is used.');
    policy = presetPolicy('aws-sdk-js-standard');
  } else if (mode === 'legacy') {
    policy = presetPolicy('botocore-legacy');
    notes.push('botocore legacy mode (preset botocore-legacy): rand() x 2^(attempt - 1) s with no cap, no retry quota (boto/botocore:botocore/data/_retry.json).');
  } else if (sdk === 'js') {
    policy = presetPolicy(mode === 'standard' ? 'aws-sdk-js-standard' : 'aws-sdk-adaptive');
  } else {
    policy = presetPolicy('botocore-standard');
    notes.push(
      'botocore retries a 429 only when its error code is a throttling code; a bare 429 without one is not retried there, and the model retries every 429 it lists.',
    );
    if (mode === 'adaptive') policy.admission = { kind: 'aws-adaptive', ...AWS_ADAPTIVE_DEFAULTS };
  }
  if (sdk === 'python') {
    notes.push('botocore\'s connect and read timeouts default to 60 s: a 60 s bound per attempt (the read timeout bounds each socket read, so this approximates it).');
  }
  if (attempts !== undefined) policy.maxAttempts = attempts;
  else notes.push(`${where} sets no max_attempts: the ${mode} default is ${String(policy.maxAttempts)}.`);
  notes.push('The AWS SDKs retry every operation, POST-like ones included (idempotency "always"); set "idempotency" in the layer\'s policy to narrow it.');
  const settings = [`retry_mode ${mode}`, `max_attempts ${String(policy.maxAttempts)}`].join(', ');
  return { policy, origin: `${source}: ${where} ${settings} (${sdkName})`, notes, defaultName: 'aws-sdk', ...(warnings.length > 0 ? { warnings } : {}) };
}
