import { GRPC_JITTER_2024, type BudgetInput, type PolicyInput } from '../policy/presets.js';
import type { RetryOnClass } from '../policy/types.js';
import { GRPC_STATUS_TERMS } from './retryVocabulary.js';
import { FieldReader, isObject, protoDuration, type JsonObject, type Segment } from './FieldReader.js';
import { lostNote, type ImportedLayer } from './ImportedLayer.js';
import { readDocument } from './readDocument.js';

/**
 * The gRPC implementations whose retry delay differs: grpc-go and grpc-java draw the A6 delay as
 * amended in August 2024 (grpc/proposal#452: interval x U(0.8, 1.2)), grpc-js (grpc-node) the
 * original one (random(0, interval)).
 */
export const GRPC_IMPLS = ['go', 'java', 'js'] as const;
/** A gRPC implementation `--grpc-impl` may name. */
export type GrpcImpl = (typeof GRPC_IMPLS)[number];

/** Which method's configuration to import from a service config with several, and for which implementation. */
export interface GrpcImportOptions {
  /** Fully qualified service name (`pkg.Service`). */
  service?: string;
  /** Method name within the service. */
  method?: string;
  /** The implementation whose delay formula to use (default: the 2024 formula of grpc-go and grpc-java). */
  impl?: GrpcImpl;
}

/**
 * gRPC clients treat a retry policy's maxAttempts above 5 as 5 (grpc/proposal:A6-client-retries.md,
 * "Maximum Number of Retries"); the same bound applies to hedging.
 */
export const GRPC_MAX_ATTEMPTS = 5;

/** gRPC status codes by number (grpc/grpc:doc/statuscodes.md). */
const STATUS_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

/**
 * The outcome class each gRPC status stands for in the model (GRPC_STATUS_TERMS, which the exporter
 * reads too; null: no leaf of the model answers it, and the status is left out with a note).
 */
const STATUS_CLASS: Record<(typeof STATUS_NAMES)[number], RetryOnClass | null> = Object.fromEntries(
  STATUS_NAMES.map((n) => [n, GRPC_STATUS_TERMS.find((t) => t.term === n)?.classes[0] ?? null]),
) as Record<(typeof STATUS_NAMES)[number], RetryOnClass | null>;

type StatusName = (typeof STATUS_NAMES)[number];

const ROOT_KEYS = ['loadBalancingConfig', 'loadBalancingPolicy', 'methodConfig', 'retryThrottling', 'healthCheckConfig'];
const NAME_KEYS = ['service', 'method'];
const METHOD_CONFIG_KEYS = [
  'name',
  'waitForReady',
  'timeout',
  'maxRequestMessageBytes',
  'maxResponseMessageBytes',
  'retryPolicy',
  'hedgingPolicy',
];
const RETRY_POLICY_KEYS = ['maxAttempts', 'initialBackoff', 'maxBackoff', 'backoffMultiplier', 'retryableStatusCodes', 'perAttemptRecvTimeout'];
const HEDGING_POLICY_KEYS = ['maxAttempts', 'hedgingDelay', 'nonFatalStatusCodes'];
const THROTTLING_KEYS = ['maxTokens', 'tokenRatio'];

/**
 * `obj` with every key that matches one of `known` but for case renamed to the known spelling, as
 * grpc-go reads service configs (Go's encoding/json matches field names case-insensitively, so
 * `MaxAttempts` is `maxAttempts`); the renamed keys go to `renamed`. Keys matching nothing stay as
 * they are, for {@link FieldReader.knownKeys} to report.
 */
function canonicalKeys(obj: JsonObject, known: readonly string[], renamed: string[]): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(obj)) {
    const canonical = known.includes(key) ? key : known.find((k) => k.toLowerCase() === key.toLowerCase());
    if (canonical !== undefined && canonical !== key) renamed.push(key);
    out[canonical ?? key] = value;
  }
  return out;
}

/** Whether a document is a gRPC service config: an object with `methodConfig` or `retryThrottling`, in any case. */
export function isGrpcServiceConfig(root: JsonObject): boolean {
  return Object.keys(root).some((k) => ['methodconfig', 'retrythrottling'].includes(k.toLowerCase()));
}

/** A status code given by name (any case) or number. */
function readStatus(r: FieldReader, value: unknown, path: Segment[]): StatusName | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < STATUS_NAMES.length) return STATUS_NAMES[value];
  if (typeof value === 'string') {
    const upper = value.trim().toUpperCase();
    if ((STATUS_NAMES as readonly string[]).includes(upper)) return upper as StatusName;
  }
  return r.fail(path, `must be a gRPC status code such as "UNAVAILABLE" or 14 (got ${r.quote(value)})`);
}

