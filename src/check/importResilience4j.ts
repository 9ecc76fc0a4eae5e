import { describeName, describeValue, listItems, listNames } from '../policy/schema/describeValue.js';
import { nearestName } from '../policy/schema/nearestName.js';
import { presetPolicy, type PolicyInput } from '../policy/presets.js';
import type { RetryOnClass } from '../policy/types.js';
import { exceptionClasses } from './retryVocabulary.js';
import type { Segment } from './FieldReader.js';
import { lostNote, type ImportedLayer } from './ImportedLayer.js';
import { MeshReader } from './MeshReader.js';
import { relaxed, Resilience4jBases, resilience4jBlocks, RESILIENCE4J_DEFAULT_CONFIG, RESILIENCE4J_MODULES, type Resilience4jBlock, type Resilience4jModule, type Resilience4jProperty } from './resilience4jConfigs.js';
import { isPropertiesText, readSpringConfig } from './springConfig.js';

/** Which retry instance of a Spring Boot configuration to import. */
export interface Resilience4jImportOptions {
  /** A name under `resilience4j.retry.instances` (or `configs`). */
  instance?: string;
}

/**
 * resilience4j's retry defaults (resilience4j/resilience4j:resilience4j-retry/src/main/java/io/
 * github/resilience4j/retry/RetryConfig.java and resilience4j-core/.../IntervalFunction.java, 2.2.0):
 * maxAttempts 3 (attempts, the first included), waitDuration 500 ms, exponentialBackoffMultiplier
 * 1.5 (DEFAULT_MULTIPLIER), randomizedWaitFactor 0.5 (DEFAULT_RANDOMIZATION_FACTOR), no
 * exponentialMaxWaitDuration; every exception is retried unless retryExceptions narrows it.
 */
export const RESILIENCE4J_DEFAULTS = {
  maxAttempts: 3,
  waitDurationMs: 500,
  multiplier: 1.5,
  randomizedWaitFactor: 0.5,
} as const;

/** The properties of a retry instance or config, by their canonical (camelCase) name. */
const PROPERTIES = [
  'maxAttempts',
  'waitDuration',
  'enableExponentialBackoff',
  'exponentialBackoffMultiplier',
  'exponentialMaxWaitDuration',
  'enableRandomizedWait',
  'randomizedWaitFactor',
  'retryExceptions',
  'ignoreExceptions',
  'baseConfig',
  'failAfterMaxAttempts',
  'intervalBiFunction',
  'consumeResultBeforeRetryAttempt',
  'eventConsumerBufferSize',
  'retryExceptionPredicate',
  'resultPredicate',
  'writableStackTraceEnabled',
];

/** Spring's relaxed binding: `max-attempts`, `max_attempts` and `maxAttempts` name one property. */
const canonical = (key: string) => PROPERTIES.find((p) => p.toLowerCase() === relaxed(key));

/**
 * A Spring Boot duration in ms (Spring's DurationStyle): `500ms`, `2s`, `1m`, `1h`, `1d`, ISO-8601
 * (`PT0.5S`), or a bare number of milliseconds.
 */
export function springDurationMs(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const t = value.trim();
  const simple = /^(\d+(?:\.\d+)?)(ns|us|ms|s|m|h|d)?$/i.exec(t);
  if (simple !== null) {
    const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
    return Number(simple[1]) * (unit[(simple[2] ?? 'ms').toLowerCase()] as number);
  }
  const iso = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(t);
  if (iso !== null && t.length > 1 && !/T$/i.test(t)) {
    return Math.round((Number(iso[1] ?? 0) * 86_400_000 + Number(iso[2] ?? 0) * 3_600_000 + Number(iso[3] ?? 0) * 60_000 + Number(iso[4] ?? 0) * 1000) * 1e6) / 1e6;
  }
  return undefined;
}

