import { describeValue, listNames } from '../policy/schema/describeValue.js';
import { nearestName } from '../policy/schema/nearestName.js';
import { presetPolicy, type PolicyInput } from '../policy/presets.js';
import { isObject, type JsonObject, type Segment } from './FieldReader.js';
import type { ImportedLayer } from './ImportedLayer.js';
import { MeshReader } from './MeshReader.js';
import { readDocument } from './readDocument.js';

/** Which section of an appsettings.json to import. */
export interface PollyImportOptions {
  /** The section's path, `:`-separated as .NET configuration writes it (`HttpClients:Catalog`), or its last key. */
  instance?: string;
}

/**
 * The defaults of Microsoft.Extensions.Http.Resilience (dotnet/extensions:src/Libraries/
 * Microsoft.Extensions.Http.Resilience/Polly/HttpRetryStrategyOptions.cs and
 * HttpStandardResilienceOptions.cs, 9.x, 2025), over Polly v8's RetryStrategyOptions
 * (App-vNext/Polly:src/Polly.Core/Retry/RetryConstants.cs): MaxRetryAttempts 3, Delay 2 s,
 * BackoffType Exponential, UseJitter true, no MaxDelay, ShouldRetryAfterHeader true; the standard
 * pipeline's AttemptTimeout 10 s and TotalRequestTimeout 30 s. Polly's jitter on Constant and Linear
 * delays is +-25% (RetryHelper.cs, JitterFactor 0.5 spread around the delay).
 */
export const POLLY_DEFAULTS = {
  maxRetryAttempts: 3,
  delayMs: 2000,
  backoffType: 'Exponential',
  useJitter: true,
  attemptTimeoutMs: 10_000,
  totalRequestTimeoutMs: 30_000,
  constantJitterFactor: 0.25,
} as const;

const RETRY_KEYS = ['MaxRetryAttempts', 'Delay', 'BackoffType', 'UseJitter', 'MaxDelay', 'ShouldRetryAfterHeader', 'Name'];
const PIPELINE_KEYS = ['Retry', 'AttemptTimeout', 'TotalRequestTimeout', 'CircuitBreaker', 'RateLimiter'];
const BACKOFF_TYPES = ['Constant', 'Linear', 'Exponential'];

/** .NET configuration keys are case-insensitive: the value of `key` in any case. */
function field(obj: JsonObject, key: string): { key: string; value: unknown } | undefined {
  const k = Object.keys(obj).find((x) => x.toLowerCase() === key.toLowerCase());
  return k === undefined ? undefined : { key: k, value: obj[k] };
}

/**
 * A TimeSpan as .NET configuration binds it (`[d.]hh:mm:ss[.fffffff]`, e.g. `"00:00:02"`,
 * `"00:00:00.500"`, `"1.00:00:00"`) in ms, or undefined.
 */
export function timeSpanMs(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(?:(\d+)\.)?(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,7}))?$/.exec(value.trim());
  if (m === null) return undefined;
  const [, d, h, min, s, frac] = m;
  if (Number(min) > 59 || Number(s) > 59 || Number(h) > 23) return undefined;
  const ms = Number(d ?? 0) * 86_400_000 + Number(h) * 3_600_000 + Number(min) * 60_000 + Number(s) * 1000 + Number(`0.${frac ?? '0'}`) * 1000;
  return Math.round(ms * 1e6) / 1e6;
}

/** Whether an object is retry options (it has one of their keys). */
function isRetryOptions(o: JsonObject): boolean {
  return ['MaxRetryAttempts', 'BackoffType', 'UseJitter', 'MaxDelay'].some((k) => field(o, k) !== undefined);
}

/** Whether an object is the options of the standard resilience pipeline (a Retry section, or its timeouts). */
function isPipeline(o: JsonObject): boolean {
  const retry = field(o, 'Retry')?.value;
  return (isObject(retry) && (isRetryOptions(retry) || field(retry, 'Delay') !== undefined)) || field(o, 'AttemptTimeout') !== undefined || field(o, 'TotalRequestTimeout') !== undefined;
}

interface Section {
  path: string[];
  value: JsonObject;
  pipeline: boolean;
}

function findSections(value: unknown, path: string[], out: Section[], depth = 0): void {
  if (!isObject(value) || depth > 32) return;
  if (isPipeline(value)) {
    out.push({ path, value, pipeline: true });
    return;
  }
  if (isRetryOptions(value)) {
    out.push({ path, value, pipeline: false });
    return;
  }
  for (const [k, v] of Object.entries(value)) findSections(v, [...path, k], out, depth + 1);
}

/** Whether a JSON document holds Polly / Microsoft.Extensions.Http.Resilience options. */
export function hasPollyOptions(root: unknown): boolean {
  const out: Section[] = [];
  findSections(root, [], out);
  return out.length > 0;
}