/** The classes of a list of status codes; statuses the model has no class for go to `notes`. */
function readStatusList(r: FieldReader, value: unknown, path: Segment[], notes: string[], required: boolean): RetryOnClass[] | undefined {
  if (value === undefined) {
    if (required) r.fail(path, 'is required (gRPC A6: a retry policy lists its retryable status codes)');
    return undefined;
  }
  const list = r.array(value, path, 'a list of status codes');
  if (list === undefined) return undefined;
  if (list.length === 0 && required) r.fail(path, 'must not be empty (gRPC A6)');
  const classes: RetryOnClass[] = [];
  list.forEach((item, i) => {
    const status = readStatus(r, item, [...path, i]);
    if (status === undefined) return;
    const cls = STATUS_CLASS[status];
    if (cls === null) notes.push(lostNote(`${path.join('.')}: ${status} is never answered by a leaf of the model and is left out.`));
    else if (!classes.includes(cls)) classes.push(cls);
  });
  return classes;
}

interface NamedConfig {
  index: number;
  config: JsonObject;
  names: Array<{ service: string; method: string }>;
}

function describeName(n: { service: string; method: string }): string {
  if (n.service === '') return 'the default (empty name)';
  return n.method === '' ? n.service : `${n.service}/${n.method}`;
}

/** The method config that applies to options.service/method: exact method, then service-wide, then the default (gRPC A6 name matching). */
function selectConfig(r: FieldReader, configs: NamedConfig[], options: GrpcImportOptions): NamedConfig | undefined {
  const { service, method } = options;
  if (service !== undefined) {
    const m = method ?? '';
    const exact = configs.find((c) => c.names.some((n) => n.service === service && n.method === m && m !== ''));
    const wide = configs.find((c) => c.names.some((n) => n.service === service && n.method === ''));
    const fallback = configs.find((c) => c.names.some((n) => n.service === ''));
    const found = exact ?? wide ?? fallback;
    if (found === undefined) {
      const all = configs.flatMap((c) => c.names.map(describeName));
      r.failFile(
        `no methodConfig applies to ${method === undefined ? service : `${service}/${method}`} (names: ${all.length > 0 ? all.join(', ') : 'none'})`,
      );
    }
    return found;
  }
  const retrying = configs.filter((c) => c.config.retryPolicy !== undefined || c.config.hedgingPolicy !== undefined);
  if (retrying.length <= 1) return retrying[0] ?? configs[0];
  const names = retrying.map((c) => `methodConfig.${c.index} (${c.names.map(describeName).join(', ')})`);
  r.failFile(`has ${retrying.length} methodConfig entries with a retry or hedging policy; choose one with a service (and method): ${names.join('; ')}`);
  return undefined;
}

/**
 * A gRPC service config (JSON; gRPC proposal A6, grpc/proposal:A6-client-retries.md) as one layer:
 * the retryPolicy of the chosen methodConfig (maxAttempts clamped to 5 as gRPC clients do;
 * initialBackoff, maxBackoff and backoffMultiplier as the n-th retry's interval
 * min(initialBackoff * multiplier^(n-1), maxBackoff), drawn as the implementation `options.impl`
 * does: x U(0.8, 1.2) by default (A6 as amended in August 2024, grpc/proposal#452; grpc-go,
 * grpc-java), random(0, interval) for grpc-js; retryableStatusCodes as classes:
 * each status its own class (GRPC_STATUS_TERMS: UNAVAILABLE -> unavailable, DEADLINE_EXCEEDED ->
 * deadline-exceeded, RESOURCE_EXHAUSTED -> resource-exhausted ...; INVALID_ARGUMENT and NOT_FOUND
 * -> 400 and 404);
 * perAttemptRecvTimeout as the per-attempt timeout), the methodConfig's `timeout` as a total
 * timeout over all attempts (A6: "the deadline spans all attempts"), server pushback honoured,
 * and retryThrottling as a `grpc-throttle` budget. A hedgingPolicy becomes hedging. Field names
 * match regardless of case and durations may omit the integer part (`".01s"`), as grpc-go accepts
 * them (grpc/grpc-go:service_config.go). Every problem names the file and the field.
 */
