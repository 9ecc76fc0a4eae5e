import { listNames } from '../policy/schema/describeValue.js';
import { isObject, type FieldReader } from './FieldReader.js';
import type { SpringValue } from './springConfig.js';

/**
 * The resilience4j modules a Spring Boot configuration sets under `resilience4j.<module>` (the
 * prefixes of resilience4j-spring-boot2/3's @ConfigurationProperties classes, e.g.
 * RetryProperties `resilience4j.retry`, resilience4j/resilience4j 2.x).
 */
export const RESILIENCE4J_MODULES = ['retry', 'circuitbreaker', 'bulkhead', 'thread-pool-bulkhead', 'timelimiter', 'ratelimiter'] as const;
/** One of {@link RESILIENCE4J_MODULES}. */
export type Resilience4jModule = (typeof RESILIENCE4J_MODULES)[number];

/** The config every instance (and config) not named `default` inherits when it names no baseConfig. */
export const RESILIENCE4J_DEFAULT_CONFIG = 'default';

/** One property of an instance or config: its value and the key it is written under (for messages). */
export interface Resilience4jProperty {
  value: unknown;
  key: string;
}

/** An instance (`instances.<name>`, or the older `backends.<name>`) or a config (`configs.<name>`) of one module. */
export interface Resilience4jBlock {
  module: Resilience4jModule;
  kind: 'instances' | 'configs';
  name: string;
  /** By property name as written after the block's name (`max-attempts`, `maxAttempts`). */
  props: Map<string, Resilience4jProperty>;
}

/** Spring's relaxed binding of a name: `thread-pool-bulkhead`, `threadPoolBulkhead` and `thread_pool_bulkhead` are one. */
export const relaxed = (name: string) => name.replace(/[-_]/g, '').toLowerCase();

/**
 * The instances and configs of every module in a Spring configuration's dotted keys
 * (`resilience4j.<module>.<instances|backends|configs>.<name>.<property>`, or the name alone with
 * an empty value; the segments before the name by Spring's relaxed binding, the name as written). Other keys (`spring.*`,
 * `resilience4j.retry.metrics.*`) are left alone.
 */
export function resilience4jBlocks(values: Map<string, SpringValue>): Resilience4jBlock[] {
  const blocks = new Map<string, Resilience4jBlock>();
  for (const key of values.keys()) {
    const parts = key.split('.');
    // `instances: { a: }` (or `{}`) names an instance with nothing of its own: four segments, no property.
    if (parts.length < 4 || relaxed(parts[0] as string) !== 'resilience4j') continue;
    const value = values.get(key)?.value;
    if (parts.length === 4 && !(value === null || value === '' || (isObject(value) && Object.keys(value).length === 0))) continue;
    const module = RESILIENCE4J_MODULES.find((m) => relaxed(m) === relaxed(parts[1] as string));
    const kindSeg = relaxed(parts[2] as string);
    if (module === undefined || !['instances', 'backends', 'configs'].includes(kindSeg)) continue;
    const kind = kindSeg === 'configs' ? 'configs' : 'instances';
    const name = parts[3] as string;
    const id = `${module}.${kind}.${name}`;
    const block = blocks.get(id) ?? { module, kind, name, props: new Map() };
    blocks.set(id, block);
    if (parts.length > 4) block.props.set(parts.slice(4).join('.'), { value, key });
  }
  return [...blocks.values()];
}

/** Record a problem at `key` unless the same problem is recorded already (a config's problem is met from each instance that inherits it). */
function failOnce(r: FieldReader, key: string, text: string): void {
  const before = r.problems.length;
  r.fail([key], text);
  if (r.problems.indexOf(r.problems[before] as string) < before) r.problems.pop();
}

/** A block with what it inherits: its own properties over its base configs', and the chain of bases (nearest first). */
export interface ResolvedBlock {
  /** By relaxed property name (`maxattempts`). */
  props: Map<string, Resilience4jProperty>;
  bases: string[];
}

/**
 * A block's properties with those it inherits, as resilience4j's Common*ConfigurationProperties
 * resolve them (resilience4j/resilience4j, resilience4j-framework-common/.../retry/configuration/
 * CommonRetryConfigurationProperties.java `createRetryConfig`, commit 18052ce, 2.x; the other
 * modules do the same): a block naming `baseConfig` inherits that config of its module (and what
 * that config inherits in turn), its own properties winning; a block naming none inherits
 * `configs.default` unless it is itself named `default`. A baseConfig naming no config is a problem
 * (resilience4j throws ConfigurationNotFoundException), and so is a cycle of baseConfigs
 * (resilience4j recurses without end).
 */
export function resolveBlock(block: Resilience4jBlock, blocks: Resilience4jBlock[], r: FieldReader): ResolvedBlock {
  const configs = blocks.filter((b) => b.module === block.module && b.kind === 'configs');
  const chain: Resilience4jBlock[] = [block];
  const bases: string[] = [];
  for (let at = block; ; ) {
    const named = [...at.props].find(([k]) => relaxed(k) === 'baseconfig')?.[1];
    const baseName = typeof named?.value === 'string' && named.value.trim() !== '' ? named.value.trim() : undefined;
    if (named !== undefined && baseName === undefined) {
      r.fail([named.key], `must name a config under resilience4j.${block.module}.configs (got ${r.quote(named.value)})`);
      break;
    }
    let base: Resilience4jBlock | undefined;
    if (baseName !== undefined && named !== undefined) {
      base = configs.find((c) => c.name === baseName);
      if (base === undefined) {
        failOnce(r, named.key, `names the base config ${JSON.stringify(baseName)}, which resilience4j.${block.module}.configs does not have (configs: ${listNames(configs.map((c) => c.name)) || 'none'})`);
        break;
      }
    } else if (at.name !== RESILIENCE4J_DEFAULT_CONFIG) base = configs.find((c) => c.name === RESILIENCE4J_DEFAULT_CONFIG);
    if (base === undefined) break;
    if (chain.includes(base)) {
      // Told from its first config by name, at that config's baseConfig (so once, however many instances lead into it).
      const cycle = chain.slice(chain.indexOf(base));
      const first = cycle.reduce((a, b) => (b.name < a.name ? b : a));
      const ordered = [...cycle.slice(cycle.indexOf(first)), ...cycle.slice(0, cycle.indexOf(first)), first];
      const key = [...first.props].find(([k]) => relaxed(k) === 'baseconfig')?.[1].key ?? '';
      failOnce(r, key, `makes a cycle of base configs (${ordered.map((b) => `configs.${b.name}`).join(' -> ')}): resilience4j cannot resolve it`);
      break;
    }
    chain.push(base);
    bases.push(base.name);
    at = base;
  }
  const props = new Map<string, Resilience4jProperty>();
  for (const b of chain.reverse()) for (const [k, v] of b.props) props.set(relaxed(k), v);
  return { props, bases };
}