/** Whether a text is a resilience4j Spring Boot configuration: a key under `resilience4j.` (dotted or nested) with one of the modules. */
export function looksLikeResilience4j(text: string, source: string): boolean {
  if (isPropertiesText(text, source)) return /^\s*resilience4j\./m.test(text);
  const modules = new RegExp(`\\b(${RESILIENCE4J_MODULES.join('|')})\\b`);
  return /^[\s{]*"?resilience4j(\.[\w-]+)*"?\s*:/m.test(text) && modules.test(text);
}

/** Where a block is written, for origins and notes: `resilience4j.retry.instances.backendA`. */
const blockName = (b: Resilience4jBlock) => `resilience4j.${b.module}.${b.kind}.${describeName(b.name)}`;

/**
 * What resilience4j's Spring Boot aspects wrap around a call, outermost first (resilience4j docs,
 * "Getting started with resilience4j-spring-boot2", Aspect order: Retry ( CircuitBreaker (
 * RateLimiter ( TimeLimiter ( Bulkhead ( Function ) ) ) ) )): everything but the Retry acts on each
 * attempt. How `check` reads each module's instance of the retry's name.
 */
const OTHER_MODULES: Record<Exclude<Resilience4jModule, 'retry'>, string> = {
  circuitbreaker: 'is not modelled: its CallNotPermittedException while open fails an attempt at once, and is retried unless retryExceptions leaves it out',
  ratelimiter: 'is not modelled: it delays or refuses each attempt, retries included',
  timelimiter: 'bounds each attempt (it sits inside the Retry): its timeoutDuration is the per-attempt timeout; it applies only to methods annotated @TimeLimiter (CompletionStage results)',
  bulkhead: 'is not modelled in this layer: it caps the concurrent attempts of this process (a service graph bulkhead does)',
  'thread-pool-bulkhead': 'is not modelled in this layer: it caps the concurrent attempts of this process (a service graph bulkhead does)',
};

/** The TimeLimiter's timeout when it names none (resilience4j/resilience4j resilience4j-timelimiter/.../TimeLimiterConfig.java: `timeoutDuration = Duration.ofSeconds(1)`, commit 0782760, 2.x). */
export const RESILIENCE4J_TIMELIMITER_DEFAULT_MS = 1000;

/**
 * A resilience4j retry from a Spring Boot configuration (`application.yml`, `application.properties`
 * or JSON) as one layer. The keys are read as Spring reads them (see readSpringConfig): nested
 * YAML (`resilience4j: { retry: { instances: ... } }`), dotted keys at any split
 * (`resilience4j.retry:` then nested keys, or `resilience4j.retry.instances.a.maxAttempts: 3`), or
 * `.properties` lines, list items as `x[0]=...`; property names by Spring's relaxed binding
 * (`max-attempts`). An instance (`resilience4j.retry.instances.<name>`, or a config chosen by name)
 * inherits its base configs as resilience4j resolves them (Resilience4jBases: `baseConfig`, else
 * `configs.default`). The TimeLimiter instance of the same name gives the per-attempt timeout; the
 * CircuitBreaker, RateLimiter and bulkheads of that name are noted. Mapping (IntervalFunction.java):
 * - `maxAttempts` (attempts, the first included) -> maxAttempts;
 * - a fixed `waitDuration` -> constant; `enableExponentialBackoff` -> exponential with
 *   `exponentialBackoffMultiplier`, capped at `exponentialMaxWaitDuration`; `enableRandomizedWait`
 *   -> randomized, uniform on [w(1 - f), w(1 + f)] with f = `randomizedWaitFactor`, around the fixed
 *   or exponential (capped) wait w;
 * - `retryExceptions` / `ignoreExceptions` -> retryOn, from the exception names where they tell the
 *   failure (Spring's HttpServerErrorException, ...$TooManyRequests, timeouts, I/O errors); other
 *   names are noted. Without retryExceptions every failure is retried, whatever the method.
 * See {@link RESILIENCE4J_DEFAULTS}.
 */
export function importResilience4j(text: string, source: string, options: Resilience4jImportOptions = {}): ImportedLayer {
  const config = readSpringConfig(text, source);
  const r = new MeshReader(source);
  const all = resilience4jBlocks(config.values);
  const blocks = all.filter((b) => b.module === 'retry');
  checkRetryProperties(blocks, r);
  // Every block's bases are checked, as resilience4j does when the application starts: a missing base config or a cycle anywhere stops it.
  const bases = new Resilience4jBases(all, r);
  bases.checkAll();
  const chosen = chooseRetryBlock(blocks, options.instance, r);
  const notes: string[] = [...config.notes];
  const own = bases.resolve(chosen);
  if (own.bases.length > 0 && ![...chosen.props.keys()].some((k) => relaxed(k) === 'baseconfig')) {
    notes.push(`The ${chosen.kind === 'instances' ? 'instance' : 'config'} names no baseConfig: it inherits configs.${RESILIENCE4J_DEFAULT_CONFIG}.`);
  }
  const props = new Map([...own.props].map(([k, v]) => [canonical(k) ?? k, v]));
  const attemptTimeoutMs = readOtherModules(all, chosen, bases, r, notes);
  const settings = readRetrySettings(props, r);
  r.throwIfAny();

  const policy = retryPolicy(settings, notes);
  if (!settings.written.maxAttempts) notes.push(`maxAttempts is not set: resilience4j's default is ${RESILIENCE4J_DEFAULTS.maxAttempts} attempts.`);
  if (!settings.written.waitDuration) notes.push(`waitDuration is not set: resilience4j's default is ${RESILIENCE4J_DEFAULTS.waitDurationMs} ms.`);
  notes.push('resilience4j retries whatever the wrapped call throws, whatever the method (idempotency "always"), and does not read Retry-After.');
  if (attemptTimeoutMs !== undefined) policy.perAttemptTimeoutMs = attemptTimeoutMs;
  const baseText = own.bases.length > 0 ? ` (base ${listItems(own.bases.map((b) => `configs.${describeName(b)}`))})` : '';
  return { policy, origin: `${source}: ${blockName(chosen)}${baseText}`, notes, defaultName: 'resilience4j' };
}

/** Every property of the retry blocks must be a known one (the nearest named). */
function checkRetryProperties(blocks: readonly Resilience4jBlock[], r: MeshReader): void {
  for (const block of blocks) {
    for (const [written, prop] of block.props) {
      if (canonical(written) !== undefined) continue;
      const near = nearestName(written, PROPERTIES);
      r.fail([prop.key], `is not a known retry property${near !== undefined ? ` (did you mean "${near}"?)` : ''}`);
    }
  }
}

/** The retry block to import: the one named, else the only instance, else the only config; the problems so far thrown when there is none. */
function chooseRetryBlock(blocks: readonly Resilience4jBlock[], wanted: string | undefined, r: MeshReader): Resilience4jBlock {
  const instances = blocks.filter((b) => b.kind === 'instances');
  const configs = blocks.filter((b) => b.kind === 'configs');
  let chosen: Resilience4jBlock | undefined;
  if (blocks.length === 0) r.failFile('has no resilience4j.retry.instances or resilience4j.retry.configs');
  else if (wanted !== undefined) {
    chosen = instances.find((b) => b.name === wanted) ?? configs.find((b) => b.name === wanted);
    if (chosen === undefined) {
      const names = [...instances, ...configs].map((b) => b.name);
      const near = nearestName(wanted, names);
      r.failFile(`has no retry instance or config named ${JSON.stringify(wanted)} (named: ${listNames(names)}${near !== undefined ? `; did you mean ${describeValue(near)}?` : ''})`);
    }
  } else if (instances.length === 1) chosen = instances[0];
  else if (instances.length === 0 && configs.length === 1) chosen = configs[0];
  else r.failFile(`has ${instances.length || configs.length} retry ${instances.length > 0 ? 'instances' : 'configs'}; choose one by name: ${listNames((instances.length > 0 ? instances : configs).map((b) => b.name))}`);
  if (chosen === undefined) {
    r.throwIfAny();
    throw new Error('unreachable');
  }
  return chosen;
}

/** The other modules' blocks of the chosen name, each noted; returns the TimeLimiter's per-attempt timeout (undefined: none). */
function readOtherModules(all: readonly Resilience4jBlock[], chosen: Resilience4jBlock, bases: Resilience4jBases, r: MeshReader, notes: string[]): number | undefined {
  let attemptTimeoutMs: number | undefined;
  for (const other of all.filter((b) => b.module !== 'retry' && b.kind === chosen.kind && b.name === chosen.name)) {
    const of = bases.resolve(other);
    const baseText = of.bases.length > 0 ? ` (base ${listItems(of.bases.map((b) => `configs.${describeName(b)}`))})` : '';
    if (other.module === 'timelimiter') {
      const timeout = of.props.get('timeoutduration');
      attemptTimeoutMs = timeout === undefined ? RESILIENCE4J_TIMELIMITER_DEFAULT_MS : springDurationMs(timeout.value);
      if (attemptTimeoutMs === undefined && timeout !== undefined) r.fail([timeout.key], `must be a duration like "500ms", "2s" or "PT0.5S" (got ${r.quote(timeout.value)})`);
    }
    notes.push(`${blockName(other)}${baseText} ${OTHER_MODULES[other.module as Exclude<Resilience4jModule, 'retry'>]}.`);
  }
  return attemptTimeoutMs;
}

/** A retry configuration's settings as read (undefined where a value was refused; the problems in the reader). */
interface RetrySettings {
  maxAttempts: number | undefined;
  waitMs: number;
  exponential: boolean;
  randomized: boolean;
  multiplier: number | undefined;
  capMs: number | undefined;
  factor: number | undefined;
  retryExceptions: string[];
  ignoreExceptions: string[];
  /** Which settings with a default the file writes. */
  written: { maxAttempts: boolean; waitDuration: boolean };
}

/** The retry properties (by their canonical names), checked, with resilience4j's defaults. */
function readRetrySettings(props: ReadonlyMap<string, Resilience4jProperty>, r: MeshReader): RetrySettings {
  const at = (p: string): Segment[] => [props.get(p)?.key ?? p];
  const get = (p: string) => props.get(p)?.value;
  const duration = (p: string): number | undefined => {
    const v = get(p);
    if (v === undefined) return undefined;
    const ms = springDurationMs(v);
    if (ms === undefined) return r.fail(at(p), `must be a duration like "500ms", "2s" or "PT0.5S" (got ${r.quote(v)})`);
    return ms;
  };
  const maxAttempts = get('maxAttempts') === undefined ? RESILIENCE4J_DEFAULTS.maxAttempts : r.integer(get('maxAttempts'), at('maxAttempts'), 1, 'a positive integer (attempts, the first included)');
  const waitMs = duration('waitDuration') ?? RESILIENCE4J_DEFAULTS.waitDurationMs;
  const exponential = r.boolean(get('enableExponentialBackoff'), at('enableExponentialBackoff')) ?? false;
  const randomized = r.boolean(get('enableRandomizedWait'), at('enableRandomizedWait')) ?? false;
  const multiplier = get('exponentialBackoffMultiplier') === undefined ? RESILIENCE4J_DEFAULTS.multiplier : r.number(get('exponentialBackoffMultiplier'), at('exponentialBackoffMultiplier'), (n) => n >= 1, 'a number >= 1');
  const capMs = duration('exponentialMaxWaitDuration');
  const factor = get('randomizedWaitFactor') === undefined ? RESILIENCE4J_DEFAULTS.randomizedWaitFactor : r.number(get('randomizedWaitFactor'), at('randomizedWaitFactor'), (n) => n >= 0 && n < 1, 'a number >= 0 and < 1');
  const list = (p: string): string[] => {
    const v = get(p);
    if (v === undefined) return [];
    const items = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : undefined;
    if (items === undefined) {
      r.fail(at(p), `must be a list of exception class names (got ${r.quote(v)})`);
      return [];
    }
    return items.filter((x): x is string => typeof x === 'string').map((x) => x.trim()).filter((x) => x !== '');
  };
  const retryExceptions = list('retryExceptions');
  const ignoreExceptions = list('ignoreExceptions');
  const written = { maxAttempts: get('maxAttempts') !== undefined, waitDuration: get('waitDuration') !== undefined };
  return { maxAttempts, waitMs, exponential, randomized, multiplier, capMs, factor, retryExceptions, ignoreExceptions, written };
}

/** The policy of the settings (IntervalFunction.java's waits; retryOn from the exceptions' names where they tell the failure). */
function retryPolicy(settings: RetrySettings, notes: string[]): PolicyInput {
  const { waitMs, exponential, randomized, capMs } = settings;
  const policy: PolicyInput = presetPolicy('resilience4j');
  policy.maxAttempts = settings.maxAttempts ?? RESILIENCE4J_DEFAULTS.maxAttempts;
  const m = exponential ? (settings.multiplier ?? RESILIENCE4J_DEFAULTS.multiplier) : 1;
  const cap = exponential && capMs !== undefined ? capMs : 'none';
  if (randomized) policy.backoff = { kind: 'randomized', baseMs: waitMs, capMs: cap, multiplier: m, exponentOffset: 0, randomizationFactor: settings.factor ?? RESILIENCE4J_DEFAULTS.randomizedWaitFactor };
  else if (exponential) policy.backoff = { kind: 'exponential', baseMs: waitMs, capMs: cap, multiplier: m, exponentOffset: 0 };
  else policy.backoff = { kind: 'constant', baseMs: waitMs, capMs: 'none' };
  if (!exponential && capMs !== undefined) notes.push('exponentialMaxWaitDuration applies only with enableExponentialBackoff; it is ignored here.');
  if (settings.retryExceptions.length > 0) {
    const classes: RetryOnClass[] = [];
    for (const name of settings.retryExceptions) {
      const cs = exceptionClasses(name);
      if (cs === undefined) notes.push(lostNote(`retryExceptions: ${name} does not say which failure it is; map it with retryOn in the layer's policy.`));
      else cs.forEach((c) => classes.includes(c) || classes.push(c));
    }
    if (classes.length > 0) policy.retryOn = classes;
    else notes.push('No retryExceptions entry names a failure the model knows: every failure is kept retryable.');
  }
  for (const name of settings.ignoreExceptions) {
    const cs = exceptionClasses(name);
    if (cs === undefined) notes.push(`ignoreExceptions: ${name} does not say which failure it is and is not applied.`);
    else policy.retryOn = (policy.retryOn ?? []).filter((c) => !cs.includes(c));
  }
  return policy;
}