export function importGrpcServiceConfig(text: string, source: string, options: GrpcImportOptions = {}): ImportedLayer {
  const doc = openServiceConfig(text, source);
  const chosen = selectConfig(doc.r, doc.configs, options);
  doc.r.throwIfAny();
  return readConfig(doc, chosen, options);
}

/**
 * Every methodConfig of a service config with a retry or hedging policy, in file order, each read
 * as {@link importGrpcServiceConfig} reads one, its layer's `route` naming its methods (what
 * `--route pkg.Service/Method` chooses it by); the one that applies when `options.service` is given,
 * and the only one (or the first) when there are not several.
 */
export function importGrpcServiceConfigRoutes(text: string, source: string, options: GrpcImportOptions = {}): ImportedLayer[] {
  if (options.service !== undefined) return [importGrpcServiceConfig(text, source, options)];
  const doc = openServiceConfig(text, source);
  const retrying = doc.configs.filter((c) => c.config.retryPolicy !== undefined || c.config.hedgingPolicy !== undefined);
  if (retrying.length <= 1) return [readConfig(doc, retrying[0] ?? doc.configs[0], options)];
  return retrying.map((c) => ({ ...readConfig(doc, c, options), route: c.names.map(describeName).join(', ') || `methodConfig.${c.index}` }));
}

/** A service config's root (names matched regardless of case) and its method configs. */
interface ServiceConfigDocument {
  source: string;
  r: FieldReader;
  root: JsonObject;
  renamed: string[];
  configs: NamedConfig[];
}

/**
 * Read a service config's method configs and their names. A method (or service, or the default)
 * named by two entries is a problem naming both: gRPC refuses such a service config as a whole
 * (grpc/grpc-go:service_config.go at 0b8e10750070f50e52c9361c5090e1517e57dfb6, parseServiceConfig:
 * a path seen twice returns errDuplicatedName, "duplicated name"), so no client applies either.
 */
function openServiceConfig(text: string, source: string): ServiceConfigDocument {
  const document = readDocument(text, source);
  const r = new FieldReader(source);
  const renamed: string[] = [];
  if (!isObject(document)) {
    r.failFile(`must be a gRPC service config object with "methodConfig" (got ${Array.isArray(document) ? 'a list' : r.quote(document)})`);
    r.throwIfAny();
    throw new Error('unreachable');
  }
  const root = canonicalKeys(document, ROOT_KEYS, renamed);
  const list = r.array(root.methodConfig, ['methodConfig'], 'a list of method configs') ?? [];
  const configs: NamedConfig[] = [];
  const seen = new Map<string, string>();
  list.forEach((item, i) => {
    const written = r.object(item, ['methodConfig', i]);
    if (written === undefined) return;
    const config = canonicalKeys(written, METHOD_CONFIG_KEYS, renamed);
    r.knownKeys(config, ['methodConfig', i], METHOD_CONFIG_KEYS);
    const names: NamedConfig['names'] = [];
    const nameList = r.array(config.name, ['methodConfig', i, 'name'], 'a list of names') ?? [];
    nameList.forEach((n, j) => {
      const writtenName = r.object(n, ['methodConfig', i, 'name', j], 'an object with "service" and "method"');
      if (writtenName === undefined) return;
      const name = canonicalKeys(writtenName, NAME_KEYS, renamed);
      r.knownKeys(name, ['methodConfig', i, 'name', j], NAME_KEYS);
      const service = r.string(name.service, ['methodConfig', i, 'name', j, 'service']) ?? '';
      const method = r.string(name.method, ['methodConfig', i, 'name', j, 'method']) ?? '';
      if (service === '' && method !== '') r.fail(['methodConfig', i, 'name', j, 'method'], 'needs a service (gRPC A6)');
      const key = `${service}/${method}`;
      const first = seen.get(key);
      if (first !== undefined) {
        r.fail(
          ['methodConfig', i, 'name', j],
          `names ${describeName({ service, method })} again (${first} names it first): gRPC refuses a service config that names a method twice (grpc-go: "duplicated name") and keeps its previous or default config, so neither entry applies; keep one`,
        );
      } else seen.set(key, `methodConfig.${i}.name.${j}`);
      names.push({ service, method });
    });
    configs.push({ index: i, config, names });
  });
  r.throwIfAny();
  return { source, r, root, renamed, configs };
}