/**
 * Polly retry options from an `appsettings.json` as Microsoft.Extensions.Http.Resilience binds
 * them, as one layer: a section of the standard pipeline (`Retry`, `AttemptTimeout`,
 * `TotalRequestTimeout`, `CircuitBreaker`, `RateLimiter`) or a retry section on its own
 * (`MaxRetryAttempts`, `Delay`, `BackoffType`, `UseJitter`, `MaxDelay`, `ShouldRetryAfterHeader`).
 * Keys are case-insensitive, durations TimeSpans (`"00:00:02"`). Mapping (Polly RetryHelper.cs):
 * - `MaxRetryAttempts` -> maxAttempts + 1;
 * - Exponential with jitter -> polly-decorrelated-v2; without -> exponential x2; Constant ->
 *   constant (with jitter: +-25%, randomized with factor 0.25); Linear -> linear (its jitter cannot
 *   be expressed: a note); `MaxDelay` caps every wait;
 * - `ShouldRetryAfterHeader` (default true) -> retryAfter replace;
 * - `AttemptTimeout.Timeout` -> perAttemptTimeoutMs, `TotalRequestTimeout.Timeout` -> totalTimeoutMs.
 * See {@link POLLY_DEFAULTS}. The handled outcomes are the HTTP strategy's (5xx, 408, 429, timeouts).
 */
export function importPolly(text: string, source: string, options: PollyImportOptions = {}): ImportedLayer {
  const root = readDocument(text, source);
  const r = new MeshReader(source);
  const sections: Section[] = [];
  findSections(root, [], sections);
  const chosen = chooseSection(sections, options.instance, r);
  const notes: string[] = [];
  const policy: PolicyInput = presetPolicy('dotnet-http-resilience');
  const { retry, rp } = chosen.pipeline ? readPipeline(chosen, r, policy, notes) : { retry: chosen.value, rp: chosen.path };
  const o = readRetryOptions(retry, rp, r);
  r.throwIfAny();
  policy.maxAttempts = (o.retries ?? POLLY_DEFAULTS.maxRetryAttempts) + 1;
  policy.backoff = pollyBackoff(o.type, o.jitter, o.delayMs, o.maxDelayMs ?? 'none', notes);
  policy.retryAfter = o.retryAfter === false ? 'ignore' : 'replace';
  if (!o.written.maxRetryAttempts) notes.push(`MaxRetryAttempts is not set: the default is ${POLLY_DEFAULTS.maxRetryAttempts} retries.`);
  if (!o.written.backoffType || !o.written.useJitter) notes.push(`BackoffType and UseJitter default to ${POLLY_DEFAULTS.backoffType} with jitter (HttpRetryStrategyOptions; Polly's own RetryStrategyOptions default to Constant without jitter).`);
  notes.push('The HTTP retry strategy handles 5xx, 408, 429 and timeouts for every method unless DisableForUnsafeHttpMethods is called (idempotency "always").');
  return { policy, origin: `${source}: ${sectionName(chosen)}${chosen.pipeline ? ' (standard resilience pipeline)' : ''}`, notes, defaultName: 'polly' };
}

/** A section's `:`-separated path, as .NET configuration writes it. */
function sectionName(s: Section): string {
  return s.path.join(':') || '(root)';
}

/** The section to import: the one named (by path or last key, case-insensitively), or the only one. */
function chooseSection(sections: readonly Section[], instance: string | undefined, r: MeshReader): Section {
  let chosen: Section | undefined;
  if (sections.length === 0) r.failFile('has no Polly retry options (a section with Retry, AttemptTimeout or TotalRequestTimeout, or with MaxRetryAttempts, BackoffType or UseJitter)');
  else if (instance !== undefined) {
    const want = instance.replace(/\./g, ':').toLowerCase();
    chosen = sections.find((s) => sectionName(s).toLowerCase() === want) ?? sections.find((s) => (s.path[s.path.length - 1] ?? '').toLowerCase() === want);
    if (chosen === undefined) {
      const names = sections.map(sectionName);
      const near = nearestName(instance, names);
      r.failFile(`has no Polly section ${JSON.stringify(instance)} (sections: ${listNames(names)}${near !== undefined ? `; did you mean ${describeValue(near)}?` : ''})`);
    }
  } else if (sections.length === 1) chosen = sections[0];
  else r.failFile(`has ${sections.length} Polly sections; choose one by path: ${sections.map(sectionName).join(', ')}`);
  r.throwIfAny();
  if (chosen === undefined) throw new Error('unreachable');
  return chosen;
}

/** A TimeSpan field of `obj` in ms (undefined: absent, or refused). */
function timeSpan(r: MeshReader, obj: JsonObject, key: string, path: Segment[]): number | undefined {
  const f = field(obj, key);
  if (f === undefined) return undefined;
  const ms = timeSpanMs(f.value);
  if (ms === undefined) return r.fail([...path, f.key], `must be a TimeSpan like "00:00:02" or "00:00:00.500" (got ${r.quote(f.value)})`);
  return ms;
}

/** A standard resilience pipeline: its timeouts into the policy, its other strategies noted; returns its Retry options and their path. */
function readPipeline(chosen: Section, r: MeshReader, policy: PolicyInput, notes: string[]): { retry: JsonObject; rp: Segment[] } {
  const base: Segment[] = chosen.path;
  r.knownKeys(Object.fromEntries(Object.keys(chosen.value).map((k) => [PIPELINE_KEYS.find((p) => p.toLowerCase() === k.toLowerCase()) ?? k, 1])), base, PIPELINE_KEYS);
  const rf = field(chosen.value, 'Retry');
  const retry = (rf === undefined ? undefined : r.object(rf.value, [...base, rf.key])) ?? {};
  const rp = [...base, rf?.key ?? 'Retry'];
  const timeout = (key: string, fallback: number, set: (ms: number) => void) => {
    const f = field(chosen.value, key);
    const o = f === undefined ? undefined : r.object(f.value, [...base, f.key]);
    const ms = o === undefined ? undefined : timeSpan(r, o, 'Timeout', [...base, f?.key ?? key]);
    set(ms ?? fallback);
    if (f === undefined) notes.push(`${key} is not set: the standard pipeline's default is ${fallback / 1000} s.`);
  };
  timeout('AttemptTimeout', POLLY_DEFAULTS.attemptTimeoutMs, (ms) => (policy.perAttemptTimeoutMs = ms));
  timeout('TotalRequestTimeout', POLLY_DEFAULTS.totalRequestTimeoutMs, (ms) => (policy.totalTimeoutMs = ms));
  if (field(chosen.value, 'CircuitBreaker') !== undefined) notes.push('CircuitBreaker (a breaker on the failure ratio of all calls) is not modelled.');
  if (field(chosen.value, 'RateLimiter') !== undefined) notes.push('RateLimiter (a concurrency limiter in front) is not modelled.');
  return { retry, rp };
}

/** The retry options as read (undefined where a value was refused; the problems in the reader), with Polly's defaults. */
function readRetryOptions(retry: JsonObject, rp: Segment[], r: MeshReader) {
  r.knownKeys(Object.fromEntries(Object.keys(retry).map((k) => [RETRY_KEYS.find((p) => p.toLowerCase() === k.toLowerCase()) ?? k, 1])), rp, RETRY_KEYS);
  const attemptsField = field(retry, 'MaxRetryAttempts');
  const retries = attemptsField === undefined ? POLLY_DEFAULTS.maxRetryAttempts : r.integer(attemptsField.value, [...rp, attemptsField.key], 0, 'a non-negative integer (retries)');
  const delayMs = timeSpan(r, retry, 'Delay', rp) ?? POLLY_DEFAULTS.delayMs;
  const maxDelayMs = timeSpan(r, retry, 'MaxDelay', rp);
  const typeField = field(retry, 'BackoffType');
  let type: string = POLLY_DEFAULTS.backoffType;
  if (typeField !== undefined) {
    const t = typeof typeField.value === 'string' ? BACKOFF_TYPES.find((b) => b.toLowerCase() === (typeField.value as string).toLowerCase()) : undefined;
    if (t === undefined) r.fail([...rp, typeField.key], `must be one of ${BACKOFF_TYPES.join(', ')} (got ${r.quote(typeField.value)})`);
    else type = t;
  }
  const jitterField = field(retry, 'UseJitter');
  const jitter = (jitterField === undefined ? undefined : r.boolean(jitterField.value, [...rp, jitterField.key])) ?? POLLY_DEFAULTS.useJitter;
  const raField = field(retry, 'ShouldRetryAfterHeader');
  const retryAfter = raField === undefined ? true : r.boolean(raField.value, [...rp, raField.key]);
  const written = { maxRetryAttempts: attemptsField !== undefined, backoffType: typeField !== undefined, useJitter: jitterField !== undefined };
  return { retries, delayMs, maxDelayMs, type, jitter, retryAfter, written };
}

/** The backoff of a BackoffType with or without jitter (a Linear one with jitter noted: taken without). */
function pollyBackoff(type: string, jitter: boolean, delayMs: number, cap: number | 'none', notes: string[]): NonNullable<PolicyInput['backoff']> {
  if (type === 'Exponential') {
    return jitter
      ? { kind: 'polly-decorrelated-v2', baseMs: delayMs, capMs: cap, multiplier: 2, exponentOffset: 0 }
      : { kind: 'exponential', baseMs: delayMs, capMs: cap, multiplier: 2, exponentOffset: 0 };
  }
  if (type === 'Constant') {
    return jitter
      ? { kind: 'randomized', baseMs: delayMs, capMs: cap, multiplier: 1, exponentOffset: 0, randomizationFactor: POLLY_DEFAULTS.constantJitterFactor }
      : { kind: 'constant', baseMs: delayMs, capMs: cap };
  }
  if (jitter) notes.push('UseJitter with a Linear delay (+-25% around each delay) cannot be expressed: the delays are taken without jitter.');
  return { kind: 'linear', baseMs: delayMs, capMs: cap };
}