function readConfig(doc: ServiceConfigDocument, chosen: NamedConfig | undefined, options: GrpcImportOptions): ImportedLayer {
  const { source, r, root } = doc;
  const renamed = [...doc.renamed];
  const notes: string[] = [];
  const policy: PolicyInput = { idempotency: 'always', retryAfter: 'pushback' };
  let origin = `${source}: gRPC service config`;
  if (chosen === undefined) {
    policy.maxAttempts = 1;
    notes.push('The service config has no methodConfig: gRPC does not retry without a retryPolicy.');
  } else {
    const base: Segment[] = ['methodConfig', chosen.index];
    const c = chosen.config;
    origin = `${source}: methodConfig.${chosen.index} (${chosen.names.map(describeName).join(', ') || 'no name'})`;
    const timeoutMs = r.duration(c.timeout, [...base, 'timeout']);
    if (timeoutMs !== undefined) policy.totalTimeoutMs = timeoutMs;
    if (c.retryPolicy !== undefined && c.hedgingPolicy !== undefined) {
      r.fail([...base, 'hedgingPolicy'], 'cannot be combined with retryPolicy (gRPC A6: a method has one or the other)');
    }
    const rpWritten = r.object(c.retryPolicy, [...base, 'retryPolicy']);
    const hpWritten = r.object(c.hedgingPolicy, [...base, 'hedgingPolicy']);
    const rp = rpWritten === undefined ? undefined : canonicalKeys(rpWritten, RETRY_POLICY_KEYS, renamed);
    const hp = hpWritten === undefined ? undefined : canonicalKeys(hpWritten, HEDGING_POLICY_KEYS, renamed);
    if (c.waitForReady !== undefined) {
      const ready = r.jsonBoolean(c.waitForReady, [...base, 'waitForReady']);
      if (ready === true) {
        notes.push(
          `${base.join('.')}.waitForReady true: a call waits for a ready connection instead of failing at once with UNAVAILABLE; the model has no connections, so those waits (bounded by the timeout) are not modelled.`,
        );
      }
    }
    if (rp !== undefined) readRetryPolicy(r, rp, [...base, 'retryPolicy'], policy, notes, options.impl);
    else if (hp !== undefined) readHedgingPolicy(r, hp, [...base, 'hedgingPolicy'], policy, notes);
    else {
      policy.maxAttempts = 1;
      notes.push(`${base.join('.')} has no retryPolicy: gRPC does not retry this method.`);
    }
  }
  const throttlingWritten = r.object(root.retryThrottling, ['retryThrottling']);
  const throttling = throttlingWritten === undefined ? undefined : canonicalKeys(throttlingWritten, THROTTLING_KEYS, renamed);
  if (throttling !== undefined) {
    r.knownKeys(throttling, ['retryThrottling'], THROTTLING_KEYS);
    const maxTokens = r.number(throttling.maxTokens, ['retryThrottling', 'maxTokens'], (n) => n > 0 && n <= 1000, 'a number > 0 and <= 1000');
    const tokenRatio = r.number(throttling.tokenRatio, ['retryThrottling', 'tokenRatio'], (n) => n > 0, 'a number > 0');
    if (throttling.maxTokens === undefined) r.fail(['retryThrottling', 'maxTokens'], 'is required (gRPC A6)');
    if (throttling.tokenRatio === undefined) r.fail(['retryThrottling', 'tokenRatio'], 'is required (gRPC A6)');
    if (maxTokens !== undefined && tokenRatio !== undefined) {
      const budget: BudgetInput = { kind: 'grpc-throttle', maxTokens, tokenRatio: Math.round(tokenRatio * 1000) / 1000 };
      policy.budget = budget;
    }
  }
  r.throwIfAny();
  if (renamed.length > 0) {
    notes.push(
      `Field names matched regardless of case, as grpc-go reads them (${[...new Set(renamed)].join(', ')}); other implementations may want the exact names of gRPC A6.`,
    );
  }
  notes.push('gRPC has no notion of idempotency: every listed status is retried whatever the method (idempotency "always").');
  return { policy, origin, notes, defaultName: 'grpc' };
}

function readRetryPolicy(r: FieldReader, rp: JsonObject, path: Segment[], policy: PolicyInput, notes: string[], impl: GrpcImpl | undefined): void {
  r.knownKeys(rp, path, RETRY_POLICY_KEYS);
  const need = (key: string) => {
    if (rp[key] === undefined) r.fail([...path, key], 'is required (gRPC A6: every field of a retryPolicy is)');
  };
  ['maxAttempts', 'initialBackoff', 'maxBackoff', 'backoffMultiplier'].forEach(need);
  const attempts = r.integer(rp.maxAttempts, [...path, 'maxAttempts'], 2, 'an integer >= 2');
  const initialMs = r.duration(rp.initialBackoff, [...path, 'initialBackoff']);
  const maxMs = r.duration(rp.maxBackoff, [...path, 'maxBackoff']);
  const multiplier = r.number(rp.backoffMultiplier, [...path, 'backoffMultiplier'], (n) => n > 0, 'a number > 0');
  if (multiplier !== undefined && multiplier < 1) {
    r.fail([...path, 'backoffMultiplier'], `must be >= 1 for retrystorm (got ${multiplier}; a shrinking backoff is not modelled)`);
  }
  const classes = readStatusList(r, rp.retryableStatusCodes, [...path, 'retryableStatusCodes'], notes, true);
  const perAttemptMs = r.duration(rp.perAttemptRecvTimeout, [...path, 'perAttemptRecvTimeout']);
  if (attempts !== undefined) {
    policy.maxAttempts = Math.min(attempts, GRPC_MAX_ATTEMPTS);
    if (attempts > GRPC_MAX_ATTEMPTS) {
      notes.push(`${path.join('.')}.maxAttempts ${attempts} is clamped to ${GRPC_MAX_ATTEMPTS}, as gRPC clients do (gRPC A6).`);
    }
  }
  if (initialMs !== undefined && maxMs !== undefined && multiplier !== undefined && multiplier >= 1) {
    const original = impl === 'js';
    const draw = original ? 'random(0, interval)' : 'interval x U(0.8, 1.2)';
    let baseMs = initialMs;
    if (maxMs < initialMs) {
      notes.push(
        `${path.join('.')}.maxBackoff ${protoDuration(maxMs)} is below initialBackoff ${protoDuration(initialMs)}: every retry's interval is ${protoDuration(maxMs)}, and it waits ${draw}.`,
      );
      baseMs = maxMs;
    }
    policy.backoff = original
      ? { kind: 'full-jitter', baseMs, capMs: maxMs, multiplier, exponentOffset: 0 }
      : { kind: 'randomized', baseMs, capMs: maxMs, multiplier, exponentOffset: 0, randomizationFactor: GRPC_JITTER_2024 };
    notes.push(
      original
        ? 'Delay of grpc-js (--grpc-impl js), the original A6 formula: the n-th retry waits random(0, min(initialBackoff x multiplier^(n - 1), maxBackoff)).'
        : `Delay of gRPC A6 as amended in August 2024 (grpc/proposal#452), which ${impl === undefined ? 'grpc-go and grpc-java' : `grpc-${impl}`} implement: the n-th retry waits min(initialBackoff x multiplier^(n - 1), maxBackoff) x U(0.8, 1.2), up to 1.2 x maxBackoff${impl === undefined ? '; --grpc-impl js for the original random(0, ...) of grpc-js' : ''}.`,
    );
  }
  if (classes !== undefined) policy.retryOn = classes;
  if (perAttemptMs !== undefined) policy.perAttemptTimeoutMs = perAttemptMs;
}

function readHedgingPolicy(r: FieldReader, hp: JsonObject, path: Segment[], policy: PolicyInput, notes: string[]): void {
  r.knownKeys(hp, path, HEDGING_POLICY_KEYS);
  if (hp.maxAttempts === undefined) r.fail([...path, 'maxAttempts'], 'is required (gRPC A6)');
  const attempts = r.integer(hp.maxAttempts, [...path, 'maxAttempts'], 2, 'an integer >= 2');
  const delayMs = hp.hedgingDelay === undefined ? 0 : r.duration(hp.hedgingDelay, [...path, 'hedgingDelay'], true);
  const nonFatal = readStatusList(r, hp.nonFatalStatusCodes, [...path, 'nonFatalStatusCodes'], notes, false) ?? [];
  if (attempts === undefined || delayMs === undefined) return;
  policy.maxAttempts = 1;
  // A hedging delay of 0 sends every copy at once; the model needs a delay > 0, so 1 µs stands for it.
  policy.hedging = { maxAttempts: Math.min(attempts, GRPC_MAX_ATTEMPTS), hedgingDelayMs: delayMs > 0 ? delayMs : 0.001, nonFatal };
  if (attempts > GRPC_MAX_ATTEMPTS) notes.push(`${path.join('.')}.maxAttempts ${attempts} is clamped to ${GRPC_MAX_ATTEMPTS}, as gRPC clients do (gRPC A6).`);
}
